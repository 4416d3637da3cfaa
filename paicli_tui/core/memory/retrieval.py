"""Choosing the memories worth showing for a question, and the block that carries them
(behaviour §13–14, and its "beyond": stop words out, rarity weights, calibrated vectors, a bar).

Visible entries only (global + this project). Each gets two kinds of evidence:

- keywords (:mod:`.keywords`): the message's words that the memory shares, stop words left
  out, each weighted by how rare it is in the store; Chinese words also carry their English
  gloss, so "retry" meets 重试;
- meaning: the multilingual embedder's cosine, *calibrated* for this message — how far it
  stands above what the message scores against unrelated text (a fixed set of ordinary notes
  on other subjects, plus the store itself), in standard deviations. A raw cosine of 0.3 is
  a strong match for one message and noise for another; the margin means the same for both.

relevance = keywords + vector part. A memory is shown only when its relevance passes the
absolute bar and is within the relative bar of the best one (a message with nothing relevant
gets nothing), and, once the embedders have read it, when some reading's margin reaches the
support bar (keywords alone are a coincidence then); the shown ones are ordered by relevance
× a time weight that falls with age, at most ten, near-duplicates collapsed, then cut to the
token budget. The floors and bars (:class:`Bars`) depend on the message: one that names a
concept of the table leans on keywords (NAMED_BARS), one that names none on meaning
(UNNAMED_BARS).
"""

from __future__ import annotations

import heapq
import logging
import math
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from ...resources import load_prompt
from ..contracts.embedder import EmbedderError
from .budget import estimate_tokens
from .canonical import canonical, dice, is_version_variant
from .entry import SOURCE_AUTO, UNVERIFIED, MemoryEntry, parse_time
from .freshness import age_days
from .keywords import MAX_QUERY_CHARS, KeywordIndex
from .terms import POINTED_WEIGHT, Terms, concept_names, english_reading, english_text
from .vectors import VectorCache

log = logging.getLogger(__name__)

MAX_RESULTS = 10
TIME_WEIGHT_DAYS = 90.0
"""Age at which the time weight has halved (1 / (1 + age / 90))."""
@dataclass(frozen=True)
class Bars:
    """How one kind of message weighs meaning and which memories pass (see :func:`rank`)."""

    vector_floor: float
    """Standard deviations above the unrelated texts below which a multilingual cosine is
    no evidence."""
    vector_scale: float
    """Relevance per standard deviation above the floor."""
    english_floor: float
    """The same floor for the English-only embedder, which reads every text in English (see
    :func:`~.terms.english_text`); it stands further above unrelated text for a match and
    for noise alike."""
    english_scale: float
    relevance: float
    """Least relevance for a memory to be shown at all."""
    relative: float
    """A shown memory has at least this share of the best memory's relevance."""
    support: float
    """Least margin (standard deviations above unrelated text, in any reading of either
    embedder) for a memory the embedders have read to be shown: keywords alone are not
    enough then. A shared common word ("show", "set", "list") with nothing in the meaning
    behind it is a coincidence. Memories not embedded yet (and keyword-only search) go by
    keywords alone."""
    rarity: float = 1.0
    """The power each shared word's rarity weight (IDF, at most 1) is raised to: above 1, a
    word many memories share counts for less against a rare one (see
    :meth:`~.keywords.KeywordIndex.match`)."""


NAMED_BARS = Bars(vector_floor=2.5, vector_scale=0.4, english_floor=3.5, english_scale=0.4,
                  relevance=0.8, relative=0.7, support=1.5)
"""For a message that names a concept of the table (concepts.tsv): its keywords carry the
concepts in both languages, and meaning adds to them."""
UNNAMED_BARS = Bars(vector_floor=1.5, vector_scale=0.6, english_floor=2.5, english_scale=0.6,
                    relevance=0.7, relative=0.7, support=3.0, rarity=1.5)
