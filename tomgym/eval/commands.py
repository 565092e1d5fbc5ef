"""The ``tomgym eval`` and ``tomgym leaderboard`` subcommands (wired into ``tomgym.cli``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from tomgym.cli_args import add_pairs_option, debugging, output_path, parse_kwargs, positive_int
from tomgym.eval.metrics import Summary


def _share(value: float | None) -> str:
    """A share to three places, or "-" where nothing was scored."""
    return "-" if value is None else f"{value:.3f}"


def _privilege(summary: Summary) -> str:
    """What a privileged agent's answers came from, as the leaderboard labels them: the
    oracle shown the gold that answered every item from the simulator copied none."""
    if not summary.privileged:
        return ""
    if summary.gold_answers:
        n = summary.gold_answers
        return f" (privileged: copied the gold on {n} item{'s' if n != 1 else ''})"
    return " (simulator: no gold copied)"


def _print_summary(summary: Summary) -> None:
    print(f"agent: {summary.agent}{_privilege(summary)}")
    width = max((len(e) for e in summary.envs), default=10)
    print(
        f"{'env'.ljust(width)}  {'n':>11}  {'failed':>6}  {'acc':>6}  {'95% CI':>13}  "
        f"{'format':>6}  {'len':>6}  {'reason':>6}  held-out"
    )
    for env_id, env in summary.envs.items():
        ci = f"{env.ci95[0]:.3f}-{env.ci95[1]:.3f}" if env.n else "-"
        n = f"{env.n}/{env.planned}" if env.planned is not None and env.n < env.planned else env.n
        acc = "-" if env.accuracy is None else f"{env.accuracy:.3f}"
        unit = "" if env.response_tokens_source == "completion_tokens" else "w"
        length = f"{env.response_tokens_mean:.0f}{unit}" if env.n else "-"
        print(
            f"{env_id.ljust(width)}  {n:>11}  {env.failed:>6}  {acc:>6}  {ci:>13}  "
            f"{_share(env.format_rate):>6}  {length:>6}  {_share(env.reasoning_structure):>6}  "
            f"{'yes' if env.held_out else 'no'}"
        )
    print(
        "len: mean response length in tokens (w: words, for agents that report none); reason: "
        "share of structured think parts (see the README)"
    )
    for env_id, env in summary.envs.items():
        if env.ci95_by_story is not None and env.stories is not None:
            low, high = env.ci95_by_story
            print(
                f"{env_id}: {env.n} items from {env.stories} stories; by story (a story's "
                f"questions as one draw) the 95% CI is {low:.3f}-{high:.3f}"
            )
    fell_back = {e: env for e, env in summary.envs.items() if env.fallback_answers}
    if fell_back:
        said = ", ".join(f"{e} {env.fallback_answers}/{env.n}" for e, env in fell_back.items())
        print(
            f"the rule did not apply, so a fixed answer was given (the first candidate, or yes), "
            f"on: {said}; there the accuracy is that answer's, not the shortcut's"
        )
    cut = {e: env.truncated_share for e, env in summary.envs.items() if env.truncated_share}
    if cut:
        shares = ", ".join(f"{e} {100 * share:.0f}%" for e, share in cut.items())
        print(f"responses cut at the token budget (--max-new-tokens): {shares}")
    if summary.accuracy is not None:
        print(f"accuracy over all {summary.n_items} scored items: {summary.accuracy:.3f}")
    if summary.held_out_gap is not None:
        print(f"held-out gap (in-dist minus held-out): {summary.held_out_gap:+.3f}")
    if summary.held_out_gap_above_chance is not None:
        print(
            f"gap above chance (the same over (acc - chance) / (1 - chance)): "
            f"{summary.held_out_gap_above_chance:+.3f}"
        )
    elif summary.held_out_gap is not None:
        unset = [e for e, env in summary.envs.items() if env.n and env.chance is None]
        if unset:
            print(
                "gap above chance: - (no chance level for "
                f"{', '.join(unset[:3])}{' ...' if len(unset) > 3 else ''}: free-text answers)"
            )
    if summary.extra_records:
        print(
            f"note: {summary.extra_records} stored records outside this run's plan (an earlier, "
            "larger --n or other envs) are kept in results.jsonl but not counted"
        )
    if not summary.complete and summary.planned_items is not None:
        print(f"incomplete: {summary.n_items} of {summary.planned_items} planned items scored")


def _failures(command: str, failed: int, unanswered: int, errors: dict[str, int]) -> int:
    """Say (stderr) how many items failed and how many the agent could not answer, and why;
    the exit status: 1 when any failed, else 0."""
    if failed:
        print(
            f"tomgym {command}: {failed} items failed (agent errors; left out of the numbers); "
            "rerun the same command to retry them",
            file=sys.stderr,
        )
    if unanswered:
        print(
            f"tomgym {command}: warning: {unanswered} items were scored as empty answers (wrong) "
            "because the agent could not answer them, for the reasons below (a prompt longer "
            "than the served model's context: raise the server's --max-model-len; a reply "
            "with no text: see its finish_reason); then rerun with --retry-unanswered to ask "
            "them again",
            file=sys.stderr,
        )
    for message, count in errors.items():
        print(f"  {count} x {message}", file=sys.stderr)
    return 1 if failed else 0


def env_kwargs(pairs: list[str]) -> dict[str, Any]:
    """The ``--kwarg`` pairs; the split has its own option (a suite's or --split's would be
    overridden by it without a word, and a rerun without it would keep it)."""
    kwargs = parse_kwargs(pairs)
    if "split" in kwargs:
        raise ValueError(f"use --split {kwargs['split']}, not --kwarg split=...")
    return kwargs


def _sampling(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "n": args.n,
        "seed": args.seed,
        "split": args.split,
        "env_kwargs": env_kwargs(args.kwarg) or None,
        "batch_size": args.batch_size,
        "workers": args.workers,
        "ray_address": args.ray_address,
        "temperature": args.temperature,
        "max_new_tokens": args.max_new_tokens,
        "quiet": args.quiet,
        "item_order": args.item_order,
        "retry_unanswered": args.retry_unanswered,
        "skip_missing": args.skip_missing,
        "agent_options": parse_kwargs(args.agent_option, "--agent-option") or None,
    }


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate; exit status 1 when items failed (they are retried by a rerun), 2 on errors."""
    from tomgym.eval.runner import evaluate

    if bool(args.env) == bool(args.suite):
        which = "not both" if args.env else "one of them"
        print(
            f"tomgym eval: error: give --env ID (one or more) or --suite NAME, {which}",
            file=sys.stderr,
        )
        return 2
    try:
        summary = evaluate(
            args.agent, args.env or None, suite=args.suite, out=args.out, **_sampling(args)
        )
    except RuntimeError as exc:
        if debugging(args):
            raise
        print(f"tomgym eval: error: {exc}", file=sys.stderr)
        return 2
    _print_summary(summary)
    print(f"results: {args.out}/results.jsonl  summary: {args.out}/summary.json")
    return _failures("eval", summary.failed_items, summary.unanswered_items, summary.agent_errors)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from tomgym.eval.leaderboard import (
        collect,
        earlier_suite_runs,
        run_suite,
        to_markdown,
        write_leaderboard,
    )
    from tomgym.eval.suites import load_suite

    status = 0
    if os.path.exists(args.out) and not os.path.isdir(args.out):  # before any run, not after
        print(
            f"tomgym leaderboard: error: --out {args.out} is a file, not a directory",
            file=sys.stderr,
        )
        return 2
    if args.suite:
        agents = [a.strip() for a in (args.agents or "").split(",") if a.strip()]
        if args.agents is not None and not agents:  # an unset shell variable ran every agent
            print(
                f"tomgym leaderboard: error: --agents {args.agents!r} names no agent: give "
                "comma-separated specs, or leave --agents out for the suite's own agents",
                file=sys.stderr,
            )
            return 2
        suite = load_suite(args.suite)
        agents = agents or suite.agents
        try:
            board = run_suite(args.suite, agents, args.out, **_sampling(args))
        except RuntimeError as exc:
            if debugging(args):
                raise
            print(f"tomgym leaderboard: {exc}", file=sys.stderr)
            return 2
        earlier = earlier_suite_runs(
            Path(args.out), suite.name, [*(r.directory for r in board.rows), *(args.dirs or [])]
        )
        if earlier:  # a board that one agent's run into the same --out shrank to its one row
            stopped = board.stopped
            board = collect([*(r.directory for r in board.rows), *earlier])
            board.stopped = stopped
            print(
                f"tomgym leaderboard: note: also tabulated, run into this --out before: "
                f"{', '.join(str(d) for d in earlier)} (delete a run folder to drop its row)",
                file=sys.stderr,
            )
        errors: dict[str, int] = {}
        for row in board.rows:
            for message, count in row.agent_errors.items():
                errors[f"{row.agent}: {message}"] = count
        status = _failures(
            "leaderboard",
            sum(r.failed for r in board.rows),
            sum(r.unanswered for r in board.rows),
            errors,
        )
        for agent, why in board.stopped.items():
            print(f"tomgym leaderboard: error: {agent} stopped: {why}", file=sys.stderr)
            status = 2
        if args.dirs:
            stopped = board.stopped
            board = collect([*(r.directory for r in board.rows), *args.dirs])
            board.stopped = stopped
    elif args.dirs:
        given = _run_options_given(args)
        if given:
            print(
                f"tomgym leaderboard: error: {_options_phrase(given)} only with --suite "
                "(choosing what its agents run); result directories are tabulated as they were "
                "run",
                file=sys.stderr,
            )
            return 2
        board = collect(args.dirs)
    else:
        print("tomgym leaderboard: error: give result directories or --suite NAME", file=sys.stderr)
        return 2
    print(to_markdown(board))
    written = write_leaderboard(board, args.out)
    for path in written["files"] + written.get("plots", []):
        print(f"wrote {path}")
    if "plots_skipped" in written:
        print(written["plots_skipped"], file=sys.stderr)
    return status


