"""The OpenAI-compatible agent against a scripted local server: retries, failures, concurrency."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tomgym.agents.base import Episode, make_agent
from tomgym.agents.chat import Sampling, item_seed
from tomgym.agents.openai_api import parse_openai_spec

import tomgym

MAX_REQUESTS = 300
"""The server answers at most this many requests (then 503), and stops by itself after a minute."""


@dataclass
class Script:
    """What the server does per user message, and what it saw."""

    seen: Counter[str] = field(default_factory=Counter)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def make_handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            key = body["messages"][-1]["content"]
            with script.lock:
                script.seen[key] += 1
                attempt = script.seen[key]
                total = sum(script.seen.values())
                script.bodies.append(body)
                script.headers.append(dict(self.headers))
                script.in_flight += 1
                script.max_in_flight = max(script.max_in_flight, script.in_flight)
            self.counted = True
            try:
                self.reply(key, attempt, total, body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up on a slow reply
            finally:
                self.done()

        def done(self) -> None:
            """The request stops counting as in flight (once), before its reply is written: a
            client that has read the reply may send its next request before this thread runs
            again, and that is not one request too many."""
            with script.lock:
                if getattr(self, "counted", False):
                    script.in_flight -= 1
                    self.counted = False

        def reply(self, key: str, attempt: int, total: int, body: dict[str, Any]) -> None:
            if total > MAX_REQUESTS:
                return self.send(503, b"{}")
            if key == "path" and self.path != "/v1/chat/completions":
                return self.send(404, b"wrong path")
            if key == "slow-once" and attempt == 1:
                time.sleep(SLOW_REPLY)
            if key == "busy" or (key == "429-then-ok" and attempt == 1):
                return self.send(429, b'{"error": "slow down"}', {"Retry-After": "0"})
            if key in ("always-500",) or (key == "500-twice" and attempt <= 2):
                return self.send(500, b'{"error": "oops"}')
            if key == "bad-request":
                return self.send(400, b'{"error": "bad"}')
            if key.startswith("401"):
                return self.send(401, b'{"error": "invalid key"}')
            if key == "budget-too-big-new" and body["max_tokens"] > 374:  # vLLM 0.10's wording
                return self.send(
                    400,
                    b'{"error": {"message": "\'max_tokens\' or \'max_completion_tokens\' is too '
                    b"large: 1050. This model's maximum context length is 1024 tokens and your "
                    b'request has 650 input tokens (1050 > 1024 - 650)."}}',
                )
            if key.startswith("reasoning") or key == "null-content":
                message = {
                    "reasoning-split": {"content": "<answer>box</answer>",
                                        "reasoning_content": "I know."},
                    "reasoning-only": {"content": None, "reasoning": "Hmm <answer>jar</answer>"},
                    "null-content": {"content": None},
                }[key]  # fmt: skip
                reply = {"choices": [{"message": {"role": "assistant", **message},
                                      "finish_reason": "stop"}]}  # fmt: skip
                return self.send(200, json.dumps(reply).encode())
            if key == "too-long":
                return self.send(
                    400,
                    b'{"error": {"message": "This model\'s maximum context length is 8192 '
                    b'tokens", "code": "context_length_exceeded"}}',
                )
            if key.endswith("budget-too-big") and body["max_tokens"] > 374:  # vLLM's wording
                return self.send(
                    400,
                    b'{"error": {"message": "This model\'s maximum context length is 1024 tokens.'
                    b" However, you requested 1700 tokens (650 in the messages, 1050 in the "
                    b'completion). Please reduce the length of the messages or completion."}}',
                )
            if key == "cut-body-once" and attempt == 1:  # the connection drops mid-body
                self.done()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "100")
                self.end_headers()
                self.wfile.write(b'{"choices": [')
                self.close_connection = True
                return None
            if key == "bad-json-once" and attempt == 1:
                return self.send(200, b'{"choices": [')
            if key == "no-choices-once" and attempt == 1:
                return self.send(200, b'{"object": "error"}')
            if key == "echo-401":  # OpenAI's own 401 names the key it was given
                sent = self.headers.get("Authorization", "")
                return self.send(401, json.dumps({"error": f"Incorrect key: {sent}"}).encode())
            if key == "unsupported":  # OpenAI's reply to max_tokens for its reasoning models
                return self.send(400, b'{"error": "Unsupported parameter: \'max_tokens\'"}')
            if key == "trickle":  # a valid reply, a byte at a time
                data = json.dumps({"choices": [{"message": {"content": "box"}}]}).encode()
                self.done()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                for byte in data:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.1)
                return None
            if key in ("parts", "odd-usage"):
                content: Any = "<answer>box</answer>"
                if key == "parts":  # Mistral's API: a list of text parts
                    content = [{"type": "text", "text": "<answer>"},
                               {"type": "text", "text": "box</answer>"}]  # fmt: skip
                usage: Any = (
                    "n/a"
                    if key == "parts"
                    else {"prompt_tokens": 10.5, "completion_tokens": float("nan")}
                )
                reply = {"choices": [{"message": {"content": content}}], "usage": usage}
                return self.send(200, json.dumps(reply).encode())
            if key == "think":
                text = "<think>\nI know.</think><answer>box</answer>"
            elif key == "think-tight":
                text = "<think>I know.</think><answer>box</answer>"
            else:
                text = f"<think>ok</think><answer>{key}</answer>"
            if key == "steady":  # long enough for the client's threads to overlap under load
                time.sleep(0.3)
            reply = {
                "choices": [
                    {
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "length" if key == "cut" else "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": len(key),
                    "completion_tokens": 7,
                    "total_tokens": len(key) + 7,
                },
                "model": body["model"],
            }
            return self.send(200, json.dumps(reply).encode())

        def send(self, code: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self.done()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    guard = threading.Timer(60, httpd.shutdown)
    guard.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script
    finally:
        guard.cancel()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def episode(content: str, prefill: str = "") -> Episode:
    messages = [{"role": "system", "content": "Answer."}, {"role": "user", "content": content}]
    return Episode(env_id="x", item_id=content, prompt=content, messages=messages, prefill=prefill)


FAST = {"timeout": 5.0, "backoff_base": 0.001, "backoff_max": 0.01, "max_retries": 3}
"""Quick retries; the timeout is generous, so a loaded machine does not time out a reply."""
TIMEOUT = {**FAST, "timeout": 1.0}
"""For the one test of a timed-out request: its first reply takes SLOW_REPLY seconds."""
SLOW_REPLY = 3.0


def test_success_sends_the_chat_request_and_counts_tokens(
    server: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, script = server
    monkeypatch.setenv("MY_KEY", "sk-test")
    agent = make_agent(
        f"openai:tiny-model@{base}",
        api_key_env="MY_KEY",
        max_new_tokens=33,
        temperature=0.5,
        **FAST,
    )
    (response,) = agent.act([episode("path")])
    assert not response.failed and response.text == "<think>ok</think><answer>path</answer>"
    assert (response.prompt_tokens, response.completion_tokens) == (4, 7)
    assert response.extra["attempts"] == 1 and response.seconds is not None
    assert response.truncated is False
    body = script.bodies[0]
    assert body["model"] == "tiny-model" and body["max_tokens"] == 33
    assert body["temperature"] == 0.5 and body["messages"][0]["role"] == "system"
    assert script.headers[0]["Authorization"] == "Bearer sk-test"
    described = agent.describe()
    assert described["model"] == "tiny-model" and described["sampling"]["max_new_tokens"] == 33


def test_each_item_sends_its_own_seed(server: tuple[str, Script]) -> None:
    base, script = server
    agent = make_agent(f"openai:m@{base}", temperature=0.8, seed=3, **FAST)
    agent.act([episode("path")])
    agent.act([episode("other")])
    seeds = [body["seed"] for body in script.bodies]
    assert seeds == [item_seed(3, episode("path")), item_seed(3, episode("other"))]
    assert seeds[0] != seeds[1]


def test_retries_on_429_5xx_timeouts_and_malformed_replies(server: tuple[str, Script]) -> None:
    base, script = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    keys = ["429-then-ok", "500-twice", "bad-json-once", "no-choices-once"]
    responses = agent.act([episode(k) for k in keys])
    for key, response in zip(keys, responses, strict=True):
        assert not response.failed, (key, response.error)
        assert response.text.endswith(f"<answer>{key}</answer>")
    assert [r.extra["attempts"] for r in responses] == [2, 3, 2, 2]
    (slow,) = make_agent(f"openai:m@{base}", **TIMEOUT).act([episode("slow-once")])
    assert not slow.failed and slow.extra["attempts"] >= 2  # the first reply timed out


def test_a_request_that_keeps_failing_is_recorded_and_the_batch_goes_on(
    server: tuple[str, Script],
) -> None:
    base, script = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    responses = agent.act(
        [episode("always-500"), episode("ok"), episode("bad-request"), episode("busy")]
    )
    failed, ok, bad, busy = responses
    assert failed.failed and failed.text == "" and "HTTP 500" in (failed.error or "")
    assert script.seen["always-500"] == 1 + FAST["max_retries"]
    assert busy.failed and "429" in (busy.error or "")
    assert not ok.failed and ok.text.endswith("<answer>ok</answer>")
    assert bad.failed and script.seen["bad-request"] == 1  # a 400 is not retried


def test_concurrency_is_bounded(server: tuple[str, Script]) -> None:
    base, script = server
    agent = make_agent(f"openai:m@{base}", concurrency=3, **FAST)
    responses = agent.act([episode("steady") for _ in range(12)])
    assert all(not r.failed for r in responses)
    assert script.seen["steady"] == 12
    assert 2 <= script.max_in_flight <= 3


def test_unreachable_server_stops_the_run_after_one_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: with no server, all 100 items were tried 5 times each (4 minutes) before the
    run reported 100 failures; a batch with no reply at all now stops the run, saying why. A
    refused connection or an unknown host of a server never reached stops it at the first
    request (it waited out every retry, about 19 s): nothing listens there."""
    import socket
    import urllib.error

    from tomgym.agents.openai_api import OpenAIAgent, ServerUnreachableError, _nothing_listens

    agent = make_agent("openai:m@http://127.0.0.1:9", **{**FAST, "backoff_base": 5.0})
    assert isinstance(agent, OpenAIAgent)
    start = time.perf_counter()
    with pytest.raises(ServerUnreachableError, match="nothing listens at .*connection refused"):
        agent.act([episode("ok"), episode("also")])
    assert time.perf_counter() - start < 4.0  # no backoff of 5 s was waited out
    # an unknown host is told apart from a failing name server (worth retrying), without DNS
    unknown = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert _nothing_listens(urllib.error.URLError(unknown)) == (
        "unknown host: Name or service not known"
    )
    assert _nothing_listens(urllib.error.URLError(socket.gaierror(socket.EAI_AGAIN, "t"))) is None
    assert _nothing_listens(urllib.error.URLError(TimeoutError("timed out"))) is None
    from tests.eval.helpers import run_cli

    out = tmp_path / "run"
    argv = ["eval", "--agent", "openai:m@http://127.0.0.1:9", "--env", "ToM-HiToM-O1-v0",
            "--n", "20", "--out", str(out), *sum((["--agent-option", f"{k}={v}"]
                                                  for k, v in FAST.items()), [])]  # fmt: skip
    assert run_cli(*argv) == 2
    assert "nothing listens at http://127.0.0.1:9" in capsys.readouterr().err
    assert not (out / "results.jsonl").exists() or not (out / "results.jsonl").read_text()


