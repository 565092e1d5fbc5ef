"""What a summary counts: failed items, the current plan, incomplete runs; checks made early."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tomgym.agents.base import Response

import tomgym
from tests.eval.helpers import FirstCandidateAgent, FlakyAgent, run_cli
from tomgym.eval import runner
from tomgym.eval.leaderboard import collect, items_label, to_markdown
from tomgym.eval.runner import OutputDirError, evaluate
from tomgym.eval.scoring import AGENT_FAILED
from tomgym.eval.store import ResultsStore, RunFileError
from tomgym.eval.targets import open_env

ENV = "ToM-HiToM-O1-v0"


def item_ids(env_id: str, indices: list[int]) -> set[str]:
    env = tomgym.make(env_id, split="test")
    found = set()
    for index in indices:
        env.reset(options={"index": index})
        assert env.current_item is not None
        found.add(env.current_item.id)
    return found


def test_failed_items_are_left_out_counted_and_retried(tmp_path: Path) -> None:
    flaky = FlakyAgent(failing=item_ids(ENV, [1, 3]))
    first = evaluate(flaky, [ENV], n=5, out=tmp_path, batch_size=2, quiet=True)
    assert (first.n_items, first.failed_items, first.planned_items) == (3, 2, 5)
    assert not first.complete and first.envs[ENV].failed == 2 and first.envs[ENV].n == 3
    # accuracy over the 3 answered items only (the first-candidate answers)
    stored = ResultsStore(tmp_path).load()
    answered = [r for r in stored if not r.failed]
    assert first.accuracy == sum(r.correct for r in answered) / 3
    # a failed record says no response was judged, not that a response had no answer block
    failed = [r for r in stored if r.failed]
    assert [(r.verdict, r.reward, r.reward_parts, r.lenient_correct) for r in failed] == [
        (AGENT_FAILED, 0.0, {}, None)
    ] * 2
    assert all(r.verdict != AGENT_FAILED for r in answered)
    healthy = FirstCandidateAgent()
    second = evaluate(healthy, [ENV], n=5, out=tmp_path, batch_size=2, quiet=True)
    assert len(healthy.seen) == 2  # only the failed items were asked again
    records = ResultsStore(tmp_path).load()
    assert [r.index for r in records] == list(range(5)) and not any(r.failed for r in records)
    assert second.complete and (second.n_items, second.failed_items) == (5, 0)
    again = FirstCandidateAgent()
    evaluate(again, [ENV], n=5, out=tmp_path, quiet=True)
    assert again.seen == []  # a complete run is a no-op


def test_eval_command_exits_1_and_says_how_to_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = item_ids(ENV, [0])
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: FlakyAgent(failing))
    out = str(tmp_path / "run")
    assert run_cli("eval", "--agent", "random", "--env", ENV, "--n", "2", "--out", out) == 1
    captured = capsys.readouterr()
    assert "1 items failed" in captured.err and "rerun" in captured.err
    assert "incomplete: 1 of 2" in captured.out
    board = to_markdown(collect([out]))
    assert "| 1/2 (1 failed) |" in board and "incomplete run" in board
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: FirstCandidateAgent())
    assert run_cli("eval", "--agent", "random", "--env", ENV, "--n", "2", "--out", out) == 0


def test_an_env_whose_every_item_failed_has_no_rates_not_zero_rates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every request failed (a server down): summary.json said format_rate 0.0 and mean_reward
    0.0 for n 0, and the eval table printed format 0.000 where the leaderboard shows '-'."""
    failing = item_ids(ENV, [0, 1])
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: FlakyAgent(failing))
    out = tmp_path / "run"
    assert run_cli("eval", "--agent", "random", "--env", ENV, "--n", "2", "--out", str(out)) == 1
    env = json.loads((out / "summary.json").read_text())["envs"][ENV]
    assert env["n"] == 0 and env["failed"] == 2
    assert env["format_rate"] is env["mean_reward"] is env["reasoning_structure"] is None
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(ENV))
    assert "0.000" not in row and row.split()[5:8] == ["-", "-", "-"]


