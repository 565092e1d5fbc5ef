"""Helpers the agents share: episodes from an env, tagged responses, sampling, chat prompts."""

from __future__ import annotations

import hashlib
import math
import os
import re
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tomgym.agents.base import Episode

if TYPE_CHECKING:
    from tomgym.env import ToMEnv


def tagged(think: str, answer: str, prefill: str = "") -> str:
    """A response in the env's format: ``<think>...</think><answer>...</answer>``.

    With the episode's ``prefill`` (``"<think>\\n"`` when the env sets ``prefill_think``) the
    response continues after it, as a chat model's does: the env scores ``prefill + response``,
    so repeating the ``<think>`` tag would break the format rule.
    """
    return after_prefill(f"<think>{think}</think><answer>{answer}</answer>", prefill)


def after_prefill(text: str, prefill: str) -> str:
    """``text`` without its own copy of the ``prefill`` it should continue ("<think>\n"), as
    written or stripped of spaces ("<think>"): the env scores ``prefill + response``, so a
    repeated ``<think>`` would break the format rule. Other text is returned as it is."""
    if not prefill:
        return text
    if text.startswith(prefill):
        return text[len(prefill) :]
    opening = prefill.strip()
    if opening and text.startswith(opening):
        return text[len(opening) :]
    return text


def episode_from_env(env: ToMEnv, info: dict[str, Any], *, with_gold: bool = False) -> Episode:
    """The Episode an agent sees after ``env.reset``; ``with_gold`` only for privileged agents."""
    base: Any = env.unwrapped  # through gym.make's wrappers (a ToMEnv is its own)
    item = base.current_item
    if item is None:
        raise RuntimeError("episode_from_env needs an env that has been reset")
    messages = [dict(m) for m in info["messages"]]
    prefill = info.get("prefill", "")
    prompt = "\n\n".join(m["content"] for m in messages) + (f"\n\n{prefill}" if prefill else "")
    return Episode(
        env_id=str(info.get("env_id") or base.tom_id or ""),
        item_id=item.id,
        prompt=prompt,
        messages=messages,
        prefill=prefill,
        story=item.story,
        question=item.question,
        candidates=tuple(item.candidates),
        answer_type=item.answer_type,
        family=base.prompt_family,
        order=item.order,
        gold=item.gold_text if with_gold else None,
        source_kwargs=dict(getattr(base, "source_kwargs", {})),
    )


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters shared by the local and served model agents (temperature 0: greedy)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 512
    seed: int = 0
    batch_size: int = 8

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Sampling:
        """Sampling from agent options, validated: every agent's factory (through ``make_agent``)
        and the evaluation runner call it before any model loads, so a bad value such as
        ``temperature=nan`` fails at once."""

        def number(key: str, default: float, kind: type) -> Any:
            """The option as a number (a string of one too), named when it is none."""
            value = options.get(key, default)
            wrong = ValueError(
                f"{key} must be a {'whole ' if kind is int else ''}number, got {value!r}"
            )
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                raise wrong
            try:
                read = float(value)
            except ValueError:
                raise wrong from None
            if kind is int and (not math.isfinite(read) or read != int(read)):
                raise wrong
            return int(read) if kind is int else read

        sampling = cls(
            temperature=number("temperature", cls.temperature, float),
            top_p=number("top_p", cls.top_p, float),
            max_new_tokens=number("max_new_tokens", cls.max_new_tokens, int),
            seed=number("seed", cls.seed, int),
            batch_size=number("batch_size", cls.batch_size, int),
        )
        if not (math.isfinite(sampling.temperature) and sampling.temperature >= 0):
            raise ValueError(
                f"temperature must be a finite number >= 0 (0: greedy), got {sampling.temperature}"
            )
        if not 0 < sampling.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {sampling.top_p}")
        if sampling.max_new_tokens < 1 or sampling.batch_size < 1:
            raise ValueError("max_new_tokens and batch_size must be at least 1")
        return sampling

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


SEED_MODULUS = 2**31
"""Per-item seeds stay below this, so every engine and server accepts them."""


def item_seed(seed: int, episode: Episode) -> int:
    """The seed of one item's sampled response: a function of the run's seed and the item alone.

    So a sampled run draws the same for an item whatever batch it lands in, and a resumed run
    draws what an uninterrupted one would have.
    """
    key = f"tomgym-sample|{seed}|{episode.env_id}|{episode.item_id}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % SEED_MODULUS