"""For a message naming no concept, a vocabulary the table does not cover: its keywords are
only its own words (a cross-language or paraphrased memory shares none), so meaning counts
from a floor one standard deviation lower and weighs half as much again; in exchange a
memory must stand 3 sd above unrelated text in some reading to be shown at all (the lower
floors alone let function-word neighbours in).

Its shared words weigh their rarity to the power 1.5: with no concept shared, what a message
shares with a memory is plain words, and the ones many memories hold are the store's own
subject ("ticket" in a helpdesk's store, "refund" in a shop's), which a memory about some
other side of that subject shares too. Measured with the concept table off (every message
names nothing then): precision 0.429 → 0.469 on dev and 0.500 → 0.516 on the seen blind set,
recall unchanged, the everyday probe 24 / 28 → 24 / 27 wrong memories; the same for any power
from 1.25 to 1.75; with the table on, nothing changes. For every message (concepts included)
it lost targets found by one common concept (recall 0.757 → 0.730, 0.732 → 0.659)."""
VECTOR_Z_FLOOR, VECTOR_SCALE = NAMED_BARS.vector_floor, NAMED_BARS.vector_scale
ENGLISH_Z_FLOOR, ENGLISH_SCALE = NAMED_BARS.english_floor, NAMED_BARS.english_scale
RELEVANCE_BAR, RELATIVE_BAR, SUPPORT_Z = (NAMED_BARS.relevance, NAMED_BARS.relative,
                                          NAMED_BARS.support)
FULL_COVERAGE = 0.99
"""In a search (``memory search deploy``), a memory that holds every word of the query passes
the absolute bar and needs no support from meaning, whatever its score: in a store where every
memory says "deploy", rarity weights alone would leave them all below it. For a turn's message
only when the meaning agrees too (a vector part above the floor, or no vectors yet): there the
person did not choose the words to find memories, and a question whose only content word is
generic ("what does this file do?") would show every memory naming a file."""
DUPLICATE_DICE = 0.9
"""Two shown memories this alike (character-bigram Dice) are one: the better is kept."""
FIRST_TURN_WAIT_S = 2.0
"""How long a turn waits for an embedder that is still loading before going on by keywords
(a one-off: a headless run usually gets vectors; call warm_up() early to avoid the wait)."""
EMBED_PER_TURN = 256
"""Most memories embedded during one turn; a cold cache over a big store fills over turns."""
KEYWORDS_LEAD, MEANING_LEADS = "keywords", "meaning"
"""ScoredEntry.leaning: the bars a message got (see :func:`bars_for`)."""
MESSAGE_READING, GLOSS_READING, CONCEPT_READING = "message", "gloss", "concepts"
"""The readings of a message each embedder is asked (see :func:`rank`)."""
BLOCK_OPEN = "<long_term_memory>"
BLOCK_CLOSE = "</long_term_memory>"
_BLOCK_TAG = re.compile(r"<(/?long_term_memory)", re.IGNORECASE)
"""The block's own tags inside a memory, any letter case (models read tags case-blind): a
memory cannot close the block and speak from outside it."""


@dataclass(frozen=True)
class ScoredEntry:
    entry: MemoryEntry
    score: float
    """relevance × time weight: the order of the shown memories."""
    keyword: float
    vector: float
    """The calibrated vector part of the relevance (0 when the cosine is not above the
    unrelated texts by VECTOR_Z_FLOOR standard deviations)."""
    stale: bool = False
    relevance: float = 0.0
    time: float = 1.0
    """The time weight."""
    cosine: float = 0.0
    margin: float = 0.0
    """The cosine's distance above the unrelated texts, in standard deviations."""
    reading: str = ""
    """Which reading of the message the margin comes from: ``message``, ``gloss`` (a Chinese
    message's English gloss) or ``concepts`` (:func:`concept_reading`); '' without one."""
    english_cosine: float = 0.0
    english_margin: float = 0.0
    english_reading: str = ""
    """The same for the English-only embedder (0 and '' without one)."""
    matched: tuple[str, ...] = field(default=())
    """The keyword terms that matched, best first."""
    coverage: float = 0.0
    """Share of the message's keyword weight this memory matches."""
    shown: bool = True
    """Passed the relevance bars (explain lists some that did not)."""
    leaning: str = KEYWORDS_LEAD
    """Which bars the message got: ``keywords`` (it names a concept: NAMED_BARS) or
    ``meaning`` (it names none: UNNAMED_BARS)."""
    pointed: tuple[str, ...] = ()
    """The message's words a demonstrative points at ("this file"), weighed down."""
    rarity: float = 1.0
    """The power the shared words' rarity weights were raised to (:attr:`Bars.rarity`)."""
    why_not: str = ""
    chosen_by: str = ""
    """Who chose a shown memory when a light model was asked: ``chosen by the light model``
    or ``offline (fallback: …)`` (see :mod:`.selection`); '' for the offline ranking alone."""


