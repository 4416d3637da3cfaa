"""One-shot query rewrite by the light model, checked and cached per question.

The reference system's "query rewrite": a question the code cannot match word for word
(typically Chinese about English code) is turned into English search terms by a model. The
answer is only trusted when it looks like search terms; anything else (an essay, a refusal,
Chinese, nothing, an error) gives ``None`` and the caller keeps the offline gloss. Good answers
are cached in memory and in ``PAICLI_HOME/cache/query_rewrite.json`` so a question costs one
model call ever.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from ....paths import HomePaths
from ....resources import load_prompt
from ...contracts.llm import TextCompleter
from .terms import has_cjk

log = logging.getLogger(__name__)

CACHE_FILE_NAME = "query_rewrite.json"
MAX_CACHE_ENTRIES = 2_000
MAX_TERMS = 30
_TERM = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*|\d+")
_REFUSAL = re.compile(
    r"\b(sorry|cannot|can't|unable|as an ai|i am|i'm|language model|here are|search terms)\b",
    re.IGNORECASE,
)


def clean_rewrite(answer: str) -> str | None:
    """The search terms in a model answer, or ``None`` when the answer is not a usable line
    of English terms (empty, Chinese, a refusal, prose, or far too long)."""
    if not isinstance(answer, str):
        return None
    lines = [ln.strip() for ln in answer.strip().splitlines() if ln.strip()]
    if not lines or len(lines) > 3:
        return None
    if _LABELLED.match(lines[0]):
        return None
    line = re.sub(r"^(terms|keywords|search|query)\s*:\s*", "", lines[0], flags=re.IGNORECASE)
    if has_cjk(line) or _REFUSAL.search(line) or len(line) > 400:
        return None
    words = _TERM.findall(line.replace(",", " "))
    if not words or len(words) > MAX_TERMS:
        return None
    # prose has sentence punctuation and short function words; terms do not
    if re.search(r"[.!?]\s+[A-Z]", line):
        return None
    return " ".join(dict.fromkeys(w.strip(".-") for w in words if w.strip(".-")))


_LABELLED = re.compile(r"^(signature|doc)\s*:\s*(.+)$", re.IGNORECASE)
HYPOTHESIS_MAX_CHARS = 300


@dataclass(frozen=True)
class Rewrite:
    """A usable model answer: English search terms, and optionally a hypothetical
    declaration and doc comment of the code asked about (embedded like a chunk would be)."""

    terms: str
    hypothesis: str = ""

    def serialise(self) -> str:
        return self.terms + (f"\nhypothesis: {self.hypothesis}" if self.hypothesis else "")

    @classmethod
    def parse_cached(cls, text: str) -> Rewrite:
        terms, _, rest = text.partition("\nhypothesis: ")
        return cls(terms, rest)


def _clean_line(text: str) -> str | None:
    """A labelled line's text, or None when it is Chinese, a refusal or too long."""
    text = text.strip()
    if not text or has_cjk(text) or _REFUSAL.search(text) or len(text) > HYPOTHESIS_MAX_CHARS:
        return None
    return text


def parse_rewrite(answer: str) -> Rewrite | None:
    """The first line's search terms (:func:`clean_rewrite`) and, from optional
    ``signature:`` / ``doc:`` lines, a hypothesis of the code; None when the terms are not
    usable. A bad signature or doc line is only dropped (the terms still count)."""
    if not isinstance(answer, str):
        return None
    lines = [ln.strip() for ln in answer.strip().splitlines() if ln.strip()]
    if not lines or len(lines) > 3:
        return None
    terms = clean_rewrite(lines[0])
    if terms is None:
        return None
    parts: dict[str, str] = {}
    for line in lines[1:]:
        m = _LABELLED.match(line)
        text = _clean_line(m.group(2)) if m else None
        if m and text and (m.group(1).lower() != "signature" or "(" in text):
            parts.setdefault(m.group(1).lower(), text)
    hypothesis = " ".join(p for p in (parts.get("signature"), parts.get("doc")) if p)
    return Rewrite(terms, hypothesis)


def _key(question: str) -> str:
    normal = " ".join(question.split())
    return hashlib.sha1(normal.encode("utf-8")).hexdigest()[:20]


class RewriteCache:
    """Rewrites by question, in memory and in one small JSON file (atomic replace).

    A damaged or unreadable file is treated as empty: the cache only saves model calls.
    """

    def __init__(self, home: HomePaths, file_name: str = CACHE_FILE_NAME) -> None:
        self.path: Path = home.cache_dir / file_name
        self._lock = threading.Lock()
        self._data: dict[str, str] | None = None

    def _load(self) -> dict[str, str]:
        if self._data is None:
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                self._data = (
                    {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
                )
            except (OSError, ValueError, RecursionError):
                self._data = {}
        return self._data

    def get(self, question: str) -> str | None:
        with self._lock:
            return self._load().get(_key(question))

    def put(self, question: str, terms: str) -> None:
        with self._lock:
            data = self._load()
            data[_key(question)] = terms
            while len(data) > MAX_CACHE_ENTRIES:
                data.pop(next(iter(data)))
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".rewrite-", suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(data, fh, ensure_ascii=False)
                os.replace(tmp, self.path)
            except OSError as exc:  # a read-only home must not break search
                log.debug("query rewrite cache not written: %s", exc)


_caches: dict[Path, RewriteCache] = {}
_caches_lock = threading.Lock()


def cache_for(home: HomePaths) -> RewriteCache:
    """The process-wide cache for this PAICLI_HOME (so the memory layer is shared)."""
    with _caches_lock:
        return _caches.setdefault(home.home, RewriteCache(home))


async def rewrite_query(question: str, complete: TextCompleter, *,
                        home: HomePaths) -> Rewrite | None:
    """The light model's :class:`Rewrite` of ``question``, or ``None`` when the model fails
    or answers something unusable. Never raises; one call per question ever."""
    cache = cache_for(home)
    cached = cache.get(question)
    if cached:
        return Rewrite.parse_cached(cached)
    try:
        answer = await complete(load_prompt("query_rewrite"), question)
    except Exception as exc:  # noqa: BLE001 - any model failure falls back to the gloss
        log.info("query rewrite failed, using the offline plan: %s", type(exc).__name__)
        return None
    rewrite = parse_rewrite(answer)
    if rewrite is None:
        log.info("query rewrite answer unusable, using the offline plan")
        return None
    cache.put(question, rewrite.serialise())
    return rewrite
