"""Every benchmark script still runs against the current API, at a size that takes seconds.

The figures the README quotes come from full runs of these scripts; nothing here checks a
timing. What these catch is drift: a benchmark broken by an API change (an argument the
evaluator now refuses) is otherwise found only when someone reruns it for the README. Each
script writes into a temporary ``--results-dir``, never into ``benchmarks/results``. The two
comparisons whose other side is not installed here (lm-eval, reasoning-gym) run their tomgym
side alone.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run_script(name: str, *args: str) -> None:
    """Run benchmarks/NAME.py with ARGS in a fresh interpreter; fail with its output."""
    done = launch(name, *args)
    assert done.returncode == 0, f"{name}.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def launch(name: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """benchmarks/NAME.py with ARGS (and ENV added to the environment), run to its end."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=BENCHMARKS.parent,
        env={**os.environ, **env},
    )


def written(results: Path, name: str) -> dict[str, Any]:
    """The JSON the script wrote (its Markdown beside it)."""
    assert (results / f"{name}.md").is_file(), f"{name}.md was not written"
    data: dict[str, Any] = json.loads((results / f"{name}.json").read_text())
    return data


def import_benchmark(name: str) -> Any:
    """benchmarks/NAME.py as a module (its sibling imports resolve from benchmarks/)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_env_throughput(tmp_path: Path) -> None:
    run_script(
        "env_throughput", "--episodes", "4", "--repeats", "1", "--results-dir", str(tmp_path)
    )
    assert written(tmp_path, "env_throughput")


def test_vector_envs(tmp_path: Path) -> None:
    run_script(
        "vector_envs",
        *("--items", "4", "--repeats", "1", "--num-envs", "1", "2"),
        *("--results-dir", str(tmp_path)),
    )
    assert written(tmp_path, "vector_envs")


def test_verifier_fuzz_credits_nothing_but_the_gold(tmp_path: Path) -> None:
    run_script(
        "verifier_fuzz", "--responses", "300", "--repeats", "1", "--results-dir", str(tmp_path)
    )
    result = written(tmp_path, "verifier_fuzz")
    assert result["fuzz"] and result["correct_without_naming_gold_only"] == 0
    assert all(row["ratio_4MB_over_1MB"] > 0 for row in result["linearity"])


def test_shortcut_audit(tmp_path: Path, data_root: Path) -> None:
    run_script(
        "shortcut_audit",
        *("--n", "12", "--n-train", "24", "--envs", "ToM-ToMi-v0", "ToM-HiToM-Original-O1-v0"),
        *("--results-dir", str(tmp_path)),
    )
    result = written(tmp_path, "shortcut_audit")
    assert not result["skipped"]
    assert "--envs ToM-ToMi-v0 ToM-HiToM-Original-O1-v0" in result["command"]
    assert {row["env_id"] for row in result["rows"]} >= {"ToM-ToMi-v0"}


def test_trace_fidelity(tmp_path: Path) -> None:
    run_script(
        "trace_fidelity",
        *("--n", "2", "--max-new-tokens", "4", "--agents", "oracle", "smollm2"),
        *("--results-dir", str(tmp_path)),
    )
    command = written(tmp_path, "trace_fidelity")["command"]
    assert command == (
        "python benchmarks/trace_fidelity.py --env ToM-HiToM-O2-v0 --n 2 --max-new-tokens 4 "
        "--agents oracle smollm2"
    )


def test_eval_throughput(tmp_path: Path) -> None:
    run_script(
        "eval_throughput",
        *("--n", "2", "--batch", "2", "--tokens", "4", "--results-dir", str(tmp_path)),
    )
    assert written(tmp_path, "eval_throughput")


def test_generation_backends(tmp_path: Path) -> None:
    run_script(
        "generation_backends",
        *("--prompts", "2", "--max-new-tokens", "4", "--batch-size", "2", "--repeats", "1"),
        *("--threads", "1", "--results-dir", str(tmp_path)),
    )
    rows = written(tmp_path, "generation_backends")["rows"]
    # the speed-up is a quotient of the recorded seconds, not of the rounded items/s
    assert rows[1]["speed_over_one_at_a_time"] == round(rows[0]["seconds"] / rows[1]["seconds"], 2)


def test_batch_work_on_the_recorded_comparison(tmp_path: Path, data_root: Path) -> None:
    run_script(
        "batch_work",
        *("--results", str(BENCHMARKS / "results" / "vs_lm_eval.json")),
        *("--results-dir", str(tmp_path)),
    )
    assert written(tmp_path, "batch_work")


def test_train_cpu(tmp_path: Path) -> None:
    run_script(
        "train_cpu",
        *("--env", "ToM-ToMi-v0", "--held-out", "ToM-ToMi-Paraphrase-v0", "--length", "0"),
        *("--steps", "1", "--prompts", "1", "--k", "2", "--tokens", "4"),
        *("--eval-n", "1", "--eval-tokens", "4", "--threads", "1", "--out", str(tmp_path)),
    )
    assert list(tmp_path.glob("train_cpu*.json"))


def test_vs_lm_eval_tomgym_side(data_root: Path) -> None:
    """The side of the lm-eval comparison that tomgym runs (lm-eval is a benchmark-only
    install): the same call into ``tomgym.eval.evaluate`` the full run makes."""
    from tomgym.agents.hf import smollm2_path

    bench = import_benchmark("vs_lm_eval")
    result = bench.run_tomgym(str(smollm2_path()[0]), n=1, max_new=2, batch_size=1, threads=1)
    for env_id in bench.ENVS:
        assert set(result["per_env"][env_id]["text"]) == {0}


def test_vs_reasoning_gym_tomgym_side() -> None:
    """Every generated env's episode as the cost comparison times it (reasoning-gym itself is
    a benchmark-only install, imported only where its side runs): the gold response earns
    the full reward."""
    bench = import_benchmark("vs_reasoning_gym")
    for env_id in bench.procedural_env_ids(None):
        assert bench.tomgym_seconds_per_item(env_id, 2, 0) > 0


def test_structure_overlap(tmp_path: Path) -> None:
    run_script("structure_overlap", "--test", "20", "--train", "50", "--results-dir", str(tmp_path))
    rows = written(tmp_path, "structure_overlap")["rows"]
    assert {row["test_env"] for row in rows} >= {"ToM-ToMi-v0", "ToM-ToMi-NewVocab-v0"}
    # the same story with other words is one structure; another story is another
    from tomgym.items import ToMItem
    from tomgym.world.vocab import load_vocab

    module = import_benchmark("structure_overlap")
    roles = module.role_of_words()
    train, test = load_vocab("train"), load_vocab("test")

    def item(vocab: Any, verb: str) -> ToMItem:
        name, room = vocab.names[0], vocab.rooms[0]
        return ToMItem(id="x", story=f"{name} {verb} the {room}.", question=f"Where is {name}?",
                       answer=room, answer_type="text")  # fmt: skip

    assert module.skeleton(item(train, "entered"), roles) == module.skeleton(
        item(test, "entered"), roles
    )
    assert "<N1>" in module.skeleton(item(train, "entered"), roles)
    assert module.skeleton(item(train, "entered"), roles) != module.skeleton(
        item(train, "exited"), roles
    )


def test_story_mix(tmp_path: Path) -> None:
    run_script("story_mix", "--items", "20", "--orders", "4", "--results-dir", str(tmp_path))
    rows = written(tmp_path, "story_mix")["rows"]
    assert [row["env"] for row in rows] == [
        "ToM-HiToM-O4-v0",
        "ToM-HiToM-O4-Debiased-v0",
        "ToM-HiToM-O4-Debiased-v1",
    ]
    for row in rows:
        assert abs(sum(row["chapters_share"].values()) - 1) < 1e-6
        assert 0 <= row["deception_share"] <= 1


# --- refusals: before anything is measured, in one line --------------------------------

BAD_ARGUMENTS = [
    ("env_throughput", ["--episodes", "0"], "argument --episodes: must be a positive integer"),
    ("env_throughput", ["--episodes", "-5"], "argument --episodes: must be a positive integer"),
    ("env_throughput", ["--results-dir", "{file}"], "argument --results-dir: {file} is a file"),
    ("vector_envs", ["--num-envs", "2", "0"], "argument --num-envs: must be a positive"),
    ("vector_envs", ["--env", "ToM-Nope-v0"], "No ToM env is registered as 'ToM-Nope-v0'"),
    ("verifier_fuzz", ["--responses", "0"], "argument --responses: must be a positive"),
    ("verifier_fuzz", ["--results-dir", "{file}/x"], "{file} is a file, so"),
    ("story_mix", ["--orders", "7"], "argument --orders: invalid choice: 7"),
    ("structure_overlap", ["--train", "-3"], "argument --train: must be a positive"),
    ("trace_fidelity", ["--env", "ToM-ToMi-Original-v0"], "the test split is not shipped"),
    ("shortcut_audit", ["--envs", "ToM-Nope-v0"], "Did you mean"),
    ("vs_reasoning_gym", ["--seconds-per-repeat", "0"], "must be a number above 0"),
    ("generation_backends", ["--repeats", "0"], "argument --repeats: must be a positive"),
    ("eval_throughput", ["--results-dir", "{file}"], "argument --results-dir: {file} is a file"),
    ("batch_work", ["--batch-size", "0"], "argument --batch-size: must be a positive"),
    ("train_cpu", ["--out", "{file}"], "argument --out: {file} is a file"),
    ("train_cpu", ["--lr", "0"], "argument --lr: must be a number above 0"),
    ("vs_lm_eval", ["--out", "{file}/run"], "{file} is a file, so"),
]


@pytest.mark.parametrize(("name", "args", "message"), BAD_ARGUMENTS)
def test_bad_arguments_stop_before_any_work(
    tmp_path: Path, name: str, args: list[str], message: str
) -> None:
    """A bad count, results path or env is refused when the arguments are parsed: exit 2, one
    line naming it, no traceback, nothing measured or written."""
    file = tmp_path / "a-file"
    file.write_text("")
    results = tmp_path / "results"
    output = ["--out", str(results)] if name in ("train_cpu", "vs_lm_eval") else []
    output = output or ["--results-dir", str(results)]
    done = launch(name, *output, *(a.format(file=file) for a in args), TOMGYM_DATA="/nonexistent")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines()[-1].startswith(f"{name}.py: error: ")
    assert message.format(file=file) in done.stderr.splitlines()[-1]
    assert not results.exists()


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed")
def test_generation_backends_asked_for_vllm_without_it(tmp_path: Path) -> None:
    done = launch("generation_backends", "--vllm", "--results-dir", str(tmp_path / "results"))
    assert done.returncode == 1 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "scripts/setup_vllm.sh" in done.stderr
    assert not (tmp_path / "results").exists()


def test_shortcut_audit_with_every_env_skipped_says_why(tmp_path: Path) -> None:
    done = launch(
        "shortcut_audit",
        *("--envs", "ToM-ToMi-Original-v0", "--results-dir", str(tmp_path / "results")),
        TOMGYM_DATA=str(tmp_path / "no-data"),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ToM-ToMi-Original-v0: skipped: data missing" in done.stdout
    assert "every env was skipped" in done.stderr
    assert not (tmp_path / "results").exists()


def test_recorded_command_names_every_option() -> None:
    """Every option with its value, defaults included, reads back as the same run; where the
    results go is left out."""
    bench_args = import_benchmark("bench_args")
    parser = argparse.ArgumentParser(prog="demo.py")
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--envs", nargs="+", default=["A-v0", "B v0"])
    parser.add_argument("--agents", nargs="*", default=["oracle"])
    parser.add_argument("--only", nargs="+")
    parser.add_argument("--rate", type=float, default=1e-5)
    parser.add_argument("--fast", action="store_true")
    parser.add_argument("--slow", action="store_true")
    parser.add_argument("--results-dir", default="r")
    parser.add_argument("--out", default="o")
    args = parser.parse_args(["--agents", "--fast", "--results-dir", "elsewhere"])
    command = bench_args.recorded_command(parser, args)
    assert command == (
        "python benchmarks/demo.py --n 3 --envs A-v0 'B v0' --agents --rate 1e-05 --fast"
    )
    again = vars(parser.parse_args(shlex.split(command)[2:]))
    assert {**again, "results_dir": "elsewhere"} == vars(args)


def test_vs_reasoning_gym_says_how_many_of_the_six_it_measured() -> None:
    bench = import_benchmark("vs_reasoning_gym")
    envs = [bench.EnvResult(task="ToM-ToMi-v0", items=5, us_per_item=100.0)]

    def task(name: str) -> Any:
        return bench.TaskResult(name, 5, 10.0, 50.0, 1.0)

    def six_line(names: list[str]) -> list[str]:
        lines = bench.summary_lines(bench.summarise(envs, [task(n) for n in names], {}))
        return [line for line in lines if "six" in line]

    assert six_line(list(bench.SIX_FIRST_MEASURED)) == [
        "reasoning-gym median over the six cheap tasks first measured: 50.0 us/item; ratio 2.0"
    ]
    assert six_line(["chain_sum", "word_sorting", "zebra_puzzles"]) == [
        "reasoning-gym median over 2 of the six cheap tasks first measured (chain_sum, "
        "word_sorting): 50.0 us/item; ratio 2.0"
    ]
    assert six_line(["zebra_puzzles"]) == []


def test_verifier_fuzz_shows_a_figure_not_measured_as_a_dash() -> None:
    bench = import_benchmark("verifier_fuzz")
    row = bench.fuzz("yes_no", 20, 0)  # no response of 1 kB among these
    assert row["largest_response_bytes"] < 1000
    assert row["max_us_per_kB_at_1kB_and_over"] is None
    assert bench.shown(None) == "-" and bench.shown(2.5) == "2.5"
