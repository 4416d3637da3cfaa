"""Arguments under names a tool does not take (a weak model's guess): the call does not run
on the tool's defaults or fail with words that do not say why; the model is told the names
the tool takes. Faked at the protocol: the real client reads the SSE."""

from __future__ import annotations

import json

import httpx
import pytest
from agent_script import drain
from doubles.llm_replay import Replay, client_for, delta, sse, text_reply

from paicli_tui.core.agent.argument_names import misnamed_arguments
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.events import ToolCallFinished

LIST_DIR = {"type": "object", "properties": {"path": {"type": "string"},
                                             "depth": {"type": "integer"}}}
READ_FILE = {"type": "object", "required": ["path"],
             "properties": {"path": {"type": "string"}, "offset": {"type": "integer"},
                            "limit": {"type": "integer"}}}


def _call(name: str, arguments: dict) -> httpx.Response:
    call = {"index": 0, "id": "c1", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}
    return httpx.Response(200, content=sse([delta(tool_calls=[call]),
                                            delta(finish="tool_calls")]))


async def test_a_listing_of_another_folder_is_not_the_projects_root(settings,
                                                                    project_dir) -> None:
    # list_dir {"directory": "src"} listed the project's root, as if asked for it
    (project_dir / "src").mkdir()
    (project_dir / "src" / "app.py").write_text("x = 1\n")
    (project_dir / "ROOT_ONLY.md").write_text("# root\n")
    replay = Replay([_call("list_dir", {"directory": "src"}),
                     httpx.Response(200, content=text_reply("I will use path.")),
                     *[httpx.Response(200, content=text_reply("[]")) for _ in range(3)]])
    session = await AgentSession.start(settings, project_dir, client=client_for(replay))
    events = await drain(session.run_turn("what is in src?"))
    (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.status == "failed"
    result = replay.bodies()[1]["messages"][-1]
    assert result["role"] == "tool" and "ROOT_ONLY.md" not in result["content"]
    assert ("list_dir takes no argument 'directory'; its arguments are: path, depth. "
            "Nothing ran: call it again with those names.") in result["content"]
    await session.aclose()


@pytest.mark.parametrize(("schema", "arguments", "said"), [
    (READ_FILE, {"file_path": "a.py"},
     "read_file takes no argument 'file_path'; its arguments are: path (required), offset, "
     "limit. Nothing ran: call it again with those names."),
    (READ_FILE, {"file": "a.py", "lines": 20},
     "read_file takes none of the arguments 'file', 'lines'; its arguments are: path "
     "(required), offset, limit. Nothing ran: call it again with those names."),
    (READ_FILE, {"path": "a.py", "reason": "to see it"}, None),  # an extra beside: harmless
    (READ_FILE, {"offset": 3, "file_path": "a.py"},  # the required one is under a guess
     "read_file takes no argument 'file_path'; its arguments are: path (required), offset, "
     "limit. Nothing ran: call it again with those names."),
    (READ_FILE, {}, None),  # nothing guessed: the tool's own error says what is missing
    (READ_FILE, {"offset": 3}, None),
    (LIST_DIR, {"directory": "src"},
     "list_dir takes no argument 'directory'; its arguments are: path, depth. Nothing ran: "
     "call it again with those names."),
    (LIST_DIR, {"path": "src", "recursive": True}, None),
    ({"type": "object"}, {"anything": 1}, None),  # a schema naming nothing cannot tell
    ({"type": "object", "properties": {"a": {}}, "additionalProperties": True},
     {"b": 1}, None),
])
def test_which_calls_are_answered_with_the_names(schema, arguments, said) -> None:
    name = "list_dir" if schema is LIST_DIR else "read_file"
    assert misnamed_arguments(name, schema, arguments) == said
