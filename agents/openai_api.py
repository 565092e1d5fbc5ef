"""Agents served over HTTP: ``openai:<model>@<base url>`` for any OpenAI-compatible chat endpoint.

Standard library only (``urllib``, ``json``, threads). The episode's ``prefill`` is not sent:
most servers do not continue an assistant message. When the reply itself starts with the
prefill text, that copy is dropped so that ``prefill + reply`` reads it once.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.client import HTTPException, InvalidURL
from typing import Any

from tomgym.agents.base import AgentUnavailableError, Episode, Response, truncated_by
from tomgym.agents.chat import Sampling, item_seed

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class ServerUnreachableError(AgentUnavailableError):
    """No request of a whole batch got a reply: the server is down or the URL is wrong."""


class RetryableError(RuntimeError):
    """A failure worth another try: rate limit, server error, timeout, malformed reply."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


_CONTEXT_LENGTH = re.compile(r"maximum context length is (\d+)")
_PROMPT_TOKENS = re.compile(r"(\d+) in the messages")


class RequestRefused(RuntimeError):
    """A 4xx other than the retryable ones: asking again will not help."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status, self.detail = status, detail

    @property
    def completion_room(self) -> int | None:
        """Tokens the context leaves after the prompt, when the server says the prompt fits
        but prompt plus ``max_tokens`` does not (vLLM and OpenAI: "maximum context length is
        1024 tokens ... (650 in the messages, 1050 in the completion)"); None otherwise."""
        context = _CONTEXT_LENGTH.search(self.detail)
        prompt = _PROMPT_TOKENS.search(self.detail)
        if context is None or prompt is None:
            return None
        room = int(context.group(1)) - int(prompt.group(1))
        return room if room > 0 else None

    @property
    def prompt_too_long(self) -> bool:
        """The server says the prompt does not fit the model's context: a property of the
        item and the model, not of the run, so the item is answered (empty), not failed."""
        text = self.detail.lower()
        return self.status in (400, 413, 422) and "context" in text and (
            "length" in text or "window" in text or "maximum" in text or "too long" in text
        )


def parse_openai_spec(spec: str, options: dict[str, Any]) -> tuple[str, str]:
    """(model, base URL) from ``openai:<model>@<base url>``; without ``@``: option, env, default."""
    head, _, rest = spec.partition(":")
    if head.strip() != "openai" or not rest.strip():
        raise ValueError(f"agent spec {spec!r} should look like 'openai:<model>@<base url>'")
    model, at, base = rest.strip().rpartition("@")
    if not at:
        model = base
        base = str(options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
    if not model or not base.startswith(("http://", "https://")):
        raise ValueError(f"agent spec {spec!r}: need a model name and an http(s) base URL")
    return model, base.rstrip("/")


def _retry_after(headers: Any) -> float | None:
    try:
        return float(headers.get("Retry-After")) if headers is not None else None
    except (TypeError, ValueError):
        return None


@dataclass
class OpenAIAgent:
    """Chat completions over HTTP, several requests at a time, each retried with backoff."""

    spec: str
    model: str
    base_url: str
    sampling: Sampling
    api_key: str | None = None
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    privileged: bool = False
    _rng: random.Random = field(default_factory=lambda: random.Random(0), repr=False)
    _replies: int = field(default=0, repr=False)
    """HTTP replies of any status received so far (the server was reached)."""

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        """The batch's responses; a batch in which no request got any reply (every retry of
        every item) raises :class:`ServerUnreachableError` rather than failing item after item
        for minutes: the run stops, and its rerun asks those items again."""
        if not episodes:
            return []
        replies = self._replies
        responses = self.answer_all(episodes)
        if self._replies == replies and all(r.failed for r in responses):
            raise ServerUnreachableError(
                f"{self.base_url} gave no reply to any of {len(responses)} requests ("
                f"{responses[0].extra.get('attempts')} tries of the first: {responses[0].error})"
                ": start the server or fix the URL (or raise --agent-option timeout for a slow "
                "one), then rerun the same command; the items answered so far are kept"
            )
        return responses

    def answer_all(self, episodes: Sequence[Episode]) -> list[Response]:
        """Each episode answered on one of at most ``concurrency`` daemon threads, in order.

        An interrupt (Ctrl-C) while they work stops every retry at once, and the requests in
        flight die with the process. A thread pool's workers are joined at exit instead, so a
        hung server kept an interrupted run alive through every timeout and retry left."""
        responses: list[Response | None] = [None] * len(episodes)
        errors: list[BaseException] = []
        stop = threading.Event()
        todo = iter(range(len(episodes)))
        lock = threading.Lock()

        def work() -> None:
            while not stop.is_set():
                with lock:
                    index = next(todo, None)
                if index is None:
                    return
                try:
                    responses[index] = self.answer(episodes[index], stop)
                except BaseException as exc:  # re-raised in the caller's thread
                    errors.append(exc)
                    stop.set()

        workers = [
            threading.Thread(target=work, name=f"openai-agent-{i}", daemon=True)
            for i in range(min(self.concurrency, len(episodes)))
        ]
        for worker in workers:
            worker.start()
        try:
            for worker in workers:
                worker.join()
        except BaseException:
            stop.set()
            raise
        if errors:
            raise errors[0]
        answered = [response for response in responses if response is not None]
        assert len(answered) == len(episodes)  # every worker ran until the queue was empty
        return answered

    def answer(self, episode: Episode, stop: threading.Event | None = None) -> Response:
        """One episode: the request, retried; a request that keeps failing is a failed Response.

        A prompt that fits the model's context while the token budget does not is asked again
        at once with the room the server reports: that request is not one of the retries.
        Once ``stop`` is set, no further request is sent and no backoff waited out."""
        start = time.perf_counter()
        stop = stop or threading.Event()
        error, error_retry_after = "", None
        max_tokens: int | None = None  # lowered when the prompt fits but the budget does not
        attempt = requests = 0  # attempt: requests that count against max_retries
        wait = False
        while attempt <= self.max_retries and not stop.is_set():
            if wait and stop.wait(self.backoff(attempt, error_retry_after)):
                break
            requests += 1
            try:
                reply = self.request(episode, max_tokens)
            except RetryableError as exc:
                attempt += 1
                error, error_retry_after, wait = f"attempt {attempt}: {exc}", exc.retry_after, True
                continue
            except RequestRefused as exc:
                room = exc.completion_room
                if room is not None and max_tokens is None:
                    max_tokens, wait = room, False  # asked again at once with what fits
                    error = f"the context left {room} tokens for the answer: {exc}"
                    continue
                if exc.prompt_too_long:  # scored as an empty answer: every rerun would fail too
                    return Response(
                        text="",
                        seconds=time.perf_counter() - start,
                        error=f"prompt too long for the model: {exc}",
                        extra={"attempts": requests},
                    )
                error = f"{type(exc).__name__}: {exc}"  # a bad key, model name, ...: fixable
                break
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
                break
            response = self.to_response(reply, episode)
            response.seconds = time.perf_counter() - start
            response.extra["attempts"] = requests
            if max_tokens is not None:  # the context left less than --max-new-tokens
                response.extra["max_tokens_lowered_to"] = max_tokens
            return response
        return Response(
            text="",
            seconds=time.perf_counter() - start,
            failed=True,
            error=error or f"no answer after {requests} request(s)",
            extra={"attempts": requests},
        )

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Exponential backoff with a little jitter; a server's Retry-After wins if longer."""
        wait = self.backoff_base * 2 ** (attempt - 1) * (1 + 0.25 * self._rng.random())
        return min(self.backoff_max, max(wait, retry_after or 0.0))

    def payload(self, episode: Episode, max_tokens: int | None = None) -> dict[str, Any]:
        """The request body; its ``seed`` is ``item_seed(seed, episode)``, so each item has its
        own (reproducible, resume-safe) draws on servers that honour seeds. ``max_tokens``
        lowers the budget for a prompt that leaves less room in the context."""
        budget = self.sampling.max_new_tokens
        return {
            "model": self.model,
            "messages": episode.messages,
            "max_tokens": budget if max_tokens is None else min(budget, max_tokens),
            "temperature": self.sampling.temperature,
            "top_p": self.sampling.top_p,
            "seed": item_seed(self.sampling.seed, episode),
        }

    def request(self, episode: Episode, max_tokens: int | None = None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(self.payload(episode, max_tokens)).encode()
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as http:
                self._replies += 1
                raw = http.read()
        except urllib.error.HTTPError as exc:
            self._replies += 1
            detail = exc.read()[:600].decode(errors="replace")
            if exc.code in RETRY_STATUS:
                wait = _retry_after(exc.headers)
                raise RetryableError(f"HTTP {exc.code}: {detail}", wait) from exc
            raise RequestRefused(exc.code, detail) from exc
        except InvalidURL as exc:  # not worth another try
            raise ValueError(f"invalid URL {self.url}: {exc}") from exc
        except (TimeoutError, urllib.error.URLError, ConnectionError, HTTPException) as exc:
            # HTTPException: a reply cut off mid-body (IncompleteRead), a dropped connection
            raise RetryableError(f"{type(exc).__name__} at {self.base_url}: {exc}") from exc
        try:
            reply = json.loads(raw)
            reply["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise RetryableError(f"malformed reply: {raw[:200]!r}") from exc
        return dict(reply)

    def to_response(self, reply: dict[str, Any], episode: Episode) -> Response:
        choice = reply["choices"][0]
        text = choice["message"]["content"] or ""
        if episode.prefill and text.startswith(episode.prefill):
            text = text[len(episode.prefill) :]
        usage = reply.get("usage") or {}
        return Response(
            text=text,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            extra={"finish_reason": choice.get("finish_reason")},
            truncated=truncated_by(choice.get("finish_reason")),
        )

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "openai",
            "spec": self.spec,
            "model": self.model,
            "base_url": self.base_url,
            "sampling": self.sampling.as_dict(),
            "concurrency": self.concurrency,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
        }


def make_openai_agent(spec: str, options: dict[str, Any]) -> OpenAIAgent:
    """``openai:<model>@<base url>``; options: sampling ones, ``api_key_env``
    (default ``OPENAI_API_KEY``), ``concurrency``, ``timeout``, ``max_retries``,
    ``backoff_base``, ``backoff_max``, ``base_url``."""
    model, base_url = parse_openai_spec(spec, options)
    sampling = Sampling.from_options(options)
    return OpenAIAgent(
        spec=spec,
        model=model,
        base_url=base_url,
        sampling=sampling,
        api_key=api_key(options),
        concurrency=int(_setting(options, "concurrency", 8, minimum=1, whole=True)),
        timeout=_setting(options, "timeout", 120.0, minimum=0.001),
        max_retries=int(_setting(options, "max_retries", 4, minimum=0, whole=True)),
        backoff_base=_setting(options, "backoff_base", 1.0, minimum=0),
        backoff_max=_setting(options, "backoff_max", 30.0, minimum=0),
        _rng=random.Random(sampling.seed),
    )


def api_key(options: dict[str, Any]) -> str | None:
    """The key in the variable ``api_key_env`` names (default ``OPENAI_API_KEY``, which a local
    server does without). A variable named on purpose must be set: unset, every request was
    sent without a key and the run failed item by item on the server's 401."""
    if "api_key_env" not in options:
        return os.environ.get("OPENAI_API_KEY")
    name = options["api_key_env"]
    if not isinstance(name, str) or not name:
        raise ValueError(f"openai agent option api_key_env must name a variable, got {name!r}")
    if name not in os.environ:
        raise ValueError(
            f"openai agent option api_key_env={name}: the environment variable {name} is not "
            f"set (export {name}=... first, or leave the option out for a server without keys)"
        )
    return os.environ[name]


def _setting(
    options: dict[str, Any], key: str, default: float, *, minimum: float, whole: bool = False
) -> float:
    """A numeric option, checked: a number (a whole one where ``whole``) of at least
    ``minimum``; the error names the option."""
    value = options.get(key, default)
    kind = "a whole number" if whole else "a number"
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"openai agent option {key} must be {kind} >= {minimum}, got {value!r}")
    if (whole and value != int(value)) or value < minimum:
        raise ValueError(f"openai agent option {key} must be {kind} >= {minimum}, got {value!r}")
    return float(value)
