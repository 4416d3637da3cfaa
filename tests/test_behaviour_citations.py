"""The code cites its rules as ``behaviour §N``: every citation names a section that exists in
docs/behaviour.md, and nothing cites a document that is not in the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "behaviour.md"
CITATION = re.compile(r"behaviour §\s*(\d+)(?:\s*[–-]\s*(\d+))?")
SOURCES = [*(ROOT / "paicli_tui").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py"),
           *(ROOT / "docs").glob("*.md"), ROOT / "README.md"]


def sections() -> set[int]:
    return {int(n) for n in re.findall(r"^## §(\d+) ", DOC.read_text(encoding="utf-8"), re.M)}


def test_sections_are_numbered_one_to_eighteen() -> None:
    assert sections() == set(range(1, 19))


def test_every_citation_names_an_existing_section() -> None:
    known = sections()
    bad = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            first, last = int(match.group(1)), int(match.group(2) or match.group(1))
            if not set(range(first, last + 1)) <= known:
                bad.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert bad == []


def test_no_citation_of_a_document_outside_the_repository() -> None:
    outside = re.compile(r"SPEC(?:\.md)? ?§|SPEC\.md")
    hits = [str(p.relative_to(ROOT)) for p in SOURCES
            if outside.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert hits == []
