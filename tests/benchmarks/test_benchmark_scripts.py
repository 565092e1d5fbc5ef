"""Every benchmark script still runs against the current API, at a size that takes seconds.

The figures the README quotes come from full runs of these scripts; nothing here checks a
timing. What these catch is drift: a benchmark broken by an API change (an argument the
evaluator now refuses) is otherwise found only when someone reruns it for the README. Each
script writes into a temporary ``--results-dir``, never into ``benchmarks/results``. The two
comparisons whose other side is not installed here (lm-eval, reasoning-gym) run their tomgym
side alone.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run_script(name: str, *args: str) -> None:
    """Run benchmarks/NAME.py with ARGS in a fresh interpreter; fail with its output."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=BENCHMARKS.parent,
    )
    assert done.returncode == 0, f"{name}.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


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
    assert {row["env_id"] for row in result["rows"]} >= {"ToM-ToMi-v0"}


def test_trace_fidelity(tmp_path: Path) -> None:
    run_script(
        "trace_fidelity",
        *("--n", "2", "--max-new-tokens", "4", "--agents", "oracle", "smollm2"),
        *("--results-dir", str(tmp_path)),
    )
    assert written(tmp_path, "trace_fidelity")


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
        "ToM-HiToM-O4-v0", "ToM-HiToM-O4-Debiased-v0", "ToM-HiToM-O4-Debiased-v1"
    ]
    for row in rows:
        assert abs(sum(row["chapters_share"].values()) - 1) < 1e-6
        assert 0 <= row["deception_share"] <= 1