def describe(item: ScoredEntry) -> str:
    """One line saying why a memory was or was not chosen: its keyword, vector and time
    parts (``memory search --explain`` and the context inspector)."""
    matched = ", ".join(item.matched[:6]) or "none"
    verdict = (("shown: " + item.chosen_by if item.chosen_by else "shown") if item.shown
               else f"not shown: {item.why_not}")
    english = (f"; in English: cosine {item.english_cosine:.3f}, "
               f"{item.english_margin:+.1f} sd{_by(item.english_reading)}"
               if item.english_cosine else "")
    lead = ("; the message names no concept: meaning leads (each margin also counted from the "
            "memory's side, against its own nearness to unrelated text; each shared word "
            f"weighs its rarity to the power {item.rarity:g})"
            if item.leaning == MEANING_LEADS else "")
    if item.pointed:
        lead += (f"; {', '.join(item.pointed)} (pointed at: 'this …', 这个…) weighs "
                 f"{POINTED_WEIGHT:g}")
    return (f"{verdict}{lead}; relevance {item.relevance:.2f} = keywords {item.keyword:.2f} "
            f"(matched: {matched}; {item.coverage:.0%} of the message) + vector "
            f"{item.vector:.2f} (cosine {item.cosine:.3f}, {item.margin:+.1f} sd above "
            f"unrelated text{_by(item.reading)}{english}); × time {item.time:.2f} = "
            f"{item.score:.2f}")


def _by(reading: str) -> str:
    """Which reading a margin comes from, when it is not the message itself."""
    return f" by its {reading}" if reading and reading != MESSAGE_READING else ""


@lru_cache(maxsize=1)
def background_texts() -> tuple[str, ...]:
    """The ordinary notes on other subjects that calibrate vector similarity."""
    from importlib import resources

    text = (resources.files(__package__) / "background.txt").read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines()
                 if line.strip() and not line.startswith("#"))


def concept_reading(terms: Terms) -> str:
    """The message said as only the concepts it names ("lock coupon"): a third, focused
    reading for each embedder. A message's subject words ("refund", 库存) pull a whole reading
    towards the memories about that subject; the concepts say what the task is about
    (concurrency → lock, 卡住 → timeout), and a memory about the concept in the other language
    then stands out. '' when the message names no concept."""
    return " ".join(concept_names(terms))


def bars_for(topic: str, *, read: bool) -> Bars:
    """The bars for a message whose concept reading is ``topic`` ('': it names none);
    ``read``: the embedders have read some memory of the search (without meaning, keywords
    are all there is, whatever the message names)."""
    return UNNAMED_BARS if read and not topic else NAMED_BARS


def time_weight(days: float) -> float:
    return 1.0 / (1.0 + days / TIME_WEIGHT_DAYS)


class Ranking(list[ScoredEntry]):
    """What :func:`rank` returns: the scored entries, best first, and why no embedder read
    the query's meaning (``without_meaning``; "" when one did). Without meaning, keywords
    alone ranked them, which a caller saying "ranked by meaning" must not hide: an embedder
    that cannot load fails no search, it is only logged."""

    without_meaning = ""

    @classmethod
    def of(cls, items: Sequence[ScoredEntry], without_meaning: str) -> Ranking:
        ranking = cls(items)
        ranking.without_meaning = without_meaning
        return ranking