def test_a_server_that_went_away_is_retried_then_stops_the_run() -> None:
    """A server reached before that now refuses connections (restarting) is retried through
    every backoff, as any failure without a reply, and then stops the run."""
    from tomgym.agents.openai_api import OpenAIAgent, ServerUnreachableError

    agent = make_agent("openai:m@http://127.0.0.1:9", **FAST)
    assert isinstance(agent, OpenAIAgent)
    for reached_before in ("_replies", "answered_before"):  # in this process, or in the run
        setattr(agent, reached_before, 1)
        with pytest.raises(ServerUnreachableError, match="gave no reply to any of 2 requests"):
            agent.act([episode("ok"), episode("also")])
        setattr(agent, reached_before, 0)


def test_a_prefill_echoed_back_is_not_doubled(server: tuple[str, Script]) -> None:
    base, _ = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    (response,) = agent.act([episode("think", prefill="<think>\n")])
    assert response.text == "I know.</think><answer>box</answer>"


def test_spec_parsing() -> None:
    assert parse_openai_spec("openai:gpt-x@http://h:1/v1/", {}) == ("gpt-x", "http://h:1/v1")
    assert parse_openai_spec("openai:gpt-x", {"base_url": "https://b/v1"}) == (
        "gpt-x",
        "https://b/v1",
    )
    with pytest.raises(ValueError, match="openai:<model>@<base url>"):
        parse_openai_spec("openai:", {})
    with pytest.raises(ValueError, match="concurrency"):
        make_agent("openai:m@http://h/v1", concurrency=0)


