"""ToMEnv: one Theory-of-Mind question per episode, the response scored by the shared verifier."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
from gymnasium import spaces

from tomgym.items import ToMItem
from tomgym.prompts import (
    PREFILL,
    PromptPreset,
    render_messages,
    render_observation,
    resolve_prompt,
)
from tomgym.registry import get_spec, registered_source
from tomgym.rewards import RewardSpec, Score, resolve_reward, score_response
from tomgym.sources import PROCEDURAL_INDEX_LIMIT, ItemSource
from tomgym.spaces import ACTION_MAX_CHARS, text_space, to_printable

_RESET_OPTIONS = frozenset({"index"})
_CANDIDATE_LIST_ALLOWANCE = 2_048


class EpisodeStateError(RuntimeError):
    """``step`` was called before ``reset`` or after the episode ended."""


class ToMEnv(gym.Env[str, str]):
    """A Theory-of-Mind question answered in one step.

    ## Description
    Each episode shows one story and one question about who knows or believes what. The agent
    answers once, reasoning inside ``<think> </think>`` and answering inside
    ``<answer> </answer>``; the episode then ends. Items come from a dataset release, a
    user's data, or a generator (the world simulator), depending on the registered ID.

    ## Observation
    The rendered prompt (system message with the format instruction and the family's world
    assumptions, then the story and the question) as one string in a ``Text`` space over
    printable Unicode, sized to the env's longest prompt. ``info["messages"]`` carries the
    same content as chat messages so an agent can apply its own chat template;
    ``info["prefill"]`` is ``"<think>\\n"`` when ``prefill_think=True``, to be put at the
    start of the response (the observation then ends with it too).

    ## Action
    The response text: any string of any length (the action space's bound only limits
    ``sample()``).

    ## Rewards
    A format part plus a correctness part, from a reward preset: ``rlvr`` (default; 0.1 for
    the format, 1.0 for a correct answer), ``tomrl`` (format +1/-1, answer +2/-2) or
    ``accuracy`` (1/0, format ignored), or a custom ``RewardSpec``. The format holds for
    exactly one ``<think>...</think>`` followed by exactly one ``<answer>...</answer>``.
    Correctness is judged on whole normalised words; where the item has candidates, naming
    any other candidate besides the gold one earns nothing.

    ## Episode End
    Always terminated after the first step (``terminated=True``, ``truncated=False``). The
    terminal observation is the empty string. ``info`` then holds the extracted answer,
    ``format_ok``, ``correct``, ``verdict`` (why not correct), ``gold`` and ``reward_parts``.

    ## Arguments
    - ``reward``: preset name, dict of ``RewardSpec`` fields, or a ``RewardSpec``.
    - ``prompt``: preset name (``default``, ``tomrl``, ``cot``) or a ``PromptPreset``.
    - ``prefill_think``: start the response with ``<think>`` (counted by the format rule).
    - ``render_mode``: ``None`` or ``"ansi"`` (``render()`` returns the prompt and, after the
      step, the response and its verdict).
    - further keyword arguments go to the family's item source (``split``, ``order``, ...).

    ``reset(seed=..., options={"index": i})`` serves item ``i``; without an index, a seeded
    random item.

    ## Registered Configurations
    Every ToM env ID (``tomgym list``); user envs from ``tomgym.register_tom_env``.

    ## Version History
    - v0: initial release.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012
    family: ClassVar[str] = "custom"

    def __init__(
        self,
        tom_id: str | None = None,
        *,
        reward: str | dict[str, Any] | RewardSpec = "rlvr",
        prompt: str | PromptPreset = "default",
        prefill_think: bool = False,
        render_mode: str | None = None,
        **source_kwargs: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}"
            )
        self.tom_id = tom_id
        self.render_mode = render_mode
        self.reward_spec = resolve_reward(reward)
        self.prompt_preset = resolve_prompt(prompt)
        self.prefill = PREFILL if prefill_think else ""
        self.prompt_family = get_spec(tom_id).family if tom_id else self.family
        if self.prompt_family == "custom":
            self.prompt_family = self.family
        self.source: ItemSource = self.build_source(**source_kwargs)
        self.observation_space: spaces.Text = text_space(
            self._max_observation_chars(), min_length=0
        )
        self.action_space: spaces.Text = text_space(ACTION_MAX_CHARS, min_length=0)
        self._item: ToMItem | None = None
        self._index: int | None = None
        self._episode_over = False
        self._last_response: str | None = None
        self._last_score: Score | None = None

    # --- what a family overrides -------------------------------------------------------
    def build_source(self, **source_kwargs: Any) -> ItemSource:
        """The items this env serves. Families override this; the base serves registered items."""
        if source_kwargs:
            raise TypeError(
                f"{self.tom_id or type(self).__name__}: unexpected keyword arguments "
                f"{sorted(source_kwargs)}"
            )
        if self.tom_id is None:
            raise ValueError("ToMEnv needs tom_id= (a registered ID) or a family subclass")
        return registered_source(self.tom_id)

    # --- the Gymnasium API -------------------------------------------------------------
    @property
    def size(self) -> int | None:
        """Number of items; None for a procedural env."""
        return self.source.size

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - _RESET_OPTIONS
        if unknown:
            raise ValueError(
                f"unknown reset options {sorted(unknown)}; known: {sorted(_RESET_OPTIONS)}"
            )
        limit = self.source.size if self.source.size is not None else PROCEDURAL_INDEX_LIMIT
        index = options.get("index")
        if index is None:
            index = int(self.np_random.integers(0, limit))
        elif isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"options['index'] must be an int, got {type(index).__name__}")
        elif not 0 <= index < limit:
            raise IndexError(f"options['index']={index} is out of range 0..{limit - 1}")
        item = self.source.item(index)
        self._item, self._index, self._episode_over = item, index, False
        self._last_response = self._last_score = None
        messages = self.messages_for(item)
        observation = render_observation(messages, self.prefill)
        if len(observation) > self.observation_space.max_length:
            raise RuntimeError(
                f"{self.tom_id}: item {item.id} renders to {len(observation)} characters, over the "
                f"space's bound {self.observation_space.max_length}; the source's "
                "max_prompt_chars is wrong"
            )
        info = {
            "env_id": self.tom_id,
            "item_id": item.id,
            "index": index,
            "order": item.order,
            "question_type": item.question_type,
            "answer_type": item.answer_type,
            "split": item.split,
            "source": item.source,
            "candidates": list(item.candidates),
            "messages": messages,
            "prefill": self.prefill,
        }
        return observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if not isinstance(action, str):
            raise TypeError(
                f"the action must be the response text (str), got {type(action).__name__}"
            )
        if self._item is None:
            raise EpisodeStateError("step() called before reset(): call reset() first")
        if self._episode_over:
            raise EpisodeStateError("the episode has ended (one answer per episode): call reset()")
        item = self._item
        score = score_response(action, item, self.reward_spec, self.prefill)
        self._episode_over = True
        self._last_response, self._last_score = action, score
        info = {
            "env_id": self.tom_id,
            "item_id": item.id,
            "index": self._index,
            "order": item.order,
            "question_type": item.question_type,
            "answer": score.answer,
            "format_ok": score.format_ok,
            "correct": score.correct,
            "verdict": score.verdict,
            "detail": score.detail,
            "gold": score.gold,
            "reward_parts": dict(score.parts),
            "metadata": dict(item.metadata),
        }
        return "", float(score.reward), True, False, info

    def render(self) -> str | None:  # type: ignore[override]
        return self.render_text() if self.render_mode == "ansi" else None

    # --- helpers -----------------------------------------------------------------------
    @property
    def current_item(self) -> ToMItem | None:
        """The item of the current episode (it holds the gold answer: for tools, not agents)."""
        return self._item

    @property
    def last_score(self) -> Score | None:
        """The full verdict of the last step (None before the first step of an episode)."""
        return self._last_score

    def messages_for(self, item: ToMItem) -> list[dict[str, str]]:
        messages = render_messages(item, self.prompt_preset, self.prompt_family)
        return [{"role": m["role"], "content": to_printable(m["content"])} for m in messages]

    def render_text(self) -> str:
        if self._item is None:
            return "(no episode yet: call reset())"
        lines = [render_observation(self.messages_for(self._item), self.prefill)]
        if self._last_score is not None:
            s = self._last_score
            lines += [
                "",
                f"Response: {self._last_response}",
                f"Answer: {s.answer!r}  gold: {s.gold!r}  verdict: {s.verdict}  reward: {s.reward}",
            ]
        return "\n".join(lines)

    def _max_observation_chars(self) -> int:
        probe = ToMItem(id="probe", story="s", question="q", answer="a", answer_type="text")
        overhead = len(
            render_observation(
                render_messages(probe, self.prompt_preset, self.prompt_family), PREFILL
            )
        )
        extra = _CANDIDATE_LIST_ALLOWANCE if self.prompt_preset.list_candidates else 0
        return overhead + self.source.max_prompt_chars + extra
