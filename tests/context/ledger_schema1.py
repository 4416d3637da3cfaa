"""The schema-1 ledger writer (a full view, refs for known messages, after every change),
kept to check that old files still resume and to compare schema 2 against it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paicli_tui.core.context.ledger import SessionLedger, _dumps, _json, _now
from paicli_tui.core.messages import Message


class SchemaOneLedger(SessionLedger):
    """Writes exactly what paicli-tui wrote before schema 2."""

    def _write(self, record: dict[str, Any]) -> None:
        self._append_bytes(_dumps({"schema_version": 1, "type": record.pop("type"),
                                   "ts": _now(), **record}))

    def checkpoint(self, messages: Sequence[Message], reason: str) -> None:
        parts: list[str] = []
        for message in messages:
            if self._logged.get(message.id) is message:
                parts.append('{"ref":' + _json(message.id) + "}")
            else:
                parts.append(_json(message.to_record(strip_images=True)))
                if not message.images:
                    self._logged[message.id] = message
        head = _json({"schema_version": 1, "type": "view_checkpoint", "ts": _now(),
                      "reason": reason})
        line = f'{head[:-1]},"messages":[{",".join(parts)}]}}\n'
        self._append_bytes(line.encode("utf-8", "replace"))