def test_a_prompt_too_long_for_the_model_is_answered_empty_not_failed(
    server: tuple[str, Script],
) -> None:
    """A context-length refusal belongs to the item and the model: retrying every rerun would
    never complete the run, and leaving the item out would score only the short prompts."""
    base, script = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    (response,) = agent.act([episode("too-long")])
    assert not response.failed and response.text == ""
    assert "prompt too long" in (response.error or "")
    assert script.seen["too-long"] == 1


def test_a_budget_the_context_cannot_hold_is_lowered_not_scored_wrong(
    server: tuple[str, Script],
) -> None:
    """--max-new-tokens above what the context leaves after the prompt made every item an
    'unanswered' wrong answer in a complete run; the server's own numbers say what fits."""
    base, script = server
    agent = make_agent(f"openai:m@{base}", max_new_tokens=1050, **FAST)
    (response,) = agent.act([episode("budget-too-big")])
    assert not response.failed and not response.error
    assert response.text.endswith("<answer>budget-too-big</answer>")
    assert response.extra["max_tokens_lowered_to"] == 374
    assert [b["max_tokens"] for b in script.bodies] == [1050, 374]


def test_a_reply_cut_at_the_budget_says_so(server: tuple[str, Script]) -> None:
    base, _ = server
    agent = make_agent(f"openai:tiny-model@{base}", **FAST)
    cut, whole = agent.act([episode("cut"), episode("path")])
    assert (cut.truncated, whole.truncated) == (True, False)
    assert cut.extra["finish_reason"] == "length"


