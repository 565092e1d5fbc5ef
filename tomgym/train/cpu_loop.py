"""A small one-machine REINFORCE++ loop: sample k responses per env prompt, score them with the env,
whiten the rewards over the batch, take a token-level policy-gradient step (no RL library)."""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tomgym.agents.chat import chat_prompt, episode_from_env, prompt_token_ids
from tomgym.agents.hf import HFAgent, make_hf_agent, require_hf
from tomgym.train.labels import decode_label, encode_label, env_for, score_label


@dataclass
class LoopConfig:
    """What to train on and how; the defaults fit a laptop CPU and SmolLM2-135M."""

    env_id: str = "ToM-HiToM-O1-v0"
    env_kwargs: dict[str, Any] = field(default_factory=lambda: {"length": 1})
    split: str = "train"
    model: str = "smollm2"
    steps: int = 4
    prompts_per_step: int = 2
    samples_per_prompt: int = 4
    max_new_tokens: int = 48
    temperature: float = 1.0
    top_p: float = 1.0
    lr: float = 1e-5
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    baseline: str = "none"  # "none": REINFORCE++; "group": REINFORCE++-baseline
    kl_coef: float = 0.0  # > 0 keeps a frozen reference copy (k3 KL in the loss)
    micro_batch: int = 4
    seed: int = 0
    device: str | None = None

    def __post_init__(self) -> None:
        if self.baseline not in ("none", "group"):
            raise ValueError(f"baseline must be 'none' or 'group', got {self.baseline!r}")
        if min(self.steps, self.prompts_per_step, self.samples_per_prompt, self.micro_batch) < 1:
            raise ValueError(
                "steps, prompts_per_step, samples_per_prompt, micro_batch must be >= 1"
            )


@dataclass
class Sample:
    """One sampled response: token ids, text, label, and the env's verdict once scored."""

    label: str
    group: int
    prompt_ids: list[int]
    completion_ids: list[int]
    text: str
    reward: float = 0.0
    format_ok: bool = False
    correct: bool = False


@dataclass
class StepLog:
    step: int
    mean_reward: float
    format_rate: float
    accuracy: float
    mean_response_tokens: float
    loss: float
    kl: float
    grad_norm: float
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def whiten(rewards: Sequence[float], groups: Sequence[int] | None = None) -> list[float]:
    """REINFORCE++ advantages: optional group-mean baseline, then batch whitening.

    A batch whose rewards are all equal has no signal: every advantage is 0.
    """
    values = list(map(float, rewards))
    if groups is not None:
        sums: dict[int, list[float]] = {}
        for g, r in zip(groups, values, strict=False):
            sums.setdefault(g, []).append(r)
        values = [r - sum(sums[g]) / len(sums[g]) for g, r in zip(groups, values, strict=False)]
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return [0.0 if std < 1e-8 else (v - mean) / (std + 1e-8) for v in values]


