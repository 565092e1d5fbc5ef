"""``tomgym export`` / ``tomgym train`` argument handling, dry runs and checkpoint selection."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tomgym.train import checkpoints
from tomgym.train.commands import add_commands
from tomgym.train.openrlhf_cmd import PRESETS


@pytest.fixture(autouse=True)
def no_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    """No hub here: a real run's tokenizer download for the prompt-length check would retry
    for most of a minute per test before giving up (the check then says it counted nothing)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def vllm_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default --eval-agent is vllm, which is not installed here (CPU machine): these
    tests check other things, so find_spec reports it present (a fake; the refusal without it
    has its own test below)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: object() if name == "vllm" else real(name, *a)
    )


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tomgym")
    add_commands(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def run(argv: list[str]) -> int:
    """The command's exit status (argparse's own refusals, such as ``--n 0``, exit 2)."""
    try:
        args = parse(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return int(args.handler(args))


def test_export_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.jsonl"
    assert (
        run(
            [
                "export",
                "--env",
                "ToM-HiToM-O1-v0",
                "ToM-HiToM-O2-v0",
                "--n",
                "2",
                "--out",
                str(out),
                "--kwarg",
                "reward=tomrl",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and '"reward":"tomrl"' in rows[0]["label"]
    assert f"wrote 4 rows to {out}" in capsys.readouterr().out


def test_an_export_short_of_n_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--split val --n 5000 wrote ExploreToM's 300 val rows with a bare "wrote FILE"."""
    out = tmp_path / "val.parquet"
    argv = ["export", "--env", "ToM-ExploreToM-v0", "--split", "val", "--n", "5000",
            "--format", "verl", "--out", str(out)]  # fmt: skip
    assert run(argv) == 0
    said = capsys.readouterr().out
    assert "wrote 300 rows to" in said
    assert "fewer than --n 5000 per env asked: that is every item the env(s) serve" in said
    # RL red team: a .pq or .PARQUET file was written, then counted as UTF-8 text (exit 2)
    for name in ("val.pq", "val.PARQUET"):
        argv[-1] = str(tmp_path / name)
        assert run(argv) == 0
        assert "wrote 300 rows to" in capsys.readouterr().out


def test_export_to_standard_output_and_to_an_unwritable_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team: '--out -' wrote a file named '-' in the working directory, and a directory
    that could not take the file was reported by the hidden partial file's name."""
    monkeypatch.chdir(tmp_path)
    argv = ["export", "--env", "ToM-HiToM-O1-v0", "--n", "2", "--out", "-"]
    assert run(argv) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert len(rows) == 2 and set(rows[0]) == {"prompt", "label"}
    assert "wrote the rows to standard output" in captured.err
    assert list(tmp_path.iterdir()) == []
    assert run([*argv, "--format", "verl"]) == 2
    assert "cannot be streamed to standard output" in capsys.readouterr().err
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    monkeypatch.setattr(Path, "open", _refusing_open)
    assert run([*argv[:-1], str(blocked / "d.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"cannot write --out {blocked / 'd.jsonl'}: Permission denied" in err
    assert ".partial" not in err
    assert list(blocked.iterdir()) == []


def _refusing_open(self: Path, *args: Any, **kwargs: Any) -> Any:
    """Path.open as a directory without write permission answers (tests run as root here,
    whom permission bits do not stop)."""
    raise PermissionError(13, "Permission denied", str(self))


def test_export_to_a_pipe_closed_early_ends_quietly() -> None:
    """'--out - | head -1' must end as other Unix tools do: no BrokenPipeError traceback, the
    exit status the CLI gives any command whose reader left (1, as `tomgym list | head`)."""
    import os
    import subprocess

    env = {**os.environ, "TOMGYM_NO_PLUGINS": "1"}
    command = (
        f"{shlex.quote(sys.executable)} -m tomgym.cli export --env ToM-HiToM-O1-v0 --n 3000 "
        "--out - | head -n 1"
    )
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["label"]
    assert done.stderr == "", done.stderr  # no traceback, nor "wrote the rows" when it did not


def test_export_refuses_eval_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["export", "--env", "ToM-FANToM-v0", "--n", "1", "--out", str(tmp_path / "x")])
    assert code == 2 and "eval-only" in capsys.readouterr().err


def test_train_dry_run_prints_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code = run(
        [
            "train",
            "--model",
            "Qwen/Qwen2.5-0.5B-Instruct",
            "--train-env",
            "ToM-HiToM-v0",
            "--eval-env",
            "ToM-HiToM-O4-v0",
            "--preset",
            "paper-2504",
            "--gpus",
            "4",
            "--n",
            "64",
            "--out",
            str(out),
            "--dry-run",
        ]
    )
    assert code == 0 and not out.exists()
    text = capsys.readouterr().out
    argv = shlex.split(text.splitlines()[0])
    # the interpreter running tomgym, which has OpenRLHF when tomgym[train] is installed
    assert argv[:3] == [sys.executable, "-m", "openrlhf.cli.train_ppo_ray"]
    assert "--ckpt.load_enable" in argv  # a rerun after a crash resumes from ckpt/
    assert argv[argv.index("--rollout.n_samples_per_prompt") + 1] == "16"
    assert argv[argv.index("--vllm.num_engines") + 1] == "4"
    assert argv[argv.index("--ckpt.save_steps") + 1] == "8"  # 64 prompts / 8 a batch
    assert "--algo.kl.use_loss" in argv and str(out / "best_checkpoint.json") in text


def test_an_openrlhf_run_of_the_bundled_model_passes_its_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """RL red team: `--model smollm2` reached OpenRLHF as the hub ID "smollm2" (the dry run
    passed, the real run would fail loading it); the TRL backend resolved it."""
    from tomgym.agents.hf import smollm2_path

    argv = ["train", "--model", "smollm2", "--train-env", "ToM-HiToM-v0", "--n", "8",
            "--out", str(tmp_path / "run"), "--dry-run"]  # fmt: skip
    assert run(argv) == 0
    captured = capsys.readouterr()
    command = shlex.split(captured.out.splitlines()[0])
    model = command[command.index("--actor.model_name_or_path") + 1]
    assert model == str(smollm2_path()[0])
    assert "prompt lengths not checked" not in captured.err  # its tokenizer was loaded


def test_train_overrides_and_address(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOMGYM_DATA", str(tmp_path / "data"))
    assert (
        run(
            [
                "train",
                "--model",
                "m",
                "--train-env",
                "ToM-HiToM-v0",
                "--n",
                "8",
                "--gpus",
                "2",
                "--preset",
                "custom",
                "--lr",
                "1e-6",
                "--rollouts",
                "4",
                "--estimator",
                "reinforce_baseline",
                "--address",
                "http://h:8265",
                "--out",
                str(tmp_path),
                "--dry-run",
            ]
        )
        == 0
    )
    argv = shlex.split(capsys.readouterr().out.splitlines()[0])
    assert Path(argv[0]).name == "ray"  # the environment's own, else the PATH's
    assert argv[1:4] == ["job", "submit", "--address=http://h:8265"]
    # the cluster's reward workers read release files from the data root (user audit: without
    # it every release label scored the minimum there)
    runtime = json.loads(argv[4].removeprefix("--runtime-env-json="))
    assert runtime == {"env_vars": {"TOMGYM_DATA": str(tmp_path / "data")}}
    assert argv[argv.index("--actor.adam.lr") + 1] == "1e-06"
    assert argv[argv.index("--algo.advantage.estimator") + 1] == "reinforce_baseline"


def test_train_refuses_eval_only_and_no_gpu(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(["train", "--model", "m", "--train-env", "ToM-OpenToM-v0", "--dry-run"]) == 2
    assert "eval-only" in capsys.readouterr().err
    from tomgym.train import commands

    monkeypatch.setattr(commands, "detect_gpus", lambda: 0)  # a machine without CUDA GPUs
    assert run(["train", "--model", "m", "--train-env", "ToM-HiToM-v0", "--n", "4"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err
    assert run(["train", "--model", "m", "--train-env", "ToM-HiToM-v0", "--gpus", "0"]) == 2
    assert "positive integer" in capsys.readouterr().err


def test_trl_backend_is_lazy(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert run(["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-v0"]) == 2
    assert "not available" in capsys.readouterr().err


def test_a_trl_checkpoint_cut_short_while_saving_is_neither_resumed_nor_evaluated(
    tmp_path: Path,
) -> None:
    """Ctrl-C while TRL saved checkpoint-3 left its config and weights but no trainer state:
    transformers' get_last_checkpoint picked it and every rerun failed on the missing
    trainer_state.json, and the evaluation counted it as a checkpoint."""
    for step, complete in ((1, True), (2, True), (3, False)):
        saved = tmp_path / f"checkpoint-{step}"
        saved.mkdir()
        (saved / "config.json").write_text("{}")
        (saved / "model.safetensors").write_text("weights")
        if complete:
            (saved / checkpoints.TRAINER_STATE).write_text("{}")
    assert checkpoints.last_trainer_checkpoint(tmp_path) == tmp_path / "checkpoint-2"
    assert checkpoints.incomplete_checkpoints(tmp_path) == [tmp_path / "checkpoint-3"]
    assert [p.name for p in checkpoints.find_checkpoints(tmp_path)] == [
        "checkpoint-1",
        "checkpoint-2",
    ]
    for saved in tmp_path.iterdir():
        (saved / checkpoints.TRAINER_STATE).unlink(missing_ok=True)
    assert checkpoints.last_trainer_checkpoint(tmp_path) is None  # start over


def test_checkpoints_found_evaluated_and_best_kept(tmp_path: Path) -> None:
    for name in ("global_step16_hf", "global_step8_hf", "final", "global_step24_hf"):
        saved = tmp_path / ("ckpt" if name != "final" else "") / name
        saved.mkdir(parents=True)
        (saved / "config.json").write_text("{}")
        (saved / "model.safetensors").write_text("weights")
    (tmp_path / "ckpt" / "_actor").mkdir()  # a DeepSpeed checkpoint: not evaluated
    (tmp_path / "ckpt" / "global_step32_hf").mkdir()  # its save cut short: config, no weights
    (tmp_path / "ckpt" / "global_step32_hf" / "config.json").write_text("{}")
    found = checkpoints.find_checkpoints(tmp_path)
    assert [p.name for p in found] == [
        "global_step8_hf",
        "global_step16_hf",
        "global_step24_hf",
        "final",
    ]
    calls: list[tuple[str, Path]] = []
    accuracy = {
        "global_step8_hf": 0.4,
        "global_step16_hf": 0.7,
        "global_step24_hf": 0.7,
        "final": 0.5,
    }

    def fake_evaluate(agent: str, *, envs: list[str], out: Path, **kw: Any) -> Any:
        calls.append((agent, out))
        name = Path(agent.split(":", 1)[1]).name
        # final's evaluation lost most items to failed requests: its 1.0 is over 1 item of 20
        failed = 19 if name == "final" else 0
        return SimpleNamespace(
            accuracy=1.0 if failed else accuracy[name], complete=not failed, failed_items=failed
        )

    results = checkpoints.evaluate_checkpoints(
        found, ["ToM-HiToM-O4-v0"], tmp_path, agent="hf", evaluate=fake_evaluate
    )
    eval_dir = checkpoints.checkpoint_eval_dir(tmp_path, found[0], agent="hf")
    assert calls[0] == (f"hf:{found[0]}", eval_dir)
    assert calls[0][1].name.startswith("global_step8_hf-")
    best = checkpoints.write_best(results, tmp_path)
    assert best.step == 16  # ties go to the earlier checkpoint; final's partial 1.0 is no score
    assert results[-1].accuracy is None
    record = json.loads((tmp_path / checkpoints.BEST_FILE).read_text())
    assert record["best"]["path"].endswith("global_step16_hf") and len(record["all"]) == 4
    # --eval-only --eval-split test evaluates beside the val evaluations: one directory held
    # both, and the second split was refused as another run (training red team)
    checkpoints.evaluate_checkpoints(
        found[:1], ["ToM-HiToM-O4-v0"], tmp_path, agent="hf", split="test",
        evaluate=fake_evaluate,
    )  # fmt: skip
    assert calls[-1][1] == checkpoints.checkpoint_eval_dir(
        tmp_path, found[0], agent="hf", split="test"
    )
    assert calls[-1][1] != eval_dir and calls[-1][1].name == eval_dir.name + "-test"


def test_export_eval_only_env_without_splits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_root: Path
) -> None:
    out = tmp_path / "o.jsonl"
    argv = ["export", "--env", "ToM-OpenToM-v0", "--allow-eval-only", "--n", "2", "--out", str(out)]
    assert run(argv) == 0, capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize(
    ("n", "out_name", "message"),
    [("-3", "x.jsonl", "positive integer"), ("2", "x.parquet", "JSON lines")],
)
def test_export_refuses_bad_counts_and_suffixes(
    n: str, out_name: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / out_name
    assert run(["export", "--env", "ToM-HiToM-v0", "--n", n, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("backend", ["openrlhf", "trl"])
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--train-env", "ToM-HiToM-v0", "--eval-env", "ToM-Bogus-v0", "--n", "8"], "ToM-Bogus-v0"),
        (["--train-env", "ToM-Bogus-v0", "--n", "8"], "No ToM env is registered"),
        (["--train-env", "ToM-HiToM-v0", "--n", "0"], "positive integer"),
    ],
)
def test_dry_run_validates_envs_like_the_real_run(
    backend: str,
    extra: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["train", "--backend", backend, "--model", "m", "--out", str(tmp_path), "--dry-run"]
    assert run([*base, *extra]) == 2
    assert message in capsys.readouterr().err


def test_dry_run_needs_n_for_procedural_envs_and_takes_envs_without_splits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_root: Path
) -> None:
    base = ["train", "--model", "m", "--gpus", "1", "--out", str(tmp_path), "--dry-run"]
    # the README's command without --n: refused in the dry run, as the real run refuses it
    readme = ["--train-env", "ToM-HiToM-v0", "--eval-env", "ToM-HiToM-O4-v0"]
    assert run([*base, *readme, "--preset", "paper-2507"]) == 2
    assert "procedural" in capsys.readouterr().err
    assert run([*base, *readme, "--preset", "paper-2507", "--n", "900"]) == 0
    capsys.readouterr()
    # a release without splits: used whole (600 items, 75 steps of 8), in the dry and real run
    assert run([*base, "--train-env", "ToM-HiToM-Original-v0"]) == 0
    argv = shlex.split(capsys.readouterr().out.splitlines()[0])
    assert argv[argv.index("--ckpt.save_steps") + 1] == "75"


def test_a_misspelt_eval_split_fails_the_dry_run_not_the_run_after_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["train", "--model", "m", "--gpus", "1", "--out", str(tmp_path), "--dry-run"]
    envs = ["--train-env", "ToM-HiToM-v0", "--n", "8", "--eval-env", "ToM-HiToM-O4-v0"]
    assert run([*base, *envs, "--eval-split", "vall"]) == 2
    assert "--eval-split must be one of" in capsys.readouterr().err


def test_trl_needs_n_for_procedural_envs_like_openrlhf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trl backend took 1000 items without a word when --n was missing."""
    base = ["train", "--backend", "trl", "--model", "m", "--out", str(tmp_path), "--dry-run"]
    assert run([*base, "--train-env", "ToM-HiToM-v0"]) == 2
    assert "procedural" in capsys.readouterr().err


def test_export_kwargs_may_not_set_the_exports_own_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.jsonl"
    argv = ["export", "--env", "ToM-HiToM-v0", "--n", "2", "--out", str(out)]
    argv += ["--kwarg", "split=test"]
    assert run(argv) == 2
    assert "use --split, not --kwarg split=" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("option", [["--lr", "-5"], ["--temperature", "-1"], ["--lr", "nan"]])
def test_preset_overrides_must_be_positive(
    option: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["train", "--model", "m", "--gpus", "1", "--out", str(tmp_path), "--dry-run"]
    assert run([*argv, "--train-env", "ToM-HiToM-v0", "--n", "8", *option]) == 2
    assert "must be a number above 0" in capsys.readouterr().err


def test_eval_envs_sharing_training_items_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_root: Path
) -> None:
    """The Hi-ToM release has no splits: its O4 env is a subset of the whole one, so a best
    checkpoint picked on it would be picked on training items. Generated envs' train and test
    splits share nothing."""
    base = ["train", "--model", "m", "--gpus", "1", "--out", str(tmp_path), "--dry-run"]
    release = ["--train-env", "ToM-HiToM-Original-v0", "--eval-env", "ToM-HiToM-Original-O4-v0"]
    assert run([*base, *release]) == 0
    assert "shares 120 of its first 120 items with the training data" in capsys.readouterr().err
    generated = ["--train-env", "ToM-HiToM-v0", "--n", "50", "--eval-env", "ToM-HiToM-O4-v0"]
    assert run([*base, *generated]) == 0
    assert "shares" not in capsys.readouterr().err


def test_a_new_checkpoint_under_an_old_name_is_evaluated_afresh(tmp_path: Path) -> None:
    """A rerun's `final` resumed the old `final`'s evaluation directory and was 'scored' from
    its results without loading a weight."""
    import os
    import time

    final = tmp_path / "final"
    final.mkdir()
    (final / "config.json").write_text("{}")
    (final / "model.safetensors").write_bytes(b"old weights")
    first = checkpoints.checkpoint_eval_dir(tmp_path, final)
    assert checkpoints.checkpoint_eval_dir(tmp_path, final) == first  # stable while unchanged
    later = time.time_ns() + 10**9
    os.utime(final / "model.safetensors", ns=(later, later))  # a copy, a restore, `touch`
    assert checkpoints.checkpoint_eval_dir(tmp_path, final) == first  # the same files
    (final / "model.safetensors").write_bytes(b"new weights")  # same size, other weights
    assert checkpoints.checkpoint_eval_dir(tmp_path, final) != first


def test_a_checkpoint_evaluated_under_the_older_time_based_name_is_still_found(
    tmp_path: Path,
) -> None:
    final = tmp_path / "final"
    final.mkdir()
    (final / "config.json").write_text("{}")
    older = (
        tmp_path / "eval" / f"final-{checkpoints.timed_fingerprint(final)}-vllm-Tdefault-maxdefault"
    )
    older.mkdir(parents=True)
    assert checkpoints.checkpoint_eval_dir(tmp_path, final) == older


def test_train_refuses_an_out_that_holds_another_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rerunning into a used --out overwrote its train_config.json and kept the old run's
    checkpoints, which the checkpoint search then returned as this run's."""
    from tomgym.train.run_checks import RUN_CONFIG

    out = tmp_path / "run"
    out.mkdir()
    (out / RUN_CONFIG).write_text(json.dumps({"model": "other", "train_envs": ["ToM-ToMi-v0"]}))
    argv = ["train", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n", "4",
            "--out", str(out), "--gpus", "1", "--dry-run"]  # fmt: skip
    # A run that failed to start saved nothing: the corrected command takes the directory
    # (it was refused, and only deleting the directory got past it; training red team)
    from tomgym.train.run_checks import training_lock

    with training_lock(out):  # ... but one still training (before its first checkpoint) is
        assert run(argv) == 2  # neither taken over nor resumed (review)
        assert "is in use by a tomgym training run (process " in capsys.readouterr().err
        (out / RUN_CONFIG).write_text(json.dumps({"model": "other"}))
        evaluate_only = ["train", "--model", "m", "--eval-only", "--eval-env",
                         "ToM-HiToM-O1-v0", "--out", str(out), "--dry-run"]  # fmt: skip
        assert run(evaluate_only) == 2  # nor are its checkpoints evaluated meanwhile
        assert "is in use by a tomgym training run" in capsys.readouterr().err
    assert run(argv) == 0
    assert "held a run that saved nothing" in capsys.readouterr().err
    (out / "ckpt" / "global_step4").mkdir(parents=True)
    (out / "ckpt" / "global_step4" / "model.safetensors").write_text("weights")
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert "holds another training run" in err and "model" in err
    assert run([*argv[:1], "--backend", "trl", *argv[1:]]) == 2
    assert "holds another training run" in capsys.readouterr().err


def saved_openrlhf_run(
    out: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *launched: str,
) -> list[str]:
    """A dry-run command's argv, with ``out`` holding the run it describes (launched with the
    extra options ``launched``) as a real one leaves it: its train_config.json, as the command
    makes it, and a checkpoint."""
    from tomgym.train import commands
    from tomgym.train.run_checks import RUN_CONFIG, check_run_dir

    argv = ["train", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n", "4",
            "--out", str(out), "--gpus", "1", "--dry-run"]  # fmt: skip
    made: list[dict[str, Any]] = []
    monkeypatch.setattr(commands, "check_run_dir", lambda _, config: made.append(config))
    assert run([*argv, *launched]) == 0
    monkeypatch.setattr(commands, "check_run_dir", check_run_dir)
    out.mkdir()
    (out / RUN_CONFIG).write_text(json.dumps(made[0]))
    (out / "ckpt" / "global_step4").mkdir(parents=True)
    (out / "ckpt" / "global_step4" / "model.safetensors").write_text("weights")
    capsys.readouterr()
    return argv


def test_a_changed_rerun_names_the_option_and_may_change_the_eval_envs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal cut each value to 60 characters, so two commands differing in --lr read
    the same; and adding an --eval-env was refused on OpenRLHF (accepted on TRL) with advice
    to delete the run."""
    argv = saved_openrlhf_run(tmp_path / "run", monkeypatch, capsys)
    assert run([*argv, "--eval-env", "ToM-HiToM-O2-v0", "--eval-agent", "hf"]) == 0
    capsys.readouterr()
    assert run([*argv, "--lr", "2e-6"]) == 2
    err = capsys.readouterr().err
    assert "preset.lr: 5e-07 there, 2e-06 now" in err
    assert '"5e-07" there, "2e-06" now' in err  # the command's own flag, named by position
    assert err.index("preset.lr") < err.index("command[")


def test_a_rerun_launched_another_way_is_the_same_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """User audit: a rerun after a cluster restart at a new --address, or with another
    interpreter (a moved virtual environment), was refused as another run whose checkpoints
    the error said to delete: the trainer's command was compared launcher and all."""
    argv = saved_openrlhf_run(
        tmp_path / "run", monkeypatch, capsys, "--address", "http://10.0.0.1:8265"
    )
    assert run([*argv, "--address", "http://10.0.0.9:8265", "--python", "/opt/py/bin/python"]) == 0
    assert run(argv) == 0  # on this machine, without Ray's job submission
    assert run([*argv, "--address", "http://10.0.0.9:8265", "--lr", "2e-6"]) == 2  # not this
    assert "preset.lr: 5e-07 there, 2e-06 now" in capsys.readouterr().err


@pytest.mark.parametrize("backend", ["trl", "openrlhf"])
def test_a_local_model_that_is_not_there_is_refused_by_the_dry_run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    backend: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--model ./no_such_model passed the dry run; the real TRL run then failed on the hub's
    "Repo id must use alphanumeric chars"."""
    base = ["train", "--backend", backend, "--train-env", "ToM-HiToM-O1-v0", "--n", "4",
            "--gpus", "1", "--out", str(tmp_path / "run"), "--dry-run", "--model"]  # fmt: skip
    assert run([*base, str(tmp_path / "no_such_model")]) == 2
    assert "no such directory" in capsys.readouterr().err
    (tmp_path / "weights.bin").write_text("x")
    assert run([*base, str(tmp_path / "weights.bin")]) == 2
    assert "is a file: give the model's directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()  # user audit: it passed, and a real run launched on it
    assert run([*base, str(tmp_path / "empty")]) == 2
    assert "holds no config.json" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)  # a relative path without ./ (docs audit: it passed as a hub ID)
    assert run([*base, "empty"]) == 2
    assert "holds no config.json" in capsys.readouterr().err


def test_paper_2504_trains_with_grpo_as_tom_rl_did(capsys: pytest.CaptureFixture[str]) -> None:
    """ToM-RL (arXiv 2504.01698) trained with GRPO; the paper-2504 preset ran REINFORCE++ and
    --estimator offered no GRPO. OpenRLHF's group_norm is GRPO's advantage, and TRL's
    scale_rewards="group" the same."""
    base = ["train", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n", "8", "--gpus", "1",
            "--dry-run"]  # fmt: skip
    assert run([*base, "--preset", "paper-2504"]) == 0
    assert "--algo.advantage.estimator group_norm" in capsys.readouterr().out
    assert run([*base, "--preset", "paper-2504", "--estimator", "reinforce"]) == 0
    assert "--algo.advantage.estimator reinforce " in capsys.readouterr().out
    assert run(base) == 0  # paper-2507: REINFORCE++
    assert "--algo.advantage.estimator reinforce " in capsys.readouterr().out
    trl = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n",
           "8", "--dry-run"]  # fmt: skip
    assert run([*trl, "--preset", "paper-2504"]) == 0
    assert json.loads(capsys.readouterr().out)["grpo"]["scale_rewards"] == "group"
    assert run(trl) == 0
    assert json.loads(capsys.readouterr().out)["grpo"]["scale_rewards"] == "batch"
    assert run([*trl, "--estimator", "group_norm"]) == 0
    assert json.loads(capsys.readouterr().out)["grpo"]["scale_rewards"] == "group"


def test_a_trl_run_cut_after_its_last_step_is_finished_not_trained_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TRL run interrupted after saving its last checkpoint but before final/ was resumed
    from it and trained a step past --max-steps (at learning rate 0), then evaluated that too.
    The checkpoint stands for one a Trainer writes (model files beside the training state)."""
    from tomgym.train import trl_backend
    from tomgym.train.run_checks import RUN_CONFIG, check_run_dir

    out = tmp_path / "run"
    argv = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-O1-v0",
            "--n", "2", "--batch", "1", "--rollouts", "2", "--max-steps", "1",
            "--out", str(out)]  # fmt: skip
    made: list[dict[str, Any]] = []  # the config the run writes, as the command makes it
    monkeypatch.setattr(trl_backend, "check_run_dir", lambda _, config: made.append(config))
    assert run([*argv, "--dry-run"]) == 0
    monkeypatch.setattr(trl_backend, "check_run_dir", check_run_dir)
    last = out / "checkpoint-1"
    last.mkdir(parents=True)
    (out / RUN_CONFIG).write_text(json.dumps(made[0]))
    for name, text in [("config.json", "{}"), ("model.safetensors", "weights"),
                       ("optimizer.pt", "adam"), ("rng_state.pth", "rng"),
                       ("trainer_state.json", '{"global_step": 1, "max_steps": 1}')]:  # fmt: skip
        (last / name).write_text(text)
    capsys.readouterr()
    assert run(argv) == 0  # with the model "m", which training would have had to load
    assert "checkpoint-1 is the run's last step: saved" in capsys.readouterr().out
    assert sorted(p.name for p in (out / "final").iterdir()) == ["config.json", "model.safetensors"]
    assert not (out / "checkpoint-2").exists()
    assert run(argv) == 0
    assert "is finished" in capsys.readouterr().err


def test_trl_dry_run_checks_what_the_real_run_needs(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-O1-v0",
            "--n", "2", "--dry-run"]  # fmt: skip
    assert run([*base, "--rollouts", "1"]) == 2
    assert "at least 2" in capsys.readouterr().err
    assert run([*base, "--max-new-tokens", "32", "--max-steps", "2"]) == 0
    grpo = json.loads(capsys.readouterr().out)["grpo"]
    assert grpo["max_completion_length"] == 32 and grpo["max_steps"] == 2


def test_a_dry_run_refuses_the_vllm_eval_agent_without_vllm(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The evaluation after training failed on 'the vllm agent needs vLLM' only after hours
    of training; a held-out-only selection is named."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "vllm" else real(name, *a)
    )
    argv = ["train", "--model", "m", "--train-env", "ToM-HiToM-v0", "--n", "8", "--gpus", "1",
            "--eval-env", "ToM-HiToM-O4-v0", "--dry-run"]  # fmt: skip
    assert run(argv) == 2
    assert "--eval-agent vllm needs vLLM" in capsys.readouterr().err
    assert run([*argv, "--eval-agent", "hf"]) == 0
    assert "picked on ToM-HiToM-O4-v0, all held out" in capsys.readouterr().err


def test_export_of_an_env_without_splits_names_its_missing_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # FANToM takes no split= and its release is not in ../shared/data: the error must say the
    # file is missing (it used to say that the env refuses split=train, the exporter's default).
    from tomgym.cli import main

    argv = ["export", "--env", "ToM-FANToM-v0", "--n", "1", "--allow-eval-only"]
    code = main([*argv, "--out", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert code != 0 and "fantom_v1.json" in err and "split" not in err


def test_train_kwargs_reach_the_training_labels_and_the_run_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--kwarg makes every training env with the env's own arguments. OpenRLHF needs a GPU,
    so `true` stands in for its interpreter (a fake): what tomgym writes before is real."""
    from tomgym.train.labels import decode_label, labelled_episode
    from tomgym.train.run_checks import RUN_CONFIG

    out = tmp_path / "run"
    argv = ["train", "--model", "m", "--train-env", "ToM-HiToM-v0", "--n", "6", "--gpus", "1",
            "--kwarg", "orders=[4]", "--kwarg", "deception=false", "--out", str(out)]  # fmt: skip
    assert run([*argv, "--python", "true"]) == 0
    assert "true -m openrlhf" in capsys.readouterr().out
    rows = [json.loads(line) for line in (out / "data" / "train.jsonl").read_text().splitlines()]
    labels = [decode_label(row["label"]) for row in rows]
    assert len(labels) == 6
    assert all(label.kwargs["orders"] == [4] and label.kwargs["deception"] is False
               for label in labels)  # fmt: skip
    assert all(labelled_episode(label)[2].order == 4 for label in labels)
    config = json.loads((out / RUN_CONFIG).read_text())
    assert config["env_kwargs"] == {"orders": [4], "deception": False}
    # the trl backend takes them too, and a misspelt or clashing one is refused by name
    trl = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-v0", "--n", "2"]
    assert run([*trl, "--kwarg", "orders=[4]", "--dry-run", "--out", str(tmp_path / "t")]) == 0
    assert json.loads(capsys.readouterr().out)["env_kwargs"]["orders"] == [4]
    assert run([*trl, "--kwarg", "ordrs=[4]", "--dry-run"]) == 2
    assert "did you mean 'orders'" in capsys.readouterr().err
    assert run([*trl, "--kwarg", "reward=tomrl", "--dry-run"]) == 2
    assert "use --reward" in capsys.readouterr().err


def test_eval_only_evaluates_the_checkpoints_of_a_run_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--eval-only evaluates a finished run's checkpoints without training (an evaluation that
    failed, another agent). Tiny random Llamas stand in for trained weights: real HF
    checkpoints in TRL's layout (checkpoint-N, final), evaluated for real."""
    pytest.importorskip("torch")
    from tests.train.helpers import tiny_llama
    from tomgym.eval.store import RESULTS_FILE
    from tomgym.train.run_checks import RUN_CONFIG

    out = tmp_path / "run"
    for name in ("checkpoint-2", "final"):
        tiny_llama(out / name)
    (out / "checkpoint-2" / "trainer_state.json").write_text("{}")  # as TRL's save ends
    base = ["train", "--backend", "trl", "--model", "m", "--out", str(out), "--eval-only"]
    evaluation = ["--eval-env", "ToM-HiToM-O1-v0", "--eval-n", "2", "--eval-agent", "hf",
                  "--max-new-tokens", "8"]  # fmt: skip
    assert run([*base, *evaluation]) == 2
    assert f"{RUN_CONFIG} is missing" in capsys.readouterr().err
    (out / RUN_CONFIG).write_text("{}")
    assert run(base) == 2
    assert "needs at least one --eval-env" in capsys.readouterr().err
    assert run([*base, *evaluation]) == 0
    record = json.loads((out / checkpoints.BEST_FILE).read_text())
    assert [Path(r["path"]).name for r in record["all"]] == ["checkpoint-2", "final"]
    written = {r["path"]: (Path(r["eval_dir"]) / RESULTS_FILE).read_text() for r in record["all"]}
    assert all(len(text.splitlines()) == 2 for text in written.values())
    # again: the evaluations resume (nothing generated twice), the record is the same
    assert run([*base, *evaluation]) == 0
    again = json.loads((out / checkpoints.BEST_FILE).read_text())
    assert again == record
    assert all((Path(r["eval_dir"]) / RESULTS_FILE).read_text() == written[r["path"]]
               for r in again["all"])  # fmt: skip
    # another budget evaluates afresh beside the first (it was refused as "a different run")
    assert run([*base, *evaluation[:-1], "12"]) == 0
    third = json.loads((out / checkpoints.BEST_FILE).read_text())
    assert all(r["eval_dir"].endswith("-hf-T0.6-max12") for r in third["all"])
    assert all(Path(r["eval_dir"]).is_dir() for r in record["all"])  # the first ones kept
    # without --max-new-tokens: the run's own budget (it took the preset's 2048, evaluating
    # everything again where the run's evaluations were there to resume)
    (out / RUN_CONFIG).write_text(json.dumps({"grpo": {"max_completion_length": 8}}))
    assert run([*base, *evaluation[:-2]]) == 0
    assert "the run's response budget, 8 tokens" in capsys.readouterr().err
    assert json.loads((out / checkpoints.BEST_FILE).read_text()) == record
    # paper-2504's checkpoints are sampled as its paper evaluated them, at top-p 0.95, in
    # their own directories; the paper's 4,096 tokens where the run kept the preset's budget
    assert run([*base, *evaluation, "--preset", "paper-2504"]) == 0
    nucleus = json.loads((out / checkpoints.BEST_FILE).read_text())["all"]
    assert all(r["eval_dir"].endswith("-hf-T0.6-max8-p0.95") for r in nucleus)
    metadata = json.loads((Path(nucleus[0]["eval_dir"]) / "metadata.json").read_text())
    assert metadata["agent_options"] == {"top_p": 0.95}
    (out / RUN_CONFIG).write_text(json.dumps({"grpo": {"max_completion_length": 2048}}))
    assert run([*base, *evaluation[:-2], "--preset", "paper-2504", "--dry-run"]) == 0
    assert "paper-2504's evaluation budget, 4096 tokens" in capsys.readouterr().err
    # the preset an (OpenRLHF) run recorded, without --preset given again (user audit: it
    # evaluated a paper-2504 run with paper-2507's sampling and overwrote its best checkpoint)
    paper = {"name": "paper-2504", "response_max_tokens": 2048}
    (out / RUN_CONFIG).write_text(json.dumps({"preset": paper}))
    assert run([*base, *evaluation[:-2], "--dry-run"]) == 0
    assert "paper-2504's evaluation budget, 4096 tokens" in capsys.readouterr().err
    assert run([*base, *evaluation[:-2], "--preset", "paper-2507", "--dry-run"]) == 0
    assert "the run trained with --preset paper-2504" in capsys.readouterr().err
    # picking the best checkpoint on test is warned of here too (docs audit: only in training)
    assert run([*base, *evaluation, "--eval-split", "test", "--dry-run"]) == 0
    assert "--eval-split test picks the best checkpoint on the test split" in (
        capsys.readouterr().err
    )


def test_checkpoints_are_evaluated_as_the_presets_paper_did() -> None:
    """ToM-RL (paper-2504) evaluated at temperature 0.6, top-p 0.95, up to 4,096 tokens; the
    checkpoints were evaluated at top-p 1.0 with the 2,048-token training budget. A budget
    changed from the preset's (a CPU run's 48) stays the evaluation budget."""
    from tomgym.train.openrlhf_cmd import EvalSampling, eval_sampling

    paper_2504 = PRESETS["paper-2504"]
    assert eval_sampling(paper_2504) == EvalSampling(0.6, 0.95, 4096)
    assert eval_sampling(replace(paper_2504, response_max_tokens=48)) == EvalSampling(0.6, 0.95, 48)
    for name in ("paper-2507", "custom"):
        assert eval_sampling(PRESETS[name]) == EvalSampling(0.6, 1.0, 2048)
    final = Path("run/final")
    plain = checkpoints.checkpoint_eval_dir("run", final, temperature=0.6, max_new_tokens=8)
    assert plain.name.endswith("-vllm-T0.6-max8")  # the name top-p 1.0 had before
    nucleus = checkpoints.checkpoint_eval_dir(
        "run", final, temperature=0.6, max_new_tokens=8, top_p=0.95, split="test"
    )
    assert nucleus.name == plain.name + "-p0.95-test"


def test_kl_override_reaches_both_backends(capsys: pytest.CaptureFixture[str]) -> None:
    """paper-2507's KL (0.01, OpenRLHF's default written out) on both backends; --kl 0 turns
    it off (no reference model, for a CPU run); a negative weight is refused by argparse."""
    base = ["train", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n", "2", "--dry-run"]
    openrlhf = [*base, "--gpus", "1"]
    for extra, weight in (([], "0.01"), (["--kl", "0"], "0")):
        assert run([*openrlhf, *extra]) == 0
        argv = shlex.split(capsys.readouterr().out.splitlines()[0])
        assert argv[argv.index("--algo.kl.init_coef") + 1] == weight
    assert run([*openrlhf, "--preset", "paper-2504", "--kl", "0"]) == 0
    assert "--algo.kl.use_loss" not in capsys.readouterr().out
    trl = [*base[:1], "--backend", "trl", *base[1:]]
    for extra, beta in (([], 0.01), (["--kl", "0"], 0.0)):
        assert run([*trl, *extra]) == 0
        assert json.loads(capsys.readouterr().out)["grpo"]["beta"] == beta
    assert run([*trl, "--kl", "-1"]) == 2
    assert "at least 0" in capsys.readouterr().err


def test_a_misspelt_eval_split_is_refused_without_eval_envs_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["train", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n", "2", "--gpus", "1",
            "--eval-split", "tset", "--dry-run"]  # fmt: skip
    assert run(argv) == 2
    assert "--eval-split must be one of" in capsys.readouterr().err


def test_a_run_directory_is_checked_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user review found: TRL checkpoints without a train_config.json were resumed (or picked
    as an OpenRLHF run's best); --out naming a file passed the dry run; a changed --reward
    resumed a TRL run; the refusal named only 'grpo' when its beta changed."""
    from tomgym.train.run_checks import RUN_CONFIG

    trl = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-O1-v0",
           "--n", "2", "--dry-run"]  # fmt: skip
    foreign = tmp_path / "foreign"
    (foreign / "checkpoint-1").mkdir(parents=True)
    for argv in (trl, ["train", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n", "2",
                       "--gpus", "1", "--dry-run"]):  # fmt: skip
        assert run([*argv, "--out", str(foreign)]) == 2
        assert "holds checkpoints (checkpoint-1) but no train_config.json" in (
            capsys.readouterr().err
        )
    a_file = tmp_path / "afile.txt"
    a_file.write_text("x")
    assert run([*trl, "--out", str(a_file)]) == 2
    assert "is a file" in capsys.readouterr().err
    out = tmp_path / "run"
    out.mkdir()
    assert run([*trl, "--reward", "lenient", "--out", str(out)]) == 0
    capsys.readouterr()
    # what the real run writes, then a rerun with another reward and another KL
    from tomgym.train.trl_backend import plan_trl_run

    config = plan_trl_run(parse([*trl, "--reward", "lenient", "--out", str(out)])).config
    (out / RUN_CONFIG).write_text(json.dumps(config))
    (out / "checkpoint-1").mkdir()  # ... and saved a checkpoint
    assert run([*trl, "--reward", "lenient", "--out", str(out)]) == 0
    assert run([*trl, "--reward", "tomrl", "--out", str(out)]) == 2
    assert 'reward: "lenient" there, "tomrl" now' in capsys.readouterr().err
    assert run([*trl, "--reward", "lenient", "--kl", "0.5", "--out", str(out)]) == 2
    assert "grpo.beta: 0.01 there, 0.5 now" in capsys.readouterr().err
    # a conversational TRL prompt cannot carry the think prefill: refused in the dry run
    assert run([*trl, "--kwarg", "prefill_think=true", "--out", str(tmp_path / "p")]) == 2
    assert "prefill_think=True cannot be exported as trl" in capsys.readouterr().err


def test_a_finished_run_is_not_trained_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rerunning a finished run trained one more step (TRL) and re-saved final. `true` stands
    in for OpenRLHF's interpreter (no GPU here): the rerun must not even start it."""
    out = tmp_path / "run"
    argv = ["train", "--model", "m", "--train-env", "ToM-HiToM-O1-v0", "--n", "2", "--gpus", "1",
            "--python", "true", "--out", str(out)]  # fmt: skip
    assert run(argv) == 0
    assert "true -m openrlhf" in capsys.readouterr().out
    (out / "final").mkdir()
    (out / "final" / "config.json").write_text("{}")  # a save cut short: not finished
    assert run(argv) == 0
    assert "true -m openrlhf" in capsys.readouterr().out
    (out / "final" / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"a": "model-1.safetensors", "b": "model-2.safetensors"}})
    )
    (out / "final" / "model-1.safetensors").write_text("w")
    assert run(argv) == 0  # one shard of two
    assert "true -m openrlhf" in capsys.readouterr().out
    (out / "final" / "model-2.safetensors").write_text("w")
    assert run(argv) == 0
    captured = capsys.readouterr()
    assert "true -m openrlhf" not in captured.out and "is finished" in captured.err


def test_training_on_held_out_data_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    """Training on a held-out env, the test split or held-out items, or picking on test, passed
    without a word (a user review); the trl backend ignored OpenRLHF's options silently."""
    base = ["train", "--model", "m", "--n", "4", "--gpus", "1", "--dry-run"]
    cases = [
        (["--train-env", "ToM-HiToM-O4-v0"], "ToM-HiToM-O4-v0 is held out (from ToM-HiToM-v0"),
        (["--train-env", "ToM-HiToM-O1-v0", "--split", "test"], "--split test trains on"),
        (["--train-env", "ToM-HiToM-O2-v0", "--kwarg", "vocab_split=test"],
         "--kwarg vocab_split=test serves held-out items"),
        (["--train-env", "ToM-HiToM-O1-v0", "--eval-env", "ToM-HiToM-O1-v0", "--eval-agent",
          "hf", "--eval-split", "test"], "picks the best checkpoint on the test split"),
        # (the whole of an env with splits holds its test split: it passed without a word)
        (["--train-env", "ToM-HiToM-O1-v0", "--eval-env", "ToM-ExploreToM-v0", "--eval-agent",
          "hf", "--eval-split", "all"],
         "--eval-split all picks the best checkpoint on 300 test-split items of ToM-ExploreToM"),
    ]  # fmt: skip
    for extra, said in cases:
        assert run([*base, *extra]) == 0
        assert said in capsys.readouterr().err
    assert run([*base, "--train-env", "ToM-HiToM-O1-v0"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert run([*base, "--train-env", "ToM-HiToM-O1-v0", "--kwarg", "prompt=cot", "--eval-env",
                "ToM-HiToM-O1-v0", "--eval-agent", "hf"]) == 0  # fmt: skip
    assert "--kwarg prompt applies to the training envs only" in capsys.readouterr().err
    trl = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-O1-v0",
           "--n", "16", "--dry-run"]  # fmt: skip
    assert run([*trl, "--gpus", "8", "--estimator", "reinforce"]) == 0
    captured = capsys.readouterr()
    assert "--gpus are OpenRLHF options; the trl backend ignores them" in captured.err
    grpo = json.loads(captured.out)["grpo"]
    assert grpo["save_strategy"] == "steps" and grpo["save_steps"] == 2  # 16 rows, batches of 8
    assert run([*trl, "--max-prompt-tokens", "2000"]) == 0  # TRL cuts no prompt (review)
    assert "--max-prompt-tokens are OpenRLHF options" in capsys.readouterr().err


def test_an_env_given_twice_is_exported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d.jsonl"
    assert run(["export", "--env", "ToM-HiToM-O1-v0", "ToM-HiToM-O1-v0", "--n", "2",
                "--out", str(out)]) == 0  # fmt: skip
    assert len(out.read_text().splitlines()) == 2  # it wrote 4 rows, each item twice
    assert "ToM-HiToM-O1-v0 given more than once: used once" in capsys.readouterr().err


def test_training_prompts_longer_than_openrlhfs_budget_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OpenRLHF cuts a prompt over --data.max_len minus the response budget from the left,
    system message first, and trains on it; nothing said so (training red team: 5 of 60 rows
    with length=3, noise=0.5). Counted with the model's own tokenizer and chat template."""
    pytest.importorskip("torch")
    from tests.train.helpers import tiny_llama
    from tomgym.cli import main

    model = tiny_llama(tmp_path / "model")
    argv = ["train", "--model", str(model), "--train-env", "ToM-HiToM-v0", "--n", "20",
            "--out", str(tmp_path / "run"), "--dry-run"]  # fmt: skip
    assert main([*argv, "--max-prompt-tokens", "300"]) == 2
    err = capsys.readouterr().err
    assert "20 of 20 training prompts are longer than the prompt budget of 300 tokens" in err
    assert "pass --max-prompt-tokens" in err
    assert main([*argv, "--max-prompt-tokens", "2000"]) == 0
    captured = capsys.readouterr()
    assert "# longest training prompt: " in captured.err
    command = shlex.split(captured.out.splitlines()[0])
    assert command[command.index("--data.max_len") + 1] == str(2000 + 2048)
    # a hub model not in the local cache: not counted in a dry run (no download), and said so
    assert main([*argv[:2], "no-such-org/no-such-model", *argv[3:]]) == 0
    assert "training prompt lengths not checked" in capsys.readouterr().err


def test_a_run_directory_moved_elsewhere_is_the_same_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """train_config.json names the run's own paths, so a run directory copied or restored
    elsewhere was refused as another training run (training red team)."""
    import shutil

    from tomgym.train.openrlhf_cmd import GpuLayout, build_command
    from tomgym.train.run_checks import RUN_CONFIG, relocated, stored_out_dir
    from tomgym.train.trl_backend import plan_trl_run

    trl = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-O1-v0",
           "--n", "2", "--dry-run"]  # fmt: skip
    first = tmp_path / "first"
    first.mkdir()
    config = plan_trl_run(parse([*trl, "--out", str(first)])).config
    (first / RUN_CONFIG).write_text(json.dumps(config))
    (first / "checkpoint-1").mkdir()
    moved = tmp_path / "elsewhere" / "run"
    moved.parent.mkdir()
    shutil.move(first, moved)
    assert run([*trl, "--out", str(moved)]) == 0
    assert run([*trl, "--reward", "tomrl", "--out", str(moved)]) == 2  # still checked
    assert "holds another training run" in capsys.readouterr().err
    # OpenRLHF's config names the run directory in its command
    out = tmp_path / "o"
    command = build_command("m", out / "data" / "train.jsonl", out, PRESETS["paper-2507"],
                            GpuLayout.for_gpus(1))  # fmt: skip
    stored = {"model": "m", "command": command}
    assert stored_out_dir(stored) == str(out)
    new = tmp_path / "p"
    assert relocated(stored, str(out), str(new))["command"] == build_command(
        "m", new / "data" / "train.jsonl", new, PRESETS["paper-2507"], GpuLayout.for_gpus(1)
    )


def test_training_on_fewer_items_than_asked_says_so(
    capsys: pytest.CaptureFixture[str], data_root: Path, tmp_path: Path
) -> None:
    """User audit: --n 100000 on a release trained on the 900 items it serves without a word,
    where the export says so."""
    argv = ["train", "--model", "m", "--train-env", "ToM-HiToM-Original-O0-v0", "--split", "all",
            "--n", "500", "--gpus", "1", "--out", str(tmp_path / "run"), "--dry-run"]  # fmt: skip
    code = run(argv)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "serves 120 items here, fewer than --n 500: it trains on those 120" in err
    assert run([*argv[:-6], "100", *argv[-5:]]) == 0
    assert "fewer than --n" not in capsys.readouterr().err


def test_budgets_beyond_the_models_context_are_refused_before_the_cluster_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Audit: --max-new-tokens 100000000 was accepted; vLLM refuses a max_model_len over the
    model's context only once Ray is up and the model loaded. The tiny model keeps SmolLM2's
    config: 8,192 positions."""
    pytest.importorskip("torch")
    from tests.train.helpers import tiny_llama
    from tomgym.cli import main

    model = tiny_llama(tmp_path / "model")
    argv = ["train", "--model", str(model), "--train-env", "ToM-HiToM-O1-v0", "--n", "4",
            "--out", str(tmp_path / "run"), "--dry-run"]  # fmt: skip
    assert main([*argv, "--max-new-tokens", "7169"]) == 2  # with the 1,024-token prompt budget
    err = capsys.readouterr().err
    assert "make 8193 tokens, more than " in err and "context of 8192" in err
    assert "lower --max-new-tokens to 7168 or less" in err
    assert main([*argv, "--max-new-tokens", "7168"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1")  # vLLM's own way past its check
    assert main([*argv, "--max-new-tokens", "7169"]) == 0


def test_a_long_prompt_count_says_how_long_it_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """Audit: a dry run with --n 100000000000 counted prompts for days without a word."""
    transformers = pytest.importorskip("transformers")
    from tomgym.agents.hf import smollm2_path

    from tomgym.train.export import env_rows
    from tomgym.train.prompt_budget import ESTIMATE_AFTER, check_prompt_budget

    tokenizer = transformers.AutoTokenizer.from_pretrained(smollm2_path()[0])
    rows = list(env_rows("ToM-HiToM-O1-v0", "train", ESTIMATE_AFTER + 1))
    assert check_prompt_budget(tokenizer, rows, 4096, total=10**11) > 0
    said = capsys.readouterr().err
    assert said.startswith("# counting the tokens of 100,000,000,000 training prompts takes about")
    assert "days here" in said and "--n sets how many" in said
    check_prompt_budget(tokenizer, rows, 4096, total=len(rows))  # seconds: nothing to say
    assert capsys.readouterr().err == ""


def test_raising_max_steps_needs_the_last_steps_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose last step left no whole checkpoint (--save-steps not dividing --max-steps)
    would redo steps from an earlier one and lose its final model: refused, saying why. Only
    --max-steps may grow: any other change is still another run."""
    from tomgym.train import trl_backend
    from tomgym.train.run_checks import RUN_CONFIG, check_run_dir

    out = tmp_path / "run"
    argv = ["train", "--backend", "trl", "--model", "m", "--train-env", "ToM-HiToM-O1-v0",
            "--n", "2", "--batch", "1", "--rollouts", "2", "--save-steps", "2",
            "--out", str(out)]  # fmt: skip
    made: list[dict[str, Any]] = []
    monkeypatch.setattr(trl_backend, "check_run_dir", lambda _, config: made.append(config))
    assert run([*argv, "--max-steps", "3", "--dry-run"]) == 0
    monkeypatch.setattr(trl_backend, "check_run_dir", check_run_dir)
    (out / "checkpoint-2").mkdir(parents=True)
    (out / RUN_CONFIG).write_text(json.dumps(made[0]))
    for name, text in [("config.json", "{}"), ("model.safetensors", "weights"),
                       ("trainer_state.json", '{"global_step": 2, "max_steps": 3}')]:  # fmt: skip
        (out / "checkpoint-2" / name).write_text(text)
    capsys.readouterr()
    assert run([*argv, "--max-steps", "5", "--dry-run"]) == 2
    assert "trained to step 3, but its last whole checkpoint is checkpoint-2" in (
        capsys.readouterr().err
    )
    assert run([*argv, "--max-steps", "2", "--dry-run"]) == 2  # fewer steps: another run
    assert "grpo.max_steps: 3 there, 2 now" in capsys.readouterr().err
    assert run([*argv, "--max-steps", "5", "--lr", "1e-5", "--dry-run"]) == 2
    assert "another training run" in capsys.readouterr().err


def test_the_schedule_sets_the_resumed_learning_rate() -> None:
    """learning_rate_from_schedule, on a real optimizer and schedule: the optimizer's rate
    (what the checkpoint held) is replaced by the schedule's at the resumed step."""
    torch = pytest.importorskip("torch")
    from transformers import get_linear_schedule_with_warmup

    from tomgym.train.trl_backend import learning_rate_from_schedule

    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    schedule = get_linear_schedule_with_warmup(optimizer, 0, num_training_steps=4)
    schedule.step()  # resumed after one step of four
    optimizer.param_groups[0]["lr"] = 0.0  # as a 1-step run's checkpoint left it
    learning_rate_from_schedule().on_train_begin(
        None, None, None, optimizer=optimizer, lr_scheduler=schedule
    )
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.75)
    assert schedule.get_last_lr() == [pytest.approx(0.75)]
