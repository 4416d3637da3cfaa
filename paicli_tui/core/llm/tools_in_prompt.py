"""Tools for a model whose server will not take them: described in the system prompt, calls
written in ``<tool_call>`` tags (read back by :mod:`.text_tool_calls`), results returned in
``<tool_response>`` tags.

Ollama refuses ``tools`` for a model whose template has none ("… does not support tools"),
vLLM without ``--enable-auto-tool-choice`` and llama.cpp without ``--jinja`` refuse them too;
the person could not use such a model at all. The history keeps its real form (calls and
tool messages, paired); only the request is written out this way, so a switch back to a
model with native tools, the ledger and compaction see nothing different.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from ...config import TOOL_PROTOCOLS
from ...resources import load_prompt
from ..contracts.llm import LLMError, StreamEvent, StreamRetry
from ..messages import Message, Role

log = logging.getLogger(__name__)

OneRequest = Callable[[Sequence[Message], Sequence[dict[str, Any]], str | None],
                      AsyncIterator[StreamEvent]]

# What servers say when they will not take tools. Matched only on an error that came before
# any reply, for a request that carried tools.
_REFUSALS = re.compile(
    r"(does not|doesn't|do not|not) support (tools|tool use|tool calling|function calling)"
    r"|(tools?|function calling) (is|are) not (supported|enabled)"
    r"|tool[_ ]choice.{0,40}requires|enable-auto-tool-choice|requires --jinja"
    r"|unrecognized request argument supplied: tools", re.IGNORECASE)


# A tag of this form inside a result (a file, a page, a command's output): its < is written
# &lt; so the text cannot close its <tool_response> block and go on as the person's words,
# nor open a block of its own; spaces, case and a newline before > are forms models read too.
# Possessive blanks: the two runs around the slash never trade characters (a '<' and a long
# run of spaces would be tried at every split).
_TAGS_IN_RESULTS = re.compile(r"<(?=\s*+/?\s*+tool_(?:response|call)\b)", re.IGNORECASE)


def refuses_tools(error: str) -> bool:
    """Whether a provider's error says it does not take tools (bounded: the first 2,000
    characters of the message are read)."""
    return _REFUSALS.search(error[:2_000]) is not None


def tool_list(tools: Sequence[dict[str, Any]]) -> str:
    """Each tool as its name, description and argument schema."""
    parts = []
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        name = function.get("name", "")
        schema = json.dumps(function.get("parameters", {}), ensure_ascii=False)
        parts.append(f"## {name}\n{function.get('description', '').strip()}\n"
                     f"Arguments: {schema}")
    return "\n\n".join(parts)


def with_tools_in_prompt(messages: Sequence[Message], tools: Sequence[dict[str, Any]]
                         ) -> list[Message]:
    """The request's messages with the tools described in the system prompt (when any are
    offered), each call written as a ``<tool_call>`` block in its assistant message and each
    result as a ``<tool_response>`` block in a user message (next to each other results
    merge: chat templates want user and assistant to take turns)."""
    section = load_prompt("tools_in_prompt").strip().replace("{tools}", tool_list(tools)) \
        if tools else ""  # a request without tools (at the request cap): the history only
    out: list[Message] = []
    if section and (not messages or messages[0].role is not Role.SYSTEM):
        out.append(Message.system(section))
    for message in messages:
        if message.role is Role.SYSTEM and not out:
            out.append(message.evolve(content=f"{message.content.rstrip()}\n\n{section}")
                       if section else message)
        elif message.role is Role.ASSISTANT and message.tool_calls:
            blocks = "\n".join(_call_block(c.name, c.arguments) for c in message.tool_calls)
            words = message.content.strip()
            out.append(message.evolve(content=f"{words}\n{blocks}" if words else blocks,
                                      tool_calls=()))
        elif message.role is Role.TOOL:
            _add_user(out, Message.user(
                f'<tool_response name="{message.name or ""}">\n'
                f"{_TAGS_IN_RESULTS.sub('&lt;', message.content)}\n</tool_response>"))
        elif message.role is Role.USER:
            _add_user(out, message)
        else:
            out.append(message)
    return out


def _holds_tool_turns(messages: Sequence[Message]) -> bool:
    """Whether the history has calls or results, which a server refusing tools may refuse
    too (a request without tools once they are in the prompt: written out all the same)."""
    return any(m.role is Role.TOOL or m.tool_calls for m in messages)


def _call_block(name: str, arguments: str) -> str:
    try:
        parsed: Any = json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        parsed = arguments  # shown as the model wrote it; its tool result said what was wrong
    body = json.dumps({"name": name, "arguments": parsed}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


def _add_user(out: list[Message], message: Message) -> None:
    last = out[-1] if out else None
    if last is not None and last.role is Role.USER:
        out[-1] = last.evolve(content=f"{last.content}\n\n{message.content}",
                              images=(*last.images, *message.images))
    else:
        out.append(message)


class ToolProtocol:
    """How one client passes tools: natively, or in the prompt once refused (``auto``).
    The switch holds for the client's life (a /model switch builds a new client)."""

    def __init__(self, protocol: str, provider: str) -> None:
        if protocol not in TOOL_PROTOCOLS:
            raise ValueError(f"tool_protocol must be one of {', '.join(TOOL_PROTOCOLS)}")
        self.protocol = protocol
        self.provider = provider

    async def stream(self, once: OneRequest, messages: Sequence[Message],
                     tools: Sequence[dict[str, Any]], model: str | None
                     ) -> AsyncIterator[StreamEvent]:
        """``once``'s events for this request; a refusal of the tools before any reply
        (``auto``) is said as a retry and the request goes again with them in the prompt."""
        if self.protocol == "prompt" and (tools or _holds_tool_turns(messages)):
            async for event in once(with_tools_in_prompt(messages, tools), (), model):
                yield event
            return
        replied = False
        try:
            async for event in once(messages, tools, model):
                replied = replied or not isinstance(event, StreamRetry)
                yield event
            return
        except LLMError as exc:
            if replied or not tools or self.protocol != "auto" or not refuses_tools(str(exc)):
                raise
            refusal = str(exc)
        self.protocol = "prompt"
        log.warning("%s", refusal)
        yield StreamRetry(f"{model} does not take tools here ({refusal[:200]}); "
                          "they are described in the prompt from now on", 1, 1, 0.0)
        async for event in once(with_tools_in_prompt(messages, tools), (), model):
            yield event
