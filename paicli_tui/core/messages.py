"""Conversation messages and their OpenAI wire form.

A :class:`Message` is immutable: compaction tiers build new lists with new messages, so an
unchanged message keeps its identity (and its cached token estimate) across rounds.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class InternalKind(StrEnum):
    """User messages the program writes itself; they never count as the person's turns."""

    SKILL = "skill"
    RUNAWAY_GUARD = "runaway_guard"
    SUMMARY = "summary"
    NOTICE = "notice"


def new_message_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str = "{}"
    """The JSON text exactly as the model produced it."""

    def parsed_arguments(self) -> dict[str, Any]:
        """Arguments as a dict, read as the tool reads them (:func:`read_arguments`);
        malformed JSON gives an empty dict rather than an exception."""
        try:
            value = read_arguments(self.arguments)
        except (ValueError, RecursionError):
            return {}
        return value if isinstance(value, dict) else {}


def read_arguments(raw: str) -> Any:
    """A call's arguments, forgiving two slips weak models make: the object wrapped in a
    Markdown fence (```json … ```), and the object encoded twice (a JSON string holding
    the JSON). JSONDecodeError for what is still not JSON. The one reader for what a tool
    gets: the masking of keys in arguments reads them the same way."""
    text = (raw or "{}").strip()
    if text.startswith("```") and text.endswith("```") and text.count("```") == 2:
        text = text[3:-3].strip()
        text = text[4:] if text.startswith("json") else text
    arguments = json.loads(text or "{}")
    if isinstance(arguments, str) and arguments.strip().startswith("{"):
        try:
            inner = json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
        return inner if isinstance(inner, dict) else arguments
    return arguments


@dataclass(frozen=True)
class ImagePart:
    """An image attached to a user message: inline base64 data or a URL."""

    media_type: str = "image/png"
    data_base64: str | None = None
    url: str | None = None

    def to_openai(self) -> dict[str, Any]:
        url = self.url or f"data:{self.media_type};base64,{self.data_base64 or ''}"
        return {"type": "image_url", "image_url": {"url": url}}


@dataclass(frozen=True)
class Message:
    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    """For tool messages: the id of the call this result answers."""
    name: str | None = None
    """For tool messages: the tool's name (also recoverable from the boundary tag)."""
    reasoning: str | None = None
    """Reasoning text an assistant message came with (sent back only where required)."""
    images: tuple[ImagePart, ...] = ()
    internal: InternalKind | None = None
    """Set on user messages the program wrote (skills, guard notices, summaries)."""
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Bookkeeping that never goes on the wire (cleared=True, offload_path=..., tier=...)."""
    id: str = field(default_factory=new_message_id, compare=False)
    token_cache: list[int] = field(default_factory=list, compare=False, repr=False)
    """Per-message memo of the token estimate, filled by core.tokens (empty = not computed)."""

    # -- convenience constructors -------------------------------------------------------------
    @classmethod
    def system(cls, content: str) -> Message:
        return cls(Role.SYSTEM, content)

    @classmethod
    def user(cls, content: str, *, internal: InternalKind | None = None,
             images: Iterable[ImagePart] = ()) -> Message:
        return cls(Role.USER, content, internal=internal, images=tuple(images))

    @classmethod
    def assistant(cls, content: str = "", tool_calls: Iterable[ToolCall] = (),
                  reasoning: str | None = None) -> Message:
        return cls(Role.ASSISTANT, content, tool_calls=tuple(tool_calls), reasoning=reasoning)

    @classmethod
    def tool(cls, tool_call_id: str, name: str, content: str, **meta: Any) -> Message:
        return cls(Role.TOOL, content, tool_call_id=tool_call_id, name=name, meta=dict(meta))

    @property
    def is_real_user_turn(self) -> bool:
        return self.role is Role.USER and self.internal is None

    def evolve(self, **changes: Any) -> Message:
        """A copy with changes; a changed message starts with an empty token memo."""
        changes.setdefault("token_cache", [])
        return replace(self, **changes)

    # -- OpenAI chat-completions wire form ----------------------------------------------------
    def to_openai(self, *, include_reasoning: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role.value}
        if self.role is Role.USER and self.images:
            parts: list[dict[str, Any]] = []
            if self.content:
                parts.append({"type": "text", "text": self.content})
            parts.extend(image.to_openai() for image in self.images)
            out["content"] = parts
        else:
            out["content"] = self.content
        if self.role is Role.ASSISTANT:
            if self.tool_calls:
                out["tool_calls"] = [
                    {"id": wire_call_id(c.id), "type": "function",
                     "function": {"name": wire_tool_name(c.name),
                                  "arguments": c.arguments or "{}"}}
                    for c in self.tool_calls
                ]
                if not self.content:
                    out["content"] = None
            if include_reasoning and self.reasoning:
                out["reasoning_content"] = self.reasoning
        if self.role is Role.TOOL:
            out["tool_call_id"] = wire_call_id(self.tool_call_id)
        return out

    # -- full-fidelity record form (ledger) ------------------------------------------------------
    def to_record(self, *, strip_images: bool = False) -> dict[str, Any]:
        record: dict[str, Any] = {"id": self.id, "role": self.role.value, "content": self.content}
        if self.tool_calls:
            record["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            record["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            record["name"] = self.name
        if self.reasoning:
            record["reasoning"] = self.reasoning
        if self.images and not strip_images:
            record["images"] = [
                {"media_type": i.media_type, "data_base64": i.data_base64, "url": i.url}
                for i in self.images
            ]
        elif self.images:
            record["images_stripped"] = len(self.images)
        if self.internal is not None:
            record["internal"] = self.internal.value
        if self.meta:
            record["meta"] = dict(self.meta)
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Message:
        return cls(
            Role(record["role"]),
            record.get("content") or "",
            tool_calls=tuple(
                ToolCall(c["id"], c["name"], c.get("arguments") or "{}")
                for c in record.get("tool_calls") or ()
            ),
            tool_call_id=record.get("tool_call_id"),
            name=record.get("name"),
            reasoning=record.get("reasoning"),
            images=tuple(
                ImagePart(i.get("media_type", "image/png"), i.get("data_base64"), i.get("url"))
                for i in record.get("images") or ()
            ),
            internal=InternalKind(record["internal"]) if record.get("internal") else None,
            meta=dict(record.get("meta") or {}),
            id=record.get("id") or new_message_id(),
        )


_WIRE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
_WIRE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def wire_call_id(call_id: str | None) -> str | None:
    """A tool-call id as strict providers take it back: OpenAI refuses one over 40 characters
    (vLLM's ``chatcmpl-tool-<32 hex>`` has 46), gateways to Anthropic or Gemini one outside
    ``[A-Za-z0-9_-]`` (Kimi's ``functions.read_file:0``). Such an id goes out as a digest of
    itself, the same for the call and its result, so the pairing holds; the history keeps
    the id as it came. Refused once, the id stayed in the history and every later request of
    the session was refused."""
    if call_id is None or _WIRE_ID.fullmatch(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"call_{digest[:32]}"


def wire_tool_name(name: str) -> str:
    """A tool name as strict providers take it back (``[A-Za-z0-9_-]``, at most 64): a name
    the model made up (``functions.read_file``, ``read file``) never ran (no tool has it) but
    stays in the history, and OpenAI refused every later request over it."""
    if _WIRE_NAME.fullmatch(name):
        return name
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")[:64] or "unknown_tool"


def to_openai_messages(messages: Sequence[Message], *, include_reasoning: bool = False
                       ) -> list[dict[str, Any]]:
    return [m.to_openai(include_reasoning=include_reasoning) for m in messages]
