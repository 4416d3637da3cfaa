"""English words for matching text: stop words, plural folding, Snowball stems (shared by
code search and memory keywords, so both fold and stem a word the same way)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

# English words that carry no meaning for finding code. Small on purpose: a question's
# nouns and verbs must survive, and code words such as "set" or "get" are kept elsewhere.
STOP_WORDS = frozenset(
    """a an the of to in on at by for from with and or not no nor is are was were be been being
    it its this that these those there here where which what how why when who whom whose do does
    did done can could should would will shall may might must i we you he she they my our your
    me us them their his her as if then than so such any some all each every into onto about
    over under out up down off just only also very too more most much many other another same
    own one ones thing things way ways something someone anything get gets got use used uses
    using make makes made isn't doesn't don't let lets happen happens place part code function
    functions method methods class classes find found look looking want wants need needs
    which whether while within without through via per etc e.g i.e sth sb oneself""".split()
)


def fold(word: str) -> str:
    """Crude English plural folding (``colors`` → ``color``, ``entries`` → ``entry``), the
    same on both sides so that a question's plural meets the code's singular."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """English Snowball stem of a lower-case word (``merged``, ``merging`` → ``merg``), or the
    crude plural fold when the stemmer package is missing."""
    global _stemmer
    if _stemmer is None:
        try:
            import snowballstemmer

            _stemmer = snowballstemmer.stemmer("english").stemWord
        except ImportError:  # pragma: no cover - a declared dependency
            _stemmer = fold
    return _stemmer(word)


_stemmer: Callable[[str], str] | None = None