def test_summary_covers_exactly_the_requested_items(tmp_path: Path) -> None:
    evaluate(FirstCandidateAgent(), [ENV], n=10, out=tmp_path, quiet=True)
    smaller = evaluate(FirstCandidateAgent(), [ENV], n=5, out=tmp_path, quiet=True)
    assert smaller.n_items == 5 and smaller.extra_records == 5 and smaller.complete
    assert len(ResultsStore(tmp_path).load()) == 10  # kept on disk, not counted
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["n"] == 5 and metadata["envs"][0]["n"] == 5
    other = evaluate(FirstCandidateAgent(), ["ToM-HiToM-O2-v0"], n=2, out=tmp_path, quiet=True)
    assert list(other.envs) == ["ToM-HiToM-O2-v0"] and other.extra_records == 10
    stored = json.loads((tmp_path / "metadata.json").read_text())["stored_envs"]
    assert [p["env_id"] for p in stored] == [ENV]
    with pytest.raises(runner.RunConflictError, match="env kwargs"):  # still checked
        evaluate(FirstCandidateAgent(), [ENV], n=2, split="val", out=tmp_path, quiet=True)
    back = FirstCandidateAgent()
    assert evaluate(back, [ENV], n=10, out=tmp_path, quiet=True).n_items == 10
    assert back.seen == []


def test_an_interrupted_rerun_is_flagged_on_the_leaderboard(tmp_path: Path) -> None:
    evaluate(FirstCandidateAgent(), [ENV], n=4, out=tmp_path, batch_size=2, quiet=True)
    with pytest.raises(KeyboardInterrupt):
        evaluate(
            FirstCandidateAgent(interrupt_on_batch=2),
            [ENV],
            n=8,
            out=tmp_path,
            batch_size=2,
            quiet=True,
        )
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    board = collect([tmp_path])
    (row,) = board.rows
    assert (row.n_items, row.planned, row.complete) == (6, 8, False)
    assert items_label(row) == "6/8"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # read-only


def test_a_repeated_env_is_asked_once(tmp_path: Path) -> None:
    agent = FirstCandidateAgent()
    evaluate(agent, [ENV, ENV], n=3, out=tmp_path, quiet=True)
    assert len(agent.seen) == 3
    assert len(json.loads((tmp_path / "metadata.json").read_text())["envs"]) == 1


@pytest.mark.parametrize("n", [0, -3])
def test_n_below_one_is_refused(tmp_path: Path, n: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        evaluate(FirstCandidateAgent(), [ENV], n=n, out=tmp_path, quiet=True)


def no_agent(spec: str, **options: Any) -> Any:
    raise AssertionError("the agent must not be built")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0])
def test_bad_temperature_fails_before_the_agent_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: float
) -> None:
    monkeypatch.setattr(runner, "make_agent", no_agent)
    with pytest.raises(ValueError, match="temperature"):
        evaluate("random", [ENV], n=2, out=tmp_path / "run", temperature=value, quiet=True)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("agent", ["hf:", "smollm2-typo", "hf:/no/such/model/dir"])
def test_a_bad_agent_spec_leaves_no_out_behind(tmp_path: Path, agent: str) -> None:
    """Audit: `--agent hf:` failed with a clear error but left an --out holding only the lock
    file (the spec was read while the run's metadata was made, after the lock)."""
    with pytest.raises((ValueError, KeyError, FileNotFoundError)):
        evaluate(agent, [ENV], n=2, out=tmp_path / "run", quiet=True)
    assert not (tmp_path / "run").exists()
    kept = tmp_path / "kept"
    kept.mkdir()  # a directory the user made is left as it was (with the lock file only)
    with pytest.raises((ValueError, KeyError, FileNotFoundError)):
        evaluate(agent, [ENV], n=2, out=kept, quiet=True)
    assert kept.is_dir()


def test_an_unusable_out_fails_before_the_agent_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "make_agent", no_agent)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OutputDirError, match=f"{blocker} is a file"):
        evaluate("random", [ENV], n=2, out=blocker, quiet=True)
    with pytest.raises(OutputDirError, match="cannot create"):
        evaluate("random", [ENV], n=2, out=blocker / "run", quiet=True)


def test_the_agent_gets_the_batch_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def capture(spec: str, **options: Any) -> FirstCandidateAgent:
        seen.update(options)
        return FirstCandidateAgent()

    monkeypatch.setattr(runner, "make_agent", capture)
    evaluate("random", [ENV], n=2, out=tmp_path, batch_size=12, quiet=True)
    assert seen["batch_size"] == 12


def test_a_corrupt_metadata_file_is_named(tmp_path: Path) -> None:
    evaluate(FirstCandidateAgent(), [ENV], n=2, out=tmp_path, quiet=True)
    (tmp_path / "metadata.json").write_text("{not json")
    with pytest.raises(RunFileError, match=r"metadata\.json is not valid tomgym run metadata"):
        evaluate(FirstCandidateAgent(), [ENV], n=2, out=tmp_path, quiet=True)