_NOT_RUN_OPTIONS = frozenset({"command", "handler", "dirs", "suite", "out", "quiet", "debug",
                               "data_dir", "run_option_defaults"})  # fmt: skip
"""The leaderboard's options that do not choose what a suite's agents run."""


def _options_phrase(flags: list[str]) -> str:
    """``--n applies`` or ``--agents and --n apply``."""
    if len(flags) == 1:
        return f"{flags[0]} applies"
    return f"{', '.join(flags[:-1])} and {flags[-1]} apply"


def _run_options_given(args: argparse.Namespace) -> list[str]:
    """The options of a suite run (``--agents``, ``--n``, ...) set on a leaderboard of
    directories, as flags: those that differ from the parser's defaults."""
    unset: dict[str, Any] = args.run_option_defaults
    return [
        "--" + name.replace("_", "-")
        for name, default in unset.items()
        if name not in _NOT_RUN_OPTIONS and getattr(args, name, default) != default
    ]


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--n", type=positive_int, default=None, help="items per env (default: suite's, else 100)"
    )
    p.add_argument("--seed", type=int, default=None, help="agent seed (default: suite's, else 0)")
    p.add_argument(
        "--split",
        default=None,
        help="split of the envs that have splits (default: test, or the suite's); an env "
        "without it uses val, then test, else all its items, with a note",
    )
    add_pairs_option(
        p,
        "--kwarg",
        "env keyword argument, the value as JSON or a Python literal (True, (1, 2), ...), else "
        "a string (repeatable; the split is --split)",
    )
    p.add_argument(
        "--item-order",
        choices=["shuffled", "first"],
        default=None,
        help="which n items of a release or data-file env: the first n of one fixed shuffled "
        "order (default; spans a release stored order by order) or indices 0..n-1",
    )
    p.add_argument(
        "--retry-unanswered",
        action="store_true",
        help="ask again the items a served model could not answer (a prompt over its context), "
        "after raising the server's context",
    )
    p.add_argument(
        "--skip-missing",
        action="store_true",
        help="leave out, with a note, the envs whose release is not under the data root "
        "(a suite with FANToM where its file cannot be had)",
    )
    p.add_argument("--batch-size", type=positive_int, default=8)
    p.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="agent replicas as Ray actors (1: one process, no Ray)",
    )
    p.add_argument("--ray-address", default=None, help="join a Ray cluster (implies Ray)")
    add_pairs_option(
        p,
        "--agent-option",
        "agent setting, the value as JSON (repeatable): top_p; hf/smollm2 device, dtype, "
        "num_threads, revision (a hub model's branch, tag or commit); openai timeout, "
        "max_retries, backoff_base, backoff_max, concurrency, api_key_env, max_tokens_field; "
        "vllm engine arguments (max_model_len, dtype, "
        "revision, ...); heuristic:majority and heuristic:position fit_items",
    )
    p.add_argument("--temperature", type=float, default=None)
    p.add_argument("--max-new-tokens", type=positive_int, default=None)
    p.add_argument("--quiet", action="store_true", help="no progress output")


