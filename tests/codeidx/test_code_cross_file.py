"""Full-text words from other files (core/code/cross_file.py): callers' names and a Go
method's type doc. The pure functions give exact sections; the indexer writes them after
every change so a full and an incremental build hold the same text, and no chunk is embedded
for them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.code.cross_file import (
    MAX_CALLERS,
    SECTION_MARK,
    caller_names,
    go_type_docs,
    sections,
    with_section,
)
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.lance_store import (
    CROSS_FILE,
    arrow_rows,
    index_location,
    open_index,
)
from paicli_tui.core.code.search import search_project


def _chunk(chunk_id: str, name: str, *, kind: str = "method", path: str = "q/Queue.java",
           parent: str = "", language: str = "java", doc: str = "") -> dict[str, str]:
    return {"id": chunk_id, "name": name, "kind": kind, "path": path, "parent": parent,
            "language": language, "doc": doc}


QUEUE = [
    _chunk("enq", "Queue.enqueue(E e)", parent="Queue"),
    _chunk("put", "Queue.put(E e)", parent="Queue"),
    _chunk("offer", "Queue.offer(E e)", parent="Queue"),
    _chunk("cls", "Queue", kind="class"),
    _chunk("help", "helper()", kind="function", path="util.py", language="python"),
    *[_chunk(f"get{i}", f"T{i}.get()", parent=f"T{i}") for i in range(4)],
]


@pytest.mark.parametrize(("calls", "expected"), [
    # put and offer call enqueue, qualified or not: enqueue is called by both, sorted
    ([("Queue.put", "Queue.enqueue"), ("Queue.offer", "enqueue")], {"enq": ["offer", "put"]}),
    # the same caller twice counts once
    ([("Queue.put", "enqueue"), ("Queue.put", "this.enqueue")], {"enq": ["put"]}),
    # recursion (a name calling itself) adds nothing
    ([("Queue.enqueue", "enqueue")], {}),
    # four chunks are named get: the call cannot say which one, none gets a caller
    ([("Queue.put", "map.get")], {}),
    # a class is not a callee (constructors are called through their own chunks)
    ([("Queue.put", "Queue")], {}),
    # a name no chunk carries (a library call) adds nothing
    ([("Queue.put", "System.arraycopy")], {}),
    # at most MAX_CALLERS callers, alphabetically first
    ([(f"c{i:02d}", "helper") for i in range(12)],
     {"help": [f"c{i:02d}" for i in range(MAX_CALLERS)]}),
])
def test_caller_names(calls, expected) -> None:
    assert caller_names(QUEUE, calls) == expected


def test_go_type_doc_reaches_methods_in_other_files_of_the_package_only() -> None:
    doc = "Command is just that, a command for your application.\n\nUsage: more detail."
    chunks = [
        _chunk("type", "Command", kind="class", path="cobra/command.go", language="go", doc=doc),
        _chunk("same", "Command.Name()", path="cobra/command.go", parent="Command",
               language="go"),
        _chunk("other", "Command.Help()", path="cobra/help.go", parent="Command",
               language="go"),
        _chunk("elsewhere", "Command.Run()", path="doc/run.go", parent="Command",
               language="go"),
        _chunk("func", "Execute()", kind="function", path="cobra/exec.go", language="go"),
        _chunk("java", "Command.help()", path="cobra/Help.java", parent="Command"),
    ]
    # the summary stops at the blank line; the type's own file already has it; another
    # folder is another package; a function has no type; Java members live in their class
    assert go_type_docs(chunks) == {
        "other": "Command is just that, a command for your application."}


def test_section_text() -> None:
    chunks = [_chunk("v", "validateFlagGroups(data)", kind="function", path="cobra/flags.go",
                     language="go", parent=""),
              _chunk("t", "Flags", kind="class", path="cobra/flags.go", language="go",
                     doc="Flags holds the options parsed."),
              _chunk("m", "Flags.Check()", path="cobra/check.go", parent="Flags", language="go")]
    calls = [("Command.ValidateFlagGroups", "validateFlagGroups"),
             ("Flags.Check", "validateFlagGroups")]
    assert sections(chunks, calls) == {
        # the callers' names, their words, then the stems that differ from the words
        "v": "Check ValidateFlagGroups\ncheck validate flag groups\nvalid group",
        # a Go method in another file than its type: the type's purpose, then its stems
        "m": "Flags holds the options parsed.\nflag hold option pars",
    }


@pytest.mark.parametrize(("fulltext", "section", "expected"), [
    ("own text", "put offer", f"own text{SECTION_MARK}put offer"),
    (f"own text{SECTION_MARK}old callers", "new", f"own text{SECTION_MARK}new"),
    (f"own text{SECTION_MARK}old callers", "", "own text"),
    ("own text", "", "own text"),
])
def test_with_section(fulltext: str, section: str, expected: str) -> None:
    assert with_section(fulltext, section) == expected


@given(own=st.text().filter(lambda t: SECTION_MARK not in t),
       first=st.text(), second=st.text())
def test_with_section_replaces_never_stacks(own: str, first: str, second: str) -> None:
    once = with_section(own, first)
    assert with_section(once, second) == with_section(own, second)
    assert with_section(once, "") == own


# --- the indexer keeps them current --------------------------------------------------------
STORE = '''def enqueue(items, item):
    """Add one item at the end."""
    items.append(item)
'''
API = '''from store import enqueue


def {name}(items, item):
    enqueue(items, item)
'''


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    stat = path.stat()  # a new mtime even within the file system's clock tick
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def _fulltexts(settings, root: Path) -> dict[tuple[str, str], str]:
    tables = open_index(index_location(settings, root))
    rows = tables.chunks.search().select(["path", "name", "fulltext"]).limit(None).to_list()
    return {(r["path"], r["name"]): r["fulltext"] for r in rows}


def _enqueue_text(settings, root: Path) -> str:
    return next(t for (path, name), t in _fulltexts(settings, root).items()
                if path == "store.py" and name.startswith("enqueue"))


def _assert_like_a_fresh_build_with_caller_offer_item(settings, root: Path, tmp_path: Path
                                                      ) -> None:
    """enqueue's words name its caller offer_item, every chunk's text is what a full build
    of the same files holds, and a question in the caller's words finds the callee."""
    assert _enqueue_text(settings, root).endswith(f"{SECTION_MARK}offer_item\noffer item")
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".paicli"))
    CodeIndexer(settings, fresh, HashEmbedder()).update()
    assert _fulltexts(settings, fresh) == _fulltexts(settings, root)
    found = search_project(settings, root, "offer item", mode="text", top_k=5,
                           embedder=HashEmbedder())
    assert any(h.path == "store.py" and h.name.startswith("enqueue") for h in found.hits)