def rank(query: str, entries: Sequence[MemoryEntry], *, keywords: KeywordIndex,
         vectors: VectorCache | None, now: datetime, limit: int = MAX_RESULTS,
         wait: bool = True, explain: bool = False,
         english_vectors: VectorCache | None = None, turn: bool = False,
         fill_by_meaning: bool = False) -> list[ScoredEntry]:
    """The memories worth showing for ``query``, best first, at most ``limit``.

    ``vectors``: the multilingual embedder's cache; ``english_vectors``: an English-only
    embedder's, whose rows are of each memory's English text (a second, independent reading
    of the meaning; both calibrated the same way and added). ``wait=False`` never waits for
    missing vectors: entries not embedded yet count by keywords alone this time.
    ``explain=True`` also returns the best candidates that did not pass the bars
    (``shown=False``, with ``why_not``), up to ``limit`` in all. ``turn``: ``query`` is a
    turn's message, not a search (the :data:`FULL_COVERAGE` exemption needs meaning too).
    ``fill_by_meaning`` (with ``explain``): room left after those is filled with the memories
    that had no evidence at all, nearest in meaning first, so a chooser that reads (the light
    model) sees the memories whose meaning the bars' floors cut, where most of the targets of
    a domain the concept table does not know are (docs/memory.md)."""
    if not entries or not query.strip():
        return Ranking()
    import numpy as np

    contents = [e.content for e in entries]
    query = query[:MAX_QUERY_CHARS]
    matches = keywords.match(query, contents)
    reading = (english_reading(query, keywords.home)
               if vectors is not None or english_vectors is not None else "")
    topic = concept_reading(matches.terms)
    english = None
    two_sided = not topic  # meaning leads (UNNAMED_BARS): see _calibrated_cosines
    if english_vectors is not None:  # its query row is computed while USE computes its own
        english_query = english_text(query, keywords.home, terms=matches.terms, reading=reading)
        english = _side_pool().submit(
            _vector_part, english_vectors,
            [(MESSAGE_READING, english_query), (CONCEPT_READING, topic)], contents, wait,
            two_sided)
    use = _vector_part(vectors, [(MESSAGE_READING, query), (GLOSS_READING, reading),
                                 (CONCEPT_READING, topic)], contents, wait, two_sided)
    side = english.result() if english is not None else _vector_part(None, [], contents, wait)
    margins, english_margins = use.margins, side.margins
    read = np.isfinite(margins) | np.isfinite(english_margins)
    without_meaning = "" if read.any() else use.problem or side.problem
    bars = bars_for(topic, read=bool(read.any()))
    leaning = KEYWORDS_LEAD if bars is NAMED_BARS else MEANING_LEADS
    if bars.rarity != 1.0:  # the same words, weighed by the bars' rarity
        matches = keywords.match(matches.terms, contents, rarity=bars.rarity)
    # Everything as arrays over the store: a common word can make thousands of candidates,
    # and only the few that pass the bars become ScoredEntry objects.
    vector = (np.maximum(0.0, margins - bars.vector_floor) * bars.vector_scale
              + np.maximum(0.0, english_margins - bars.english_floor) * bars.english_scale)
    vector[matches.contentless] = 0.0  # only stop words: nothing to be near
    relevance = matches.score + vector
    candidates = np.flatnonzero(relevance > 0)
    meaning = np.maximum(margins, english_margins)
    # "continue", "ok", "thanks": nothing to choose memories for, and no request to make
    fill_by_meaning = fill_by_meaning and explain and bool(read.any()) and \
        len(matches.terms.groups) >= FILL_MIN_WORDS
    if candidates.size == 0 and not fill_by_meaning:
        return Ranking.of([], without_meaning)
    full = matches.coverage >= FULL_COVERAGE
    if turn:  # a turn's message also needs the meaning to agree (or no meaning yet)
        full = full & (~read | (vector > 0))
    supported = ~read | (meaning >= bars.support) | full
    lone = _lone_word(matches, read, vector) & ~full
    supported &= ~lone
    eligible = candidates[supported[candidates]]
    best = float(relevance[eligible].max()) if eligible.size else math.inf
    absolute = (relevance >= bars.relevance) | full
    passing = np.flatnonzero(absolute & supported & (relevance >= bars.relative * best)
                             & (relevance > 0))

    def scored(i: int, **extra: object) -> ScoredEntry:
        entry = entries[i]
        weight = time_weight(age_days(entry, now))
        margin = float(margins[i])
        english = float(english_margins[i])
        return ScoredEntry(entry, float(relevance[i]) * weight, float(matches.score[i]),
                           float(vector[i]), relevance=float(relevance[i]), time=weight,
                           cosine=float(use.cosines[i]),
                           margin=margin if math.isfinite(margin) else 0.0,
                           reading=use.reading_of(i),
                           english_cosine=float(side.cosines[i]),
                           english_margin=english if math.isfinite(english) else 0.0,
                           english_reading=side.reading_of(i),
                           matched=matches.matched(i), coverage=float(matches.coverage[i]),
                           leaning=leaning, pointed=matches.terms.pointed,
                           rarity=bars.rarity,
                           **extra)  # type: ignore[arg-type]

    # order by relevance × time weight; the time weight is at most 1, so only entries whose
    # relevance could still reach the limit-th score need their age looked at
    by_relevance = passing[np.argsort(-relevance[passing], kind="stable")]
    keep = 3 * limit  # room for near-duplicates that collapse
    heap: list[tuple[float, int]] = []  # the best (score, -index) so far, smallest first
    for i in by_relevance.tolist():
        if len(heap) >= keep and relevance[i] < heap[0][0]:
            break  # score = relevance × weight ≤ relevance: nothing further can get in
        pair = (float(relevance[i]) * time_weight(age_days(entries[i], now)), -i)
        if len(heap) < keep:
            heapq.heappush(heap, pair)
        else:
            heapq.heappushpop(heap, pair)
    weighted = [(score, -neg) for score, neg in heap]
    weighted.sort(key=lambda pair: (-pair[0], pair[1]))
    shown: list[ScoredEntry] = []
    rest: list[ScoredEntry] = []
    for _, i in weighted:
        if len(shown) >= limit:
            break
        item = scored(i)
        twin = next((s for s in shown if _near_duplicate(s.entry.content, item.entry.content)),
                    None)
        if twin is not None:
            rest.append(_replace(item, shown=False, why_not=f"near-duplicate of {twin.entry.id}"))
            continue
        shown.append(item)
    if not explain:
        return Ranking.of(shown, without_meaning)
    room = max(0, limit - len(shown))
    failed = candidates[~np.isin(candidates, passing)]
    top = failed[np.argsort(-relevance[failed], kind="stable")[:room]] if room else failed[:0]
    missed = top.tolist()
    for i in missed:
        if lone[i]:
            why = (f"one shared word ({', '.join(matches.matched(i)[:1])}) and no meaning "
                   f"behind it: the word can mean something else here")
        elif not supported[i]:
            why = (f"keywords only: the meaning stands {float(meaning[i]):+.1f} sd above "
                   f"unrelated text, below {bars.support}")
        elif not absolute[i]:
            why = f"relevance {relevance[i]:.2f} below the bar {bars.relevance}"
            if turn and matches.coverage[i] >= FULL_COVERAGE:
                why += (" (it holds every word of the message, but its meaning is no nearer than"
                        " the floor: enough for a search, not a turn)")
        else:
            why = f"relevance {relevance[i]:.2f} below {bars.relative:.0%} of the best ({best:.2f})"
        rest.append(scored(i, shown=False, why_not=why))
    rest.sort(key=lambda s: -s.relevance)
    rest = rest[:max(0, limit - len(shown))]
    room = limit - len(shown) - len(rest)
    if fill_by_meaning and room > 0:
        # only memories whose meaning was read: one still being embedded in the background
        # (a store just imported) has no nearness, and was offered as if next nearest
        below = np.flatnonzero((relevance <= 0) & ~matches.contentless & read)
        nearest = below[np.argsort(-meaning[below], kind="stable")[:room]]
        rest.extend(scored(i, shown=False, why_not=_NO_EVIDENCE) for i in nearest.tolist())
    return Ranking.of(shown + rest, without_meaning)


