"""Reasoning a model wrote into its text between ``<think>`` tags.

DeepSeek-R1 distills, QwQ and Qwen3 served without a reasoning parser (vLLM without
``--reasoning-parser``, llama.cpp, older Ollama) put their thinking in the reply's text:
``<think>…</think>`` then the answer, or, when the chat template already opened the tag,
only ``…</think>`` then the answer. Kept as text, pages of thinking showed as the answer
and went back to the model in every later request. Here it becomes reasoning: live while
streaming when the reply opens with the tag, and in the recorded reply in both forms.
"""

from __future__ import annotations

_OPEN, _CLOSE = "<think>", "</think>"


def split_think(text: str, reasoning: str | None) -> tuple[str, str | None]:
    """(answer, reasoning) of a whole reply: a leading ``<think>…</think>``, or everything
    before a lone ``</think>``, moves to the reasoning (after any the server sent apart).
    A lone tag in code (`` `</think>` ``, a fenced block) is an answer naming the tag.
    A tag that is opened and never closed is left as it is: the reply may have been cut
    while thinking, and an empty answer would lose it."""
    stripped = text.lstrip()
    if stripped.startswith(_OPEN):
        end = stripped.find(_CLOSE)
        if end < 0:
            return text, reasoning
        thought, answer = stripped[len(_OPEN):end], stripped[end + len(_CLOSE):]
    elif _CLOSE in text and _OPEN not in text and not _in_code(text, text.find(_CLOSE)):
        thought, _, answer = text.partition(_CLOSE)
    else:
        return text, reasoning
    thought = thought.strip()
    joined = "\n\n".join(part for part in (reasoning or "", thought) if part)
    return answer.lstrip(), joined or None


class ThinkStream:
    """Sorts streamed text into (reasoning, text) pieces as it arrives: a reply that opens
    with ``<think>`` streams its thinking as reasoning. A tag split across pieces is held
    back until it can be told apart (at most 8 characters after any blank lines)."""

    def __init__(self) -> None:
        self.state = "start"
        self.held = ""
        self.blank: list[str] = []
        """Blank pieces before the reply shows how it starts, kept aside: a model looping on
        newlines sends them one by one, and joining them at every piece took minutes."""

    def feed(self, piece: str) -> tuple[str, str]:
        """The (reasoning, text) this piece releases."""
        if self.state == "start" and not self.held and not piece.strip():
            self.blank.append(piece)
            return "", ""
        held = "".join(self.blank) + self.held + piece
        self.held, self.blank = "", []
        if self.state == "start":
            lead = held.lstrip()
            if len(lead) < len(_OPEN) and _OPEN.startswith(lead):
                self.held = held  # still could be the tag
                return "", ""
            if not lead.startswith(_OPEN):
                self.state = "text"
                return "", held
            self.state, held = "think", lead[len(_OPEN):]
        if self.state == "think":
            end = held.find(_CLOSE)
            if end >= 0:
                self.state = "after"
                thought, rest = held[:end], held[end + len(_CLOSE):]
                _, text = self._after(rest)
                return thought, text
            keep = _partial_tail(held, _CLOSE)
            self.held = held[len(held) - keep:] if keep else ""
            return held[:len(held) - keep], ""
        if self.state == "after":
            return self._after(held)
        return "", held

    def _after(self, text: str) -> tuple[str, str]:
        """The blank lines between the thinking and the answer are dropped."""
        text = text.lstrip()
        if text:
            self.state = "text"
        return "", text

    def flush(self) -> tuple[str, str]:
        """What is still held when the stream ends."""
        held, self.held, self.blank = "".join(self.blank) + self.held, "", []
        return ("", held) if self.state in ("start", "text") else (held, "")


def _in_code(text: str, at: int) -> bool:
    """Whether ``text[at:]`` begins inside an open fenced block, or inside inline code (an
    odd number of backticks before it on its line)."""
    line = text[text.rfind("\n", 0, at) + 1:at]
    return text.count("```", 0, at) % 2 == 1 or line.replace("```", "").count("`") % 2 == 1


def _partial_tail(text: str, tag: str) -> int:
    """How many characters at the end of ``text`` could begin ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0