def test_settings_are_checked_and_named(server: tuple[str, Script]) -> None:
    with pytest.raises(ValueError, match="takes no option 'timout'.*timeout"):
        make_agent("openai:m@http://h/v1", timout=5)
    with pytest.raises(ValueError, match="option timeout must be a number"):
        make_agent("openai:m@http://h/v1", timeout="soon")
    with pytest.raises(ValueError, match="option max_retries must be a whole number >= 0"):
        make_agent("openai:m@http://h/v1", max_retries=1.5)


def test_a_key_variable_named_on_purpose_must_be_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team: api_key_env=MY_KEY with MY_KEY unset sent every request without a key, and
    the run failed item by item on the server's 401."""
    monkeypatch.delenv("MY_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="the environment variable MY_KEY is not set"):
        make_agent("openai:m@http://h/v1", api_key_env="MY_KEY")
    with pytest.raises(ValueError, match="api_key_env must name a variable"):
        make_agent("openai:m@http://h/v1", api_key_env="")
    assert make_agent("openai:m@http://h/v1").api_key is None  # a local server takes none
    monkeypatch.setenv("MY_KEY", "sk-1")
    assert make_agent("openai:m@http://h/v1", api_key_env="MY_KEY").api_key == "sk-1"


def test_an_eval_passes_the_served_models_settings_on(
    server: tuple[str, Script], tmp_path: Path
) -> None:
    from tomgym.eval.runner import evaluate

    base, script = server
    settings = {"timeout": 7.5, "max_retries": 1, "concurrency": 2}
    evaluate(f"openai:m@{base}", ["ToM-HiToM-O1-v0"], n=2, out=tmp_path / "run", quiet=True,
             agent_options=settings)  # fmt: skip
    metadata = json.loads((tmp_path / "run" / "metadata.json").read_text())
    described = metadata["agent_description"]
    assert (described["timeout"], described["max_retries"], described["concurrency"]) == (
        7.5,
        1,
        2,
    )
    assert metadata["agent_options"] == {}  # how it ran, not what it answers
    assert len(script.bodies) == 2


def test_an_eval_records_which_items_ran_with_a_lowered_budget(
    server: tuple[str, Script], tmp_path: Path
) -> None:
    """The agent lowered the budget to what the context left, and the README says the record
    keeps it, but results.jsonl dropped it (README red team): which items ran short was lost."""
    from tomgym.eval.runner import evaluate

    base, _ = server
    env_id = "Test-Budget-v0"
    items = [{"id": "a", "story": "The ball is in the box.", "question": "Where is the ball?",
              "answer": "box", "candidates": ["box", "jar"]}]  # fmt: skip
    prompt = {"user_template": "{story} {question} budget-too-big"}
    tomgym.register_tom_env(env_id, items=items, kwargs={"prompt": prompt}, overwrite=True)
    try:
        evaluate(f"openai:m@{base}", [env_id], n=1, out=tmp_path / "run", quiet=True,
                 max_new_tokens=1050, agent_options=FAST)  # fmt: skip
    finally:
        tomgym.unregister_tom_env(env_id)
    (record,) = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").open()]
    assert record["max_tokens_lowered_to"] == 374 and not record["failed"]


def test_the_lowered_budget_is_not_one_of_the_retries_and_a_cut_reply_is_retried(
    server: tuple[str, Script],
) -> None:
    """Red team: with max_retries=0 the request asked again with the room the context leaves
    never ran (the item failed with no error), and a reply cut off mid-body (IncompleteRead)
    failed the item at once instead of being retried."""
    base, script = server
    agent = make_agent(f"openai:m@{base}", max_new_tokens=1050, **{**FAST, "max_retries": 0})
    (lowered,) = agent.act([episode("budget-too-big")])
    assert not lowered.failed and lowered.extra["max_tokens_lowered_to"] == 374
    assert lowered.extra["attempts"] == 2
    agent = make_agent(f"openai:m@{base}", **FAST)
    (cut,) = agent.act([episode("cut-body-once")])
    assert not cut.failed and cut.text.endswith("<answer>cut-body-once</answer>")
    assert script.seen["cut-body-once"] == 2
    agent = make_agent(f"openai:m@{base}", **{**FAST, "max_retries": 0})
    (failed,) = agent.act([episode("always-500")])
    assert failed.failed and "HTTP 500" in (failed.error or "")


def test_ctrl_c_against_a_hung_server_exits_at_once(tmp_path: Path) -> None:
    """Red team: against a server that accepted requests and never replied, Ctrl-C printed
    "interrupted" and the process then lived on until every worker thread's request had timed
    out and been retried (65 s with timeout=10; minutes with the defaults)."""
    import os
    import signal
    import subprocess
    import sys

    release = threading.Event()
    arrived = threading.Event()

    class Hang(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            arrived.set()
            release.wait(120)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hang)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}).start()
    code = "import sys; from tomgym.cli import main; sys.exit(main())"
    argv = [sys.executable, "-c", code, "eval", "--agent",
            f"openai:m@http://127.0.0.1:{httpd.server_address[1]}/v1", "--env",
            "ToM-HiToM-O1-v0", "--n", "4", "--out", str(tmp_path / "run"),
            "--agent-option", "timeout=60", "--agent-option", "concurrency=4"]  # fmt: skip
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    try:
        assert arrived.wait(60), "the eval sent no request"
        time.sleep(0.5)  # every worker is now inside its request
        process.send_signal(signal.SIGINT)
        try:
            status = process.wait(timeout=20)  # the old code waited out the 60 s timeout
        except subprocess.TimeoutExpired:
            pytest.fail("the interrupted eval was still running 20 s after Ctrl-C")
        assert status == 130
        assert process.stderr is not None and "interrupted" in process.stderr.read()
    finally:
        process.kill()
        release.set()
        httpd.shutdown()
        httpd.server_close()


