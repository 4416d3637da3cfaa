"""The light model reorders a hybrid search's fused top 30, when a light model is configured.

The fused answers (core.code.search) are shown to the model as short numbered cards (place,
kind and name, signature, the doc comment's first sentence, the first lines of the body; each
card and the whole request bounded) with ``prompts/search_rerank.md``; it answers with card
numbers, best first. The answer is read as the memory choice's is
(:func:`~paicli_tui.core.text.numbered_answer.parse_numbered_answer`): numbers past the cards
are ignored and the outcome says how many; prose, or mostly numbers of no card, is unusable and
the fused order stays. The model's cards come
first, then the rest of the fused order: nothing is dropped, so recall@30 never changes. A
failing or slow model (past RERANK_TIMEOUT_S) keeps the fused order too; the search never
fails because of the model. Good answers are cached per (index version, question), as the
chunk ids they chose, in memory and in ``PAICLI_HOME/cache/search_rerank.json``.

Only in hybrid mode, only with ``light_model`` set and ``search_rerank`` not ``off``
(``paicli-tui search --no-rerank`` turns it off for one search).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from ...config import Settings
from ..contracts.llm import TextCompleter
from ..text.numbered_answer import parse_numbered_answer
from .hits import SearchHit, SearchResponse

log = logging.getLogger(__name__)

RERANK_DEPTH = 30
"""The fused answers the model is shown (the search's MAX_TOP_K)."""
RERANK_TIMEOUT_S = 20.0
"""Longest wait for the model's order; past it the fused order is kept."""
MAX_PICKS = 10
"""The model's first numbers that count (the prompt asks for at most 10)."""
CARD_MAX_CHARS = 400
"""One card's text at most (a 1 MB chunk is still a 400-character card)."""
QUESTION_MAX_CHARS = 1_000
REQUEST_MAX_CHARS = QUESTION_MAX_CHARS + RERANK_DEPTH * (CARD_MAX_CHARS + 2) + 200
"""The whole request at most (question, 30 cards, the lines around them)."""
SIGNATURE_MAX_CHARS = 160
CACHE_FILE_NAME = "search_rerank.json"

SKIPPED, RERANKED, FELL_BACK = "skipped", "reranked", "fell back"



@dataclass(frozen=True)
class RerankOutcome:
    """What the rerank stage did: ``status`` (skipped, reranked, fell back), why (``reason``,
    for the skipped and fell-back ones) and the model's place of each chunk it chose."""

    status: str
    reason: str = ""
    places: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """One line for --explain and the agent, e.g. ``rerank: unusable answer — fused
        order kept``."""
        if self.status == RERANKED:
            return f"rerank: the light model ordered {len(self.places)} of the results" + (
                f" ({self.reason})" if self.reason else "")
        if self.status == FELL_BACK:
            return f"rerank: {self.reason} — fused order kept"
        return f"rerank: skipped ({self.reason})"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "note": self.describe()}
        if self.reason:
            data["reason"] = self.reason
        return data


# -- pure parts ------------------------------------------------------------------------------
def apply_order(items: list[Any], picks: tuple[int, ...]) -> list[Any]:
    """``items`` with the picked ones (1-based numbers) first, in the picked order, then the
    rest in their own order: nothing is dropped or repeated. Numbers outside ``items`` are
    ignored."""
    chosen = [n - 1 for n in picks if 1 <= n <= len(items)]
    chosen = list(dict.fromkeys(chosen))
    taken = set(chosen)
    return [items[i] for i in chosen] + [item for i, item in enumerate(items) if i not in taken]


