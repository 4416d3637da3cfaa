"""Program text laid out by the program and shown verbatim: how to connect a model (from the
provider registry, in columns) or the welcome line of a new session."""

from __future__ import annotations

from textual.widgets import Static

from ...core.plural import counted


class SetupNotice(Static):
    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="notice notice-setup")
        self.kind = "setup"


NO_CODE_INDEX = "no code index yet (/index builds it)"
CODE_INDEX_BUILDING = "code index building (the footer shows how far)"
CODE_INDEX_READY = "code index ready"
FACT_SEPARATOR = " · "


MEMORY_UNREADABLE = "memory unreadable (see below)"
"""The welcome line's memory fact when the store could not be read at start."""
UNREADABLE_LINE_START = "Memory unreadable: "


def memory_count_text(count: int) -> str:
    return counted(count, "memory", "memories")


def memory_unreadable_line(problem: str) -> str:
    """The welcome's line under its facts when the memory store cannot be read: why and
    what to do (the store's own words name the file and the remedy), and how to see it
    read again (the line goes once a read succeeds)."""
    why = " ".join(problem.split()).rstrip(".")
    return (f"{UNREADABLE_LINE_START}{why}. Until then no memory is recalled or saved; "
            "F2 reads it again.")


class WelcomeLine(Static):
    """Folder, model, memories, index state and the keys to start with."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="notice notice-welcome")
        self.kind = "welcome"
        self.text = text

    def index_built(self) -> None:
        """An index build finished in this session: the line stops telling the person to
        build one (it stays at the top of the chat, read long after it was written)."""
        self._index_fact((NO_CODE_INDEX, CODE_INDEX_BUILDING), CODE_INDEX_READY)

    def index_building(self, running: bool) -> None:
        """A first build started, or stopped without an index: while it ran the line kept
        telling the person to run /index, which was running."""
        if running:
            self._index_fact((NO_CODE_INDEX,), CODE_INDEX_BUILDING)
        else:
            self._index_fact((CODE_INDEX_BUILDING,), NO_CODE_INDEX)

    def _index_fact(self, olds: tuple[str, ...], new: str) -> None:
        for old in olds:
            if old in self.text:
                self.text = self.text.replace(old, new)
                self.update(self.text)
                return

    def memories_counted(self, count: int) -> None:
        """The store changed (a save, the browser) or could be read again: the line keeps
        today's count, since it stays at the top of the chat and is read long after it was
        written; a store unreadable at start no longer reads so once it was counted."""
        first, newline, rest = self.text.partition("\n")
        facts = first.split(FACT_SEPARATOR)
        for number, fact in enumerate(facts):
            if fact == MEMORY_UNREADABLE or (fact.endswith((" memory", " memories"))
                                             and fact.split(" ")[0].isdigit()):
                facts[number] = memory_count_text(count)
                break
        else:
            return
        rest = "\n".join(line for line in rest.split("\n")
                         if not line.startswith(UNREADABLE_LINE_START))
        text = FACT_SEPARATOR.join(facts) + newline + rest
        if text != self.text:
            self.text = text
            self.update(text)
