"""Which language a search question is written in: English, Chinese, or a mix."""

from __future__ import annotations

import re
from typing import Literal

QueryLanguage = Literal["en", "zh", "mixed"]

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


def detect_language(text: str) -> QueryLanguage:
    """``en`` without any Chinese character; ``zh`` when Chinese carries the question (an
    embedded identifier or acronym such as ``FORCE_COLOR`` does not change that); ``mixed``
    when there are at least as many English words as Chinese words (about two characters
    each)."""
    cjk = len(_CJK_CHAR.findall(text))
    if cjk == 0:
        return "en"
    english_words = len(_ASCII_WORD.findall(text))
    if english_words == 0 or english_words * 2 < cjk:
        return "zh"
    return "mixed"
