"""Load jieba once, quietly, with its cache under PAICLI_HOME.

jieba writes its dictionary cache to the system temp dir and logs to stderr by default; both
are wrong for a full-screen app. Import is deferred until a caller first needs segmentation.
"""

from __future__ import annotations

import logging
import threading
from types import ModuleType

from ...paths import HomePaths

_lock = threading.Lock()
_jieba: ModuleType | None = None


def get_jieba(home: HomePaths | None = None) -> ModuleType:
    """The initialised jieba module (first call pays ~1 s to load the dictionary)."""
    global _jieba
    if _jieba is not None:
        return _jieba
    with _lock:
        if _jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            if home is not None:
                home.jieba_cache_dir.mkdir(parents=True, exist_ok=True)
                jieba.dt.tmp_dir = str(home.jieba_cache_dir)
            jieba.initialize()
            _add_developer_words(jieba)
            _jieba = jieba
    return _jieba


DEV_WORD_FREQ = 100_000
"""jieba frequency given to developer words: about that of a common everyday word, enough to
beat a split through a neighbour (把子|类, 屏幕显示) in text about code."""


def _add_developer_words(jieba: ModuleType) -> None:
    """Teach jieba the multi-character words of the developer glossary, for every user
    (code-search gloss and memory keywords alike, so both segment the same way): its general
    dictionary splits many of them across a neighbour (在线程里 → 在线 / 程里)."""
    try:
        from .devvocab import DEV_VOCABULARY

        for word in DEV_VOCABULARY:
            if len(word) > 1:
                jieba.add_word(word, freq=max(jieba.suggest_freq(word, tune=False),
                                              DEV_WORD_FREQ))
    except Exception as exc:  # noqa: BLE001 - segmentation still works without the glossary
        logging.getLogger(__name__).warning("developer glossary not loaded into jieba: %s", exc)


def cut_words(text: str, home: HomePaths | None = None) -> list[str]:
    """jieba tokens of ``text`` with whitespace-only tokens dropped."""
    return [t for t in get_jieba(home).lcut(text) if t.strip()]
