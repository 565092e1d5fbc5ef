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
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.client import HTTPException, InvalidURL
from typing import Any

from tomgym.agents.base import AgentUnavailableError, Episode, Response, truncated_by
from tomgym.agents.chat import Sampling, after_prefill, item_seed

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
RUN_LEVEL_STATUS = frozenset({401, 403, 404, 405, 501})
"""Refusals that every item would get alike (a key, a model name, a path, a server that takes
no POST there); a 400 or 422 may be the item's own (a content filter), which other items need
not share, unless every request of a batch gets the same one (see :meth:`OpenAIAgent.act`)."""
RETRY_AFTER_MAX = 600.0
"""The longest a server's Retry-After is waited out (seconds), whatever ``backoff_max`` says."""
TOKEN_FIELDS = ("max_tokens", "max_completion_tokens")
"""Where a request puts its token budget: OpenAI's reasoning models take only the second."""
REASONING_KEYS = ("reasoning_content", "reasoning")
"""Where servers with a reasoning parser put a reply's thinking (vLLM, DeepSeek; Ollama)."""


class ServerUnreachableError(AgentUnavailableError):
    """No request of a whole batch got a reply: the server is down or the URL is wrong."""


class ServerRefusingError(AgentUnavailableError):
    """Every request of a whole batch failed although the server replied (a bad key, a model
    or path it does not serve, a server still loading): the rest would fail alike."""


class RetryableError(RuntimeError):
    """A failure worth another try: rate limit, server error, timeout, malformed reply."""

    def __init__(
        self,
        message: str,
        retry_after: float | None = None,
        status: int | None = None,
        nothing_listens: str | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after, self.status = retry_after, status
        self.nothing_listens = nothing_listens
        """Why no server is at the URL (the connection refused, the host name unknown)."""


def _nothing_listens(exc: BaseException) -> str | None:
    """Why ``exc`` (from urlopen) says no server is at the URL, if it does: the connection
    was refused, or the host name resolves to nothing."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror) and reason.errno in _UNKNOWN_HOST:
        return f"unknown host: {reason.strerror}"
    return None


_UNKNOWN_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


_CONTEXT_LENGTH = re.compile(r"maximum context length is (\d+)")
_PROMPT_TOKENS = re.compile(r"(\d+) in the messages|request has (\d+) (?:input|prompt) tokens")
"""The prompt's tokens in a context-length refusal: vLLM's and OpenAI's older wording "(650 in
the messages, 1050 in the completion)", vLLM's newer "your request has 650 input tokens"."""


