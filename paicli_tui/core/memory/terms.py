"""Keywords of a memory or a message, as groups of terms that mean one thing.

Each word of the text becomes one group: an English word its Snowball stem; an identifier or
version string (``mall_test``, ``7.17``, ``ISO-8601``, ``@Scheduled``) itself, whole, plus its
parts; a Chinese word (jieba, search mode, so 生产库 also gives 生产) itself plus the English
it glosses to (the developer glossary, then CC-CEDICT — the same offline gloss code search
uses). English and Chinese stop words and task scaffolding ("please add", 帮我, 一下, "the",
"to") give nothing, so they never match alone. Gloss terms weigh less than the text's own
words: a dictionary sense is a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from ...paths import HomePaths

GLOSS_WEIGHT = 0.7
"""Weight of a term that comes from glossing a Chinese word (own words weigh 1)."""
SUBWORD_WEIGHT = 0.7
"""Weight of a shorter word inside a longer Chinese word (生产 inside 生产库)."""
PART_WEIGHT = 0.7
"""Weight of one part of a compound identifier (``order`` of ``order-events``)."""
CONCEPT_WEIGHT = 1.0
"""Weight of a shared concept (concepts.tsv): "live database" and 生产库 both name §production."""
CONCEPT_MARK = "§"
KEYWORD_SENSES = 4
"""Dictionary senses of a Chinese word kept as its keyword terms (the gloss the embedders
read keeps one): 头像 is "profile picture; portrait; bust; avatar" and 轨迹 "locus; orbit;
trajectory; track", so "avatar" and "track" need the third and fourth; a sense no memory
shares costs nothing. Measured on dev and the seen blind set with the concept table off,
the broad table and the shipped one: +1 target in three of the four, none lost."""

_RUN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)|([A-Za-z0-9_@#][A-Za-z0-9_.:/<>+@#\-]*)")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

EN_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further had hadn't has hasn't have
    haven't having he he'd he'll her here hers herself him himself his how i i'd i'll i'm i've
    if in into is isn't it it's its itself let let's lets me more most mustn't my myself no
    nor not of off on once only or other ought our ours ourselves out over own same shan't she
    she'd she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've this those through
    to too under until up very was wasn't we we'd we'll we're we've were weren't what what's
    when when's where where's which while who who's whom why why's with won't would wouldn't
    you you'd you'll you're you've your yours yourself yourselves will shall may might must
    also always never ever just still really already yet now then here there every etc via per
    e.g i.e eg ie vs please help add adds added write create make makes made sure thing things
    something anything everything want wants need needs needed go goes going get gets got give
    use uses used using like way ways lot lots much many one ones instead new let able allowed
    only""".split()
)
"""English words that carry no topic. "new", "add", "use" and "never" say what to do, not
what about: a memory about Redis must not match "add a new test" because both say "new"."""

ZH_STOP_WORDS = frozenset(
    """的 地 得 了 着 过 是 在 有 和 与 及 或 或者 并 并且 而 但 但是 就 都 也 还 又 再 很 最 更 吗 呢 吧
    啊 呀 么 把 被 让 给 对 从 到 向 往 于 以 用 由 为 为了 因为 所以 如果 的话 时 时候 之后 之前 以后
    以前 这 那 这个 那个 这些 那些 这里 那里 这边 那边 这块 那块 哪 哪里 哪儿 哪个 哪些 什么 怎么
    怎样 怎么样 如何 为什么 是否 能 能够 可以 会 要 想 需要 应该 应当 一个 一种 一下 一次 一点 某个
    某些 每个 所有 各种 我 我们 你 你们 他 她 它 他们 它们 自己 其 其中 中 里 里面 上 下 内 外 当
    帮 帮我 帮忙 请 麻烦 一些 有些 可能 比如 例如 之类 一样 然后 就是 还是 只是 总是 已经 正在 将
    来 去 出来 起来 下来 上去 下去 加个 加一个 弄 弄个 搞 搞个 做 写 写个 改 改一下 看看 看一下
    注意 不要 别 不 没 没有 不能 不会 不用 必须 只 只能 统一 使用 采用 用来 一律 务必 要求 记得
    一直 经常 老是 总 每次 直接 那么 这么 怎么办 该 谁 多少 几 个 些 等 等等 其他 其它 问题 东西
    情况 时间 现在 今天 目前 新 新的 新加 新建 加 加上 处理 进行 实现 支持 需求 一块 部分""".split()
)
"""Chinese function words, pronouns and task scaffolding (帮我…一下, 要注意什么)."""