FILL_MIN_WORDS = 2
"""Content words a message needs before the memories with no evidence are offered to the
light model: a one-word message ("continue", "ok", 继续) is a go-ahead, not a task, and would
otherwise cost a request every turn; a one-word task ("deploy") still gets the memories
that share its word."""
_NO_EVIDENCE = ("no evidence: no shared word, and the meaning no nearer than the floor "
                "(offered to the light model by its nearness)")


def _lone_word(matches: Any, read: Any, vector: Any) -> Any:
    """Per entry: the embedders have read it, it shares one plain word with the message and
    nothing more (no concept, no identifier or version), and its meaning is not near enough
    for a vector part. "What is the time complexity of quicksort?" and a memory about time
    zones share "time"; "center an element" and the Apollo "config center" share "center".
    On dev and the seen blind set this showed 4 memories and no target (targets found by one
    shared thing share a concept); with the concept table off none is affected (meaning
    leads there, and its support bar of 3 sd already asks for more)."""
    import numpy as np

    words, named = getattr(matches, "words", None), getattr(matches, "named", None)
    if words is None or named is None:
        return np.zeros(len(read), dtype=bool)
    return read & (words == 1) & ~named & (vector <= 0)


def _replace(item: ScoredEntry, **changes: object) -> ScoredEntry:
    return replace(item, **changes)  # type: ignore[arg-type]


