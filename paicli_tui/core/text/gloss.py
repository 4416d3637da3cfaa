"""Offline gloss: a Chinese (or mixed) question turned into English search words.

jieba cuts the Chinese runs into words; each word is looked up in the general developer
vocabulary, then in CC-CEDICT; a word the dictionary lacks is covered by the longest
dictionary words inside it. English words and identifiers in the question are kept as they
are. The result keeps the question's order so it also reads as an English query for an
embedder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...paths import HomePaths
from .devvocab import DEV_VOCABULARY
from .dictionary import has_technical_sense, lookup, senses
from .english import STOP_WORDS
from .jieba_setup import cut_words

_RUN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)|([A-Za-z0-9_][A-Za-z0-9_.\-]*)")

# Question scaffolding that carries no search meaning ("how", "where", "which", particles).
ZH_STOP_WORDS = frozenset(
    """的 地 得 了 着 过 是 在 有 和 与 及 或 或者 并 并且 而 但 但是 就 都 也 还 又 再 很 最 更 吗 呢 吧 啊
    呀 么 把 被 让 给 对 从 到 向 往 于 以 用 由 为 为了 因为 所以 如果 的话 时 时候 之后 之前 以后 以前
    这 那 这个 那个 这些 那些 这里 那里 哪 哪里 哪儿 哪个 哪些 什么 怎么 怎样 怎么样 如何 为什么 是否
    能 能够 可以 会 要 想 需要 应该 应当 得到 一个 一种 一下 某个 某些 每个 所有 各种 我 我们 你 你们
    他 她 它 他们 它们 自己 其 其中 中 里 里面 上 下 内 外 时 当 代码 函数 方法 哪段 位置 地方 处理 进行
    实现 做 做到 写 找 找到 查找 知道 告诉 一下 如何 怎么办 请问 谁 多少 几 个 些 等 等等 其他 里头
    成 变成 带 带有 像 这样 那样 这种 那种 一些 有些 可能 正好 比如 例如 譬如 之类 一样 似的 然后 并且
    就是 还是 只是 总是 已经 正在 将 之 所 着呢 来 去 拿到 得出 出来 起来 下来 上去 下去 出 功能""".split()
)


@dataclass(frozen=True)
class GlossPiece:
    """One word of the question and the English it became (empty: skipped or unknown)."""

    source: str
    english: tuple[str, ...]


@dataclass(frozen=True)
class Gloss:
    """The English reading of a question: ``terms`` in question order, without repeats."""

    terms: tuple[str, ...]
    pieces: tuple[GlossPiece, ...] = field(default=())

    @property
    def text(self) -> str:
        """All glossed words: the full-text side, where extra senses add recall."""
        return " ".join(self.terms)

    @property
    def primary_text(self) -> str:
        """Only each word's first sense: a cleaner English sentence for an embedder, which
        averages every word it is given."""
        words: list[str] = []
        for piece in self.pieces:
            if piece.english:
                for word in piece.english[0].split():
                    if word.lower() not in STOP_WORDS and word not in words:
                        words.append(word)
        return " ".join(words)


def cut_question(text: str, home: HomePaths | None = None) -> list[str]:
    """jieba words of a Chinese run. The shared jieba keeps every multi-character developer
    word whole (see core.text.jieba_setup): the general dictionary alone splits many of them across
    a neighbour (在线程里 → 在线 / 程里), and a split word glosses to nonsense."""
    return cut_words(text, home)


def _substrings(word: str, longest: int = 4) -> set[str]:
    return {
        word[i:j] for i in range(len(word)) for j in range(i + 1, min(len(word), i + longest) + 1)
    }


def _cover(word: str, known: dict[str, list[str]]) -> list[str]:
    """Longest-first cover of ``word`` by dictionary words; a single character only counts
    when it is developer vocabulary (its dictionary senses are mostly rare readings)."""
    out: list[str] = []
    i = 0
    while i < len(word):
        for j in range(min(len(word), i + 4), i, -1):
            part = word[i:j]
            if part in ZH_STOP_WORDS:
                i = j
                break
            if j - i == 1 and part not in DEV_VOCABULARY:
                continue
            if known.get(part):
                out.extend(known[part][:2])
                i = j
                break
        else:
            i += 1
    return out


def _dev_parts(word: str) -> list[str]:
    """Developer senses of the vocabulary words inside ``word`` (一行 holds 行 "line")."""
    out: list[str] = []
    for sub in sorted(_substrings(word), key=len, reverse=True):
        if sub != word and sub in DEV_VOCABULARY:
            out.extend(DEV_VOCABULARY[sub])
    return out


def gloss_question(
    question: str, *, home: HomePaths | None = None, senses_per_word: int = 2
) -> Gloss:
    """English search words for ``question``: Chinese words glossed (developer vocabulary,
    then CC-CEDICT), English words and identifiers kept verbatim, in question order.
    Never raises for odd input: an unknown word is simply left out."""
    pieces: list[tuple[str, bool]] = []  # (text, is_chinese)
    for m in _RUN.finditer(question):
        if m.group(1):
            pieces.extend((w, True) for w in cut_question(m.group(1), home) if w not in ZH_STOP_WORDS)
        else:
            pieces.append((m.group(2), False))

    wanted: set[str] = set()
    for text, chinese in pieces:
        if chinese and text not in DEV_VOCABULARY:
            wanted.add(text)
            if len(text) > 1:
                wanted |= _substrings(text)
    raw = lookup(wanted) if wanted else {}

    known: dict[str, list[str]] = {}
    for w in wanted:
        if w in DEV_VOCABULARY:
            known[w] = list(DEV_VOCABULARY[w])
        else:
            known[w] = senses(w, raw.get(w, ()), limit=senses_per_word)
    out_pieces: list[GlossPiece] = []
    for text, chinese in pieces:
        if not chinese:
            out_pieces.append(GlossPiece(text, (text,)))
            continue
        if text in DEV_VOCABULARY:
            english = list(DEV_VOCABULARY[text])
        elif len(text) == 1:
            # a lone character's dictionary senses are mostly rare readings (后 "empress")
            english = []
        elif known.get(text):
            # a general sense (一行 "party") next to developer words inside (行 "line");
            # a word the dictionary already gives a technical sense needs no help
            dev = [] if has_technical_sense(raw.get(text, ())) else _dev_parts(text)
            english = (dev + known[text][:1]) if dev else known[text]
        else:
            sub = {
                s: (list(DEV_VOCABULARY[s]) if s in DEV_VOCABULARY else known.get(s, []))
                for s in _substrings(text)
            }
            english = _cover(text, sub)
        out_pieces.append(GlossPiece(text, tuple(english)))

    terms: list[str] = []
    for piece in out_pieces:
        for phrase in piece.english:
            for word in phrase.split():
                if word.lower() in STOP_WORDS or word in terms:
                    continue
                terms.append(word)
    return Gloss(tuple(terms), tuple(out_pieces))