EN_DEMONSTRATIVES = frozenset("this that these those".split())
EN_RELATIVE_TOO = frozenset({"that"})
"""A demonstrative that also joins a clause to the word before it: "the code that handles
retries" is about retries. It points only at the start or after a function word ("what
does that function do", "in that folder"), never right after a content word (so "fix that
bug" keeps its words whole: without parts of speech a verb and a noun look alike)."""
ZH_DEMONSTRATIVES = frozenset("这 这个 那个 这些 那些 这段 那段 这条 那条 这行 这几行 这张 这份 这块 "
                              "这种 这里的 这边的".split())
"""Words that point at a thing in front of the person ("this file", 这段代码). Not 该 or 此,
which also mean "should" and "here" (该联系谁 "whom should I ask"), and not 那 alone, which
opens a sentence as "then" (那数据库用什么？); 那 points only with its measure word (那 / 个)."""
ZH_MEASURE_WORDS = frozenset("个 段 条 些 行 张 份 块 种 处 次 位 句 片 套 组 项 页".split())
"""Measure words jieba may cut off a demonstrative (这 / 段 / 代码)."""
POINTED_SPAN = 2
"""English content words after a demonstrative that belong to its phrase ("this record
type"); a Chinese jieba word is the whole noun (这段 / 代码)."""
POINTED_WEIGHT = 0.5
"""Weight of a message's words that a demonstrative points at: "what does this file do?",
帮我看看这个报错 are about the file or the error in front of the person, which a memory
naming some file or error is not, by that word alone. Measured on dev and the seen blind set
(concept table on and off): recall unchanged; dev precision 0.651 → 0.683 (table on); the
everyday probe (benchmarks/memret/everyday.json) 30 → 26 wrong memories on dev (29 table
off), blind unchanged (one more table off). Most of the dev precision gain came from one
message whose words after a relative "that" were halved ("write a query that counts
tickets …"); once "that" after a content word no longer points (EN_RELATIVE_TOO), dev
precision is 0.651 again, everything else unchanged, table on and off."""