def _near_duplicate(a: str, b: str) -> bool:
    """The same fact said twice (not two versions of it: "Node 18" vs "Node 20" both stay)."""
    if canonical(a) == canonical(b):
        return True
    return dice(a, b) >= DUPLICATE_DICE and not is_version_variant(a, b)


@lru_cache(maxsize=1)
def _side_pool() -> ThreadPoolExecutor:
    """One thread for the second embedder's part of a turn (both models release the GIL)."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-english")


@dataclass(frozen=True)
class VectorEvidence:
    """One embedder's evidence over the entries of a search, as arrays indexed like them."""

    cosines: Any
    """Cosine with the first reading of the message (the message itself)."""
    margins: Any
    """Standard deviations above the unrelated texts, the best over the readings (-inf: no
    evidence: no embedder, vectors not ready, or the entry not embedded yet)."""
    best: Any
    """Index into ``readings`` of the reading each margin comes from."""
    readings: tuple[str, ...] = ()
    problem: str = ""
    """Why there is no evidence at all ("" when there is, or nothing was asked)."""

    def reading_of(self, i: int) -> str:
        return self.readings[int(self.best[i])] if self.readings and \
            math.isfinite(float(self.margins[i])) else ""


def _vector_part(vectors: VectorCache | None, readings: Sequence[tuple[str, str]],
                 contents: list[str], wait: bool, two_sided: bool = False) -> VectorEvidence:
    """One embedder's evidence for the message's ``readings`` ((name, text) pairs; empty
    texts and repeats are skipped); no evidence without an embedder, before its vectors are
    ready, or when it fails. ``two_sided``: see :func:`_calibrated_cosines`."""
    import numpy as np

    asked: dict[str, str] = {}  # text → the name of its first reading
    for name, text in readings:
        if text and text not in asked:
            asked[text] = name
    empty = VectorEvidence(np.zeros(len(contents), dtype=np.float32),
                           np.full(len(contents), -np.inf, dtype=np.float32),
                           np.zeros(len(contents), dtype=np.int8))
    if vectors is None or not asked:
        return replace(empty, problem="no embedder loaded, see the log"
                       if vectors is None else "")
    try:
        found = _calibrated_cosines(vectors, list(asked), contents, wait, two_sided)
    except Exception as exc:  # an embedder failure degrades to keywords, never fails a turn
        log.warning("memory vectors unavailable (%s); using keywords only",
                    type(exc).__name__)
        # an EmbedderError is written for the person (and never holds a key)
        why = str(exc) if isinstance(exc, EmbedderError) and str(exc) else type(exc).__name__
        return replace(empty, problem=f"embedder failed: {why}")
    if found is None:
        return replace(empty, problem="vectors not ready yet")
    return VectorEvidence(*found, readings=tuple(asked.values()))