def test_vllms_newer_budget_wording_is_read_too(server: tuple[str, Script]) -> None:
    """User audit: vLLM 0.10 says "your request has 650 input tokens (1050 > 1024 - 650)";
    only the older "(650 in the messages, ...)" was read, so every item that fitted the
    context was scored as an unanswered wrong answer in a run that exited 0."""
    base, script = server
    agent = make_agent(f"openai:m@{base}", max_new_tokens=1050, **FAST)
    (response,) = agent.act([episode("budget-too-big-new")])
    assert not response.failed and not response.error
    assert response.extra["max_tokens_lowered_to"] == 374
    assert [b["max_tokens"] for b in script.bodies] == [1050, 374]


def test_a_reasoning_servers_thinking_goes_back_in_think_tags(server: tuple[str, Script]) -> None:
    """User audit: a server with a reasoning parser returns the thinking apart
    (reasoning_content / reasoning); it was dropped, so a reply whose answer sat there was
    scored empty, and every other lost its format and reasoning scores."""
    base, _ = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    split, only, null = agent.act(
        [episode("reasoning-split"), episode("reasoning-only"), episode("null-content")]
    )
    assert split.text == "<think>I know.</think><answer>box</answer>" and not split.error
    assert split.extra["reasoning_from"] == "reasoning_content"
    assert only.text == "<think>Hmm <answer>jar</answer>" and not only.error  # never closed
    assert null.text == "" and not null.failed  # scored empty, and counted unanswered:
    assert "the reply held no text (content None" in (null.error or "")
    (prefilled,) = agent.act([episode("reasoning-split", prefill="<think>")])
    assert prefilled.text == "I know.</think><answer>box</answer>"  # prefill + text reads once


