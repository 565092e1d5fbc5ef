"""GRPO with TRL on a tomgym env: prompts from `tom_dataset`, rewards from the env's own step.

python examples/trl_grpo.py                    # bundled SmolLM2-135M, 4 CPU steps (about
                                               # a minute on 2 cores)
python examples/trl_grpo.py --model Qwen/Qwen2.5-0.5B-Instruct --env ToM-HiToM-v0 \
    --reward rlvr --steps 200 --tokens 512

The defaults suit the bundled 135M model: ToMi's short stories, and the `lenient` reward, which
judges an untagged answer whole. Under `rlvr` the tiny model never writes the tags, every
completion of a group earns 0, and GRPO makes no update at all.
"""

from __future__ import annotations

import argparse
import math

from trl import GRPOConfig, GRPOTrainer

import tomgym
from tomgym.train.commands import resolve_model_path
from tomgym.train.trl import tom_dataset, tom_reward_funcs
from tomgym.train.trl_backend import device_settings

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="smollm2", help="'smollm2' (bundled), hub ID or path")
parser.add_argument("--env", default="ToM-ToMi-v0", help="any trainable env ID")
parser.add_argument(
    "--reward",
    default="lenient",
    choices=sorted(tomgym.REWARD_PRESETS),
    help="reward preset (default lenient: a learning signal for models too small for the tags)",
)
parser.add_argument("--n", type=int, default=64, help="training prompts")
parser.add_argument("--steps", type=int, default=4)
parser.add_argument("--tokens", type=int, default=32, help="max completion tokens")
parser.add_argument("--out", default="runs/trl-grpo")
parser.add_argument(
    "--allow-eval-only",
    action="store_true",
    help="train on an env registered eval-only (OpenToM, FANToM) where its terms permit it",
)
args = parser.parse_args()

# Conversational `prompt` messages plus a `label` column (env ID, item index, env kwargs):
# TRL passes the label to the reward functions, which rebuild the item and call env.step.
# One-chapter stories keep CPU prompts short; only generated Hi-ToM envs take a length.
spec = tomgym.get_spec(args.env)
short = {"length": 1} if spec.family == "hitom" and spec.procedural else {}
dataset = tom_dataset(
    args.env,
    split="train",
    n=args.n,
    allow_eval_only=args.allow_eval_only,
    reward=args.reward,  # goes into every label: the reward functions score with it
    **short,
)

config = GRPOConfig(
    output_dir=args.out,
    max_steps=args.steps,
    per_device_train_batch_size=4,  # 2 prompts x 2 generations per step
    num_generations=2,
    max_completion_length=args.tokens,
    temperature=1.0,
    learning_rate=1e-6,
    scale_rewards="batch",  # advantages scaled over the batch (REINFORCE++-like)
    beta=0.0,  # no KL term: no reference model to hold in memory
    logging_steps=1,
    report_to=[],
    # use_cpu/bf16 from what the machine has: GRPOConfig's bf16 default fails without a GPU.
    **device_settings(),
)
trainer = GRPOTrainer(
    model=resolve_model_path(args.model),
    # Format part, answer part and any other part: TRL adds them (= the env reward) and logs
    # each as rewards/<name>/mean; tom/format_rate and tom/accuracy are logged too.
    reward_funcs=tom_reward_funcs(),
    args=config,
    train_dataset=dataset,
)
trainer.train()
trainer.save_model(f"{args.out}/final")

# GRPO learns only from groups whose completions earned different rewards: a step whose groups
# were all equal has zero advantages and leaves the weights as they were. Say how many moved.
logged = [entry for entry in trainer.state.log_history if "grad_norm" in entry]
moved = sum(1 for entry in logged if math.isfinite(entry["grad_norm"]) and entry["grad_norm"] > 0)
rewards = ", ".join(f"{entry.get('reward', float('nan')):.2f}" for entry in logged)
print(f"mean reward per step: {rewards}")
print(f"{moved} of {len(logged)} steps changed the weights (others: equal rewards in each group)")
