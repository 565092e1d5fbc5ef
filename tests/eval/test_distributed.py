from __future__ import annotations

import json
from pathlib import Path

import pytest

from tomgym.eval.runner import evaluate

ENVS = ["ToM-HiToM-O1-v0", "ToM-HiToM-O4-v0"]


def comparable(directory: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in (directory / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("seconds")
        row.pop("run_id")  # drawn per directory
    return rows


@pytest.mark.slow  # a local ray.init takes 15-20 s
def test_ray_workers_write_the_single_process_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    ray = pytest.importorskip("ray", reason="ray is optional (pip install 'tomgym[train]')")
    pytest.importorskip("tomgym.agents.baselines")
    # --workers without --ray-address starts a Ray of its own: it joined whatever cluster ran
    # here (`ray start --head`, or RAY_ADDRESS), which refused its num_cpus with a traceback
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    single, sharded = tmp_path / "single", tmp_path / "sharded"
    evaluate("heuristic:reality", ENVS, n=6, out=single, batch_size=2, quiet=True)
    try:
        evaluate("heuristic:reality", ENVS, n=6, out=sharded, batch_size=2, workers=2, quiet=True)
    finally:
        ray.shutdown()
    assert comparable(sharded) == comparable(single)
    assert "Started a local Ray instance" not in capfd.readouterr().err  # --quiet is quiet
    assert json.loads((sharded / "summary.json").read_text()) == json.loads(
        (single / "summary.json").read_text()
    )
    metadata = json.loads((sharded / "metadata.json").read_text())
    assert metadata["agent_description"]["spec"] == "heuristic:reality"


def test_missing_ray_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RuntimeError, match=r"pip install 'tomgym\[train\]'"):
        evaluate("random", ENVS[:1], n=2, out=tmp_path, workers=2, quiet=True)


@pytest.mark.slow  # a local ray.init takes 15-20 s
def test_an_unreachable_server_stops_ray_workers_with_its_own_error(tmp_path: Path) -> None:
    """Review: the user saw Ray's wrapper (ray::AgentWorker.run() ... a traceback) with the
    reason on its last line; the workers' own error now stops the run."""
    ray = pytest.importorskip("ray", reason="ray is optional (pip install 'tomgym[train]')")
    from tomgym.agents.openai_api import ServerUnreachableError

    options = {"max_retries": 0, "timeout": 2.0}
    try:
        with pytest.raises(ServerUnreachableError, match="nothing listens at http://127.0.0.1:9"):
            evaluate("openai:m@http://127.0.0.1:9/v1", ENVS[:1], n=4, out=tmp_path, batch_size=2,
                     workers=2, agent_options=options, quiet=True)  # fmt: skip
    finally:
        ray.shutdown()
    assert json.loads((tmp_path / "summary.json").read_text())["n_items"] == 0


def test_what_would_fail_in_a_worker_fails_first_in_one_line(tmp_path: Path) -> None:
    """Ray audit: a missing local model or a bad option of a rule-based agent failed inside the
    actors as a 50-line ActorDiedError (exit 1), and an address where nothing listens was
    retried without end, deaf to Ctrl-C; each left metadata behind. No Ray starts here."""
    pytest.importorskip("ray", reason="ray is optional (pip install 'tomgym[train]')")
    out = tmp_path / "run"
    with pytest.raises(FileNotFoundError, match="no model directory at"):
        evaluate("hf:/no/such/model", ENVS[:1], n=4, out=out, workers=2, quiet=True)
    with pytest.raises(ValueError, match="invalid literal"):
        evaluate("heuristic:majority", ENVS[:1], n=4, out=out, workers=2, quiet=True,
                 agent_options={"fit_items": "x"})  # fmt: skip
    with pytest.raises(RuntimeError, match="--ray-address 127.0.0.1:1: nothing answers there"):
        evaluate("random", ENVS[:1], n=4, out=out, ray_address="127.0.0.1:1", quiet=True)
    assert not out.exists()


def test_a_clusters_workers_get_the_drivers_data_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray audit: workers of a cluster started without TOMGYM_DATA looked in the default cache
    and the error told the user to set what was set."""
    from tomgym.eval.distributed import worker_env

    monkeypatch.setenv("TOMGYM_DATA", "/data/tom")
    monkeypatch.delenv("TOMGYM_CACHE", raising=False)
    assert worker_env()["TOMGYM_DATA"] == "/data/tom" and "TOMGYM_CACHE" not in worker_env()


def test_ray_workers_are_checked_against_the_runs_precision(tmp_path: Path) -> None:
    """Ray audit: a run made in bfloat16 on a GPU and resumed with --workers on a CPU went on
    in float32 (one process refuses it), and the record said float32 afterwards. A tiny real
    Llama is the model."""
    ray = pytest.importorskip("ray", reason="ray is optional (pip install 'tomgym[train]')")
    pytest.importorskip("torch")
    from tests.train.helpers import tiny_llama
    from tomgym.eval.resume import RunConflictError

    agent = f"hf:{tiny_llama(tmp_path / 'model')}"
    out = tmp_path / "run"
    evaluate(agent, ENVS[:1], n=1, out=out, max_new_tokens=4, quiet=True)
    metadata = json.loads((out / "metadata.json").read_text())
    metadata["agent_description"].update(dtype="bfloat16", device="cuda")  # as a GPU records
    (out / "metadata.json").write_text(json.dumps(metadata))
    try:
        with pytest.raises(RunConflictError, match="model dtype: float32 here"):
            evaluate(agent, ENVS[:1], n=3, out=out, max_new_tokens=4, workers=2, quiet=True)
    finally:
        ray.shutdown()
    assert json.loads((out / "metadata.json").read_text())["agent_description"]["dtype"] == (
        "bfloat16"
    )
    assert len((out / "results.jsonl").read_text().splitlines()) == 1  # nothing mixed in


def test_workers_beyond_the_cpus_of_a_ray_started_before_do_not_wait_forever(
    tmp_path: Path,
) -> None:
    """Ray audit: from Python, with Ray already started on 1 CPU, workers=3 made actors that
    could never be placed, and the run waited forever after 7 of 8 records."""
    ray = pytest.importorskip("ray", reason="ray is optional (pip install 'tomgym[train]')")
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        evaluate("random", ENVS[:1], n=4, out=tmp_path, batch_size=1, workers=3, quiet=True)
    finally:
        ray.shutdown()
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 4