def test_an_env_without_the_split_gets_a_held_out_one(capsys: pytest.CaptureFixture[str]) -> None:
    """ToMi's release ships train and val only: evaluated on val, never on its default train."""
    try:
        _, kwargs = open_env("ToM-ToMi-Original-v0", {}, "test")
    except OSError as exc:
        pytest.skip(f"ToMi release not available: {exc}")
    assert kwargs == {"split": "val"}
    assert "held-out split 'val'" in capsys.readouterr().err
    _, kwargs = open_env("ToM-HiToM-O1-v0", {}, "test")
    assert kwargs == {"split": "test"} and not capsys.readouterr().err


def test_a_generated_env_refusing_the_split_gets_a_held_out_one_not_train(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The generated envs refuse a bad split with EnvArgumentError, which is a TypeError too:
    it must read as "not this split" (try val), not as "takes no split" (its default, train)."""
    _, kwargs = open_env("ToM-HiToM-O1-v0", {}, "bogus")
    assert kwargs == {"split": "val"}
    assert "held-out split 'val'" in capsys.readouterr().err


def test_a_summary_written_before_failed_item_accounting_is_rebuilt(tmp_path: Path) -> None:
    """An older tomgym's summary.json counts failed items as wrong answers and knows no plan:
    the leaderboard rebuilds it from the records (read-only) instead of trusting it."""
    evaluate(FlakyAgent(failing=item_ids(ENV, [0, 2])), [ENV], n=3, out=tmp_path, quiet=True)
    path = tmp_path / "summary.json"
    old = json.loads(path.read_text())
    for key in ("planned_items", "failed_items", "complete", "extra_records"):
        old.pop(key, None)
    old["accuracy"], old["n_items"] = 0.0, 3  # as the old code scored the failures
    path.write_text(json.dumps(old))
    (row,) = collect([tmp_path]).rows
    assert row.failed == 2 and row.n_items == 1
    assert json.loads(path.read_text()) == old  # read-only


def test_an_incomplete_run_ranks_below_complete_ones(tmp_path: Path) -> None:
    """Two items scored out of four must not top the board on those two."""
    from tomgym.agents.base import make_agent

    oracle = make_agent("oracle")
    failing = set(item_ids(ENV, [1, 3]))

    class HalfFailingOracle:
        spec, privileged = "half-failing-oracle", False

        def describe(self) -> dict[str, Any]:
            return {"kind": "test"}

        def act(self, episodes: Any) -> list[Response]:
            answers = oracle.act(episodes)
            return [
                Response(text="", failed=True, error="HTTP 503") if e.item_id in failing else r
                for e, r in zip(episodes, answers, strict=True)
            ]

    whole, partial = tmp_path / "whole", tmp_path / "partial"
    evaluate("random", [ENV], n=4, out=whole, quiet=True)
    evaluate(HalfFailingOracle(), [ENV], n=4, out=partial, quiet=True)
    board = collect([whole, partial])
    assert [row.agent for row in board.rows] == ["random", "half-failing-oracle"]
    assert board.rows[1].accuracy == 1.0 and board.rows[1].failed == 2


def test_an_older_directory_resumes_with_the_split_it_was_made_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Older tomgym recorded no split where an env fell back to its default; the same command
    now picks another split, and must resume that run rather than refuse it as different."""
    evaluate(FirstCandidateAgent(), [ENV], n=2, out=tmp_path, split="train", quiet=True)
    path = tmp_path / "metadata.json"
    meta = json.loads(path.read_text())
    meta["envs"][0]["kwargs"] = {}  # as older versions wrote it: the env's own default
    path.write_text(json.dumps(meta))
    summary = evaluate(FirstCandidateAgent(), [ENV], n=3, out=tmp_path, quiet=True)
    assert "resuming with the directory's env arguments {}" in capsys.readouterr().err
    assert summary.complete and json.loads(path.read_text())["envs"][0]["kwargs"] == {}
    with pytest.raises(runner.RunConflictError):  # a split asked for explicitly is never replaced
        evaluate(FirstCandidateAgent(), [ENV], n=3, out=tmp_path, split="val", quiet=True)


def test_an_older_sampled_directory_is_not_finished_with_per_item_seeds(tmp_path: Path) -> None:
    """Older tomgym seeded sampled draws per batch and wrote no seed_scheme: finishing such a
    run would mix two kinds of draws, so it is refused; its finished items still summarise,
    and a greedy run of that age resumes as before."""
    sampled = tmp_path / "sampled"
    evaluate(FirstCandidateAgent(), [ENV], n=2, out=sampled, temperature=0.7, quiet=True)
    path = sampled / "metadata.json"
    meta = json.loads(path.read_text())
    assert meta["seed_scheme"] == "per-item"
    del meta["seed_scheme"]  # as older versions wrote it
    path.write_text(json.dumps(meta))
    with pytest.raises(runner.RunConflictError, match="seeded each batch"):
        evaluate(FirstCandidateAgent(), [ENV], n=3, out=sampled, temperature=0.7, quiet=True)
    summary = evaluate(FirstCandidateAgent(), [ENV], n=2, out=sampled, temperature=0.7, quiet=True)
    assert summary.complete and json.loads(path.read_text())["seed_scheme"] == "per-batch"

    greedy = tmp_path / "greedy"
    evaluate(FirstCandidateAgent(), [ENV], n=2, out=greedy, quiet=True)
    meta = json.loads((greedy / "metadata.json").read_text())
    del meta["seed_scheme"]
    (greedy / "metadata.json").write_text(json.dumps(meta))
    assert evaluate(FirstCandidateAgent(), [ENV], n=3, out=greedy, quiet=True).complete


class TooLongAgent(FlakyAgent):
    """FlakyAgent whose ``too_long`` items come back unanswered, as a served model refuses a
    prompt over its context (the OpenAI agent's Response for HTTP 400 context_length_exceeded;
    a fake for the server, which cannot run in the tests)."""

    def __init__(self, failing: set[str], too_long: set[str]) -> None:
        super().__init__(failing)
        self.too_long = too_long

    def act(self, episodes: Any) -> list[Response]:
        answered = super().act(episodes)
        refused = "prompt too long for the model: maximum context length is 10 tokens"
        return [
            Response(text="", error=refused) if ep.item_id in self.too_long else response
            for ep, response in zip(episodes, answered, strict=True)
        ]


def test_unanswered_items_and_agent_errors_are_counted_and_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A served model whose context is too small answered every item empty: the run looked
    complete at 0% with nothing said; the cause was only in results.jsonl."""
    agent = TooLongAgent(failing=item_ids(ENV, [0]), too_long=item_ids(ENV, [1, 2]))
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: agent)
    out = str(tmp_path / "run")
    assert run_cli("eval", "--agent", "random", "--env", ENV, "--n", "4", "--out", out) == 1
    err = capsys.readouterr().err
    assert "2 items were scored as empty answers" in err and "--max-model-len" in err
    assert "2 x prompt too long for the model" in err and "1 x HTTP 503: try later" in err
    summary = json.loads((Path(out) / "summary.json").read_text())
    assert summary["unanswered_items"] == 2 and summary["failed_items"] == 1
    assert summary["agent_errors"] == {
        "prompt too long for the model: maximum context length is 10 tokens": 2,
        "HTTP 503: try later": 1,
    }
    board = collect([out])
    assert items_label(board.rows[0]) == "3/4 (1 failed) (2 unanswered)"
    assert "could not answer (a prompt longer" in to_markdown(board)
    # the server's context raised: a rerun keeps them unless asked to retry them
    fixed = TooLongAgent(failing=set(), too_long=set())
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: fixed)
    argv = ["eval", "--agent", "random", "--env", ENV, "--n", "4", "--out", out]
    assert run_cli(*argv) == 0
    assert json.loads((Path(out) / "summary.json").read_text())["unanswered_items"] == 2
    assert run_cli(*argv, "--retry-unanswered") == 0
    summary = json.loads((Path(out) / "summary.json").read_text())
    assert summary["unanswered_items"] == 0 and summary["complete"]


def test_the_progress_line_leaves_failed_items_out_of_its_accuracy() -> None:
    import io

    from tomgym.eval.runner import Progress
    from tomgym.eval.store import ResultRecord

    stream = io.StringIO()
    progress = Progress(ENV, 3, stream=stream)
    progress.update(
        [
            ResultRecord(env_id=ENV, index=0, item_id="a", correct=True),
            ResultRecord(env_id=ENV, index=1, item_id="b", correct=False, failed=True),
        ]
    )
    progress.close()
    assert "acc 1.000 failed 1" in stream.getvalue()


def test_the_leaderboard_names_stored_records_a_smaller_plan_leaves_out(tmp_path: Path) -> None:
    """A suite rerun without --n shrank a 1500-item row to 10 with nothing said."""
    evaluate(FirstCandidateAgent(), [ENV], n=8, out=tmp_path, quiet=True)
    evaluate(FirstCandidateAgent(), [ENV], n=3, out=tmp_path, quiet=True)
    board = collect([tmp_path])
    assert board.rows[0].n_items == 3 and board.rows[0].extra_records == 5
    assert "5 stored records outside its current plan" in to_markdown(board)


def test_an_interrupted_rerun_leaves_a_summary_of_its_own_plan(tmp_path: Path) -> None:
    """summary.json kept saying complete, 5/5, while a larger rerun was under way."""
    evaluate(FirstCandidateAgent(), [ENV], n=5, out=tmp_path, quiet=True)
    with pytest.raises(KeyboardInterrupt):
        evaluate(
            FirstCandidateAgent(interrupt_on_batch=2), [ENV], n=20, out=tmp_path,
            batch_size=4, quiet=True,
        )  # fmt: skip
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["planned_items"] == 20 and not summary["complete"]
    assert summary["n_items"] == 9  # the first run's 5 and one batch of 4


def test_an_interrupt_while_the_summary_is_written_leaves_no_stale_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team: a Ctrl-C after the last record, while the final summary was being written,
    left the previous command's summary.json (complete, 5 of 5) beside 20 records, or none.
    The interrupted write is finished by the interrupt handler; interrupted twice, the stale
    summary is gone (a reader rebuilds it from the records), never left standing."""
    from tomgym.eval import runner
    from tomgym.eval.leaderboard import load_summary

    evaluate(FirstCandidateAgent(), [ENV], n=5, out=tmp_path, quiet=True)
    real_finish = runner.finish
    calls = []

    def interrupted_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real_finish(*args, **kwargs)

    monkeypatch.setattr(runner, "finish", interrupted_once)
    with pytest.raises(KeyboardInterrupt):
        evaluate(FirstCandidateAgent(), [ENV], n=20, out=tmp_path, quiet=True)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["planned_items"] == 20 and summary["complete"] and summary["n_items"] == 20

    def always_interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "finish", always_interrupted)
    with pytest.raises(KeyboardInterrupt):
        evaluate(FirstCandidateAgent(), [ENV], n=30, out=tmp_path, quiet=True)
    assert not (tmp_path / "summary.json").exists()
    monkeypatch.setattr(runner, "finish", real_finish)
    assert load_summary(tmp_path).n_items == 30  # rebuilt from the records


