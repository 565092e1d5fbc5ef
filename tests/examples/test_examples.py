"""The README's examples run as written against the current API (with the bundled model, at a
size that takes seconds where the script takes a size)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, *args: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )
    assert done.returncode == 0, f"{name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_plain_loop(tmp_path: Path) -> None:
    out = run_example("plain_loop.py", cwd=tmp_path)
    assert out.count("verdict") == 4
    assert "mean reward" in out


@pytest.mark.parametrize("env", ["ToM-HiToM-O1-v0", "ToM-ToMi-v0"])
def test_trl_grpo(tmp_path: Path, env: str) -> None:
    # RL red team: the example passed length=1 to every --env, which only generated Hi-ToM
    # envs take (ToMi's refused it)
    out = run_example(
        "trl_grpo.py",
        *("--env", env, "--n", "4", "--steps", "1", "--tokens", "4"),
        *("--out", str(tmp_path / "run")),
        cwd=tmp_path,
    )
    assert (tmp_path / "run" / "final" / "config.json").is_file()
    # RL red team: with its defaults (rlvr reward, Hi-ToM) the example never changed a weight,
    # and said nothing; it now says how many steps had a learning signal.
    assert re.search(r"^[01] of 1 steps changed the weights", out, re.MULTILINE), out[-2000:]
