"""What the person typed, kept across runs so ↑ in a new session reaches yesterday's prompts.

One JSON string per line under PAICLI_HOME/history/inputs.jsonl. Appends are single writes;
the file is trimmed (rewritten atomically) only when it grows well past the limit. Both are
made under the file's lock: a prompt another app appended while one trimmed went into the file
the trim then replaced, and was lost. A broken line is skipped, never fatal: losing one
remembered prompt is better than refusing to start.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..file_locks import locked
from ..private_files import replace_private, write_private

DEFAULT_LIMIT = 500


class InputHistory:
    def __init__(self, path: Path, limit: int = DEFAULT_LIMIT) -> None:
        self.path = path
        self.limit = limit

    def load(self) -> list[str]:
        """The newest ``limit`` inputs, oldest first."""
        try:
            raw = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        inputs: list[str] = []
        for line in raw.splitlines():
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, str) and value.strip() and (not inputs or inputs[-1] != value):
                inputs.append(value)
        return inputs[-self.limit:]

    def append(self, text: str) -> None:
        """Remember one input (best effort: a read-only home only loses the history)."""
        try:
            with locked(self.path):
                # the person's own prompts: readable by them only, like the session ledger
                write_private(self.path,
                              (json.dumps(text, ensure_ascii=False) + "\n").encode(),
                              append=True)
                if self.path.stat().st_size > 400 * self.limit:
                    self._trim()
        except OSError:
            return

    def _trim(self) -> None:
        kept = self.load()
        replace_private(self.path, "".join(json.dumps(t, ensure_ascii=False) + "\n"
                                           for t in kept).encode())
