"""A model that writes a configured key (in its text, its reasoning, its tool calls'
arguments, streamed in pieces) never gets it onto the screen, into ``exec``'s output, the
ledger or any other file: the reply is masked when recorded, its pieces before they are
shown."""

from __future__ import annotations

import argparse
import io
import json
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.config import load_settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.llm import StreamDone
from paicli_tui.core.llm.complete import completer_for
from paicli_tui.core.llm.redact import MASK, PIECE_CHARS
from paicli_tui.core.llm.reply_redact import StreamRedactor, redact_arguments
from paicli_tui.core.messages import Message

KEY = "sk-live-0123456789abcdef"
OTHER = "glm-key-9876543210zyxw"


def _flat(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def leaked(text: str, *keys: str) -> list[str]:
    """The runs of PIECE_CHARS of a key (letters and digits, any case) found in ``text``."""
    flat = _flat(text)
    return [form[i:i + PIECE_CHARS] for key in keys for form in (_flat(key),)
            for i in range(len(form) - PIECE_CHARS + 1) if form[i:i + PIECE_CHARS] in flat]


def spaced(key: str, every: int = 4, separator: str = " ") -> str:
    return separator.join(key[i:i + every] for i in range(0, len(key), every))


def streamed(pieces: Sequence[str], secrets: Sequence[str] = (KEY, OTHER)) -> tuple[str, int]:
    """What a redactor shows for ``pieces``, and how many characters it held at the end."""
    redactor = StreamRedactor(secrets)
    shown = "".join(redactor.feed(piece) for piece in pieces)
    held = len("".join(pieces)) - len(shown)
    return shown + redactor.flush(), held


FORMS = [
    ("verbatim", KEY),
    ("upper case", KEY.upper()),
    ("spaces every 4", spaced(KEY)),
    ("dashes every 4", spaced(KEY, separator="-")),
    ("one per line", spaced(KEY, 1, "\n")),
    ("reversed", KEY[::-1]),
    ("without its first letter", KEY[1:]),
    ("the other provider's key", OTHER),
]


def test_a_key_is_masked_wherever_the_stream_cuts_it() -> None:
    for name, form in FORMS:
        text = f"Here now: {form} (keep it safe)."
        for cut in range(1, len(text)):
            shown, _ = streamed([text[:cut], text[cut:]])
            assert not leaked(shown, KEY, OTHER), (name, cut, shown)
            assert shown.startswith("Here now: ") and shown.endswith("(keep it safe)."), \
                (name, cut, shown)
            assert MASK in shown, (name, cut)
        shown, _ = streamed(list(text))  # a character at a time
        assert not leaked(shown, KEY, OTHER) and MASK in shown, (name, shown)


def test_text_without_a_key_streams_through_unchanged_and_almost_at_once() -> None:
    text = "The function reads the config file, then opens the socket on port 8080."
    for size in (1, 5, 17):
        pieces = [text[i:i + size] for i in range(0, len(text), size)]
        shown, held = streamed(pieces)
        assert shown == text
        assert held <= 3, (size, held)  # only a tail that could open a key waits
    assert streamed([text], ())[0] == text  # no key configured: nothing held


def test_tool_arguments_are_masked_and_stay_json_when_they_can() -> None:
    escaped = "".join(f"\\u{ord(c):04x}" for c in KEY)
    table = [
        # arguments as the model wrote them, still valid JSON after masking
        (json.dumps({"pattern": KEY}), True),
        ('{"pattern": "' + escaped + '"}', True),
        (json.dumps({"command": f"echo {spaced(KEY)}"}), True),
        (json.dumps({KEY: "as a name"}), True),
        (json.dumps({"a": KEY[:12], "b": KEY[12:]}), False),  # split across two values
        (f"not json {KEY}", False),
    ]
    for arguments, stays_json in table:
        masked = redact_arguments(arguments, [KEY])
        assert not leaked(masked, KEY) and MASK in masked, arguments
        if stays_json:
            assert MASK in json.dumps(json.loads(masked)), arguments
    for plain in ('{"path":"a.py"}', '{ "path" : "a.py" }', "{}", "not json"):
        assert redact_arguments(plain, [KEY]) == plain  # untouched, spacing and all


def test_arguments_in_a_fence_or_encoded_twice_are_masked_as_the_tool_reads_them() -> None:
    """The tool forgives a fence and a second encoding; the masking read them as plain
    JSON, failed or saw one string, so a key in \\u escapes reached the tool decoded."""
    from paicli_tui.core.agent.tool_registry import read_arguments

    escaped = '{"command": "echo ' + "".join(f"\\u{ord(c):04x}" for c in KEY) + '"}'
    for raw in (json.dumps(escaped), f"```json\n{escaped}\n```", f"```\n{escaped}\n```",
                json.dumps(json.dumps({"command": f"echo {KEY}"}))):
        masked = redact_arguments(raw, [KEY])
        reaches_the_tool = read_arguments(masked)
        assert isinstance(reaches_the_tool, dict), raw
        assert not leaked(json.dumps(reaches_the_tool, ensure_ascii=False), KEY), raw
        assert MASK in reaches_the_tool["command"], raw


def _echoing_steps() -> list[Step]:
    return [Step(reasoning=f"The key is {KEY}.",
                 calls=[call("read_file", path=f"{KEY}.txt"),
                        call("list_dir", path=spaced(OTHER))]),
            Step(pieces=["Your key: ", KEY[:10], KEY[10:17], KEY[17:], ", the other: ",
                         spaced(OTHER)[:7], spaced(OTHER)[7:], ". Done."])]


def _key_settings(home: Path):
    return load_settings({}, {"PAICLI_HOME": str(home), "DEEPSEEK_API_KEY": KEY,
                              "ZHIPUAI_API_KEY": OTHER})


def _files_under(*roots: Path) -> str:
    return "".join(path.read_text(errors="replace") for root in roots
                   for path in root.rglob("*") if path.is_file())


async def test_a_reply_echoing_keys_is_masked_in_events_history_and_ledger(
        paicli_home, project_dir) -> None:
    client = ScriptedClient(_echoing_steps())
    session = await AgentSession.start(_key_settings(paicli_home), project_dir, client=client)
    events = await drain(session.run_turn("what is my key?"))
    await session.aclose()
    shown = {
        "text": "".join(e.text for e in events if isinstance(e, ev.TextDelta)),
        "reasoning": "".join(e.text for e in events if isinstance(e, ev.ReasoningDelta)),
        "replies": "".join(e.content + (e.reasoning or "") for e in events
                           if isinstance(e, ev.AssistantMessage)),
        "tool calls": "".join(e.arguments for e in events
                              if isinstance(e, ev.ToolCallStarted)),
        "final": "".join(e.final_text for e in events if isinstance(e, ev.TurnFinished)),
        "sent back": "".join(m.content + (m.reasoning or "") + "".join(
            c.arguments for c in m.tool_calls) for r in client.requests for m in r),
        "files": _files_under(paicli_home, project_dir),
    }
    for where, text in shown.items():
        assert not leaked(text, KEY, OTHER), where
    assert shown["text"] == f"Your key: {MASK}, the other: {MASK}. Done."
    assert shown["final"] == shown["text"]
    assert f"The key is {MASK}." == shown["reasoning"]
    assert MASK in shown["tool calls"]


def exec_args(*argv: str) -> argparse.Namespace:
    from paicli_tui.commands import exec_cmd

    parser = argparse.ArgumentParser()
    exec_cmd.configure(parser)
    return parser.parse_args(list(argv))


async def test_exec_prints_and_saves_the_reply_masked(paicli_home, project_dir,
                                                      monkeypatch) -> None:
    from paicli_tui.commands import exec_cmd
    from paicli_tui.core.llm import registry

    monkeypatch.setattr(exec_cmd, "_services", lambda *a: (None, None))
    settings = _key_settings(paicli_home)
    for flags in ((), ("--json",)):
        client = ScriptedClient(_echoing_steps())
        monkeypatch.setattr(registry, "build_client", lambda settings, c=client: c)
        out, err = io.StringIO(), io.StringIO()
        code = await exec_cmd._run("what is my key?", exec_args("what is my key?", *flags),
                                   settings, project_dir, out, err)
        assert code == 0, err.getvalue()
        assert "Your key: ****" in out.getvalue(), flags
        for where, text in (("stdout", out.getvalue()), ("stderr", err.getvalue()),
                            ("files", _files_under(paicli_home, project_dir))):
            assert not leaked(text, KEY, OTHER), (flags, where)


class _OneReply:
    """A client whose every request is answered with ``text`` (a summary, a plan...)."""

    provider, model, window = "one", "one-1", 128_000

    def __init__(self, text: str) -> None:
        self.text = text

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[object]:
        yield StreamDone(Message.assistant(self.text), "stop")

    async def aclose(self) -> None:
        pass


async def test_a_one_shot_answer_is_masked() -> None:
    complete = completer_for(_OneReply(f"## Summary\nThe key {spaced(KEY)} was set."), [KEY])
    answer = await complete("summarise", "history")
    assert answer == f"## Summary\nThe key {MASK} was set."
