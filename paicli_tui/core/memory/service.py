"""Long-term memory for the agent loop, the TUI and the CLI: one object per project.

:class:`LocalMemoryService` implements the agent's ``MemoryService`` protocol (project rules,
the per-turn injection block, the ``save_memory`` tool, the external-content watch, automatic
extraction) and, through :class:`~paicli_tui.core.memory.book.MemoryBook`, the plain API the
memory browser and ``paicli-tui memory`` use:

- ``list_visible()`` / ``list_all()`` / ``get(id)`` — entries (ids also match by unique prefix)
- ``search(query, limit)`` — ranked :class:`ScoredEntry` items, with ``stale`` set
- ``save(content, scope=, force=)`` → :class:`SaveResult` (``conflicts`` on a conflict)
- ``replace(id, content)``, ``verify(id)``, ``delete(id)``, ``clear(scope)``, ``is_stale(entry)``
- ``warm_up()`` — call when a session opens: keywords and vectors are prepared in the
  background so the first turn does not wait
"""

from __future__ import annotations

import asyncio
import logging
import operator
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ...config import Settings
from ..contracts.embedder import Embedder
from ..contracts.llm import TextCompleter
from ..contracts.services import MemoryChoice, ProjectRules
from ..contracts.session_state import SessionState
from ..contracts.tools import Tool, ToolOutput
from .auto import extract_and_save
from .book import MemoryBook, SaveResult
from .entry import MemoryEntry, awaiting_review
from .extraction import Extraction
from .guard import extraction_allowed, note_tool_result
from .keywords import KeywordIndex
from .retrieval import MAX_RESULTS, Ranking, ScoredEntry, build_block, rank
from .rules import load_project_rules
from .selection import (
    CHOSEN_BY_MODEL,
    MAX_CANDIDATES,
    SELECTION_TIMEOUT_S,
    ask_model,
    offline_label,
)
from .store import MemoryStore
from .terms import english_text
from .tool import SaveMemoryTool
from .vectors import VectorCache

log = logging.getLogger(__name__)

OFFLINE_DEFAULT = ("use", "offline")
"""Embedder settings that mean the offline default: the shipped multilingual USE, to which
memory adds the shipped English MiniLM as a second reading. ``use-m3`` names USE alone (as
for the code index)."""
ENGLISH_VARIANT = "english-3"
"""Names the English text the MiniLM rows are of; bumped when english_text changes (the
concept table's digest is added to it: the text ends with the concepts it names)."""


def english_variant() -> str:
    from .terms import concepts_digest

    return f"{ENGLISH_VARIANT}-{concepts_digest()}"

__all__ = ["LocalMemoryService", "SaveResult", "ScoredEntry"]