def test_a_moved_server_or_an_explicit_default_is_the_same_run(tmp_path: Path) -> None:
    """Retrying a served model's failures after it moved host, or passing --temperature 0 on
    a rerun, was refused as 'a different run'; another model or temperature still is."""
    from tomgym.eval.store import RunMetadata

    def meta(agent: str, sampling: dict[str, Any]) -> RunMetadata:
        return RunMetadata(
            tomgym_version="x", agent=agent, sampling=sampling, seed=0, n=1, envs=[], created="t"
        )

    stored = meta("openai:m@http://127.0.0.1:8765/v1", {})
    moved = "openai:m@http://localhost:8765/v1"
    assert meta(moved, {"temperature": 0.0}).conflicts(stored) == []
    assert meta(moved, {"max_new_tokens": 512}).conflicts(stored) == []
    assert meta("openai:other@http://127.0.0.1:8765/v1", {}).conflicts(stored)
    assert meta("openai:m@http://127.0.0.1:8765/v1", {"temperature": 0.7}).conflicts(stored)
    assert meta("hf:a", {}).conflicts(meta("hf:b", {}))


def test_a_misspelt_agent_leaves_no_empty_output_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown agent spec"):
        evaluate("heuristc:first", [ENV], n=1, out=tmp_path / "new", quiet=True)
    assert not (tmp_path / "new").exists()
    (tmp_path / "mine").mkdir()  # made by the user: kept
    with pytest.raises(ValueError, match="unknown agent spec"):
        evaluate("heuristc:first", [ENV], n=1, out=tmp_path / "mine", quiet=True)
    assert (tmp_path / "mine").is_dir()
    # a baseline's bare name: the spec is suggested (generalisation red team)
    with pytest.raises(
        ValueError, match=r"unknown agent spec 'first' \(did you mean heuristic:first"
    ):
        evaluate("first", [ENV], n=1, out=tmp_path / "bare", quiet=True)