@dataclass(frozen=True)
class Terms:
    """One text's keywords: ``groups`` holds, per word of the text, its terms and weights;
    ``bag`` is every term with its best weight (what a memory is indexed by)."""

    groups: tuple[tuple[tuple[str, float], ...], ...]
    pointed: tuple[str, ...] = ()
    """The words a demonstrative points at, when they were weighed down (for --explain)."""

    @property
    def bag(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for group in self.groups:
            for term, weight in group:
                if weight > out.get(term, 0.0):
                    out[term] = weight
        return out


@dataclass(frozen=True)
class _Concepts:
    by_word: dict[str, tuple[str, ...]]
    by_chinese: dict[str, tuple[str, ...]]
    longest: int


@lru_cache(maxsize=1)
def _concept_text() -> str:
    from importlib import resources

    return (resources.files(__package__) / "concepts.tsv").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def concepts() -> _Concepts:
    """The concept table shipped beside this module (concepts.tsv)."""
    return parse_concepts(_concept_text())


@lru_cache(maxsize=1)
def concepts_digest() -> str:
    """Eight hex digits naming the shipped table's content: cached keywords and English rows
    carry the concepts, so their file names include it and a new table is read afresh."""
    import hashlib

    return hashlib.sha1(_concept_text().encode("utf-8")).hexdigest()[:8]


def parse_concepts(text: str) -> _Concepts:
    """A concept table in concepts.tsv's format (concept, English words, Chinese words; one
    per line, tab-separated, ``#`` comments)."""
    by_word: dict[str, list[str]] = {}
    by_chinese: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rest = line.partition("\t")
        english, _, chinese = rest.partition("\t")
        concept = CONCEPT_MARK + name.strip()
        for word in english.split():
            by_word.setdefault(word.lower(), []).append(concept)
        for word in chinese.split():
            by_chinese.setdefault(word, []).append(concept)
    longest = max((len(w) for w in by_chinese), default=1)
    return _Concepts({k: tuple(dict.fromkeys(v)) for k, v in by_word.items()},
                     {k: tuple(dict.fromkeys(v)) for k, v in by_chinese.items()}, longest)


def _chinese_concepts(run: str) -> list[tuple[int, int, str]]:
    """(start, end, concept) for every concept word found in a Chinese run."""
    table = concepts()
    found = []
    for i in range(len(run)):
        for j in range(i + 1, min(len(run), i + table.longest) + 1):
            for concept in table.by_chinese.get(run[i:j], ()):
                found.append((i, j, concept))
    return found


OWN_WORD_LONGEST = 5
"""Longest dictionary word looked for around a concept word (see :func:`_inside_own_word`)."""


def _inside_own_word(run: str, found: list[tuple[int, int, str]], home: HomePaths | None
                     ) -> set[int]:
    """Indexes into ``found`` of concept words that are only a part of a longer dictionary
    word of the run with a meaning of its own: 大小 in 大小写 "capitals and lowercase
    letters", 慢 in 慢慢来 "take your time", 锁 in 锁屏 "lock screen" (jieba cuts 锁屏后 as
    锁 / 屏后, so the segmentation cannot tell), 生产 in 生产者 "producer". The longer word keeps
    the concept when its dictionary senses still say it: a word of the concept's English or
    of the part's own senses (正则表达式 "regular expression" is still 正则 "regular"; 测试用例
    "test case" a test); for a one-character part only the last word of a sense counts, the
    thing the compound is (锁定 "to lock" is a lock, a lock screen is a screen). A longer
    word the dictionary does not know (生产库, 测试环境) is read as made of its parts."""
    from ..text.dictionary import clean_sense, lookup
    from .dictcache import prime

    around: dict[int, list[str]] = {}
    for k, (b, e, _) in enumerate(found):
        longer = [run[i:j] for i in range(max(0, e - OWN_WORD_LONGEST), b + 1)
                  for j in range(e, min(len(run), i + OWN_WORD_LONGEST) + 1) if j - i > e - b]
        if longer:
            around[k] = longer
    if not around:
        return set()
    wanted = {w for words in around.values() for w in words}
    wanted |= {run[found[k][0]:found[k][1]] for k in around}
    if not prime(wanted, home.cache_dir if home is not None else None):
        lookup(wanted)
    raw = lookup(wanted)

    @cache
    def sense_words(word: str) -> tuple[tuple[str, ...], ...]:
        cleaned = (clean_sense(part) for sense in raw.get(word, ()) for part in sense.split(";"))
        senses = (tuple(w for w in c.split() if w not in EN_STOP_WORDS) for c in cleaned if c)
        return tuple(sense for sense in senses if sense)

    @cache
    def part_only(part: str, word: str, concept: str) -> bool | None:
        """True: ``word`` has a meaning of its own that does not say ``concept``; None: the
        dictionary does not know ``word``."""
        senses = sense_words(word)
        if not senses:
            return None
        own = {w for sense in sense_words(part) for w in sense}
        said = [sense[-1:] if len(part) == 1 else sense for sense in senses]
        return not any(w in own or concept in _english_concepts(w)
                       for sense in said for w in sense)

    dropped = set()
    for k, words in around.items():
        b, e, concept = found[k]
        if any(part_only(run[b:e], word, concept) for word in words):
            dropped.add(k)
    return dropped


def _english_concepts(word: str) -> tuple[str, ...]:
    """Concepts an English word names, matched by its plain forms (not its stem: "product"
    and "production" share a Snowball stem and not a meaning)."""
    from ..text.english import fold

    table = concepts().by_word
    word = word.lower()
    forms = [word, fold(word)]
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            forms += [word[:-len(suffix)], word[:-len(suffix)] + "e"]
    out: list[str] = []
    for form in forms:
        out.extend(table.get(form, ()))
    return tuple(dict.fromkeys(out))


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def has_words(text: str) -> bool:
    """True when ``text`` holds words this module reads (English-like or Chinese): one
    whose keywords are then empty says nothing but stop words. Other scripts (Cyrillic,
    Korean…) have no keywords here and are read by meaning alone."""
    return _RUN.search(text) is not None


@lru_cache(maxsize=65_536)
def english_term(word: str) -> str | None:
    """The stem of a lower-case English word, or None for a stop word or a single letter."""
    from ..text.english import stem

    word = word.lower().strip("'")
    if len(word) < 2 or word in EN_STOP_WORDS:
        return None
    if word.isdigit():
        return word if len(word) >= 2 else None
    return stem(word)


def _ascii_group(token: str) -> tuple[tuple[str, float], ...]:
    token = token.rstrip(".:/-+")
    if not token:
        return ()
    parts = [p for piece in re.split(r"[^A-Za-z0-9]+", token) for p in _CAMEL.findall(piece)]
    if len(parts) <= 1 and token.isalpha():
        term = english_term(token)
        if term is None:
            return ()
        return ((term, 1.0),) + tuple((c, CONCEPT_WEIGHT) for c in _english_concepts(token))
    group: list[tuple[str, float]] = [(token.lower(), 1.0)]  # identifiers and versions, whole
    for part in parts:
        term = english_term(part)
        if term and term != token.lower():
            group.append((term, PART_WEIGHT))
    for word in [token, *parts]:
        group.extend((c, CONCEPT_WEIGHT) for c in _english_concepts(word))
    return tuple(dict.fromkeys(group))


def _chinese_words(run: str, home: HomePaths | None
                   ) -> list[tuple[str, list[str], list[str]]]:
    """(word, shorter dictionary words inside it, concepts inside it) for each jieba word of a
    Chinese run that is not a stop word; a concept spanning two words comes as a word of its
    own with no terms but the concept when it holds a whole word at either end (合回 of
    合 / 回去: jieba's cut missed it), never when it only joins the end of one word to the
    start of the next (下单 in 一下 / 单元, 同时 in 不同 / 时区: a coincidence of the
    characters, not a word of the text)."""
    from ..text.jieba_setup import get_jieba

    jieba = get_jieba(home)
    spans = []
    owner: list[int] = []  # the index of the jieba word each character of the run is in
    start = 0
    for word in jieba.lcut(run):
        owner.extend([len(spans)] * len(word))
        spans.append((start, start + len(word), word))
        start += len(word)
    owner.extend([len(spans) - 1] * (len(run) - len(owner)))
    inside: dict[int, list[str]] = {}  # by word: one pass, a long run costs no more per word
    kept = []
    found = _chinese_concepts(run)
    own = _inside_own_word(run, found, home) if found else set()
    for k, (b, e, concept) in enumerate(found):
        if k in own:
            continue
        first, last = owner[b], owner[e - 1]
        if first == last:
            inside.setdefault(first, []).append(concept)
        elif b != spans[first][0] and e != spans[last][1]:
            continue
        kept.append(concept)
    out = []
    pointing = 0  # content words still to come of a phrase opened by 这个 / 这段 …
    for index, (_, _, word) in enumerate(spans):
        if word in ZH_DEMONSTRATIVES or (
                word == "那" and index + 1 < len(spans) and spans[index + 1][2] in ZH_MEASURE_WORDS):
            pointing = 1  # a jieba word is a whole noun already (这段 / 代码)
            continue
        if pointing and word in ZH_MEASURE_WORDS:
            continue  # 这 / 段 / 代码: the measure word between them
        if word in ZH_STOP_WORDS or not word.strip():
            pointing = 0
            continue
        inner = []
        if len(word) > 2:
            for sub in jieba.lcut_for_search(word):
                if sub != word and len(sub) >= 2 and sub not in ZH_STOP_WORDS:
                    inner.append(sub)
        out.append((word, inner, list(dict.fromkeys(inside.get(index, ()))), pointing > 0))
        pointing = max(0, pointing - 1)
    attached = {c for _, _, named, _ in out for c in named}
    for concept in dict.fromkeys(kept):
        if concept not in attached:
            out.append(("", [], [concept], False))
    return out


def _gloss_words(text: str, words: list[str], home: HomePaths | None) -> dict[str, list[str]]:
    """English terms for each Chinese word of ``text`` (the offline code-search gloss of the
    whole text: jieba cuts a word alone differently from the word in its sentence)."""
    from ..text.dictionary import lookup
    from ..text.gloss import _substrings, gloss_question
    from .dictcache import prime

    wanted = set(words)
    for word in words:
        wanted |= _substrings(word)
    if not prime(wanted, home.cache_dir if home is not None else None):
        lookup(wanted)  # one pass over the dictionary file for all of them
    out: dict[str, list[str]] = {}
    for piece in gloss_question(text, home=home, senses_per_word=KEYWORD_SENSES).pieces:
        english = out.setdefault(piece.source, [])
        for phrase in piece.english:
            for w in phrase.split():
                term = english_term(w)
                if term and term not in english:
                    english.append(term)
    return out


def english_reading(text: str, home: HomePaths | None = None) -> str:
    """The offline English gloss of a Chinese message ('' for English text): a second query
    for the embedder, which matches English memories better in one language than across."""
    if not has_cjk(text):
        return ""
    from ..text.dictionary import lookup
    from ..text.gloss import _substrings, gloss_question
    from .dictcache import prime

    text = text[:500]
    wanted: set[str] = set()
    for m in _RUN.finditer(text):
        if m.group(1):
            wanted |= _substrings(m.group(1))
    if not prime(wanted, home.cache_dir if home is not None else None):
        lookup(wanted)
    return gloss_question(text, home=home).primary_text


def text_terms(text: str, home: HomePaths | None = None, *, gloss: bool = True,
               pointed: float = 1.0) -> Terms:
    """The keyword groups of ``text`` (see the module docstring). ``pointed``: the weight of
    the words a demonstrative points at ("this file", 这段代码), for a message (a memory
    says "this" of nothing in front of the person: its words keep their weight)."""
    groups: list[tuple[tuple[str, float], ...]] = []
    chinese: list[tuple[int, str, list[str], list[str]]] = []
    at: set[int] = set()  # indexes of pointed groups
    pointing, last_end = 0, -1
    after_content = False  # the English word just before was a content word
    for m in _RUN.finditer(text):
        if last_end >= 0 and text[last_end:m.start()].strip():
            pointing, after_content = 0, False  # punctuation ends the phrase
        last_end = m.end()
        if m.group(1):
            pointing, after_content = 0, False
            for word, inner, named, by in _chinese_words(m.group(1), home):
                if by:
                    at.add(len(groups))
                chinese.append((len(groups), word, inner, named))
                groups.append(())
        else:
            token = m.group(2).lower()
            if token in EN_DEMONSTRATIVES:
                relative = token in EN_RELATIVE_TOO and after_content
                pointing, after_content = (0 if relative else POINTED_SPAN), False
                continue
            group = _ascii_group(m.group(2))
            after_content = bool(group)
            if group:
                if pointing:
                    at.add(len(groups))
                pointing = max(0, pointing - 1)
                groups.append(group)
            else:
                pointing = 0
    if chinese:
        glossed = _gloss_words(text, sorted({w for _, w, _, _ in chinese if w}), home) \
            if gloss else {}
        for index, word, inner, named in chinese:
            # a single character is no keyword of its own (behaviour §14: words of length ≥ 2),
            # but 锁 still names a lock and 删 a deletion
            group = [(word, 1.0)] if len(word) >= 2 else []
            group += [(sub, SUBWORD_WEIGHT) for sub in inner]
            group += [(term, GLOSS_WEIGHT) for term in glossed.get(word, ())]
            group += [(c, CONCEPT_WEIGHT) for c in named]
            groups[index] = tuple(dict.fromkeys(group))
    named: tuple[str, ...] = ()
    if pointed != 1.0 and at:
        named = tuple(dict.fromkeys(groups[i][0][0] for i in sorted(at) if groups[i]))
        groups = [tuple((t, w * pointed) for t, w in g) if i in at else g
                  for i, g in enumerate(groups)]
    # a word said twice is one word of the text: a message repeating "timeout" (a pasted
    # log) must not weigh it twenty times against the memories sharing its other words
    return Terms(tuple(dict.fromkeys(g for g in groups if g)), named)


def concept_names(terms: Terms) -> list[str]:
    """The names of the concepts a text names (``production``, ``retry``), in text order."""
    return list(dict.fromkeys(term[len(CONCEPT_MARK):] for group in terms.groups
                              for term, _ in group if term.startswith(CONCEPT_MARK)))


def english_text(text: str, home: HomePaths | None = None, terms: Terms | None = None,
                 reading: str | None = None) -> str:
    """What an English-only embedder reads for ``text``: its English reading (the text itself
    when it is English) and then the names of the concepts it names that the reading does not
    say already. 工单 has no dictionary sense and 开发库 glosses as "exploit library"; the
    concept words ("ticket", "local database") carry what the team meant. ``terms``: the
    text's keywords and ``reading`` its :func:`english_reading` when the caller has them
    (saves segmenting and glossing it again)."""
    if reading is None:
        reading = english_reading(text, home)
    reading = reading or text
    if terms is None:
        terms = text_terms(text, home, gloss=False)
    present = set(reading.lower().split())
    extra = [name for name in concept_names(terms) if name.lower() not in present]
    return f"{reading} {' '.join(extra)}" if extra else reading
