"""Load jieba once, quietly, with its cache under PAICLI_HOME.

jieba writes its dictionary cache to the system temp dir and logs to stderr by default; both
are wrong for a full-screen app. Import is deferred until a caller first needs segmentation,
and the dictionary is read on demand from a cached table (:mod:`.jieba_freq`).
"""

from __future__ import annotations

import logging
import sys
import threading
from types import ModuleType
from typing import Any

from ...paths import HomePaths
from .jieba_freq import install

_lock = threading.Lock()
_jieba: ModuleType | None = None


def get_jieba(home: HomePaths | None = None) -> ModuleType:
    """The initialised jieba module. With ``home``, the dictionary (developer words
    included) is read on demand from a table under its cache folder (see
    :mod:`.jieba_freq`; built by the first call, ~1–2 s once); without, loaded whole (~1 s)."""
    global _jieba
    if _jieba is not None:
        return _jieba
    with _lock:
        if _jieba is None:
            jieba = import_jieba()
            jieba.setLogLevel(logging.WARNING)
            cache = home.jieba_cache_dir if home is not None else None
            if cache is not None:
                try:
                    cache.mkdir(parents=True, exist_ok=True)
                except OSError:  # a PAICLI_HOME it cannot write: the dictionary, loaded whole
                    cache = None
            if home is None or cache is None:
                jieba.initialize()
                _add_developer_words(jieba.dt)
            else:
                jieba.dt.tmp_dir = str(cache)
                install(jieba.dt, home.cache_dir, developer_additions(), _add_developer_words)
            _jieba = jieba
    return _jieba


def import_jieba() -> ModuleType:
    """``import jieba`` without ``pkg_resources``: jieba imports it only to open its own
    data files (it falls back to plain paths), and that import alone took ~0.2 s, half of
    jieba's."""
    if "jieba" in sys.modules:
        return sys.modules["jieba"]
    blocked = "pkg_resources" not in sys.modules
    if blocked:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # import → ImportError
    try:
        import jieba
    finally:
        if blocked and sys.modules.get("pkg_resources", False) is None:
            del sys.modules["pkg_resources"]
    return jieba


DEV_WORD_FREQ = 100_000
"""jieba frequency given to developer words: about that of a common everyday word, enough to
beat a split through a neighbour (把子|类, 屏幕显示) in text about code."""


def developer_additions() -> str:
    """What :func:`_add_developer_words` adds, as text (the key of the cached table)."""
    from .devvocab import DEV_VOCABULARY

    words = sorted(w for w in DEV_VOCABULARY if len(w) > 1)
    return f"{DEV_WORD_FREQ}|" + "|".join(words)


def _add_developer_words(tokenizer: Any) -> None:
    """Teach jieba's tokenizer the multi-character words of the developer glossary, for
    every user (code-search gloss and memory keywords alike, so both segment the same way):
    its general dictionary splits many of them across a neighbour (在线程里 → 在线 / 程里)."""
    try:
        from .devvocab import DEV_VOCABULARY

        for word in DEV_VOCABULARY:
            if len(word) > 1:
                tokenizer.add_word(word, freq=max(tokenizer.suggest_freq(word, tune=False),
                                                  DEV_WORD_FREQ))
    except Exception as exc:  # noqa: BLE001 - segmentation still works without the glossary
        logging.getLogger(__name__).warning("developer glossary not loaded into jieba: %s", exc)


def cut_words(text: str, home: HomePaths | None = None) -> list[str]:
    """jieba tokens of ``text`` with whitespace-only tokens dropped."""
    return [t for t in get_jieba(home).lcut(text) if t.strip()]
