"""Query understanding for code search: language, English terms, the plan each ranker runs.

Heavy parts (jieba, the CC-CEDICT file) load on first use, never at import. The names below
are imported lazily too, so that a module of this package (the glossary, which the memory
layer's jieba set-up reads) can be imported without the planning code.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .language import QueryLanguage, detect_language
    from .plan import QueryPlan, plan_query, plan_query_async
    from .terms import code_terms, expand_identifiers, split_identifier

_EXPORTS = {
    "QueryLanguage": "language",
    "detect_language": "language",
    "QueryPlan": "plan",
    "plan_query": "plan",
    "plan_query_async": "plan",
    "code_terms": "terms",
    "expand_identifiers": "terms",
    "split_identifier": "terms",
}

__all__ = [
    "QueryLanguage",
    "QueryPlan",
    "code_terms",
    "detect_language",
    "expand_identifiers",
    "plan_query",
    "plan_query_async",
    "split_identifier",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
