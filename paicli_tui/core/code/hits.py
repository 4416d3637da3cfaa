"""What a code search answers: the hits and the response around them (search and grep alike)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SearchHit:
    path: str
    start_line: int
    end_line: int
    name: str
    kind: str
    score: float
    language: str = ""
    signature: str = ""
    source: str = ""
    id: str = ""
    ranks: dict[str, int | None] = field(default_factory=dict)
    via: str = ""
    """The class whose hit led to this member (see :func:`members_for_classes`)."""
    via_declaration: str = ""
    """The bodiless declaration (interface or abstract method) whose hit led to this
    implementation (see core.code.declarations)."""
    doc_sentence: str = ""
    """The doc sentence by which the multilingual embedder ranked this hit, when that
    reading ranked it higher than its chunk text (core.code.doc_sentences)."""
    match_line: int = 0
    """grep mode: the line that matched best (0 in other modes)."""
    match_text: str = ""
    """grep mode: that line's text, stripped."""
    doc: str = ""
    """The chunk's doc comment (for the rerank's card; not printed)."""
    rerank: int | None = None
    """The light model's place for this hit (core.code.rerank), None when it did not
    choose it or did not run."""
    changed: str = ""
    """"changed" or "deleted" when the hit's file is no longer what the index read
    (core.code.stale), '' when it is."""

    def to_json(self, *, explain: bool = False, with_source: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "start_line": self.start_line,
                                "end_line": self.end_line, "name": self.name,
                                "kind": self.kind, "score": round(self.score, 6)}
        if explain:
            data["ranks"] = dict(self.ranks)
            if self.via:
                data["via_class"] = self.via
            if self.via_declaration:
                data["via_declaration"] = self.via_declaration
            if self.doc_sentence:
                data["doc_sentence"] = self.doc_sentence
            if self.rerank is not None:
                data["rerank"] = self.rerank
        if self.match_line:
            data["match_line"], data["match_text"] = self.match_line, self.match_text
        if self.changed:
            data["changed"] = self.changed
        if with_source:
            data["source"] = self.source
        return data


@dataclass
class SearchResponse:
    query: str
    mode: str
    hits: list[SearchHit] = field(default_factory=list)
    plan: dict[str, Any] = field(default_factory=dict)
    """What each ranker was asked (for --explain)."""
    seconds: float = 0.0
    note: str = ""
    match_lines: int = 0
    """grep mode: every line that matched a query word (before ranking and top_k)."""
    match_files: int = 0
    """grep mode: the files those lines are in."""
    index_version: str = ""
    """The index and its table version the hits came from (the rerank cache's key)."""
    rerank: Any = None
    """What the light model's rerank did (core.code.rerank.RerankOutcome), None when the
    search never considered it."""

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"query": self.query, "mode": self.mode,
                                "results": [h.to_json(explain=explain) for h in self.hits]}
        if self.mode == "grep":
            data["matches"] = {"lines": self.match_lines, "files": self.match_files}
        if explain:
            data["plan"] = self.plan
        if self.rerank is not None and (explain or self.rerank.status != "skipped"):
            data["rerank"] = self.rerank.to_json()
        if self.note:
            data["note"] = self.note
        return data
