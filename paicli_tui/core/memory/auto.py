"""Save what extraction accepted: project scope, auto_extracted, unverified (behaviour §15)."""

from __future__ import annotations

from ..contracts.llm import TextCompleter
from .book import MemoryBook
from .entry import SCOPE_PROJECT, SOURCE_AUTO, MemoryEntry
from .extraction import Extraction, extract_facts


async def extract_and_save(book: MemoryBook, user_input: str, complete: TextCompleter
                           ) -> tuple[list[MemoryEntry], Extraction]:
    """Extract facts from the person's input and save the new ones. Duplicates and conflicts
    are skipped silently: automatic saves never refresh, replace or ask."""
    extraction = await extract_facts(user_input, complete)
    saved = []
    for quote in extraction.quotes:
        result = book.save(quote, scope=SCOPE_PROJECT, source=SOURCE_AUTO,
                           refresh_duplicate=False)
        if result.status == "saved" and result.entry is not None:
            saved.append(result.entry)
    return saved, extraction
