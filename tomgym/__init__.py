"""tomgym: Theory-of-Mind benchmarks as Gymnasium text environments.

``import tomgym`` registers every built-in env ID with Gymnasium, so
``gym.make("ToM-HiToM-O4-v0")`` works right after it.
"""

from __future__ import annotations

from typing import Any

from tomgym.env import (
    EnvArgumentError,
    EpisodeStateError,
    HeldOutDataWarning,
    HeldOutRedefinedWarning,
    KnownWrongLabelsWarning,
    ToMEnv,
)
from tomgym.items import ItemError, ToMItem
from tomgym.prompts import PROMPT_PRESETS, PromptPreset
from tomgym.registry import (
    ToMEnvSpec,
    UnknownEnvError,
    get_spec,
    list_envs,
    register_tom_env,
    unregister_tom_env,
)
from tomgym.rewards import REWARD_PRESETS, RewardSpec, Score, score_response
from tomgym.world.parse import UnknownSentenceError

__version__ = "0.1.0"


def make(env_id: str, **kwargs: Any) -> ToMEnv:
    """Like ``gym.make`` but checks the ID first and suggests near matches; returns the raw env."""
    import gymnasium as gym

    get_spec(env_id)
    try:
        env = gym.make(env_id, **kwargs)
    except EnvArgumentError as exc:
        # gym.make re-raises a TypeError with the creator's kwargs appended; ours already
        # names the env, the argument and the value.
        cause = exc.__cause__
        raise (cause if isinstance(cause, EnvArgumentError) else exc) from None
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, ToMEnv)
    return unwrapped


def load_items(env_id: str, n: int | None = None, **env_kwargs: Any) -> list[ToMItem]:
    """The items an env serves, in index order (a generated env: its first ``n``)."""
    from tomgym.sources import first_items

    return first_items(make(env_id, **env_kwargs).source, n)


SOLVE_MODES: dict[str, tuple[str, ...]] = {"hitom": ("rules",), "tomi": ("rules", "release")}
"""The oracle's families and, for each, the labelling modes it knows (the first is the default)."""


def solve(story: str, question: str, family: str = "hitom", mode: str = "rules") -> str:
    """The oracle's answer to a question about a story, from the world simulator.

    ``family`` is ``hitom`` or ``tomi``. ``mode="rules"`` follows the story by the stated
    rules; ToMi also has ``mode="release"``, which reproduces the release's second-order
    labelling quirk instead. Hi-ToM has only the rules mode. An unknown family or mode is a
    ValueError that lists what exists.
    """
    for name, value in (("story", story), ("question", question)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be text (str), got {type(value).__name__}")
    if family not in SOLVE_MODES:
        raise ValueError(
            f"the oracle knows the families {', '.join(map(repr, SOLVE_MODES))}, not {family!r}"
        )
    modes = SOLVE_MODES[family]
    if mode not in modes:
        only = "only " if len(modes) == 1 else ""
        raise ValueError(
            f"family {family!r} has {only}the mode(s) {', '.join(map(repr, modes))}, not {mode!r}"
        )
    if family == "hitom":
        from tomgym.world.solve import solve_hitom

        return solve_hitom(story, question)
    from tomgym.world.tomi import solve_tomi

    return solve_tomi(story, question, mode=mode)


def _register() -> None:
    from tomgym.envs import register_builtin_envs
    from tomgym.registry import BUILTIN_IDS

    register_builtin_envs()
    BUILTIN_IDS.update(spec.id for spec in list_envs())


_register()

from tomgym.plugins import load_plugins  # noqa: E402  (plugins call register_tom_env above)

load_plugins()

from tomgym.env_files import load_env_files_from_environment  # noqa: E402

load_env_files_from_environment()  # $TOMGYM_ENV_FILES: after plugins, whose IDs come first

__all__ = [
    "REWARD_PRESETS",
    "PROMPT_PRESETS",
    "EnvArgumentError",
    "EpisodeStateError",
    "HeldOutDataWarning",
    "KnownWrongLabelsWarning",
    "HeldOutRedefinedWarning",
    "ItemError",
    "PromptPreset",
    "RewardSpec",
    "Score",
    "ToMEnv",
    "ToMEnvSpec",
    "ToMItem",
    "UnknownEnvError",
    "UnknownSentenceError",
    "get_spec",
    "list_envs",
    "load_items",
    "make",
    "register_tom_env",
    "score_response",
    "solve",
    "unregister_tom_env",
]