class RequestRefused(RuntimeError):
    """A 4xx other than the retryable ones: asking again will not help."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status, self.detail = status, detail

    @property
    def completion_room(self) -> int | None:
        """Tokens the context leaves after the prompt, when the server says the prompt fits
        but prompt plus ``max_tokens`` does not (vLLM and OpenAI: "maximum context length is
        1024 tokens ... (650 in the messages, 1050 in the completion)", newer vLLM: "... and your
        request has 650 input tokens (1050 > 1024 - 650)"); None otherwise."""
        context = _CONTEXT_LENGTH.search(self.detail)
        prompt = _PROMPT_TOKENS.search(self.detail)
        if context is None or prompt is None:
            return None
        room = int(context.group(1)) - int(prompt.group(1) or prompt.group(2))
        return room if room > 0 else None

    @property
    def prompt_too_long(self) -> bool:
        """The server says the prompt does not fit the model's context: a property of the
        item and the model, not of the run, so the item is answered (empty), not failed."""
        text = self.detail.lower()
        return (
            self.status in (400, 413, 422)
            and "context" in text
            and ("length" in text or "window" in text or "maximum" in text or "too long" in text)
        )


_AT_URL = re.compile(r"@(?=https?://)")


def parse_openai_spec(spec: str, options: dict[str, Any]) -> tuple[str, str]:
    """(model, base URL) from ``openai:<model>@<base url>``; without ``@URL``: the ``base_url``
    option, else $OPENAI_BASE_URL, else OpenAI's. A base URL in both the spec and the option
    must agree; one holding a user, password, query or fragment is refused (a key goes in a
    variable, ``api_key_env``, never into the URL, which runs record)."""
    head, _, rest = spec.partition(":")
    rest = rest.strip()
    if head.strip() != "openai" or not rest:
        raise ValueError(f"agent spec {spec!r} should look like 'openai:<model>@<base url>'")
    model, at, base = rest.rpartition("@")
    if at and not base.startswith(("http://", "https://")) and _AT_URL.search(model):
        model, base = _AT_URL.split(rest, maxsplit=1)  # "m@http://user:pw@host": refused below
    option = options.get("base_url")
    if not at:
        model = base
        base = str(option or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
    elif option is not None and str(option).rstrip("/") != base.rstrip("/"):
        raise ValueError(
            f"agent spec {_shown(spec)!r} names the base URL {_shown(base)!r} and the option "
            f"base_url={_shown(str(option))!r} another: give it once"
        )
    if not at and model.startswith(("http://", "https://")):
        raise ValueError(
            f"agent spec {_shown(spec)!r} names a URL but no model (it would be sent to "
            f"{_shown(base)} as the model's name): write 'openai:<model>@{_shown(model)}', with "
            "the name the server serves the model under"
        )
    if not model or not base.startswith(("http://", "https://")):
        raise ValueError(f"agent spec {_shown(spec)!r}: need a model name and an http(s) base URL")
    check_base_url(base, spec)
    return model, base.rstrip("/")


def check_base_url(base: str, spec: str) -> None:
    """An http(s) URL with a host and no user, password, query or fragment."""
    parsed = urllib.parse.urlsplit(base)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(
            f"agent spec {_shown(spec)!r}: need a model name and an http(s) base URL, "
            f"got {_shown(base)!r}"
        )
    if parsed.username is not None or parsed.password is not None:
        raise ValueError(
            f"agent spec {_shown(spec)!r}: the base URL holds a user or password, which runs "
            "would record: put the key in a variable and name it with --agent-option "
            "api_key_env=NAME (OPENAI_API_KEY is read by default)"
        )
    if parsed.query or parsed.fragment:
        raise ValueError(
            f"agent spec {_shown(spec)!r}: the base URL holds a query or fragment "
            f"({'?' if parsed.query else '#'}...); the requests go to <base URL>/chat/completions, "
            "so give the URL up to /v1, and a key through --agent-option api_key_env=NAME"
        )


def _shown(text: str) -> str:
    """``text`` with any password in a URL and any query string blanked out."""
    text = re.sub(r"(https?://[^/@\s:]*):[^/@\s]*@", r"\1:***@", text)
    return re.sub(r"\?[^\s#]*", "?***", text)


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
    token_field: str = "max_tokens"
    """The request's name for the token budget (one of TOKEN_FIELDS)."""
    _refused_in_a_row: int = field(default=0, repr=False)
    """Requests failed in a row, every one for a reason of the run's (see RUN_LEVEL_STATUS)."""
    _refused_alike: tuple[str, int] = field(default=("", 0), repr=False)
    """The refusal (HTTP 4xx) that whole batches got in a row, and how many requests got it."""
    answered_before: bool = field(default=False, repr=False)
    """Whether requests like this agent's got answers: in this process, or (set by the
    evaluation) in the run it resumes. Refusals alike are then the items' own, not the
    request's, and never stop the run: a rerun retries only the items refused before."""

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        """The batch's responses. A batch in which no request got any reply (every retry of
        every item) raises :class:`ServerUnreachableError`, and one whose every request failed
        for a reason of the run's although the server replied (401, 403, 404, a 503 through
        every retry; at least two requests in a row) raises :class:`ServerRefusingError`,
        rather than failing item after item for minutes: the run stops, and its rerun asks
        those items again. A batch refused for the items' own reasons (400) goes on, unless
        every request got the same refusal, ALIKE_REFUSALS of them in a row (a parameter the
        model does not take: every item would send it)."""
        if not episodes:
            return []
        replies = self._replies
        responses = self.answer_all(episodes)
        if not all(r.failed for r in responses):
            self._refused_in_a_row = 0
            self.answered_before = True
            return responses
        if self._replies == replies:
            raise ServerUnreachableError(
                f"{self.base_url} gave no reply to any of {len(responses)} requests ("
                f"{responses[0].extra.get('attempts')} tries of the first: {responses[0].error})"
                ": start the server or fix the URL (or raise --agent-option timeout for a slow "
                "one), then rerun the same command; the items answered so far are kept"
            )
        first = responses[0]
        if not all(r.extra.get("run_level") for r in responses):
            self._refused_in_a_row = 0  # a 400 of the item's own (content, format): goes on
            self._count_alike(responses)
            return responses
        self._refused_alike = ("", 0)
        self._refused_in_a_row += len(responses)
        if self._refused_in_a_row < 2:  # one request alone (a batch of one) is no pattern yet
            return responses
        if first.extra.get("status") == 429:
            advice = (
                "the server kept limiting the rate through every retry: lower --agent-option "
                "concurrency (and --batch-size), raise max_retries, or wait"
            )
        else:
            advice = "fix the key, model name or URL (or wait for a server still loading)"
        raise ServerRefusingError(
            f"{self.url} answered none of {len(responses)} requests ("
            f"{first.extra.get('attempts')} tries of the first: {first.error}): {advice}, then "
            "rerun the same command; the items answered so far are kept"
        )

    def _count_alike(self, responses: Sequence[Response]) -> None:
        """Count a batch whose every request got one and the same refusal; raise
        :class:`ServerRefusingError` once ALIKE_REFUSALS requests in a row have."""
        errors = {r.error for r in responses}
        status = responses[0].extra.get("status")
        if self.answered_before:  # the same request was answered: these items are refused
            self._refused_alike = ("", 0)
            return
        if not all(r.failed for r in responses) or len(errors) != 1 or status is None:
            self._refused_alike = ("", 0)
            return
        error = str(responses[0].error)
        seen, count = self._refused_alike
        count = (count if seen == error else 0) + len(responses)
        self._refused_alike = (error, count)
        if count < ALIKE_REFUSALS:
            return
        self._refused_alike = ("", 0)
        raise ServerRefusingError(
            f"{self.url} refused the last {count} requests alike ({error}): the request, not "
            "the items, is what it refuses (a parameter this model does not take: OpenAI's "
            "reasoning models want --agent-option max_tokens_field=max_completion_tokens); fix "
            "it, then rerun the same command; the items answered so far are kept"
        )

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
        error, error_retry_after, status = "", None, None
        max_tokens: int | None = None  # lowered when the prompt fits but the budget does not
        attempt = requests = 0  # attempt: requests that count against max_retries
        wait = False
        run_level = True  # retries spent, a bad key, path or model: not the item's doing
        while attempt <= self.max_retries and not stop.is_set():
            if wait and stop.wait(self.backoff(attempt, error_retry_after)):
                break
            requests += 1
            try:
                reply = self.request(episode, max_tokens)
            except RetryableError as exc:
                if exc.nothing_listens and not self._replies and not self.answered_before:
                    # never reached: retrying a refused connection for a minute helps no one
                    # (a vLLM server takes connections only once its model is loaded)
                    raise ServerUnreachableError(
                        f"nothing listens at {self.base_url} ({exc.nothing_listens}): start "
                        "the server or fix the URL, then rerun the same command; the items "
                        "answered so far are kept"
                    ) from None
                attempt += 1
                error, error_retry_after, wait = f"attempt {attempt}: {exc}", exc.retry_after, True
                status = exc.status
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
                        error=self.redacted(f"prompt too long for the model: {exc}"),
                        extra={"attempts": requests},
                    )
                error = f"{type(exc).__name__}: {exc}"  # a bad key, model name, ...: fixable
                run_level, status = exc.status in RUN_LEVEL_STATUS, exc.status
                if exc.status == 404:
                    error += (
                        f" (POST {self.url}: a wrong model name, or a base URL other than the "
                        "server's API root, which usually ends in /v1)"
                    )
                break
            except Exception as exc:
                error, run_level, status = f"{type(exc).__name__}: {exc}", True, None
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
            error=self.redacted(error or f"no answer after {requests} request(s)"),
            extra={"attempts": requests, "run_level": run_level, "status": status},
        )

    def redacted(self, text: str) -> str:
        """``text`` with the API key blanked out: a server may echo it in an error, and
        errors are stored in the run's records."""
        return text.replace(self.api_key, "***") if self.api_key else text

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Exponential backoff with a little jitter, at most ``backoff_max``; a server's
        Retry-After wins if longer (up to RETRY_AFTER_MAX): asking again sooner only spends a
        retry on another refusal."""
        wait = self.backoff_base * 2 ** (attempt - 1) * (1 + 0.25 * self._rng.random())
        return max(min(self.backoff_max, wait), min(retry_after or 0.0, RETRY_AFTER_MAX))

    def payload(self, episode: Episode, max_tokens: int | None = None) -> dict[str, Any]:
        """The request body; its ``seed`` is ``item_seed(seed, episode)``, so each item has its
        own (reproducible, resume-safe) draws on servers that honour seeds. ``max_tokens``
        lowers the budget for a prompt that leaves less room in the context."""
        budget = self.sampling.max_new_tokens
        return {
            "model": self.model,
            "messages": episode.messages,
            self.token_field: budget if max_tokens is None else min(budget, max_tokens),
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
        deadline = time.monotonic() + self.timeout
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as http:
                self._replies += 1
                raw = read_by(http, deadline)
        except urllib.error.HTTPError as exc:
            self._replies += 1
            detail = exc.read()[:600].decode(errors="replace")
            if exc.code in RETRY_STATUS:
                wait = _retry_after(exc.headers)
                raise RetryableError(f"HTTP {exc.code}: {detail}", wait, exc.code) from exc
            raise RequestRefused(exc.code, detail) from exc
        except InvalidURL as exc:  # not worth another try
            raise ValueError(f"invalid URL {self.url}: {exc}") from exc
        except (TimeoutError, urllib.error.URLError, ConnectionError, HTTPException) as exc:
            # HTTPException: a reply cut off mid-body (IncompleteRead), a dropped connection
            raise RetryableError(
                f"{type(exc).__name__} at {self.base_url}: {exc}",
                nothing_listens=_nothing_listens(exc),
            ) from exc
        try:
            reply = json.loads(raw)
            if not isinstance(reply["choices"][0]["message"], dict):  # "content" may be left out
                raise TypeError("the reply's message is not an object")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise RetryableError(f"malformed reply: {raw[:200]!r}") from exc
        return dict(reply)

    def to_response(self, reply: dict[str, Any], episode: Episode) -> Response:
        """The reply as the model wrote it. A server with a reasoning parser returns the
        thinking apart (``reasoning_content``, or ``reasoning``): it goes back inside
        ``<think>`` tags, closed where the model went on to an answer and open where it never
        left its thinking, as a local run of the same model would record it. A reply whose
        content is null (or not text) with no thinking is an unanswered item (scored empty,
        asked again with --retry-unanswered), not a silent wrong answer; an empty string is
        the model's own empty answer."""
        choice = reply["choices"][0]
        message = choice["message"]
        content = message.get("content")
        if isinstance(content, list):  # parts, as Mistral's API writes them: their text
            parts = [part.get("text") for part in content if isinstance(part, dict)]
            texts = [part for part in parts if isinstance(part, str)]
            if texts and len(texts) == len(content):
                content = "".join(texts)
        text = content if isinstance(content, str) else ""
        extra: dict[str, Any] = {"finish_reason": choice.get("finish_reason")}
        error = None
        for key in REASONING_KEYS:
            reasoning = message.get(key)
            if isinstance(reasoning, str) and reasoning:
                text = f"<think>{reasoning}" + (f"</think>{text}" if text else "")
                extra["reasoning_from"] = key
                break
        if not isinstance(content, str) and not text:  # null or a list: no text came back
            error = (
                f"the reply held no text (content {content!r:.200}, finish_reason "
                f"{choice.get('finish_reason')!r})"
            )
        text = after_prefill(text, episode.prefill)  # "<think>" as well as "<think>\n"
        usage = reply.get("usage")
        usage = usage if isinstance(usage, dict) else {}  # "usage": "n/a" is no count
        return Response(
            text=text,
            prompt_tokens=token_count(usage.get("prompt_tokens")),
            completion_tokens=token_count(usage.get("completion_tokens")),
            error=error,
            extra=extra,
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


ALIKE_REFUSALS = 4
"""Requests in a row, whole batches, that one and the same refusal stops a run after."""


def read_by(http: Any, deadline: float) -> bytes:
    """The reply's body, read a piece at a time until ``deadline`` (``time.monotonic()``): the
    socket's timeout bounds each read alone, so a server trickling a byte at a time held a
    request for as long as it liked."""
    pieces: list[bytes] = []
    while True:
        piece = http.read1(65536)
        if not piece:
            return b"".join(pieces)
        pieces.append(piece)
        if time.monotonic() > deadline:
            raise TimeoutError("the reply took longer than the timeout to arrive")


def token_count(value: Any) -> int | None:
    """A usage count as a server reports it, if it is a whole number of at least 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return int(value) if value >= 0 and value == int(value) else None


def make_openai_agent(spec: str, options: dict[str, Any]) -> OpenAIAgent:
    """``openai:<model>@<base url>``; options: sampling ones, ``api_key_env``
    (default ``OPENAI_API_KEY``), ``concurrency``, ``timeout`` (seconds a request may take in
    all), ``max_retries``, ``backoff_base``, ``backoff_max``, ``base_url``,
    ``max_tokens_field`` (``max_tokens``, or ``max_completion_tokens`` for OpenAI's reasoning
    models)."""
    model, base_url = parse_openai_spec(spec, options)
    token_field = options.get("max_tokens_field", "max_tokens")
    if token_field not in TOKEN_FIELDS:
        raise ValueError(
            f"openai agent option max_tokens_field must be one of {', '.join(TOKEN_FIELDS)}, "
            f"got {token_field!r}"
        )
    sampling = Sampling.from_options(options)
    concurrency = int(_setting(options, "concurrency", 8, minimum=1, whole=True))
    if "concurrency" in options and "batch_size" in options and concurrency > sampling.batch_size:
        # a run hands the agent one batch at a time and waits for its slowest request
        raise ValueError(
            f"openai agent option concurrency={concurrency} is more than the batch size "
            f"{sampling.batch_size}: a run gives the agent one batch at a time, so at most "
            f"{sampling.batch_size} requests would go out at once; pass --batch-size "
            f"{concurrency} too"
        )
    return OpenAIAgent(
        spec=spec,
        model=model,
        base_url=base_url,
        sampling=sampling,
        api_key=api_key(options),
        concurrency=concurrency,
        timeout=_setting(options, "timeout", 120.0, minimum=0.001),
        max_retries=int(_setting(options, "max_retries", 4, minimum=0, whole=True)),
        backoff_base=_setting(options, "backoff_base", 1.0, minimum=0),
        backoff_max=_setting(options, "backoff_max", 30.0, minimum=0),
        token_field=token_field,
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
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):  # not echoed: it may be the key itself
        raise ValueError(
            "openai agent option api_key_env must be the name of an environment variable "
            "(letters, digits and _), not the key itself: export MY_KEY=... and pass "
            "api_key_env=MY_KEY"
        )
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