def _one_line(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def card(number: int, hit: SearchHit) -> str:
    """The hit as the model reads it, at most CARD_MAX_CHARS: a header line, then the
    signature, the doc's first sentence and the body's first lines, each indented (a line of
    the chunk cannot pass for another card's header)."""
    from .doc_sentences import first_sentence

    header = _one_line(f"[{number}] {hit.path}:{hit.start_line} {hit.kind} {hit.name}", 160)
    lines = [header]
    signature = _one_line(hit.signature, SIGNATURE_MAX_CHARS)
    if signature:
        lines.append(f"    {signature}")
    doc = first_sentence(hit.doc) if hit.doc else hit.doc_sentence
    if doc:
        lines.append("    doc: " + _one_line(doc, 200))
    used = sum(len(line) + 1 for line in lines)
    # the body's first lines: at most this many characters of the source are ever read
    declared = (hit.signature or "").strip().rstrip(":{ ")
    for raw in (hit.source or "")[: CARD_MAX_CHARS * 2].splitlines():
        line = raw.strip()
        if not line or line.rstrip(":{ ") == declared:  # the signature is shown already
            continue
        line = "    " + _one_line(line, 120)
        if used + len(line) + 1 > CARD_MAX_CHARS:
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)[:CARD_MAX_CHARS]


def rerank_request(question: str, hits: list[SearchHit]) -> str:
    """The user message: the question and one card per hit (at most RERANK_DEPTH), at most
    REQUEST_MAX_CHARS."""
    question = _one_line(question, QUESTION_MAX_CHARS)
    cards = "\n\n".join(card(n, hit) for n, hit in enumerate(hits[:RERANK_DEPTH], 1))
    text = (f"Question: {question}\n\nCandidates:\n\n{cards}\n\n"
            f"Answer with card numbers (1-{min(len(hits), RERANK_DEPTH)}) only, best first.")
    return text[:REQUEST_MAX_CHARS]


def _scrubbed_request(settings: Settings, question: str, hits: list[SearchHit]) -> str:
    """:func:`rerank_request` without the configured keys: the cards are the project's code
    as it is (a settings file holding a key), sent to the provider before any tool result's
    scrubbing could see them."""
    from ..llm.redact import redact_known

    return redact_known(rerank_request(question, hits), settings.secrets())


# -- when it runs ----------------------------------------------------------------------------
def skip_reason(settings: Settings, mode: str, *, no_rerank: bool = False) -> str:
    """Why a search is not reranked ("" when it is): not hybrid, turned off, no light model."""
    if mode != "hybrid":
        return f"only in hybrid mode, not {mode}"
    if no_rerank:
        return "--no-rerank"
    if settings.search_rerank == "off":
        return "search_rerank = off"
    if not settings.light_model:
        return "no light_model configured"
    return ""


def skipped(response: SearchResponse, reason: str, top_k: int | None = None) -> SearchResponse:
    """``response`` (its first ``top_k`` hits when given) marked as not reranked."""
    if top_k is not None:
        response.hits = response.hits[:top_k]
    response.rerank = RerankOutcome(SKIPPED, reason)
    return response


# -- the cache -------------------------------------------------------------------------------
def _cache(settings: Settings) -> Any:
    from .query.rewrite import RewriteCache

    with _caches_lock:
        home = settings.home.home
        if home not in _caches:
            _caches[home] = RewriteCache(settings.home, CACHE_FILE_NAME)
        return _caches[home]


_caches: dict[Any, Any] = {}
_caches_lock = threading.Lock()


def _cache_key(response: SearchResponse) -> str:
    return f"{response.index_version} {response.query}"


def cached_order(settings: Settings, response: SearchResponse) -> list[str] | None:
    """The chunk ids the model chose for this question on this index version, if asked
    before (no index version: never cached)."""
    if not response.index_version:
        return None
    text = _cache(settings).get(_cache_key(response))
    if not text:
        return None
    try:
        ids = json.loads(text)
    except ValueError:
        return None
    return [str(i) for i in ids] if isinstance(ids, list) else None


def _remember(settings: Settings, response: SearchResponse, ids: list[str]) -> None:
    if response.index_version:
        _cache(settings).put(_cache_key(response), json.dumps(ids))