def test_a_server_refusing_every_request_stops_the_run(
    server: tuple[str, Script], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: a 401 (bad key), 404 (wrong model or path) or a 503 through every retry
    failed item after item of every env; the quick suite at --n 100 spent 24 minutes
    answering nothing. A batch in which every request failed now stops the run."""
    from tomgym.agents.openai_api import ServerRefusingError

    from tests.eval.helpers import run_cli

    base, script = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    with pytest.raises(ServerRefusingError, match=r"answered none of 2 requests.*HTTP 401"):
        agent.act([episode("401-a"), episode("401-b")])
    mixed = agent.act([episode("401-c"), episode("ok")])  # one item refused: the run goes on
    assert [r.failed for r in mixed] == [True, False]
    wrong_path, _ = make_agent(f"openai:m@{base}/x", **FAST).act([episode("path"), episode("ok")])
    assert "usually ends in /v1" in (wrong_path.error or "")
    out = tmp_path / "run"
    argv = ["eval", "--agent", f"openai:m@{base}", "--env", "Test-Refused-v0", "--n", "4",
            "--out", str(out)]  # fmt: skip
    items = [{"id": f"q{i}", "story": "s", "question": "Where?", "answer": "box",
              "candidates": ["box", "jar"]} for i in range(4)]  # fmt: skip
    tomgym.register_tom_env(
        "Test-Refused-v0",
        items=items,
        kwargs={"prompt": {"user_template": "401-{question} {story}"}},
    )
    try:
        assert run_cli(*argv, "--batch-size", "2") == 2
    finally:
        tomgym.unregister_tom_env("Test-Refused-v0")
    assert "answered none of 2 requests" in capsys.readouterr().err
    assert sum(k.startswith("401-Where") for k in script.seen.elements()) == 2  # one batch


def test_spec_urls_with_credentials_or_queries_are_refused_without_echoing_them() -> None:
    with pytest.raises(ValueError, match=r"user or password") as refused:
        parse_openai_spec("openai:m@http://me:s3cret@host/v1", {})
    assert "s3cret" not in str(refused.value)
    with pytest.raises(ValueError, match=r"query or fragment") as refused:
        parse_openai_spec("openai:m@http://host/v1?api-key=s3cret", {})
    assert "s3cret" not in str(refused.value)
    with pytest.raises(ValueError, match=r"base_url='http://b/v1' another: give it once"):
        parse_openai_spec("openai:m@http://a/v1", {"base_url": "http://b/v1"})
    assert parse_openai_spec("openai:m@http://a/v1", {"base_url": "http://a/v1/"})[1] == (
        "http://a/v1"
    )
    with pytest.raises(ValueError, match="http.s. base URL"):
        parse_openai_spec("openai:m@localhost:8000/v1", {})
    with pytest.raises(ValueError, match="not the key itself") as refused:
        make_agent("openai:m@http://h/v1", api_key_env="sk-s3cret-key")
    assert "s3cret" not in str(refused.value)


def test_concurrency_above_the_batch_size_is_refused_with_the_fix() -> None:
    """User audit: concurrency=32 with the default --batch-size 8 sent 8 requests at a time,
    without a word: a run gives the agent one batch at a time."""
    with pytest.raises(ValueError, match="pass --batch-size 32 too"):
        make_agent("openai:m@http://h/v1", concurrency=32, batch_size=8)
    assert make_agent("openai:m@http://h/v1", concurrency=32, batch_size=32).concurrency == 32
    assert make_agent("openai:m@http://h/v1", concurrency=3).concurrency == 3  # act() alone


def test_a_leaderboard_goes_on_in_the_run_of_its_served_model_at_a_new_url(
    server: tuple[str, Script], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: rerunning a leaderboard with localhost for 127.0.0.1 (or a new port after a
    restart) made a new run directory and asked every finished item again; `tomgym eval`
    already took it as the same agent."""
    from tomgym.eval.leaderboard import run_suite

    base, script = server
    moved = base.replace("127.0.0.1", "localhost")
    run_suite("quick", [f"openai:m@{base}"], tmp_path, n=1, quiet=True, agent_options=FAST)
    asked = len(script.bodies)
    assert asked == 6  # one item of each of the suite's envs
    board = run_suite("quick", [f"openai:m@{moved}"], tmp_path, n=1, quiet=True,
                      agent_options=FAST)  # fmt: skip
    assert len(script.bodies) == asked  # nothing asked again
    assert len(list((tmp_path / "runs").iterdir())) == 1
    assert len(board.rows) == 1 and "goes on in" in capsys.readouterr().err
    # two servers of one model name, compared in one command: each its own run
    run_suite("quick", [f"openai:m@{base}", f"openai:m@{moved}"], tmp_path, n=1, quiet=True,
              agent_options=FAST)  # fmt: skip
    assert len(list((tmp_path / "runs").iterdir())) == 2


def test_a_prefill_is_not_doubled_whatever_space_follows_the_tag(
    server: tuple[str, Script],
) -> None:
    """Red team: with prefill_think=True (prefill "<think>\\n"), a reply opening with "<think>"
    and no newline, and every reply of a server with a reasoning parser (the agent writes
    "<think>" itself), kept its tag after the prefill's: format 0%, reward 1.0 for 1.1."""
    base, _ = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    tight, split = agent.act(
        [episode("think-tight", prefill="<think>\n"), episode("reasoning-split", "<think>\n")]
    )
    assert tight.text == "I know.</think><answer>box</answer>"
    assert split.text == "I know.</think><answer>box</answer>"


def test_text_parts_and_odd_usage_counts_are_read_not_fatal(server: tuple[str, Script]) -> None:
    """Red team: content as a list of text parts was scored as an empty answer, and a usage
    of "n/a" (or a count of 10.5) crashed the run outside its retries."""
    base, _ = server
    parts, odd = make_agent(f"openai:m@{base}", **FAST).act(
        [episode("parts"), episode("odd-usage")]
    )
    assert parts.text == "<answer>box</answer>" and not parts.error
    assert parts.prompt_tokens is None and odd.prompt_tokens is None
    assert odd.completion_tokens is None and odd.text == "<answer>box</answer>"


def test_the_key_a_server_echoes_is_not_stored(
    server: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, _ = server
    monkeypatch.setenv("MY_KEY", "sk-secret-123")
    agent = make_agent(f"openai:m@{base}", api_key_env="MY_KEY", **FAST)
    echoed, _ = agent.act([episode("echo-401"), episode("ok")])
    assert echoed.failed and "Incorrect key: Bearer ***" in (echoed.error or "")
    assert "sk-secret-123" not in (echoed.error or "")


def test_one_refusal_every_request_gets_stops_the_run(server: tuple[str, Script]) -> None:
    """Red team: OpenAI's reasoning models refuse max_tokens with a 400, for every item; a
    400 was taken as the item's own, so a whole suite sent doomed requests. The same refusal
    for ALIKE_REFUSALS requests in a row stops the run and names the option that fixes it."""
    from tomgym.agents.openai_api import ALIKE_REFUSALS, ServerRefusingError

    base, script = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    batch = [episode("unsupported") for _ in range(2)]
    for _ in range(ALIKE_REFUSALS // 2 - 1):
        assert all(r.failed for r in agent.act(batch))
    with pytest.raises(ServerRefusingError, match="max_tokens_field=max_completion_tokens"):
        agent.act(batch)
    assert script.seen["unsupported"] == ALIKE_REFUSALS  # none retried
    agent = make_agent(f"openai:m@{base}", max_tokens_field="max_completion_tokens", **FAST)
    agent.act([episode("ok")])
    sent = script.bodies[-1]
    assert sent["max_completion_tokens"] == Sampling.max_new_tokens and "max_tokens" not in sent
    with pytest.raises(ValueError, match="max_tokens_field must be one of"):
        make_agent(f"openai:m@{base}", max_tokens_field="tokens")


def test_refusals_alike_after_answers_are_the_items_own(
    server: tuple[str, Script], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generalisation red team: items a server refused for their own reasons (a 400 on about
    a quarter of the prompts) failed, and every rerun, retrying only those, stopped with 'the
    request, not the items, is what it refuses': the run could never finish. Refusals alike
    stop a run only while the request has never been answered, in this process or in the
    run resumed (which the evaluation tells the agent)."""
    from tomgym.agents.openai_api import ALIKE_REFUSALS, OpenAIAgent

    from tomgym.eval import evaluate

    base, script = server
    agent = make_agent(f"openai:m@{base}", **FAST)
    agent.act([episode("ok")])
    batch = [episode("unsupported") for _ in range(2)]
    for _ in range(ALIKE_REFUSALS):
        assert all(r.failed for r in agent.act(batch))
    told: list[bool] = []
    real_act = OpenAIAgent.act

    def act(self: OpenAIAgent, episodes: Any) -> Any:
        told.append(self.answered_before)
        return real_act(self, episodes)

    monkeypatch.setattr(OpenAIAgent, "act", act)
    spec, out = f"openai:m@{base}", tmp_path / "run"
    evaluate(spec, envs=["ToM-HiToM-O1-v0"], n=1, out=out, agent_options=FAST, quiet=True)
    evaluate(spec, envs=["ToM-HiToM-O1-v0"], n=2, out=out, agent_options=FAST, quiet=True)
    assert told == [False, True]  # the rerun knows the run holds answers


def test_rate_limits_through_every_retry_say_so(server: tuple[str, Script]) -> None:
    from tomgym.agents.openai_api import ServerRefusingError

    base, _ = server
    with pytest.raises(ServerRefusingError, match="kept limiting the rate.*lower --agent-option"):
        make_agent(f"openai:m@{base}", **FAST).act([episode("busy"), episode("busy")])


def test_a_servers_retry_after_is_waited_out_past_backoff_max() -> None:
    """The docstring said Retry-After wins if longer; backoff_max capped it, so a 60 s rate
    window spent every retry on another refusal."""
    from tomgym.agents.openai_api import RETRY_AFTER_MAX

    agent = make_agent("openai:m@http://127.0.0.1:9/v1", backoff_base=1.0, backoff_max=2.0)
    assert agent.backoff(1, retry_after=5.0) == 5.0
    assert agent.backoff(5, retry_after=None) == 2.0
    assert agent.backoff(1, retry_after=1e9) == RETRY_AFTER_MAX


def test_the_timeout_bounds_a_whole_reply_not_each_read(server: tuple[str, Script]) -> None:
    """Red team: a server sending a byte every half second held a request with timeout=2
    for 20 s: the socket's timeout bounds each read alone."""
    base, _ = server
    agent = make_agent(f"openai:m@{base}", timeout=0.5, max_retries=0)
    start = time.perf_counter()
    (trickled,) = agent.answer_all([episode("trickle")])
    assert trickled.failed and "longer than the timeout" in (trickled.error or "")
    assert time.perf_counter() - start < 3.0  # the whole reply takes about 5 s


def test_a_spec_naming_a_url_but_no_model_is_refused() -> None:
    """Red team: 'openai:http://host/v1' sent the URL as the model's name to api.openai.com."""
    with pytest.raises(ValueError, match=r"names a URL but no model.*openai:<model>@http://h/v1"):
        parse_openai_spec("openai:http://h/v1", {})