def test_a_gap_above_chance_left_out_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Generalisation red team: the 'gap above chance' line went missing, silently, for a run
    with an env of free-text answers (ExploreToM), which has no chance level."""
    argv = ["eval", "--agent", "heuristic:first", "--env", "ToM-ExploreToM-v0", "--env",
            "ToM-HiToM-O4-v0", "--n", "3", "--out", str(tmp_path / "run")]  # fmt: skip
    run_cli(*argv)
    out = capsys.readouterr().out
    assert "gap above chance: - (no chance level for ToM-ExploreToM-v0" in out


def test_a_failed_retry_of_an_unanswered_item_is_reported_and_retried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: --retry-unanswered against a server that now fails (HTTP 5xx) exited 0 and
    repeated the old 'raise --max-model-len' advice: the older unanswered record was kept
    over the newer failure, which the summary then erased."""
    out = str(tmp_path / "run")
    argv = ["eval", "--agent", "random", "--env", ENV, "--n", "3", "--out", out]
    too_long = TooLongAgent(failing=set(), too_long=item_ids(ENV, [1]))
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: too_long)
    assert run_cli(*argv) == 0
    down = TooLongAgent(failing=item_ids(ENV, [1]), too_long=set())
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: down)
    capsys.readouterr()
    assert run_cli(*argv, "--retry-unanswered") == 1
    err = capsys.readouterr().err
    assert "1 items failed" in err and "HTTP 503: try later" in err
    summary = json.loads((Path(out) / "summary.json").read_text())
    assert (summary["failed_items"], summary["unanswered_items"]) == (1, 0)
    monkeypatch.setattr(runner, "make_agent", lambda spec, **options: TooLongAgent(set(), set()))
    assert run_cli(*argv) == 0  # the failure is retried by a plain rerun
    summary = json.loads((Path(out) / "summary.json").read_text())
    assert (summary["failed_items"], summary["unanswered_items"], summary["complete"]) == (
        0,
        0,
        True,
    )