class Trainer:
    """Policy (an :class:`HFAgent`'s model, trained in place), optimiser, rollout and update."""

    def __init__(self, config: LoopConfig, agent: HFAgent | None = None) -> None:
        torch, _ = require_hf()
        self.config = config
        self.agent = agent or make_hf_agent(
            config.model, {"device": config.device, "dtype": "float32", "seed": config.seed}
        )
        self.model, self.tokenizer = self.agent.model, self.agent.tokenizer
        self.device = self.model.device
        # Dropout stays off (eval mode): sampling and the update then see the same policy.
        self.model.eval()
        self.reference = None
        if config.kl_coef > 0:
            self.reference = copy.deepcopy(self.model).requires_grad_(False)
        self.optimizer = torch.optim.AdamW(
            [p for p in self.model.parameters() if p.requires_grad],
            lr=config.lr,
            weight_decay=config.weight_decay,
        )
        self.generator = torch.Generator().manual_seed(config.seed)
        self.step_number = 0
        self.history: list[StepLog] = []

    # --- rollout -------------------------------------------------------------------------
    def labels_for_step(self) -> list[str]:
        """Fresh item indices each step (seeded): a procedural env never repeats an item."""
        torch, _ = require_hf()
        env = env_for(decode_label(self._label(0)))
        limit = env.size or 10_000_000
        picks = torch.randint(0, limit, (self.config.prompts_per_step,), generator=self.generator)
        return [self._label(int(i)) for i in picks]

    def _label(self, index: int) -> str:
        kwargs = {"split": self.config.split, **self.config.env_kwargs}
        return encode_label(self.config.env_id, index, **kwargs)

    def prompt_ids(self, label: str) -> list[int]:
        parsed = decode_label(label)
        env = env_for(parsed)
        _, info = env.reset(options={"index": parsed.index})
        return prompt_token_ids(
            self.tokenizer, chat_prompt(self.tokenizer, episode_from_env(env, info))
        )

    def rollout(self, labels: Sequence[str]) -> list[Sample]:
        """``samples_per_prompt`` sampled responses to each labelled prompt."""
        torch, _ = require_hf()
        k = self.config.samples_per_prompt
        prompts = [self.prompt_ids(label) for label in labels]
        rows = [p for p in prompts for _ in range(k)]
        batch = self.tokenizer.pad({"input_ids": rows}, padding=True, return_tensors="pt").to(
            self.device
        )
        torch.manual_seed(self.config.seed + 1000 * self.step_number)
        with torch.inference_mode():
            output = self.model.generate(
                **batch,
                do_sample=True,
                temperature=self.config.temperature,
                top_p=self.config.top_p,
                top_k=None,
                max_new_tokens=self.config.max_new_tokens,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        width = batch["input_ids"].shape[1]
        stops = set(self.agent._stop_ids())
        samples = []
        for row, ids in enumerate(output[:, width:].tolist()):
            # Keep the stop token: the policy learns when to stop as well as what to say.
            length = next((i + 1 for i, t in enumerate(ids) if t in stops), len(ids))
            completion = ids[:length]
            samples.append(
                Sample(
                    label=labels[row // k],
                    group=row // k,
                    prompt_ids=rows[row],
                    completion_ids=completion,
                    text=self.tokenizer.decode(completion, skip_special_tokens=True),
                )
            )
        return samples

    @staticmethod
    def score(samples: Sequence[Sample]) -> None:
        for sample in samples:
            verdict, _ = score_label(sample.label, sample.text)
            sample.reward, sample.format_ok, sample.correct = (
                float(verdict.reward),
                verdict.format_ok,
                verdict.correct,
            )

    # --- update --------------------------------------------------------------------------
    def _token_logprobs(self, model: Any, samples: Sequence[Sample]) -> tuple[Any, Any]:
        """Per-token log-probabilities of the completions, (batch, width), and their mask."""
        torch, _ = require_hf()
        prompt_width = max(len(s.prompt_ids) for s in samples)
        completion_width = max(len(s.completion_ids) for s in samples)
        pad = self.tokenizer.pad_token_id
        ids, mask, targets, target_mask = [], [], [], []
        for s in samples:
            left = prompt_width - len(s.prompt_ids)
            right = completion_width - len(s.completion_ids)
            ids.append([pad] * left + s.prompt_ids + s.completion_ids + [pad] * right)
            mask.append(
                [0] * left + [1] * (len(s.prompt_ids) + len(s.completion_ids)) + [0] * right
            )
            targets.append(s.completion_ids + [pad] * right)
            target_mask.append([1] * len(s.completion_ids) + [0] * right)
        input_ids = torch.tensor(ids, device=self.device)
        attention = torch.tensor(mask, device=self.device)
        # Left padding shifts positions; generate() numbers them from the first real token.
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        logits = (
            model(
                input_ids=input_ids,
                attention_mask=attention,
                position_ids=positions,
                logits_to_keep=completion_width + 1,
            )
            .logits[:, :-1]
            .float()
        )
        target = torch.tensor(targets, device=self.device)
        logprobs = torch.log_softmax(logits / self.config.temperature, dim=-1)
        picked = logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return picked, torch.tensor(target_mask, device=self.device, dtype=picked.dtype)

    def update(self, samples: Sequence[Sample]) -> tuple[float, float, float]:
        """One AdamW step on ``sum(-A * logprob) / tokens``; (loss, mean KL, grad norm)."""
        torch, _ = require_hf()
        groups = [s.group for s in samples] if self.config.baseline == "group" else None
        advantages = whiten([s.reward for s in samples], groups)
        if self.reference is None and not any(advantages):
            return 0.0, 0.0, 0.0  # equal rewards, no KL term: the gradient is zero, skip the pass
        total_tokens = sum(len(s.completion_ids) for s in samples)
        self.optimizer.zero_grad(set_to_none=True)
        loss_sum, kl_sum = 0.0, 0.0
        size = self.config.micro_batch
        for start in range(0, len(samples), size):
            chunk = samples[start : start + size]
            logprobs, mask = self._token_logprobs(self.model, chunk)
            adv = torch.tensor(advantages[start : start + size], device=self.device)
            loss = -(adv.unsqueeze(-1) * logprobs * mask).sum() / total_tokens
            if self.reference is not None:
                with torch.no_grad():
                    ref, _ = self._token_logprobs(self.reference, chunk)
                delta = ref - logprobs
                kl = ((delta.exp() - delta - 1) * mask).sum() / total_tokens  # k3 estimator
                loss = loss + self.config.kl_coef * kl
                kl_sum += float(kl.detach())
            loss.backward()
            loss_sum += float(loss.detach())
        grad_norm = torch.nn.utils.clip_grad_norm_(
            self.model.parameters(), self.config.max_grad_norm
        )
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss_sum, kl_sum, float(grad_norm)

    def step(self, samples: Sequence[Sample] | None = None) -> StepLog:
        """Roll out (unless ``samples`` are given, then only scored), update, log."""
        start = time.perf_counter()
        if samples is None:
            samples = self.rollout(self.labels_for_step())
        self.score(samples)
        loss, kl, grad_norm = self.update(samples)
        n = len(samples)
        log = StepLog(
            step=self.step_number,
            mean_reward=sum(s.reward for s in samples) / n,
            format_rate=sum(s.format_ok for s in samples) / n,
            accuracy=sum(s.correct for s in samples) / n,
            mean_response_tokens=sum(len(s.completion_ids) for s in samples) / n,
            loss=loss,
            kl=kl,
            grad_norm=grad_norm,
            seconds=time.perf_counter() - start,
        )
        self.step_number += 1
        self.history.append(log)
        return log

    def train(self, on_step: Callable[[StepLog], None] | None = None) -> list[StepLog]:
        for _ in range(self.config.steps):
            log = self.step()
            if on_step is not None:
                on_step(log)
        return self.history

    def sample_from_text(self, label: str, text: str, group: int = 0) -> Sample:
        """A sample whose completion is ``text`` (tokenised, end-of-turn added): for tests and
        off-policy demonstrations."""
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        ids.append(self.agent._stop_ids()[0])
        return Sample(label, group, self.prompt_ids(label), ids, text)
