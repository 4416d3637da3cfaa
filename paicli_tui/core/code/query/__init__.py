"""Query understanding for code search: language, English terms, the plan each ranker runs.

Heavy parts (jieba, the CC-CEDICT file) load on first use, never at import.
"""

from __future__ import annotations

from .language import QueryLanguage, detect_language
from .plan import QueryPlan, plan_query, plan_query_async
from .terms import code_terms, expand_identifiers, split_identifier

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
