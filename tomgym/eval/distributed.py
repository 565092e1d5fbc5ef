"""Run an evaluation's batches on Ray actors (agent replicas); results land in the same store."""

from __future__ import annotations

from collections.abc import Sequence
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
) -> dict[str, Any]:
    """Shard pending items into batches over ``workers`` actors; append results as they arrive.

    Returns the agent's description (for run metadata). The caller sorts the results file
    afterwards, so it matches a single-process run.
    """
    try:
        import ray
    except ImportError:
        raise RuntimeError(RAY_MISSING) from None
    from tomgym.eval.runner import Progress
    from tomgym.eval.store import ResultRecord

    if not ray.is_initialized():
        init: dict[str, Any] = {
            # without --ray-address, a Ray of its own: "None" joined a local cluster already
            # running (`ray start --head`), which then refused num_cpus with a Ray traceback
            "address": address if address is not None else "local",
            "include_dashboard": False,
            "log_to_driver": False,
        }
        if address is None:
            init["num_cpus"] = workers
        ray.init(**init)
    remote = ray.remote(num_cpus=1)(AgentWorker) if address is None else ray.remote(AgentWorker)
    # Handles are typed Any: Ray's stubs do not see the actor's methods as remote functions.
    actors: list[Any] = [remote.remote(agent, options) for _ in range(workers)]
    description: dict[str, Any] = ray.get(actors[0].describe.remote())
    jobs = [
        (t, pending[t.env_id][s : s + batch_size])
        for t in targets
        for s in range(0, len(pending[t.env_id]), batch_size)
    ]
    total = sum(len(b) for _, b in jobs)
    progress = Progress(f"{len(targets)} env(s) on {workers} workers", total, quiet=quiet)
    in_flight: dict[Any, int] = {}
    queue = list(jobs)
    free = list(range(workers))
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
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, Exception):
                        raise cause from None
                    raise
                records = [ResultRecord.model_validate_json(line) for line in lines]
                store.append(records)
                progress.update(records)
    finally:
        progress.close()
        for actor in actors:
            ray.kill(actor)
    return description


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