class LocalMemoryService(MemoryBook):
    """Long-term memory of one project, backed by the shared file under PAICLI_HOME.

    ``embedder``: an object with ``name``, ``dim`` and ``embed(texts)``; None means the
    configured offline embedder, loaded on the first search (keywords only if it cannot load).
    ``english_embedder``: a second, English-only embedder that reads each memory's English
    text (:func:`~.terms.english_text`); None means the offline MiniLM when the embedder is
    the offline default, else none (a configured model is used alone).
    ``use_vectors=False`` ranks by keywords alone. ``background_vectors`` (default) lets the
    per-turn injection go on by keywords while the embedder loads and missing vectors are
    computed in a background thread; ``search`` always waits. ``clock`` returns an aware
    datetime. ``selection_timeout_s`` bounds the light model's choice (:meth:`selected_block`).
    """

    def __init__(self, settings: Settings, project_root: str | Path, *,
                 embedder: Embedder | None = None,
                 english_embedder: Embedder | None = None,
                 clock: Callable[[], datetime] | None = None,
                 store: MemoryStore | None = None, use_vectors: bool = True,
                 background_vectors: bool = True,
                 selection_timeout_s: float = SELECTION_TIMEOUT_S) -> None:
        super().__init__(settings, project_root, clock=clock, store=store)
        self._embedder = embedder
        self._english_embedder = english_embedder
        self._english: VectorCache | None = None
        self._visible_memo: tuple[list[MemoryEntry], list[MemoryEntry]] | None = None
        self._use_vectors = use_vectors
        self._background_vectors = background_vectors
        self._vectors: VectorCache | None = None
        self._vectors_ready = False
        # warm_up's thread and a turn can build the caches at the same moment; without the
        # lock the second caller saw "ready" before the cache existed and ranked without it
        self._vectors_lock = threading.Lock()
        self._keywords = KeywordIndex(settings.home)
        self._tool = SaveMemoryTool(self)
        self.selection_timeout_s = selection_timeout_s
        """Longest wait for the light model's choice of memories (:meth:`selected_block`)."""
        self.last_retrieval: tuple[str, tuple[ScoredEntry, ...]] | None = None
        """The message of the latest turn and the memories considered for it (shown ones
        first, then the best that missed the bar; with a light model, each shown one says
        who chose it: ``chosen_by``), for the context inspector."""
        self.last_extraction: Extraction | None = None
        """What the most recent automatic extraction did (for notices and tests)."""

    # -- MemoryService ----------------------------------------------------------------------
    def project_rules(self) -> ProjectRules:
        """PAI.md text for the system prompt, with the files it came from."""
        return load_project_rules(self.project_root, self.settings.home)

    def injection_block(self, query: str, budget_tokens: int) -> str:
        """The memories relevant to ``query`` as the block for the newest user turn, within
        ``budget_tokens``; '' when nothing qualifies. Never raises: memory must not break a
        turn."""
        try:
            ranked = self._turn_ranking(query, MAX_RESULTS)
            self.last_retrieval = (query, tuple(ranked))
            return build_block([r for r in ranked if r.shown], budget_tokens,
                               lambda e: self.is_stale(e))
        except Exception:
            log.exception("memory retrieval failed; continuing without memories")
            return ""

    async def selected_block(self, query: str, budget_tokens: int,
                             complete: TextCompleter) -> MemoryChoice:
        """Like :meth:`injection_block`, with the light model ``complete`` choosing among the
        offline ranking widened to :data:`~.selection.MAX_CANDIDATES` (shown ones, the best
        that missed the bars, then the nearest in meaning of the rest); one request at most,
        none without candidates. Its
        choice goes into the block in the offline order; an error, an unusable answer or no
        answer within the bound keeps the offline choice. Never raises but for a cancel."""
        try:
            candidates = await asyncio.to_thread(self._turn_ranking, query, MAX_CANDIDATES,
                                                 fill_by_meaning=True)
        except Exception:
            log.exception("memory retrieval failed; continuing without memories")
            return MemoryChoice("")
        if not candidates:
            self.last_retrieval = (query, ())
            return MemoryChoice("")
        choice = await ask_model(query, [c.entry.content for c in candidates], complete,
                                 timeout_s=self.selection_timeout_s)
        if choice.chosen is None:  # the offline choice, at most ten as without the model
            label = offline_label(choice.fallback)
            shown = [replace(c, chosen_by=label) for c in candidates if c.shown][:MAX_RESULTS]
            ids = {c.entry.id for c in shown}
            rest = [replace(c, shown=False, why_not=f"past the {MAX_RESULTS} shown")
                    if c.shown else c for c in candidates if c.entry.id not in ids]
        else:
            picked = set(choice.chosen)
            chosen_by = f"{CHOSEN_BY_MODEL} ({choice.note})" if choice.note else CHOSEN_BY_MODEL
            shown = [replace(c, shown=True, chosen_by=chosen_by)
                     for i, c in enumerate(candidates) if i in picked]
            rest = [replace(c, shown=False, chosen_by="", why_not="not chosen by the light "
                            f"model (offline: {'shown' if c.shown else c.why_not})")
                    for i, c in enumerate(candidates) if i not in picked]
        self.last_retrieval = (query, tuple(shown + rest))
        try:
            block = build_block(shown, budget_tokens, lambda e: self.is_stale(e))
        except Exception:
            log.exception("memory block failed; continuing without memories")
            block = ""
        return MemoryChoice(block, asked=True, candidates=len(candidates),
                            chosen=tuple(c.entry.id for c in shown), fallback=choice.fallback)

    def tools(self) -> Sequence[Tool]:
        return [self._tool]

    def note_tool_result(self, tool_name: str, arguments: dict[str, Any], output: ToolOutput,
                         session: SessionState) -> None:
        self.session = session  # saves from now on know whether outside content is in
        note_tool_result(session, tool_name, arguments or {}, output, self.project_root)

    def store_problems(self) -> list[str]:
        return self.store.take_problems()

    async def after_turn(self, user_input: str, session: SessionState,
                         complete: TextCompleter | None) -> list[str]:
        """Extract and save durable facts from the person's input of a finished turn; the ids
        saved. Does nothing when extraction is off, no model is given, or the session consumed
        external content. Never raises."""
        if not self.settings.auto_extract or complete is None or not extraction_allowed(session):
            return []
        try:
            saved, self.last_extraction = await extract_and_save(self, user_input, complete)
        except Exception:
            log.exception("automatic fact extraction failed")
            return []
        return [entry.id for entry in saved]

    # -- plain API ----------------------------------------------------------------------------
    def search(self, query: str, limit: int = MAX_RESULTS, *, explain: bool = False
               ) -> Ranking:
        """Visible memories worth showing for ``query`` (best first), stale ones marked, and
        why no embedder read its meaning ("" when one did: see :class:`Ranking`). Waits for
        the embedder (the first call may load its model). ``explain`` also lists the best
        candidates that did not pass the relevance bars (``shown=False``)."""
        return self._ranked(query, limit, wait=True, explain=explain)

    def warm_up(self) -> None:
        """Prepare retrieval in the background and return at once: segment the visible
        memories into keywords, load the embedder and embed them. Call it when a session
        opens so the first turn finds everything ready."""
        try:
            contents = [e.content for e in self.list_visible()]
        except Exception:
            log.exception("memory warm-up failed")
            return
        threading.Thread(target=self._index_quietly, args=(contents,), daemon=True,
                         name="memory-keywords").start()
        if not self._background_vectors:
            return
        for cache in self._vector_caches():
            try:
                cache.matrix_nowait(contents)
            except Exception:
                log.exception("memory warm-up failed; ranking by keywords")

    def _index_quietly(self, contents: list[str]) -> None:
        try:
            self._keywords.index_all(contents)
        except Exception:
            log.exception("memory keyword indexing failed")

    def wait_for_vectors(self, timeout: float | None = None) -> bool:
        """Wait for background embedding to finish (tests, benchmarks); False on timeout."""
        return all([cache.wait_idle(timeout) for cache in self._vector_caches()])

    def _turn_ranking(self, query: str, limit: int, *, fill_by_meaning: bool = False
                      ) -> list[ScoredEntry]:
        """A turn's ranking of this project's visible memories (with ``explain``: the best
        that missed the bars too, and with ``fill_by_meaning`` the nearest in meaning of the
        rest); entries awaiting review left out when they must be."""
        entries = self._visible_now()
        if self.settings.review_auto_memories:  # only what the person accepted
            entries = [e for e in entries if not awaiting_review(e)]
        return self._ranked(query, limit, wait=not self._background_vectors,
                            entries=entries, explain=True, turn=True,
                            fill_by_meaning=fill_by_meaning)

    def _ranked(self, query: str, limit: int, *, wait: bool, explain: bool = False,
                entries: list[MemoryEntry] | None = None, turn: bool = False,
                fill_by_meaning: bool = False) -> Ranking:
        candidates = self._visible_now() if entries is None else entries
        ranked = rank(query, candidates, keywords=self._keywords,
                      vectors=self._vector_cache(), now=self.clock(), limit=limit, wait=wait,
                      explain=explain, english_vectors=self._english_cache(), turn=turn,
                      fill_by_meaning=fill_by_meaning)
        return Ranking.of([replace(item, stale=self.is_stale(item.entry)) for item in ranked],
                          ranked.without_meaning)

    def _visible_now(self) -> list[MemoryEntry]:
        """:meth:`list_visible`, reusing the last answer while the store holds the very same
        entries (immutable objects; a turn over 10,000 memories then checks identities
        instead of every entry's scope), so the keyword and vector caches see the same list."""
        entries = self.store.entries()
        memo = self._visible_memo
        if memo is not None and len(memo[0]) == len(entries) and \
                all(map(operator.is_, memo[0], entries)):
            return memo[1]
        visible = [e for e in entries if e.visible_in(self.project_root)]
        self._visible_memo = (entries, visible)
        return visible

    def _vector_caches(self) -> list[VectorCache]:
        self._vector_cache()
        return [c for c in (self._vectors, self._english) if c is not None]

    def _vector_cache(self) -> VectorCache | None:
        if not self._vectors_ready:
            with self._vectors_lock:
                if not self._vectors_ready:
                    self._build_vector_caches()
                    self._vectors_ready = True
        return self._vectors

    def _build_vector_caches(self) -> None:
        if not self._use_vectors:
            return
        directory = self.settings.home.memory_dir / "vectors"
        embedder = self._embedder if self._embedder is not None else \
            self._default_embedder(self.settings.embedder)
        if embedder is not None:
            self._vectors = VectorCache(directory, embedder)
        english = self._english_embedder
        if english is None and self._embedder is None and embedder is not None \
                and (self.settings.embedder or "use").strip() in OFFLINE_DEFAULT:
            english = self._default_embedder("minilm")
        if english is not None:
            home = self.settings.home
            self._english = VectorCache(directory, english, variant=english_variant(),
                                        prepare=lambda text: english_text(text, home))

    def _english_cache(self) -> VectorCache | None:
        self._vector_cache()
        return self._english

    def _default_embedder(self, spec: str | None) -> Embedder | None:
        try:
            from ..embedders import get_embedder
        except ImportError:
            return None
        try:
            return get_embedder(self.settings.with_overrides(embedder=spec or "use"))
        except Exception as exc:  # no model available: keyword ranking still works
            log.warning("memory embedder unavailable (%s); ranking by keywords",
                        type(exc).__name__)
            return None