# -- the stage -------------------------------------------------------------------------------
def _finish(response: SearchResponse, ids: list[str], top_k: int, note: str = ""
            ) -> SearchResponse:
    """The model's chosen hits first (by id; ids not among the hits are ignored), then the
    rest of the fused order, cut to ``top_k``; each chosen hit keeps its model place."""
    hits = response.hits[:RERANK_DEPTH]
    number = {hit.id: n for n, hit in enumerate(hits, 1)}
    picks = tuple(number[i] for i in ids if i in number)
    ordered = apply_order(hits, picks)
    places = {hits[n - 1].id: place for place, n in enumerate(picks, 1)}
    for hit in ordered:
        hit.rerank = places.get(hit.id)
    response.hits = ordered[:top_k]
    response.rerank = RerankOutcome(RERANKED, note, places)
    return response


def _fell_back(response: SearchResponse, reason: str, top_k: int) -> SearchResponse:
    response.hits = response.hits[:top_k]
    response.rerank = RerankOutcome(FELL_BACK, reason)
    return response


async def rerank_response(settings: Settings, response: SearchResponse,
                          complete: TextCompleter, top_k: int, *,
                          timeout_s: float | None = None) -> SearchResponse:
    """``response`` (its fused top RERANK_DEPTH) reordered by the model ``complete`` and cut
    to ``top_k``; on the caller's event loop (where the model's client lives). Never raises
    for the model's sake: an error, a timeout or an unusable answer keeps the fused order
    and says so in ``response.rerank``."""
    hits = response.hits[:RERANK_DEPTH]
    if len(hits) < 2:
        return skipped(response, "fewer than two results", top_k)
    cached = cached_order(settings, response)
    if cached is not None:
        return _finish(response, cached, top_k, "cached answer")
    from ...resources import load_prompt

    limit = timeout_s or RERANK_TIMEOUT_S
    try:
        # asyncio.timeout, not wait_for: on 3.11 wait_for returns an answer that is ready at
        # the moment of a cancel and drops the cancel (Esc would go unheard)
        async with asyncio.timeout(limit):
            answer = await complete(load_prompt("search_rerank"),
                                    _scrubbed_request(settings, response.query, hits))
    except TimeoutError:
        log.info("search rerank timed out, fused order kept")
        return _fell_back(response, f"no answer within {limit:g} s", top_k)
    except Exception as exc:  # noqa: BLE001 - any model failure keeps the fused order
        log.info("search rerank failed, fused order kept: %s", type(exc).__name__)
        return _fell_back(response, f"model error ({type(exc).__name__})", top_k)
    parsed = parse_numbered_answer(answer, len(hits), MAX_PICKS)
    if parsed is None or not parsed.numbers:
        log.info("search rerank answer unusable, fused order kept")
        return _fell_back(response, "unusable answer" if parsed is None else "no card chosen",
                          top_k)
    note = parsed.ignored_note("card")
    if note:
        log.info("search rerank: %s", note)
    ids = [hits[n - 1].id for n in parsed.numbers]
    _remember(settings, response, ids)
    return _finish(response, ids, top_k, note)


def rerank_with_configured_model(settings: Settings, response: SearchResponse,
                                 top_k: int) -> SearchResponse:
    """Like :func:`rerank_response` for synchronous callers (``paicli-tui search``): a
    question reranked before on this index version is ordered from the cache; otherwise a
    client for the configured light model is opened just for this, and closed."""
    if len(response.hits) < 2:
        return skipped(response, "fewer than two results", top_k)
    cached = cached_order(settings, response)
    if cached is not None:
        return _finish(response, cached, top_k, "cached answer")
    from ..llm.registry import build_client, light_completer

    client = build_client(settings)
    if client is None:
        return skipped(response, "no model client", top_k)

    async def run() -> SearchResponse:
        try:
            return await rerank_response(settings, response, light_completer(settings, client),
                                         top_k)
        finally:
            await client.aclose()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run()).result()