def test_top_p_at_its_default_given_explicitly_is_the_same_run(tmp_path: Path) -> None:
    """Red team: --agent-option top_p=1.0 was refused as another run ('agent options:
    {'top_p': 1.0} here, {} in the directory'), as --temperature 0 is not. A model's other
    top_p is another run; a rule-based agent's top_p shapes nothing (user red team: an oracle
    run given top_p=0.9 refused the plain rerun)."""
    out = tmp_path / "run"
    evaluate("random", [ENV], n=2, out=out, quiet=True)
    summary = evaluate("random", [ENV], n=3, out=out, agent_options={"top_p": 1.0}, quiet=True)
    assert summary.complete and summary.n_items == 3
    summary = evaluate("random", [ENV], n=3, out=out, agent_options={"top_p": 0.9}, quiet=True)
    assert summary.complete
    from tomgym.eval.store import read_metadata

    stored = read_metadata(out)
    assert stored is not None
    model = stored.model_copy(update={"agent": "smollm2", "agent_options": {}})
    sampled = model.model_copy(update={"agent_options": {"top_p": 0.9}})
    assert model.conflicts(model.model_copy(update={"agent_options": {"top_p": 1.0}})) == []
    assert any("top_p" in problem for problem in sampled.conflicts(model))


def test_split_all_is_every_item_or_an_error_never_a_held_out_split_in_its_place(
    tmp_path: Path,
) -> None:
    """Red team: --split all on a release without splits was refused as another run than the
    one without --split (the same items), and on a generated env it quietly became 'val'."""
    from tomgym.env import EnvArgumentError

    out = tmp_path / "release"
    evaluate("random", ["ToM-HiToM-Original-O2-v0"], n=3, out=out, quiet=True)
    summary = evaluate("random", ["ToM-HiToM-Original-O2-v0"], n=4, out=out, split="all",
                       quiet=True)  # fmt: skip
    assert summary.complete and summary.n_items == 4
    with pytest.raises(EnvArgumentError, match="has no split 'all'"):
        evaluate("random", [ENV], n=2, out=tmp_path / "generated", split="all", quiet=True)
    # review: an env that takes no split at all (OpenToM, FANToM, plugins) was refused too
    opentom = evaluate("random", ["ToM-OpenToM-FineLoc-v0"], n=2, out=tmp_path / "opentom",
                       split="all", quiet=True)  # fmt: skip
    assert opentom.complete
    # a directory whose plan recorded split='all' (before this release) resumes
    meta_path = out / "metadata.json"
    meta = json.loads(meta_path.read_text())
    meta["envs"][0]["kwargs"] = {"split": "all"}
    meta_path.write_text(json.dumps(meta))
    resumed = evaluate("random", ["ToM-HiToM-Original-O2-v0"], n=5, out=out, split="all",
                       quiet=True)  # fmt: skip
    assert resumed.complete and resumed.n_items == 5
    # and a default given explicitly is the run that leaves it out
    evaluate("random", ["ToM-HiToM-Original-O2-v0"], n=5, out=out,
             env_kwargs={"drop_contradicted": False}, quiet=True)  # fmt: skip


