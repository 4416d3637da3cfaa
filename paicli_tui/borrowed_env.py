"""Environment variables set for this process's own sake for a moment, never for a command's.

A library that reads its settings only from the environment at import (onnxruntime's cache
folders) needs ``os.environ`` changed while it loads. That happens in a worker thread (an
index build, the first memory search) while the agent may be starting a command in another:
a plain set-and-restore let that command inherit the borrowed values. So the person's values
are kept here while a variable is borrowed, and the environment a command gets is built from
:func:`person_environment`, which puts them back.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

_lock = threading.Lock()
_borrowed: dict[str, str | None] = {}
"""Variable name -> the person's value (None: unset) while the process borrows it."""


@contextmanager
def borrowed_environment(values: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` holds ``values`` inside the block and the person's own after it;
    :func:`person_environment` gives the person's own throughout."""
    with _lock:
        for name, value in values.items():
            _borrowed.setdefault(name, os.environ.get(name))
            os.environ[name] = value
    try:
        yield
    finally:
        with _lock:
            for name in values:
                original = _borrowed.pop(name, None)
                if original is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = original


def person_environment() -> dict[str, str]:
    """This process's environment as the person gave it: borrowed variables have their own
    values (or are absent, when they had none)."""
    with _lock:
        env = dict(os.environ)
        for name, value in _borrowed.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
    return env