def add_commands(subparsers: Any) -> None:
    """Add ``eval`` and ``leaderboard`` to the ``tomgym`` command's subparsers."""
    p = subparsers.add_parser("eval", help="evaluate an agent on envs or a suite (resumable)")
    p.add_argument(
        "--agent",
        required=True,
        help="smollm2 (bundled), hf:ID_OR_PATH, vllm:ID_OR_PATH, openai:MODEL@URL, oracle, "
        "random or heuristic:NAME",
    )
    p.add_argument("--env", action="append", default=[], metavar="ID", help="env ID (repeatable)")
    p.add_argument("--suite", help="built-in suite name or path to a suite .json")
    p.add_argument(
        "--out", type=output_path, required=True, help="results directory (rerun to resume)"
    )
    _add_run_options(p)
    p.set_defaults(handler=cmd_eval)

    p = subparsers.add_parser(
        "leaderboard", help="tabulate eval directories, or run a suite for several agents"
    )
    p.add_argument("dirs", nargs="*", help="results directories of `tomgym eval`")
    p.add_argument("--suite", help="run this suite for --agents (default: the suite's agents)")
    p.add_argument("--agents", help="comma-separated agent specs")
    p.add_argument(
        "--out",
        type=output_path,
        default="leaderboard",
        help="where to write leaderboard.* and plots/ (default: ./leaderboard)",
    )
    _add_run_options(p)
    p.set_defaults(handler=cmd_leaderboard)
    p.set_defaults(run_option_defaults=vars(p.parse_known_args([])[0]))