def test_incremental_and_full_builds_hold_the_same_caller_words(settings, tmp_path: Path
                                                                 ) -> None:
    root = tmp_path / "proj"
    _write(root, "store.py", STORE)
    _write(root, "api.py", API.format(name="put"))
    first = CodeIndexer(settings, root, HashEmbedder()).update()
    assert first.chunks_cross_file == 1
    assert _enqueue_text(settings, root).endswith(f"{SECTION_MARK}put\nput")

    # the caller is renamed in its own file: enqueue's file is untouched, its words follow
    _write(root, "api.py", API.format(name="offer_item"))
    embedder = HashEmbedder()
    second = CodeIndexer(settings, root, embedder).update()
    assert second.files_indexed == 1 and second.files_unchanged == 1
    assert second.chunks_cross_file == 1
    assert all("enqueue(items, item):" not in t for t in embedder.texts)  # not re-embedded
    _assert_like_a_fresh_build_with_caller_offer_item(settings, root, tmp_path)

    # nothing changed: nothing rewritten; the caller's file deleted: the words go
    assert CodeIndexer(settings, root, HashEmbedder()).update().chunks_cross_file == 0
    (root / "api.py").unlink()
    third = CodeIndexer(settings, root, HashEmbedder()).update()
    assert third.chunks_cross_file == 1
    assert SECTION_MARK not in _enqueue_text(settings, root)


def test_an_index_from_before_gets_the_words_without_embedding(settings, tmp_path: Path
                                                                ) -> None:
    root = tmp_path / "proj"
    _write(root, "store.py", STORE)
    _write(root, "api.py", API.format(name="put"))
    CodeIndexer(settings, root, HashEmbedder()).update()
    tables = open_index(index_location(settings, root))
    rows = tables.chunks.search().limit(None).to_list()
    for row in rows:  # as an older build left it: no section, no side table
        row["fulltext"] = with_section(row["fulltext"], "")
    tables.chunks.merge_insert("id").when_matched_update_all().execute(
        arrow_rows(rows, tables.chunks))
    tables.db.drop_table(CROSS_FILE)
    assert SECTION_MARK not in _enqueue_text(settings, root)

    again = CodeIndexer(settings, root, HashEmbedder()).update()
    assert again.files_indexed == 0 and again.chunks_embedded == 0
    assert again.chunks_cross_file == 1
    assert _enqueue_text(settings, root).endswith(f"{SECTION_MARK}put\nput")
    assert CodeIndexer(settings, root, HashEmbedder()).update().chunks_cross_file == 0


@pytest.mark.parametrize("stop_at", ["_refresh_cross_file", "_refresh_fulltext"])
def test_a_run_stopped_before_the_words_are_written_is_finished_by_the_next(
        settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_at: str) -> None:
    """A run killed after its files were recorded but before the callers' words were
    rewritten (the files then look unchanged): the next run, with nothing changed on disk,
    still leaves the text a fresh full build holds."""
    root = tmp_path / "proj"
    _write(root, "store.py", STORE)
    _write(root, "api.py", API.format(name="put"))
    CodeIndexer(settings, root, HashEmbedder()).update()
    # enqueue's own file changes (its row is written again, without words), and its caller
    _write(root, "store.py", STORE.replace("Add one item", "Append one item"))
    _write(root, "api.py", API.format(name="offer_item"))

    def killed(*args, **kwargs):
        raise SystemExit("killed")

    with monkeypatch.context() as patch:
        patch.setattr(CodeIndexer, stop_at, killed)
        with pytest.raises(SystemExit):
            CodeIndexer(settings, root, HashEmbedder()).update()
    again = CodeIndexer(settings, root, HashEmbedder()).update()
    assert again.files_indexed == 0 and again.chunks_embedded == 0
    _assert_like_a_fresh_build_with_caller_offer_item(settings, root, tmp_path)

