"""Run an evaluation's batches on Ray actors (agent replicas); results land in the same store."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tomgym.agents.base import Agent

if TYPE_CHECKING:
    from tomgym.eval.store import ResultsStore
    from tomgym.eval.targets import EnvTarget

RAY_MISSING = (
    "running with --workers or --ray-address needs Ray: pip install 'tomgym[train]' "
    "(or pip install 'ray[default]')"
)


class AgentWorker:
    """One agent replica; it makes each env it is asked about once and scores batches there."""

    def __init__(self, agent: str | Agent, options: dict[str, Any]) -> None:
        from tomgym.agents.base import make_agent

        self.agent = make_agent(agent, **options) if isinstance(agent, str) else agent
        self.envs: dict[str, Any] = {}

    def describe(self) -> dict[str, Any]:
        return {"agent_description": self.agent.describe(), "privileged": self.agent.privileged}

    def run(
        self,
        env_id: str,
        kwargs: dict[str, Any],
        family: str,
        held_out: bool,
        indices: Sequence[int],
    ) -> list[str]:
        import tomgym
        from tomgym.eval.scoring import run_batch

        if env_id not in self.envs:
            self.envs[env_id] = tomgym.make(env_id, **kwargs)
        records = run_batch(self.agent, self.envs[env_id], env_id, indices, family, held_out)
        return [r.model_dump_json() for r in records]


def run_distributed(
    agent: str | Agent,
    options: dict[str, Any],
    targets: Sequence[EnvTarget],
    pending: dict[str, list[int]],
    store: ResultsStore,
    *,
    batch_size: int,
    workers: int,
    address: str | None = None,
    quiet: bool = False,
    on_described: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Shard pending items into batches over ``workers`` actors; append results as they arrive.
    ``on_described`` gets the agent's description as soon as the first replica is built, before
    any item is asked (the caller checks it against the run's and records it).

    Returns the agent's description (for run metadata). The caller sorts the results file
    afterwards, so it matches a single-process run.
    """
    try:
        import ray
    except ImportError:
        raise RuntimeError(RAY_MISSING) from None

    jobs = [
        (t, pending[t.env_id][s : s + batch_size])
        for t in targets
        for s in range(0, len(pending[t.env_id]), batch_size)
    ]
    workers = max(1, min(workers, len(jobs)))  # an idle replica would load its model for nothing
    if not ray.is_initialized():
        init: dict[str, Any] = {
            # without --ray-address, a Ray of its own: "None" joined a local cluster already
            # running (`ray start --head`), which then refused num_cpus with a Ray traceback
            "address": address if address is not None else "local",
            "include_dashboard": False,
            "log_to_driver": False,
        }
        if quiet:  # Ray's own start-up lines ("Started a local Ray instance") too
            init["logging_level"] = logging.ERROR
        if address is None:
            init["num_cpus"] = workers
        else:  # a cluster's workers read the driver's data root and settings, not their own
            init["runtime_env"] = {"env_vars": worker_env()}
        ray.init(**init)
    elif address is None:  # a Ray started before (from Python) with fewer CPUs: an actor
        # that can never be placed waited forever
        workers = max(1, min(workers, int(ray.cluster_resources().get("CPU", workers))))
    remote = ray.remote(num_cpus=1)(AgentWorker) if address is None else ray.remote(AgentWorker)
    # Handles are typed Any: Ray's stubs do not see the actor's methods as remote functions.
    actors: list[Any] = [remote.remote(agent, options) for _ in range(workers)]
    try:
        try:
            description: dict[str, Any] = ray.get(actors[0].describe.remote())
        except Exception as exc:  # the agent failed to build in its worker: its error, one line
            raise worker_cause(exc, "the agent failed to start in its Ray worker") from None
        if on_described is not None:
            on_described(description)
        _run_jobs(ray, actors, jobs, store, f"{len(targets)} env(s) on {workers} workers", quiet)
    finally:
        for actor in actors:
            ray.kill(actor)
    return description


def _run_jobs(
    ray: Any, actors: list[Any], jobs: list[Any], store: ResultsStore, label: str, quiet: bool
) -> None:
    """Hand the batches to free actors and append each batch's records as it finishes."""
    from tomgym.eval.runner import Progress
    from tomgym.eval.store import ResultRecord

    progress = Progress(label, sum(len(b) for _, b in jobs), quiet=quiet)
    in_flight: dict[Any, int] = {}
    queue = list(jobs)
    free = list(range(len(actors)))
    try:
        while queue or in_flight:
            while queue and free:
                worker = free.pop()
                target, batch = queue.pop(0)
                ref = actors[worker].run.remote(
                    target.env_id, target.kwargs, target.spec.family, target.held_out, batch
                )
                in_flight[ref] = worker
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                free.append(in_flight.pop(ref))
                try:
                    lines = ray.get(ref)
                except Exception as exc:
                    # keep what the other workers finish, then stop with the worker's own
                    # error (a served model that gives no reply), not Ray's wrapper of it
                    _keep_finished(ray, list(in_flight), store, progress)
                    raise worker_cause(exc, "a Ray worker stopped; rerun to resume") from None
                records = [ResultRecord.model_validate_json(line) for line in lines]
                store.append(records)
                progress.update(records)
    finally:
        progress.close()


WORKER_ENV_VARS = ("TOMGYM_DATA", "TOMGYM_ENV_FILES", "TOMGYM_NO_PLUGINS", "HF_HUB_OFFLINE")
"""Settings a cluster's workers take from the driver (``--data-dir`` sets TOMGYM_DATA,
``--env-file`` TOMGYM_ENV_FILES); caches (model files) stay each machine's own."""


def worker_env() -> dict[str, str]:
    """The driver's values of WORKER_ENV_VARS that are set."""
    return {name: os.environ[name] for name in WORKER_ENV_VARS if name in os.environ}


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse a ``host:port`` (or ``ray://host:port``) where nothing listens: ``ray.init`` retried
    it without end and ignored Ctrl-C. "auto" and other forms are left to Ray."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise RuntimeError(
            f"--ray-address {address}: nothing answers there ({exc.strerror or exc}); start the "
            "cluster first (ray start --head) or check the address"
        ) from None


def worker_cause(exc: BaseException, what: str) -> BaseException:
    """The error a worker raised, out of Ray's wrappers (a task's ``cause``), else Ray's own
    (an actor that died building its agent, or later) in one line after ``what``."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        return cause
    if not type(exc).__module__.startswith("ray."):
        return exc
    text = str(exc)
    for line in reversed(text.strip().splitlines()):  # an actor's creation error, as Ray words it
        if ": " in line and not line.startswith((" ", "\t", "Traceback")):
            return RuntimeError(f"{what}: {line.strip()}")
    return exc


def _keep_finished(ray: Any, refs: list[Any], store: Any, progress: Any) -> None:
    """Append the records of the batches still in flight that finish (those that fail are
    asked again by the rerun)."""
    from tomgym.eval.store import ResultRecord

    for ref in refs:
        try:
            lines = ray.get(ref)
        except Exception:
            continue
        records = [ResultRecord.model_validate_json(line) for line in lines]
        store.append(records)
        progress.update(records)
