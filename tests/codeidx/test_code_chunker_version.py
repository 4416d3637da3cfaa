"""An index chunked by an older version of the chunker is read again once: every file is
chunked anew (so a fix such as a Javadoc kept across a blank line reaches files that did not
change), only text that changed is embedded again, and the index records the new version only
after the run wrote every file."""

from __future__ import annotations

from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

import paicli_tui.core.code.indexer as indexer
from paicli_tui.core.code.chunking import CHUNKER_VERSION
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.lance_store import index_location, open_index, write_meta

SOURCE = "def alpha():\n    '''First letter.'''\n    return 1\n"


def _meta(settings, root: Path) -> dict[str, str]:
    return dict(open_index(index_location(settings, root)).meta)


def _as_if_chunked_by(settings, root: Path, version: str | None) -> None:
    """Make the index look like an older chunker wrote it (before versions: no key)."""
    tables = open_index(index_location(settings, root))
    meta = {k: v for k, v in tables.meta.items() if k != "chunker"}
    write_meta(tables, meta if version is None else {**meta, "chunker": version})


@pytest.mark.parametrize("old", [None, "1"])
def test_an_older_chunking_is_redone_once_reusing_vectors(settings, project_dir: Path,
                                                          old) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (project_dir / name).write_text(SOURCE.replace("alpha", name[0]))
    embedder = HashEmbedder()
    first = CodeIndexer(settings, project_dir, embedder).update()
    assert first.rebuilt == "new index" and _meta(settings, project_dir)["chunker"] == \
        CHUNKER_VERSION
    _as_if_chunked_by(settings, project_dir, old)
    embedder.texts.clear()
    redo = CodeIndexer(settings, project_dir, embedder).update()
    assert redo.rebuilt == (f"chunking changed ({old or '1'} -> {CHUNKER_VERSION}): every "
                            "file read again, vectors of unchanged text reused")
    assert (redo.files_indexed, redo.files_unchanged) == (3, 0)
    assert (len(embedder.texts), redo.chunks_reused, redo.chunks_total) == (0, 3, 3)
    assert _meta(settings, project_dir)["chunker"] == CHUNKER_VERSION
    again = CodeIndexer(settings, project_dir, embedder).update()
    assert (again.rebuilt, again.files_indexed, again.files_unchanged) == (None, 0, 3)


def test_a_run_stopped_midway_reads_everything_again_next_time(settings, project_dir: Path,
                                                               monkeypatch) -> None:
    for name in ("a.py", "b.py"):
        (project_dir / name).write_text(SOURCE.replace("alpha", name[0]))
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    _as_if_chunked_by(settings, project_dir, "1")

    def broken(path: str, text: str):
        raise RuntimeError(f"parser exploded on {path}")

    with monkeypatch.context() as patch:
        patch.setattr(indexer, "chunk_file", broken)
        with pytest.raises(RuntimeError, match="parser exploded"):
            CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert _meta(settings, project_dir)["chunker"] == "1"  # not recorded: not done
    retry = CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert retry.rebuilt.startswith("chunking changed (1 -> ") and retry.files_indexed == 2
    assert _meta(settings, project_dir)["chunker"] == CHUNKER_VERSION


def test_a_new_embedder_rebuild_records_the_chunker_at_once(settings, project_dir: Path) -> None:
    (project_dir / "a.py").write_text(SOURCE)
    CodeIndexer(settings, project_dir, HashEmbedder("fake-a", 8)).update()
    _as_if_chunked_by(settings, project_dir, "1")
    summary = CodeIndexer(settings, project_dir, HashEmbedder("fake-b", 16)).update()
    assert "embedder changed" in summary.rebuilt
    assert _meta(settings, project_dir)["chunker"] == CHUNKER_VERSION


def test_a_file_deleted_before_the_rechunking_run_leaves_the_index(settings,
                                                                   project_dir: Path) -> None:
    for name in ("a.py", "b.py"):
        (project_dir / name).write_text(SOURCE.replace("alpha", name[0]))
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    _as_if_chunked_by(settings, project_dir, "1")
    (project_dir / "b.py").unlink()
    redo = CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert (redo.files_indexed, redo.files_deleted, redo.chunks_total) == (1, 1, 1)
