"""Keep secrets out of every message that leaves a client (errors, logs, events)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...config import Secret

# Shapes of common API keys and bearer headers, scrubbed even when we do not know the key.
_KEY_SHAPES = re.compile(
    r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}|\b(sk|ak|pk)-[A-Za-z0-9._\-]{8,}"
)


def redact_known(text: str, secrets: Iterable[Secret | str | None]) -> str:
    """``text`` with every occurrence of the given secrets' values replaced (nothing else
    touched: safe for file contents and command output, where key-like shapes are data)."""
    for secret in secrets:
        value = secret.reveal() if isinstance(secret, Secret) else secret
        if value and len(value) >= 4 and value in text:
            text = text.replace(value, "****")
    return text


def redact(text: str, *secrets: Secret | str | None) -> str:
    """``text`` with every known secret and anything shaped like an API key replaced."""
    text = redact_known(text, secrets)
    return _KEY_SHAPES.sub(lambda m: (m.group(1) or "") + "****", text)
