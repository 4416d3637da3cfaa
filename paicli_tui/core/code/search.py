"""search_code: semantic, full-text and hybrid search over the code index (and a grep mode).

One question becomes a QueryPlan (core.code.query): the original text and, for Chinese or
mixed questions, an English reading. Each ranker runs on what suits it — full-text on the
original words plus the English terms, the multilingual embedder on the original and on the
English reading — and hybrid fuses every ranking it ran with reciprocal-rank fusion
(core.code.fusion), keeping each ranker's rank for ``--explain``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ...config import Settings
from ...paths import normalise_project_root
from ..contracts.embedder import Embedder
from ..contracts.llm import TextCompleter
from .hits import SearchHit, SearchResponse
from .stale import CHANGED_NOTE, mark_changed

Mode = Literal["grep", "semantic", "text", "hybrid"]
MODES: tuple[str, ...] = ("hybrid", "semantic", "text", "grep")
MAX_TOP_K = 30
RANKER_DEPTH = 100
"""Candidates each ranker contributes to the fusion."""
TEXT_WEIGHT = 1.5
"""The full-text ranker's weight in the fusion, against 1 for the embedder. The offline
sentence embedder reads code loosely (on Java far worse than on Python), while a full-text hit
means the question's words are in the code. Measured: dev set (Python) 0.85 either way, MRR
0.636 -> 0.649; held-out Java set 0.633 -> 0.733."""
TEXT_LEADER_SLOT = 3
"""The full-text ranker's first result is never shown below this place: when the question's
rarest words meet in one chunk, that chunk stays in view even if the embedder disagrees (held-out
Java set 0.733 -> 0.767, dev set unchanged)."""

ENGLISH_EMBEDDER_WEIGHT = 0.35
"""The English/code embedder's ranking (``minilm``, when the index has one) is its own kind of
evidence beside the multilingual one: it weighs this against the multilingual rankings' shared
1 and full-text's TEXT_WEIGHT. Chosen on the dev set only (bench_search_rankers.py): hybrid
recall@5 0.875 without it, 0.90 for every weight from 0.15 to 0.5, 0.825 at 1.0 (it then
outvotes full-text); 0.35 is the middle of that plateau."""

_COLUMNS = ["id", "path", "kind", "name", "start_line", "end_line", "language", "parent",
            "signature", "doc", "source"]


class SearchError(RuntimeError):
    """The search cannot run (no index, wrong embedder, bad mode); the message says what to do."""


def clamp_top_k(top_k: int | None, default: int) -> int:
    value = default if top_k is None else int(top_k)
    return max(1, min(MAX_TOP_K, value))


UNFINISHED_NOTE = ("the index's first build has not read every file yet (it is running, or "
                   "it was stopped): files it has not reached are missing from these results; "
                   "`paicli-tui index` (or /index) finishes it")


def no_index_message() -> str:
    return ("this project has no code index yet: run `paicli-tui index` in the project (or "
            "/index in the TUI) to build it; exact search works meanwhile (`--mode grep`, "
            "the agent's grep_code)")


def search_project(settings: Settings, project_root: Path, query: str, *, mode: str = "hybrid",
                   top_k: int | None = None, embedder: Embedder | None = None,
                   rewrite: Any = None, plan: Any = None) -> SearchResponse:
    """Best ``top_k`` (default settings.search_top_k, at most 30) chunks for ``query``.

    ``plan`` is a QueryPlan already made for ``query`` (the agent makes it on its own event
    loop, where the light model's client lives); without it the plan is made here, with
    ``rewrite`` (a TextCompleter) as the light model when given.

    Raises SearchError when the mode is unknown, the project has no index (grep needs
    none), or the index was built with a different embedder.
    """
    started = time.perf_counter()
    query = " ".join((query or "").split())
    if not query:
        raise SearchError("the query is empty")
    if mode not in MODES:
        raise SearchError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    k = clamp_top_k(top_k, settings.search_top_k)
    root = normalise_project_root(project_root)
    if mode == "grep":
        from .grep_rank import grep_search

        response = grep_search(settings, root, query, k)
        response.seconds = time.perf_counter() - started
        return response
    from .lance_store import FIRST_BUILD_UNFINISHED, index_location, open_index

    tables = open_index(index_location(settings, root))
    if tables is None or tables.chunks is None:
        raise SearchError(no_index_message())
    if tables.chunks.count_rows() == 0:
        # a first build stopped before its first batch (a rebuild builds beside the index)
        return SearchResponse(query, mode, note=(
            "the index is empty: no source files were found when it was built, or the last "
            "`paicli-tui index` was stopped before it wrote any (run it again)"))
    if plan is None:
        from .query import plan_query

        plan = plan_query(query, home=settings.home, rewrite=rewrite)
    rankings: dict[str, list[str]] = {}
    rows: dict[str, dict[str, Any]] = {}
    if mode in ("semantic", "hybrid") and embedder is None:
        from ..embedders import get_code_embedder

        embedder = get_code_embedder(settings)
    if embedder is not None and mode != "text":
        _check_embedder(tables.meta, embedder)
    related = ProjectWords()
    if mode == "hybrid":
        related = project_words(tables, index_location(settings, root), settings, embedder,
                                plan)
    if mode in ("text", "hybrid"):
        rankings.update(_fulltext_rankings(tables.chunks, plan, rows, related.clauses()))
    docs = DocSentences()
    if mode in ("semantic", "hybrid"):
        docs = doc_sentences(tables, index_location(settings, root), settings, embedder)
        rankings.update(_vector_rankings(tables.chunks, plan, embedder, rows, docs))
    fused = fuse_rankings(rankings)
    answers = answers_for(fused, rows, supertype_lookup(tables))
    if mode in ("text", "hybrid"):
        answers = named_first(tables.chunks, query, fused, answers, rows)
        if any("name" in item.ranks for item, _, _ in answers[:1]):
            rankings = {"name": [], **rankings}  # --explain's plan lists the ranker
    hits = []
    for item, via, declaration in answers[:k]:
        row = rows[item.id]
        hits.append(SearchHit(
            path=row["path"], start_line=int(row["start_line"]), end_line=int(row["end_line"]),
            name=row["name"], kind=row["kind"], score=item.score, language=row["language"],
            signature=row["signature"], source=row["source"], id=item.id,
            ranks=dict(item.ranks), via=via, via_declaration=declaration,
            doc_sentence=docs.read.get(item.id, ""), doc=row.get("doc") or ""))
    mark_changed(root, tables, hits)
    response = SearchResponse(query, mode, hits, plan=_plan_json(plan, rankings, related, docs),
                              index_version=_index_version(settings, root, tables))
    if FIRST_BUILD_UNFINISHED in tables.meta:
        response.note = UNFINISHED_NOTE
    response.seconds = time.perf_counter() - started
    return response


def named_first(table: Any, query: str, fused: list[Any],
                answers: list[tuple[Any, str, str]], rows: dict[str, dict[str, Any]]
                ) -> list[tuple[Any, str, str]]:
    """``answers`` with the definitions a query made of names names put first, each as
    itself (a class is not answered by a member here: it is what was asked for), ranked
    ``name #n`` for --explain (core.code.named_definitions)."""
    from .fusion import FusedHit
    from .named_definitions import named_definitions

    named = named_definitions(table, query, _COLUMNS)
    if not named:
        return answers
    by_id = {item.id: item for item in fused}
    top = fused[0].score if fused else 1.0
    first = []
    for position, row in enumerate(named, start=1):
        rows.setdefault(row["id"], row)
        found = by_id.get(row["id"])
        ranks = {"name": position, **(found.ranks if found is not None else {})}
        first.append((FusedHit(row["id"], top, ranks), "", ""))
    ids = {row["id"] for row in named}
    return first + [answer for answer in answers if answer[0].id not in ids]


def _index_version(settings: Settings, root: Path, tables: Any) -> str:
    """This index's place and its chunk table's version: a new or re-indexed project is
    another version (the rerank cache's key)."""
    from .lance_store import chunks_version, index_location

    try:
        return f"{index_location(settings, root)}@{chunks_version(tables)}"
    except Exception:  # noqa: BLE001 - only a cache key: without it nothing is cached
        return ""


def fuse_rankings(rankings: dict[str, list[str]]) -> list[Any]:
    """Hybrid ranking: weighted RRF of every ranking (:func:`modality_weights`), then the
    full-text ranker's first result kept within TEXT_LEADER_SLOT."""
    from .fusion import keep_in_view, rrf

    fused = rrf(rankings, weights=modality_weights(rankings))
    if rankings.get("text"):
        fused = keep_in_view(fused, rankings["text"][0], TEXT_LEADER_SLOT)
    return fused


def supertype_lookup(tables: Any) -> Callable[[str], list[str]]:
    """A class's simple name -> the types its ``extends`` / ``implements`` edges name, read
    from the index's graph on first use (only a search whose results hold a bodiless
    declaration asks)."""
    table: dict[str, list[str]] | None = None

    def lookup(name: str) -> list[str]:
        nonlocal table
        if table is None:
            table = {}
            if tables.edges is not None:
                edges = (tables.edges.search().where("kind IN ('extends', 'implements')")
                         .select(["src", "dst"]).limit(None).to_arrow())
                for src, dst in zip(edges.column("src").to_pylist(),
                                    edges.column("dst").to_pylist(), strict=True):
                    table.setdefault(str(src).rsplit(".", 1)[-1], []).append(str(dst))
        return table.get(name, [])

    return lookup


def answers_for(fused: list[Any], rows: dict[str, dict[str, Any]],
                supertypes: Callable[[str], Iterable[str]]) -> list[tuple[Any, str, str]]:
    """What each fused hit stands for, best first, each result once: a method declared
    without a body answered by its implementation in a subtype (core.code.declarations),
    then a class by its best-ranked member (:func:`members_for_classes`). Each item is
    (hit, the class it stands for or '', the declaration it stands for or '')."""
    from .declarations import implementations_for_declarations

    resolved = implementations_for_declarations(fused, rows, supertypes)
    declared = {hit.id: via for hit, via in resolved if via}
    return [(item, via, declared.get(item.id, ""))
            for item, via in members_for_classes([hit for hit, _ in resolved], rows)]


def members_for_classes(fused: list[Any], rows: dict[str, dict[str, Any]]
                        ) -> list[tuple[Any, str]]:
    """The fused list with each class hit replaced by its best-ranked member (a method of
    that class found by any ranker), each result once; the class name is kept as ``via``.

    A class chunk is only the declaration's shape; when it ranks well the question is
    almost always about code inside it, and the best member is where that code is. A class
    none of whose members was found stays as it is.
    """
    best_member: dict[tuple[str, str], Any] = {}
    for item in fused:
        row = rows[item.id]
        if row["kind"] in ("method", "function") and row.get("parent"):
            best_member.setdefault((_home_of(row), row["parent"]), item)
    out: list[tuple[Any, str]] = []
    seen: set[str] = set()
    for item in fused:
        row = rows[item.id]
        via = ""
        if row["kind"] == "class":
            member = best_member.get((_home_of(row), row["name"]))
            if member is not None:
                item, via = member, row["name"]
        if item.id not in seen:
            seen.add(item.id)
            out.append((item, via))
    return out


def _home_of(row: dict[str, Any]) -> str:
    """Where a type's members live: its file, or for Go its package folder (methods of a
    Go type may sit in any file of the package)."""
    path = row["path"]
    if row.get("language") == "go":
        return path.rsplit("/", 1)[0] if "/" in path else ""
    return path


def modality_weights(rankings: dict[str, list[str]]) -> dict[str, float]:
    """Exact words first, meaning second: full-text weighs TEXT_WEIGHT and the multilingual
    embedder's rankings (original question, English reading) share a weight of 1, so a Chinese
    question with two embedding queries does not let the embedder outvote the full-text index;
    a second, English/code embedder's ranking weighs ENGLISH_EMBEDDER_WEIGHT beside full-text
    and 1 without it."""
    vector = [name for name in rankings if name.startswith("semantic")]
    weights = {name: TEXT_WEIGHT if name == "text" else 1.0 for name in rankings}
    for name in vector:
        weights[name] = 1.0 / len(vector)
    # beside full-text the English embedder only breaks ties of meaning; without it (semantic
    # mode) the two embedders are peers (dev set semantic recall@5 0.60 at 0.35, 0.675 at 1)
    english = ENGLISH_EMBEDDER_WEIGHT if "text" in rankings else 1.0
    code_rankings = [name for name in rankings if name.startswith("minilm")]
    for name in code_rankings:  # its rankings (question, the model's hypothesis) share it
        weights[name] = english / len(code_rankings)
    return weights


def _check_embedder(meta: dict[str, str], embedder: Embedder) -> None:
    built = meta.get("embedder")
    if built and built != embedder.name:
        raise SearchError(f"the index was built with the embedder {built!r} but the current "
                          f"embedder is {embedder.name!r}: run `paicli-tui index` to rebuild "
                          "it (or set the embedder back)")


@dataclass(frozen=True)
class ProjectWords:
    """The project's words added to a hybrid search's full-text query (core.code.vocabulary)
    and, when the vocabulary could not be cached, why."""

    words: tuple[str, ...] = ()
    abbreviations: tuple[str, ...] = ()
    note: str = ""

    def clauses(self) -> list[tuple[str, float]]:
        """(words, weight against a question word) for the full-text query."""
        from .vocabulary import ABBREVIATION_WEIGHT, WEIGHT

        parts = [(self.words, WEIGHT), (self.abbreviations, ABBREVIATION_WEIGHT)]
        return [(" ".join(words), weight) for words, weight in parts if words]


def project_words(tables: Any, location: str, settings: Settings, embedder: Embedder,
                  plan: Any) -> ProjectWords:
    """The project's nearest words for the rare words of ``plan``'s English reading (none
    for a Chinese question without one)."""
    from .vocabulary import abbreviations, related_words, vocabulary_for, word_embedder

    english = english_query(plan)
    if not english.strip():
        return ProjectWords()
    vocabulary = vocabulary_for(tables, location, settings.home, embedder)
    words = related_words(vocabulary, english, word_embedder(embedder).embed_queries)
    return ProjectWords(tuple(words), tuple(abbreviations(vocabulary, english, words)),
                        vocabulary.note)


@dataclass
class DocSentences:
    """The documented chunks' first doc sentences and their vectors (core.code.doc_sentences)
    for the multilingual embedder, and, filled while ranking, the chunks that embedder
    ranked by their doc sentence (id -> sentence, for --explain)."""

    found: Any = None
    read: dict[str, str] = field(default_factory=dict)
    note: str = ""


def doc_sentences(tables: Any, location: str, settings: Settings, embedder: Embedder
                  ) -> DocSentences:
    """The doc sentences' vectors for a paired embedder's multilingual part (none for any
    other embedder: only that one was measured)."""
    from .doc_sentences import doc_vectors_for, sentence_embedder

    reader = sentence_embedder(embedder)
    if reader is None:
        return DocSentences()
    found = doc_vectors_for(tables, location, settings.home, reader)
    return DocSentences(found, note=found.note)


def _fulltext_rankings(table: Any, plan: Any, rows: dict[str, dict[str, Any]],
                       added: Iterable[tuple[str, float]] = ()) -> dict[str, list[str]]:
    """The full-text ranking of ``plan``'s words; ``added`` (words, weight) pairs, the
    project's words (:meth:`ProjectWords.clauses`), count at their weight of a question word."""
    words = plan.fulltext_query.strip() or plan.original
    added = [(extra, weight) for extra, weight in added if extra.strip()]
    try:
        if added:
            from lancedb.query import BooleanQuery, MatchQuery, Occur

            query = BooleanQuery([(Occur.SHOULD, MatchQuery(words, "fulltext"))] + [
                (Occur.SHOULD, MatchQuery(extra, "fulltext", boost=weight))
                for extra, weight in added])
            search = table.search(query, query_type="fts")
        else:
            search = table.search(words, query_type="fts", fts_columns="fulltext")
        found = search.select([*_COLUMNS, "_score"]).limit(RANKER_DEPTH).to_list()
    except Exception as exc:  # noqa: BLE001 - an FTS index still being built is not fatal
        if "index" not in str(exc).lower():
            raise
        found = []
    ids = []
    for row in found:
        rows.setdefault(row["id"], row)
        ids.append(row["id"])
    return {"text": ids}


def _vector_rankings(table: Any, plan: Any, embedder: Embedder,
                     rows: dict[str, dict[str, Any]], docs: DocSentences | None = None
                     ) -> dict[str, list[str]]:
    """One ranking per embedding query; an embedder made of parts (paired.py) gives each
    part its own rankings, named by its label (``semantic``, ``semantic:en``, ``minilm``).
    With ``docs`` (doc sentences read by the multilingual part) that part ranks each chunk
    by the better of its chunk text and its doc sentence (:func:`_ranked_with_docs`)."""
    queries = list(dict.fromkeys(plan.embedding_queries)) or [plan.original]
    hypothesis = getattr(plan, "hypothesis", "")
    parts = getattr(embedder, "parts", None)
    if not parts:
        rankings = _ranked(table, embedder.embed_queries(queries), ["semantic", "semantic:en"],
                           rows)
        if hypothesis:
            rankings.update(_ranked(table, embedder.embed_queries([hypothesis]),
                                    ["semantic:code"], rows))
        return rankings
    rankings = {}
    for part in parts:
        if part.english_only:
            # the model's guessed declaration reads like code: the code embedder takes it
            english = english_query(plan)
            asked = [q for q in (english, hypothesis) if q]
            names = ([part.label] if english else []) + [f"{part.label}:code"]
            if asked:
                rankings.update(_ranked(table, embedder.part_queries(part.label, asked),
                                        names, rows))
        elif docs is not None and docs.found is not None and len(docs.found.ids):
            own = part.embedder.embed_queries(queries)  # read against the sentences too
            rankings.update(_ranked_with_docs(
                table, embedder.in_slot(part.label, own), own,
                [part.label, f"{part.label}:en"], rows, docs))
        else:
            rankings.update(_ranked(table, embedder.part_queries(part.label, queries),
                                    [part.label, f"{part.label}:en"], rows))
    return rankings


def english_query(plan: Any) -> str:
    """The question in English for an English-only embedder: the question itself, or the
    English reading of a Chinese or mixed one ("" when a Chinese question has none)."""
    if plan.language == "en":
        return plan.original
    readings = [q for q in plan.embedding_queries[1:] if q]
    if readings:
        return readings[0]
    return plan.original if plan.language == "mixed" else ""


def _ranked(table: Any, vectors: Any, names: list[str], rows: dict[str, dict[str, Any]]
            ) -> dict[str, list[str]]:
    rankings: dict[str, list[str]] = {}
    for name, vector in zip(names, vectors, strict=False):
        found = (table.search(vector.tolist(), vector_column_name="vector")
                 .distance_type("cosine").select([*_COLUMNS, "_distance"])
                 .limit(RANKER_DEPTH).to_list())
        ids = []
        for row in found:
            rows.setdefault(row["id"], row)
            ids.append(row["id"])
        rankings[name] = ids
    return rankings


def _ranked_with_docs(table: Any, vectors: Any, sentence_vectors: Any, names: list[str],
                      rows: dict[str, dict[str, Any]], docs: DocSentences
                      ) -> dict[str, list[str]]:
    """Each query's ranking by the better z-score of a chunk's two readings (chunk text,
    doc sentence; core.code.doc_sentences.best_of_two). Standardising needs every chunk's
    similarity: the vector search is a full scan either way, so it returns them all."""
    import numpy as np

    from .doc_sentences import best_of_two
    from .lance_store import id_filter

    found = docs.found
    every = max(1, table.count_rows())
    rankings: dict[str, list[str]] = {}
    for name, vector, sentence_vector in zip(names, vectors, sentence_vectors, strict=False):
        scanned = (table.search(vector.tolist(), vector_column_name="vector")
                   .distance_type("cosine").select(["id"]).limit(every).to_arrow())
        similarities = 1.0 - np.asarray(scanned.column("_distance").to_pylist(), dtype=float)
        ids, by_doc = best_of_two(scanned.column("id").to_pylist(), similarities, found.ids,
                                  found.vectors @ np.asarray(sentence_vector, dtype=np.float32),
                                  RANKER_DEPTH)
        missing = [i for i in ids if i not in rows]
        if missing:
            for row in (table.search().where(id_filter(missing)).select(_COLUMNS)
                        .limit(len(missing)).to_list()):
                rows.setdefault(row["id"], row)
        sentence_of = dict(zip(found.ids, found.sentences, strict=True))
        docs.read.update({i: sentence_of[i] for i in by_doc})
        rankings[name] = [i for i in ids if i in rows]
    return rankings


def _plan_json(plan: Any, rankings: dict[str, list[str]],
               related: ProjectWords | None = None,
               docs: DocSentences | None = None) -> dict[str, Any]:
    related = related or ProjectWords()
    extra = {"vocabulary": related.note} if related.note else {}
    if docs is not None and docs.found is not None:
        extra["doc_sentences"] = len(docs.found.ids)
        if docs.note:
            extra["doc_sentences_note"] = docs.note
    return {"language": plan.language, "fulltext_query": plan.fulltext_query,
            "project_words": list(related.words),
            "project_abbreviations": list(related.abbreviations), **extra,
            "embedding_queries": list(plan.embedding_queries),
            "terms_source": getattr(plan, "terms_source", "question"),
            "synonyms": list(getattr(plan, "synonyms", ())),
            "hypothesis": getattr(plan, "hypothesis", ""),
            "rankers": list(rankings)}


def format_hits_for_model(response: SearchResponse, *, max_source_lines: int = 30) -> str:
    """Results as the agent sees them: location, name, then the start of each source."""
    if not response.hits:
        return f"No results for {response.query!r} ({response.mode}). {response.note}".strip()
    count = len(response.hits)
    blocks = [f"{count} result{'s' if count != 1 else ''} for {response.query!r} "
              f"({response.mode}); read_file the ranges for more:"]
    for number, hit in enumerate(response.hits, 1):
        header = f"{number}. {hit.path}:{hit.start_line}-{hit.end_line} {hit.kind} {hit.name}"
        if hit.changed:
            header += f" ({CHANGED_NOTE[hit.changed]})"
        lines = hit.source.splitlines()
        body = "\n".join(lines[:max_source_lines])
        if len(lines) > max_source_lines:
            body += f"\n… ({len(lines) - max_source_lines} more lines)"
        blocks.append(f"{header}\n{body}" if body else header)
    if response.note:
        blocks.append(f"Note: {response.note}.")
    return "\n\n".join(blocks)


# -- the light model's query rewrite ---------------------------------------------------------
REWRITE_TIMEOUT_S = 20.0
"""Longest wait for the light model's rewrite; past it the search uses the offline gloss."""


def _bounded(complete: TextCompleter, timeout_s: float) -> TextCompleter:
    async def bounded(system: str, user: str) -> str:
        # asyncio.timeout, not wait_for: on 3.11 wait_for returns an answer that is ready at
        # the moment of a cancel and drops the cancel (Esc during the rewrite went unheard)
        async with asyncio.timeout(timeout_s):
            return await complete(system, user)

    return bounded


async def plan_with_model(settings: Settings, query: str, complete: TextCompleter | None, *,
                          timeout_s: float | None = None) -> Any:
    """The QueryPlan for ``query`` made with the light model ``complete``, on the caller's
    event loop (where the model's client lives), or None without a completer: the search
    then plans offline.

    A failing, slow (past ``timeout_s``, default REWRITE_TIMEOUT_S) or nonsensical model gives the offline gloss; this
    never raises for the model's sake. The rewrite is cached per question.
    """
    query = " ".join((query or "").split())
    if complete is None or not query:
        return None
    from ..text.gloss import gloss_question
    from .query import detect_language, plan_query_async

    if detect_language(query) != "en":
        # jieba and the dictionary load on first use: do that off the loop, the plan reuses it
        await asyncio.to_thread(gloss_question, query, home=settings.home)
    return await plan_query_async(query, home=settings.home,
                                  rewrite=_bounded(complete, timeout_s or REWRITE_TIMEOUT_S))


async def _cached_only(system: str, user: str) -> str:
    """A completer for plans whose rewrite is cached: never reached (the cache answers)."""
    raise RuntimeError("the rewrite was expected in the cache")


def plan_with_configured_model(settings: Settings, query: str,
                               project_root: Path | None = None) -> Any:
    """Like :func:`plan_with_model` for synchronous callers (``paicli-tui search``, the TUI
    panel's worker thread): a question rewritten before is planned from the rewrite cache;
    otherwise a client for the configured model (its ``light_model`` when set) is opened just
    for this, and closed. None (the search plans offline) when no model is configured, or
    when ``project_root`` is given and has no index (the search cannot run, so no model is
    asked)."""
    from ..llm.registry import build_client, light_completer
    from .lance_store import has_index

    if not (query or "").strip():
        return None
    if project_root is not None and not has_index(settings, normalise_project_root(project_root)):
        return None
    from .query import plan_query
    from .query.rewrite import cache_for

    if cache_for(settings.home).get(" ".join(query.split())):
        # answered before: the plan reads the cached rewrite, no client is needed
        return plan_query(query, home=settings.home, rewrite=_cached_only)
    client = build_client(settings)
    if client is None:
        return None

    async def plan() -> Any:
        try:
            return await plan_with_model(settings, query, light_completer(settings, client))
        finally:
            await client.aclose()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(plan())
    # a loop runs in this thread: run ours in a helper thread rather than nest loops
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, plan()).result()
