"""Evaluation: run agents on envs or suites, store results, compute metrics, build leaderboards."""

from __future__ import annotations

from tomgym.eval.leaderboard import Leaderboard, collect, run_suite, write_leaderboard
from tomgym.eval.metrics import EnvSummary, Summary, wilson_interval
from tomgym.eval.runner import OutputDirError, RunConflictError, evaluate, summarise_dir
from tomgym.eval.store import ResultRecord, RunFileError, RunMetadata
from tomgym.eval.suites import Suite, SuiteError, builtin_suites, load_suite

__all__ = [
    "EnvSummary",
    "Leaderboard",
    "OutputDirError",
    "ResultRecord",
    "RunConflictError",
    "RunFileError",
    "RunMetadata",
    "Suite",
    "SuiteError",
    "Summary",
    "builtin_suites",
    "collect",
    "evaluate",
    "load_suite",
    "run_suite",
    "summarise_dir",
    "wilson_interval",
    "write_leaderboard",
]
