"""Our OpenRLHF agent file driven by OpenRLHF's own executors, with a stand-in vLLM engine."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
agent_utils = pytest.importorskip("openrlhf.utils.agent")

from openrlhf.datasets.prompts_dataset import preprocess_data  # noqa: E402

import tomgym  # noqa: E402
from tomgym.train import openrlhf_agent  # noqa: E402
from tomgym.train.export import export_dataset  # noqa: E402

ENV = "ToM-HiToM-v0"
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    """A real HF fast tokenizer (byte-level, ChatML template) built here: no download."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    core = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    tok.chat_template = CHATML
    return tok


class StandInEngine:
    """The only fake: answers each request with the next canned response (vLLM's output shape)."""

    def __init__(self, tokenizer: Any, responses: list[str]) -> None:
        self.tokenizer, self.responses, self.requests = tokenizer, list(responses), []

    async def generate(
        self, token_ids: list[int], params: Any, multi_modal_data: Any = None
    ) -> Any:
        self.requests.append((list(token_ids), params))
        text = self.responses.pop(0)
        ids = self.tokenizer(text=text, add_special_tokens=False)["input_ids"]
        out = SimpleNamespace(
            token_ids=ids, text=self.tokenizer.decode(ids), finish_reason="stop", logprobs=None
        )
        return SimpleNamespace(outputs=[out])


def sampling_params() -> Any:
    return SimpleNamespace(max_tokens=256, logprobs=None, temperature=0.6)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    path = tmp_path_factory.mktemp("data") / "train.jsonl"
    export_dataset([ENV], "train", 2, "openrlhf", path, reward="rlvr")
    return [json.loads(line) for line in path.read_text().splitlines()]


def gold(label: str) -> str:
    parsed = json.loads(label)
    env = tomgym.make(parsed["env_id"], **parsed["kwargs"])
    env.reset(options={"index": parsed["index"]})
    assert env.current_item is not None
    return env.current_item.gold_text


def order_of(label: str) -> int:
    parsed = json.loads(label)
    _, info = tomgym.make(parsed["env_id"], **parsed["kwargs"]).reset(
        options={"index": parsed["index"]}
    )
    return int(info["order"])


def run(
    executor: Any, tokenizer: Any, row: dict[str, Any], response: str, label: Any = None
) -> dict[str, Any]:
    prompt, row_label = preprocess_data(
        row,
        input_key="prompt",
        label_key="label",
        apply_chat_template=tokenizer.apply_chat_template,
    )
    engine = StandInEngine(tokenizer, [response + "<|im_end|>"])
    result = asyncio.run(
        executor.execute(
            prompt,
            row_label if label is None else label,
            sampling_params(),
            4096,
            tokenizer,
            engine,
        )
    )
    assert len(engine.requests) == 1
    return result


def test_openrlhf_loads_the_agent_file_like_its_vllm_engine() -> None:
    executor = load_agent_executor(Path(openrlhf_agent.__file__))
    assert isinstance(executor, agent_utils.MultiTurnAgentExecutor)
    assert issubclass(executor.agent_instance_cls, agent_utils.AgentInstanceBase)


def load_agent_executor(path: Path) -> Any:
    """What ``openrlhf.trainer.ray.vllm_engine._load_agent_executor`` does (it imports vLLM)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("agent_module", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert issubclass(module.AgentExecutor, agent_utils.AgentExecutorBase)
    return module.AgentExecutor()


@pytest.mark.parametrize(
    ("kind", "reward", "score", "fmt", "answer", "error"),
    [
        ("right", 1.1, 1.0, 1.0, 1.0, 0.0),
        ("wrong", 0.1, 0.0, 1.0, 0.0, 0.0),
        ("unformatted", 0.0, 0.0, 0.0, 0.0, 0.0),
        ("bad-label", 0.0, 0.0, 0.0, 0.0, 1.0),
    ],
)
def test_multi_turn_executor_scores_through_the_env(
    tokenizer: Any,
    rows: list[dict[str, Any]],
    kind: str,
    reward: float,
    score: float,
    fmt: float,
    answer: float,
    error: float,
) -> None:
    row = rows[0]
    responses = {
        "right": f"<think>she saw it</think><answer>{gold(row['label'])}</answer>",
        "wrong": "<think>hmm</think><answer>the moon</answer>",
        "unformatted": f"I think it is {gold(row['label'])}.",
        "bad-label": f"<think>x</think><answer>{gold(row['label'])}</answer>",
    }
    label = '{"env_id": "ToM-HiToM-v0"' if kind == "bad-label" else None
    result = run(
        load_agent_executor(Path(openrlhf_agent.__file__)), tokenizer, row, responses[kind], label
    )
    assert result["reward"] == pytest.approx(reward)
    assert float(result["scores"]) == score
    logs = result["extra_logs"]
    assert (logs["format"], logs["answer"], logs["error"]) == (fmt, answer, error)
    assert logs["order"] == (-1.0 if kind == "bad-label" else float(order_of(row["label"])))
    ((start, end),) = result["action_ranges"]
    assert end - start > 0 and result["observation_tokens"][:start]
    assert not result["truncated"]


def test_tomrl_reward_minimum_for_a_malformed_sample(
    tokenizer: Any, rows: list[dict[str, Any]]
) -> None:
    row = copy.deepcopy(rows[1])
    parsed = json.loads(row["label"])
    parsed["kwargs"]["reward"] = "tomrl"
    parsed["index"] = -5  # invalid: the label is rejected, the reward spec still known
    result = run(
        openrlhf_agent.AgentExecutor(), tokenizer, row, "<answer>x</answer>", json.dumps(parsed)
    )
    assert result["reward"] == -3.0 and float(result["scores"]) == 0.0
    assert result["extra_logs"]["error"] == 1.0


def test_reset_keeps_the_chat_templated_prompt(tokenizer: Any, rows: list[dict[str, Any]]) -> None:
    prompt, label = preprocess_data(
        rows[0],
        input_key="prompt",
        label_key="label",
        apply_chat_template=tokenizer.apply_chat_template,
    )
    instance = openrlhf_agent.AgentInstance()
    out = asyncio.run(instance.reset({"observation": prompt, "label": label}))
    assert out["observation"] == prompt and prompt.endswith("<|im_start|>assistant\n")
    rebuilt = asyncio.run(instance.reset({"observation": "", "label": label}))
    assert "<answer>" in rebuilt["observation"]


def test_prefill_label_appends_think(tokenizer: Any) -> None:
    from tomgym.train.labels import encode_label

    label = encode_label(ENV, 0, split="train", prefill_think=True)
    out = asyncio.run(openrlhf_agent.AgentInstance().reset({"observation": "P:", "label": label}))
    assert out["observation"] == "P:<think>\n"


def test_single_turn_executor_with_our_reward_file(
    tokenizer: Any, rows: list[dict[str, Any]]
) -> None:
    from tomgym.train import openrlhf_reward

    executor = agent_utils.SingleTurnAgentExecutor(remote_rm_url=openrlhf_reward.__file__)
    row = rows[0]
    right = run(executor, tokenizer, row, f"<think>a</think><answer>{gold(row['label'])}</answer>")
    wrong = run(executor, tokenizer, row, "<think>a</think><answer>the moon</answer>")
    broken = run(executor, tokenizer, row, "<answer>x</answer>", "not json")
    assert right["reward"].tolist() == pytest.approx([1.1])
    assert right["scores"].tolist() == [1.0]
    assert wrong["reward"].tolist() == pytest.approx([0.1])
    assert broken["reward"].tolist() == [0.0] and broken["extra_logs"]["error"].tolist() == [1.0]