def chat_prompt(tokenizer: Any, episode: Episode) -> str:
    """The model's chat template over the episode's messages, then the prefill text.

    Shared by the transformers and vLLM agents so both see the same prompt string.
    """
    text = tokenizer.apply_chat_template(
        episode.messages, tokenize=False, add_generation_prompt=True
    )
    return str(text) + episode.prefill


COMMIT = re.compile(r"[0-9a-f]{40}")
"""A hub commit hash: what a revision (a branch, a tag) points to at one moment, for good."""


def hub_revision(spec: str, source: str, revision: str | None) -> str | None:
    """The commit a hub model is loaded at: ``revision`` (a branch, tag or commit; default the
    main branch) resolved to a commit now, so the tokenizer and the weights come from one commit
    and a run can record which. None for a local model, or when neither the hub nor the local
    cache knows the revision (the loader then says why); a revision given for a local model is
    an error, as it would be silently ignored. A hub model neither reachable nor cached is
    refused first (:func:`check_hub_reachable`)."""
    if source != "hub":
        if revision:
            raise ValueError(
                f"agent {spec!r}: the revision option applies to a hub ID ('org/name'), and "
                "this spec names a local model"
            )
        return None
    check_hub_reachable(spec, model_target(spec, spec.partition(":")[0].strip()), revision)
    if revision and COMMIT.fullmatch(revision):
        return revision
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(
            model_target(spec, spec.partition(":")[0].strip()),
            revision=revision,
            allow_patterns=["config.json"],
        )
    except Exception:  # unknown repo, no network and not cached: the loader's error says which
        return revision
    name = Path(folder).name  # the hub cache keeps a snapshot per commit: snapshots/<commit>/
    return name if COMMIT.fullmatch(name) else revision


HUB_PROBE_SECONDS = 5.0


def check_hub_reachable(spec: str, repo: str, revision: str | None) -> None:
    """Refuse at once a hub model this machine can neither download nor find in its hub cache:
    without a network, the hub client retried for most of a minute and then named neither the
    model nor a fix. One request of at most HUB_PROBE_SECONDS to the hub (``$HF_ENDPOINT``,
    through the environment's proxies) tells; with ``HF_HUB_OFFLINE=1`` only the cache counts.
    A model the cache holds is loaded from it either way."""
    try:
        from huggingface_hub import constants, try_to_load_from_cache
    except ImportError:
        return  # the loader's own error names the missing package
    cache = os.environ.get("HF_HUB_CACHE") or constants.HF_HUB_CACHE
    try:
        cached = isinstance(try_to_load_from_cache(repo, "config.json", cache, revision), str)
    except Exception:  # a malformed repo ID: the hub's own error says so
        return
    if cached:
        return
    offline = constants.HF_HUB_OFFLINE or os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in (
        "1", "true", "yes", "on"
    )  # fmt: skip
    endpoint = (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")
    if not offline:
        try:
            probe = urllib.request.Request(f"{endpoint}/api/models/{repo}", method="HEAD")
            urllib.request.urlopen(probe, timeout=HUB_PROBE_SECONDS).close()
            return
        except urllib.error.HTTPError:
            return  # the hub answered (a private, gated or unknown repo): its error says which
        except (OSError, ValueError):
            pass
    why = "HF_HUB_OFFLINE is set" if offline else f"{endpoint} cannot be reached from here"
    raise FileNotFoundError(
        f"agent {spec!r}: {repo} is not a local directory and not in the hub cache ({cache}), "
        f"and {why}: give the model's local path (hf:/path/to/model), or download it "
        f"where there is a network (huggingface-cli download {repo}) into that cache"
    )


def model_target(spec: str, kind: str) -> str:
    """The model part of ``kind:<target>``; an error naming the spec when it is empty."""
    head, _, target = spec.partition(":")
    if head.strip() != kind or not target.strip():
        raise ValueError(f"agent spec {spec!r} should look like '{kind}:<hub id or path>'")
    return target.strip()


def prompt_token_ids(tokenizer: Any, prompt: str) -> list[int]:
    """The prompt's token ids; no extra special tokens, as the chat template already has them."""
    return list(tokenizer(prompt, add_special_tokens=False)["input_ids"])
