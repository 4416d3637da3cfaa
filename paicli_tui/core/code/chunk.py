"""The unit of code retrieval: a chunk of one file with where it came from."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal

ChunkKind = Literal["class", "method", "function", "file"]


@dataclass(frozen=True)
class Chunk:
    path: str
    """Project-relative path with forward slashes."""
    kind: ChunkKind
    name: str
    """``Class.method(Type name, ...)`` for methods, ``Class`` for classes, ``function(...)``
    for functions, ``path#k`` for file chunks."""
    start_line: int
    """1-based, inclusive."""
    end_line: int
    """1-based, inclusive."""
    source: str
    """The source text shown to the model."""
    language: str
    parent: str | None = None
    """Enclosing class (qualified for nested classes), if any."""
    doc: str = ""
    """The doc comment or docstring, without comment markers."""
    signature: str = ""
    """The declaration line(s) without the body."""
    context: str = ""
    """Parent context for ranking: package / imports / module line."""
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def id(self) -> str:
        """Stable id: same file, kind, name and place give the same id."""
        raw = f"{self.path}\0{self.kind}\0{self.name}\0{self.start_line}"
        # surrogatepass: a stray surrogate in a name or symbol never makes the id fail
        return hashlib.sha1(raw.encode("utf-8", "surrogatepass")).hexdigest()[:16]
