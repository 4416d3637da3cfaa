"""The counts line an index run ends with (`paicli-tui index`, /index in the TUI): every
number is written the one way, thousands separated, so the 1,003 chunks of a run are not
'(1003 embedded' beside them."""

from __future__ import annotations

import pytest

from paicli_tui.core.code.indexer import IndexSummary


@pytest.mark.parametrize(("fields", "counts"), [
    ({"files_seen": 6, "files_indexed": 6, "chunks_total": 1_003, "chunks_embedded": 1_003,
      "edges_total": 1_502},
     "6 files (6 parsed, 0 unchanged, 0 removed, 0 skipped): 1,003 chunks (1,003 embedded, "
     "0 reused, 0 data blocks left out), 1,502 graph edges"),
    ({"files_seen": 200_000, "files_indexed": 1_204, "files_unchanged": 198_796,
      "files_deleted": 12_000, "files_skipped": 3_500, "chunks_total": 2_000_000,
      "chunks_embedded": 25_000, "chunks_reused": 1_975_000, "data_chunks_skipped": 4_000},
     "200,000 files (1,204 parsed, 198,796 unchanged, 12,000 removed, 3,500 skipped): "
     "2,000,000 chunks (25,000 embedded, 1,975,000 reused, 4,000 data blocks left out), "
     "0 graph edges"),
    ({"files_seen": 1, "files_indexed": 1, "chunks_total": 1, "chunks_embedded": 1},
     "1 file (1 parsed, 0 unchanged, 0 removed, 0 skipped): 1 chunk (1 embedded, 0 reused, "
     "0 data blocks left out), 0 graph edges"),
])
def test_every_count_separates_its_thousands(fields: dict[str, int], counts: str) -> None:
    summary = IndexSummary(seconds=21.6, embedder="use", **fields)
    assert summary.counts() == f"{counts} in 21.6s with use"