def test_responses_to_an_item_asked_the_same_way_but_judged_otherwise_are_scored_again(
    tmp_path: Path,
) -> None:
    """Review: ExploreToM's judging changed (aliases, judged metadata), so every eval of it made
    before refused to resume, its only remedy deleting results.jsonl. A stored response whose
    prompt is the one the env asks now is scored again, without asking the model; a changed
    prompt is still refused. (A served model's stand-in: its answer depends on the prompt only;
    a baseline's old answers are refused, test_runner.py.)"""

    class ServedModel(FirstCandidateAgent):
        spec = "openai:stand-in@http://127.0.0.1:9/v1"

    env_id = "TestRejudge-Gold-v0"
    item = {"id": "q", "story": "Ann put the ball in the box.", "question": "Where is the ball?",
            "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip
    out = tmp_path / "run"
    try:
        tomgym.register_tom_env(env_id, items=[item, {**item, "id": "r"}], overwrite=True)
        agent = ServedModel()
        first = evaluate(agent, [env_id], out=out, quiet=True)
        assert first.envs[env_id].accuracy == 1.0 and len(agent.seen) == 2
        tomgym.register_tom_env(env_id, items=[{**item, "answer": "bag"}, {**item, "id": "r"}],
                                overwrite=True)  # fmt: skip
        again = ServedModel()
        second = evaluate(again, [env_id], out=out, quiet=True)
        assert again.seen == [] and second.complete
        assert second.envs[env_id].accuracy == 0.5
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        assert [(r["gold"], r["correct"]) for r in records] == [("bag", False), ("box", True)]
        tomgym.register_tom_env(env_id, items=[{**item, "question": "Where?"}, {**item, "id": "r"}],
                                overwrite=True)  # fmt: skip
        with pytest.raises(runner.RunConflictError, match="other items than the envs serve"):
            evaluate(ServedModel(), [env_id], out=out, quiet=True)
    finally:
        tomgym.unregister_tom_env(env_id)


def test_a_refused_resume_writes_nothing_and_an_interrupted_re_ask_counts_no_stale_verdict(
    tmp_path: Path,
) -> None:
    """Final review: a model run refused for a changed prompt had already appended the
    re-scored record of another item; and a baseline's changed items, asked again, kept their
    stale verdicts in the summary when that rerun was interrupted."""

    class ServedModel(FirstCandidateAgent):
        spec = "openai:stand-in@http://127.0.0.1:9/v1"

    env_id = "TestRejudge-Refused-v0"
    item = {"id": "a", "story": "Ann put the ball in the box.", "question": "Where is the ball?",
            "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip
    items = [item, {**item, "id": "b"}]
    model, baseline = tmp_path / "model", tmp_path / "baseline"
    try:
        tomgym.register_tom_env(env_id, items=items, overwrite=True)
        evaluate(ServedModel(), [env_id], out=model, quiet=True)
        evaluate(FirstCandidateAgent(), [env_id], out=baseline, quiet=True)  # a baseline
        before = (model / "results.jsonl").read_text()
        changed = [{**item, "answer": "bag"}, {**item, "id": "b", "question": "Where?"}]
        tomgym.register_tom_env(env_id, items=changed, overwrite=True)
        with pytest.raises(runner.RunConflictError):
            evaluate(ServedModel(), [env_id], out=model, quiet=True)
        assert (model / "results.jsonl").read_text() == before
        flipped = [{**item, "answer": "bag"}, {**item, "id": "b", "answer": "bag"}]
        tomgym.register_tom_env(env_id, items=flipped, overwrite=True)
        with pytest.raises(KeyboardInterrupt):
            evaluate(FirstCandidateAgent(interrupt_on_batch=1), [env_id], out=baseline,
                     quiet=True)  # fmt: skip
        summary = json.loads((baseline / "summary.json").read_text())
        assert summary["n_items"] == 0  # the two old verdicts are no answers to the new items
    finally:
        tomgym.unregister_tom_env(env_id)


def test_a_plan_recorded_by_an_older_tomgym_resumes_with_the_same_kwargs(tmp_path: Path) -> None:
    """Final review: a plan without changes_items (an older tomgym) kept all its kwargs while
    the new plan kept only the neutral ones, so identical kwargs were refused."""
    out = tmp_path / "run"
    kwargs = {"vocab_split": "train"}
    evaluate("random", ["ToM-HiToM-O2-v0"], n=2, out=out, env_kwargs=kwargs, quiet=True)
    meta = json.loads((out / "metadata.json").read_text())
    meta["envs"][0]["changes_items"] = None
    (out / "metadata.json").write_text(json.dumps(meta))
    summary = evaluate("random", ["ToM-HiToM-O2-v0"], n=3, out=out, env_kwargs=kwargs, quiet=True)
    assert summary.complete and summary.n_items == 3


def test_a_resumed_run_judges_its_stored_responses_again_with_this_tomgyms_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A judge that reads a response otherwise than when it was scored (the judge of bd0b7f2
    credits "staff room, where she left it", which the one before refused) left the run's old
    verdict in place: the leaderboard mixed two judges' verdicts. Resuming judges every stored
    response again, without asking the agent, and scores again those read otherwise; a second
    resume rewrites nothing. The old judge's verdict is written into the record by hand here."""

    class Explains(FirstCandidateAgent):
        def act(self, episodes: Any) -> list[Response]:
            self.seen.extend(episodes)
            return [Response(text="<answer>staff room, where she left it</answer>")] * len(episodes)

    env_id = "TestJudgedAgain-v0"
    item = {"id": "q", "story": "Ann put the key in the staff room. Ann went to the kitchen.",
            "question": "Where is the key?", "answer": "staff room",
            "answer_type": "text"}  # fmt: skip
    out = tmp_path / "run"
    try:
        tomgym.register_tom_env(env_id, items=[item, {**item, "id": "r"}], overwrite=True)
        first = evaluate(Explains(), [env_id], out=out, quiet=True)
        assert first.envs[env_id].accuracy == 1.0
        results = out / "results.jsonl"
        records = [json.loads(line) for line in results.read_text().splitlines()]
        old_verdict = {"correct": False, "verdict": "several_candidates", "reward": 0.0,
                       "lenient_correct": False}  # fmt: skip
        records[0] = {**records[0], **old_verdict, "reward_parts": {"correctness": 0.0}}
        results.write_text("".join(json.dumps(r) + "\n" for r in records))
        again = Explains()
        second = evaluate(again, [env_id], out=out)
        assert again.seen == [] and second.envs[env_id].accuracy == 1.0
        note = "1 stored response of TestJudgedAgain-v0 judged otherwise"
        err = capsys.readouterr().err
        assert note in err and "(1 newly correct, 0 newly wrong" in err
        stored = results.read_text().splitlines()
        assert [json.loads(line)["verdict"] for line in stored][-2:] == ["correct", "correct"]
        evaluate(Explains(), [env_id], out=out, quiet=True)
        assert results.read_text().splitlines() == stored
        # the untagged diagnostic is part of what is judged again, whatever the verdict
        lenient_off = {**json.loads(stored[1]), "lenient_correct": False}
        results.write_text("".join([stored[0] + "\n", json.dumps(lenient_off) + "\n"]))
        evaluate(Explains(), [env_id], out=out, quiet=True)
        assert json.loads(results.read_text().splitlines()[1])["lenient_correct"] is True
        # A record of an older tomgym, without the item's digest: that its item is unchanged
        # is not known well enough to stamp a new record with the current digest (review).
        old_record = {**json.loads(stored[0]), **old_verdict, "item_digest": None}
        results.write_text("".join([json.dumps(old_record) + "\n", stored[1] + "\n"]))
        evaluate(Explains(), [env_id], out=out, quiet=True)
        kept = json.loads(results.read_text().splitlines()[0])
        assert kept["verdict"] == "several_candidates" and kept["item_digest"] is None
    finally:
        tomgym.unregister_tom_env(env_id)


def test_a_finished_run_resumed_with_workers_starts_no_ray(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review: with nothing left to ask, --workers 2 still started Ray (and a bad --ray-address
    hung there, after the re-scored records were written)."""
    out = tmp_path / "run"
    evaluate("random", ["ToM-HiToM-O2-v0"], n=3, out=out, quiet=True)

    def no_ray(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("Ray started for a finished run")

    import tomgym.eval.distributed

    monkeypatch.setattr(tomgym.eval.distributed, "run_distributed", no_ray)
    again = evaluate("random", ["ToM-HiToM-O2-v0"], n=3, out=out, quiet=True, workers=2)
    assert again.complete and again.n_items == 3


def test_two_answers_to_one_item_are_refused_not_picked_by_position(tmp_path: Path) -> None:
    """Generalisation red team: records of two runs joined into one results.jsonl (the same
    run_id: a copied directory continued twice) answered items twice; the later answer
    silently replaced the earlier, and the note blamed a judge change. A record scored again
    (same response) is no clash."""
    out = tmp_path / "run"
    evaluate("random", [ENV], n=4, out=out, quiet=True)
    results = out / "results.jsonl"
    lines = results.read_text().splitlines()
    again = json.loads(lines[0])
    results.write_text("\n".join([*lines, json.dumps(again)]) + "\n")  # scored again: fine
    evaluate("random", [ENV], n=4, out=out, quiet=True)
    again["response"] = "<think>x</think><answer>another</answer>"
    results.write_text("\n".join([*lines, json.dumps(again)]) + "\n")
    with pytest.raises(runner.RunConflictError, match=r"answers 1 item\(s\) twice with different"):
        evaluate("random", [ENV], n=4, out=out, quiet=True)