def _calibrated_cosines(vectors: VectorCache, queries: list[str], contents: list[str],
                        wait: bool, two_sided: bool = False) -> tuple[Any, Any, Any] | None:
    """(cosines of the first query, margins, index of the query each margin comes from) over
    the entries: how many standard deviations each entry stands above the unrelated texts for
    each query, the best of the queries (-inf for entries without a vector yet). Each query
    (the message, its English gloss, its concepts) is calibrated on its own. The unrelated
    texts are the shipped background notes and the store itself (most of a store is
    unrelated to any one message). None when no vectors are ready.

    ``two_sided``: a margin is also measured from the memory's side — how far the cosine
    stands above the memory's own cosines with the background notes — and the smaller of
    the two counts. A short general memory ("回答尽量简短", "Use British spelling in docs")
    stands near any text, so it stands out for many messages by the message's measure alone
    (a hub); by its own measure it stands out only for what it is about. Used when meaning
    leads (a message naming no concept): with the table off, dev and the seen blind set
    show 0.4 memories for a message with nothing relevant (were 0.6 and 0.8), for one
    target fewer each."""
    import numpy as np

    if wait:
        matrix = vectors.matrix(contents, max_new=EMBED_PER_TURN)
    else:
        matrix = vectors.matrix_nowait(contents)
        if matrix is None and vectors.wait_ready(FIRST_TURN_WAIT_S):
            matrix = vectors.matrix_nowait(contents)
    if matrix is None:
        return None
    background = vectors.fixed_matrix(background_texts(), wait=wait)
    if background is None and vectors.wait_idle(FIRST_TURN_WAIT_S):
        background = vectors.fixed_matrix(background_texts(), wait=False)
    if background is None:  # still queued: a later turn has it
        return None
    present = vectors.present_rows(matrix)
    all_present = bool(present.all())
    own = vectors.hub_stats(matrix, background) if two_sided else None
    margins = np.full(len(contents), -np.inf, dtype=np.float32)
    best = np.zeros(len(contents), dtype=np.int8)
    cosines = None
    for k, query in enumerate(queries):  # each calibrated on its own; the better margin counts
        row = vectors.embed_query(query)
        # numpy's own loop, not BLAS: BLAS hands a 10,000-row product to its thread pool, which
        # the second embedder's part (in another thread) then waits on; this is ~0.5 ms
        store = np.einsum("ij,j->i", matrix, row)
        if cosines is None:
            cosines = store
        reference = np.concatenate([np.einsum("ij,j->i", background, row),
                                    store if all_present else store[present]])
        spread = max(float(reference.std()), 0.03)
        these = (store - float(reference.mean())) / spread
        if own is not None:
            these = np.minimum(these, (store - own[0]) / own[1])
        if not all_present:
            these = np.where(present, these, -np.inf)
        better = these > margins
        best[better] = k
        margins = np.where(better, these, margins)
    return cosines, margins, best


def _date(text: str) -> str:
    moment = parse_time(text)
    return moment.date().isoformat() if moment else "unknown"


def format_line(entry: MemoryEntry, stale: bool) -> str:
    """One injected memory: id, scope, written and verified dates, marks, then the text."""
    marks = []
    if stale:
        marks.append("possibly stale")
    if entry.verification == UNVERIFIED:
        marks.append("auto-extracted, unverified" if entry.source == SOURCE_AUTO
                     else "unverified")
    mark = f" [{'; '.join(marks)}]" if marks else ""
    text = " ".join(entry.content.split())
    line = (f"- [{' '.join(entry.id.split())}] ({entry.effective_scope}; written "
            f"{_date(entry.created_at)}; verified {_date(entry.last_verified_at)}){mark} {text}")
    return _BLOCK_TAG.sub(r"&lt;\1", line)  # (the id too: a store file can be hand-edited)


def build_block(ranked: Sequence[ScoredEntry], budget_tokens: int,
                is_stale: Callable[[MemoryEntry], bool]) -> str:
    """The injection block: a 'clues, not facts' header and one line per memory, as many of
    the ranked memories as fit in ``budget_tokens`` ('' when none fits)."""
    if not ranked:
        return ""
    header = load_prompt("memory_injection").strip()
    used = estimate_tokens(f"{BLOCK_OPEN}\n{header}\n{BLOCK_CLOSE}")
    lines = []
    for item in ranked:
        line = format_line(item.entry, is_stale(item.entry))
        cost = estimate_tokens(line) + 1
        if used + cost > budget_tokens:
            continue
        lines.append(line)
        used += cost
    if not lines:
        return ""
    return "\n".join([BLOCK_OPEN, header, *lines, BLOCK_CLOSE])
