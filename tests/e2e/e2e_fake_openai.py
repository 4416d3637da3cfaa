"""A small OpenAI-compatible chat server for end-to-end tests (not a test module).

It runs on 127.0.0.1 (random port) in a thread, answers ``POST /v1/chat/completions`` with
SSE, follows a per-turn script of tool calls, answers summary and fact-extraction requests
(the ones without tools), and checks EVERY request against the protocol: roles, tool-call
pairing, ids, JSON arguments, no empty messages. Violations are collected in ``problems``
and answered with HTTP 400 so the client fails loudly too.

Run as a program it serves until interrupted, for trying the TUI by hand::

    python tests/e2e/e2e_fake_openai.py --port 8765 --delay 3 --chat \
        --script '{"1": [[["execute_command", {"command": "ls -la | head"}]]]}'

and prints its base URL (``PAICLI_PROVIDER=custom PAICLI_BASE_URL=<it> PAICLI_MODEL=fake
PAICLI_API_KEY=x paicli-tui``). ``--chat`` answers a message without a ``TURN n`` marker
with a short reply instead of refusing it; ``--delay`` waits that long before answering a
request that carries tools (the first-token wait a person sees).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from paicli_tui.core.context.summary import SECTION_TITLES

Step = Sequence[tuple[str, dict[str, Any]]]
_TURN = re.compile(r"\bTURN (\d+)\b")


def protocol_problems(body: dict[str, Any]) -> list[str]:
    """Everything about a chat request that a strict provider would reject."""
    problems: list[str] = []
    messages = body.get("messages")
    if not isinstance(body.get("model"), str) or not body["model"]:
        problems.append("model missing")
    if not isinstance(messages, list) or not messages:
        return problems + ["messages missing"]
    if messages[0].get("role") != "system":
        problems.append("first message is not the system prompt")
    seen_ids: set[str] = set()
    open_calls: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        where = f"message {index} ({role})"
        if role not in ("system", "user", "assistant", "tool"):
            problems.append(f"{where}: unknown role")
            continue
        content = message.get("content")
        calls = message.get("tool_calls") or []
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_calls:
                problems.append(f"{where}: result for {call_id!r} has no open call right before")
            else:
                open_calls.remove(call_id)
        elif open_calls:
            problems.append(f"{where}: calls {open_calls} were never answered")
            open_calls = []
        if role == "system" and index > 0:
            problems.append(f"{where}: system message after the start")
        if not calls and not (isinstance(content, str) and content.strip()):
            problems.append(f"{where}: empty message")
        for call in calls:
            call_id = call.get("id")
            if not call_id or call_id in seen_ids:
                problems.append(f"{where}: missing or repeated call id {call_id!r}")
            seen_ids.add(call_id)
            open_calls.append(call_id)
            function = call.get("function") or {}
            if call.get("type") != "function" or not function.get("name"):
                problems.append(f"{where}: malformed tool call")
            try:
                json.loads(function.get("arguments") or "")
            except json.JSONDecodeError:
                problems.append(f"{where}: arguments are not JSON")
    if open_calls:
        problems.append(f"request ends with unanswered calls {open_calls}")
    return problems


def _summary() -> str:
    return "\n\n".join(f"## {title}\n- noted from the earlier turns ({i})"
                       for i, title in enumerate(SECTION_TITLES, 1))


def _sse_text(text: str, usage: dict[str, int]) -> bytes:
    half = len(text) // 2
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": text[:half]}}]},
              {"choices": [{"index": 0, "delta": {"content": text[half:]},
                            "finish_reason": "stop"}]},
              {"choices": [], "usage": usage}]
    return _frame(chunks)


def _sse_calls(step: Step, turn: int, number: int, usage: dict[str, int]) -> bytes:
    chunks: list[dict[str, Any]] = []
    for index, (name, arguments) in enumerate(step):
        text = json.dumps(arguments)
        call_id = f"t{turn}s{number}c{index}"
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": index, "id": call_id, "type": "function",
             "function": {"name": name, "arguments": ""}}]}}]})
        for start in range(0, len(text), 7):  # arguments arrive in small pieces
            chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": index, "function": {"arguments": text[start:start + 7]}}]}}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append({"choices": [], "usage": usage})
    return _frame(chunks)


def _frame(chunks: list[dict[str, Any]]) -> bytes:
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


class FakeOpenAI:
    """Scripted server: ``script[turn]`` is the list of tool-call steps of that turn."""

    def __init__(self, script: dict[int, list[Step]], api_key: str | None = None, *,
                 summaries: str = "valid") -> None:
        self.script = script
        self.api_key = api_key
        self.summaries = summaries
        """``valid`` (the four sections) or ``prose`` (a small model ignoring the format)."""
        self.problems: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.raw_bodies: list[bytes] = []
        self.summary_calls = 0
        self.plan: str | None = None
        """The answer to plan-mode requests (JSON), when a test sets one."""
        self.chat = False
        """Answer a message without a TURN marker (a person typing) instead of refusing it."""
        self.calls_as_text = False
        """Write the script's tool calls into the reply's text in <tool_call> tags, as a
        Qwen model served without its tool template does, instead of as real calls."""
        self.refuses_tools = False
        """Answer a request carrying tools with Ollama's 400 "does not support tools", and an
        agent request with the tools described in its system prompt by writing the script's
        calls in <tool_call> tags (a model served without a tool template)."""
        self.delay_s = 0.0
        """Seconds to wait before answering an agent request (a slow first token)."""
        self.memory_choice: Callable[[str], str] | None = None
        """The light model's answer to a memory selection request (its user text in); None:
        answered like any background job (an answer that is not a choice)."""
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reply(self, body: dict[str, Any], raw: bytes) -> tuple[int, bytes]:
        usage = {"prompt_tokens": len(raw) // 4, "completion_tokens": 10}
        messages = body["messages"]
        if self.refuses_tools and body.get("tools"):
            return 400, json.dumps({"error": {"message": "registry.ollama.ai/library/fake "
                                                         "does not support tools"}}).encode()
        in_prompt = "<tool_call>" in str(messages[0].get("content"))  # tools in the prompt
        if not body.get("tools") and not in_prompt:
            system = str(messages[0].get("content", "")).lower()
            if system.startswith("you plan work") and self.plan is not None:
                return 200, _sse_text(self.plan, usage)
            if system.startswith("you choose which long-term memories") and \
                    self.memory_choice is not None:
                return 200, _sse_text(self.memory_choice(str(messages[-1]["content"])), usage)
            if "summar" in system or "compress" in system:
                self.summary_calls += 1
                if self.summaries == "prose":
                    return 200, _sse_text("We looked at several files and things went fine; "
                                          "the work continues with the next file.", usage)
                return 200, _sse_text(_summary(), usage)
            return 200, _sse_text('{"facts": []}', usage)
        turn_index = max((i for i, m in enumerate(messages)
                          if m["role"] == "user" and _TURN.search(str(m.get("content")))),
                         default=None)
        last_user = next((m for m in reversed(messages) if m["role"] == "user"), {})
        if self.chat and not _TURN.search(str(last_user.get("content"))):
            said = str(last_user.get("content", "")).rsplit("\n", 1)[-1][:80]
            return 200, _sse_text(f"You said: {said}", usage)
        if turn_index is None:
            return 400, b'{"error": {"message": "no TURN marker in the conversation"}}'
        turn = int(_TURN.findall(str(messages[turn_index]["content"]))[-1])
        done_steps = sum(1 for m in messages[turn_index:] if m["role"] == "assistant")
        steps = self.script.get(turn, [])
        if done_steps < len(steps) and (self.calls_as_text or in_prompt):
            return 200, _sse_text("".join(
                "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) +
                "</tool_call>" for name, arguments in steps[done_steps]), usage)
        if done_steps < len(steps):
            return 200, _sse_calls(steps[done_steps], turn, done_steps, usage)
        return 200, _sse_text(f"Turn {turn} is complete.", usage)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, payload = 400, b'{"error": {"message": "bad request"}}'
                with fake.lock:
                    try:
                        body = json.loads(raw)
                    except json.JSONDecodeError:
                        body = None
                        fake.problems.append("body is not JSON")
                    problems = [] if body is None else protocol_problems(body)
                    if self.path != "/v1/chat/completions":
                        problems.append(f"unexpected path {self.path}")
                    if fake.api_key and self.headers.get("Authorization") != \
                            f"Bearer {fake.api_key}":
                        problems.append("missing or wrong Authorization header")
                    if body is not None and body.get("stream") is not True:
                        problems.append("stream is not true")
                    if problems:
                        fake.problems += problems
                    elif body is not None:
                        fake.requests.append(body)
                        fake.raw_bodies.append(raw)
                        status, payload = fake.reply(body, raw)
                if fake.delay_s and body is not None and body.get("tools"):
                    time.sleep(fake.delay_s)  # outside the lock: other requests go on
                self.send_response(status)
                kind = "text/event-stream" if status == 200 else "application/json"
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler


def main(argv: Sequence[str] | None = None) -> None:
    """Serve until interrupted (see the module docstring)."""
    import argparse

    parser = argparse.ArgumentParser(description="A scripted OpenAI-compatible chat server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", default="{}",
                        help='JSON: {"TURN number": [[[tool, arguments], ...], ...]}')
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--chat", action="store_true")
    parser.add_argument("--calls-as-text", action="store_true")
    parser.add_argument("--refuses-tools", action="store_true")
    args = parser.parse_args(argv)
    script = {int(turn): [[(name, arguments) for name, arguments in step] for step in steps]
              for turn, steps in json.loads(args.script).items()}
    fake = FakeOpenAI(script)
    if args.port:
        fake.server.server_close()
        fake.server = ThreadingHTTPServer(("127.0.0.1", args.port), fake._handler())
    fake.chat, fake.delay_s = args.chat, args.delay
    fake.calls_as_text, fake.refuses_tools = args.calls_as_text, args.refuses_tools
    print(fake.base_url, flush=True)
    try:
        fake.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        fake.server.server_close()


if __name__ == "__main__":
    main()
