"""The incremental LanceDB index: unchanged files cost nothing, a changed file's chunks are
replaced (only changed text re-embedded), deleted files vanish with their edges, a different
embedder rebuilds, progress arrives as typed events."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

from paicli_tui.core.code.indexer import CodeIndexer, IndexProgress
from paicli_tui.core.code.lance_store import index_location, open_index
from paicli_tui.core.code.search import SearchError, search_project

FILES = 200


def _java_file(i: int, body_variant: str = "") -> str:
    return f"""package gen.p{i % 10};

import java.util.List;

/** Generated service number {i}. */
public class Service{i} extends Base{i % 3} {{
    private final Helper{(i + 1) % FILES} next = new Helper{(i + 1) % FILES}();

    /** Computes value {i}. */
    public int compute{i}(int x) {{
        return next.help(x) + {i}{body_variant};
    }}

    public String name() {{
        return "service-{i}";
    }}
}}
"""


@pytest.fixture
def big_project(tmp_path: Path) -> Path:
    root = tmp_path / "gen"
    for i in range(FILES):
        path = root / "src" / f"p{i % 10}" / f"Service{i}.java"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_java_file(i), encoding="utf-8")
    (root / "README.md").write_text("# Generated\n\nA generated Java project for tests.\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x00\x00")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "index.js").write_text("function skip() {}\n")
    return root


def _rows(settings, root: Path, path: str) -> tuple[int, int]:
    tables = open_index(index_location(settings, root))
    where = f"path = '{path}'"
    return (tables.chunks.search().where(where).limit(None).to_arrow().num_rows,
            tables.edges.search().where(where).limit(None).to_arrow().num_rows)


def test_incremental_index_embeds_only_what_changed(settings, big_project: Path) -> None:
    embedder = HashEmbedder()
    events: list[IndexProgress] = []
    first = CodeIndexer(settings, big_project, embedder).update(events.append)
    assert first.rebuilt == "new index"
    assert first.files_seen == FILES + 1  # the README; png and node_modules are not indexed
    assert first.files_indexed == FILES + 1
    assert first.chunks_total == FILES * 3 + 1  # class + 2 methods each, one README chunk
    # every chunk once, then the project's words for related-word search (vocabulary.py)
    assert len(embedder.texts) == first.chunks_embedded + first.vocabulary_words
    assert first.chunks_embedded == first.chunks_total and first.vocabulary_words > 0
    assert {e.phase for e in events} >= {"scan", "embed", "fulltext", "done"}
    embed_events = [e for e in events if e.phase == "embed"]
    assert embed_events[-1].done == embed_events[-1].total == FILES + 1  # files
    # the bar moves while a batch embeds: one event per slice of 64 texts (601 chunks in
    # batches of 512 -> 8 + 2 slices, each with a start and an end), never backwards
    assert [e.done for e in embed_events] == sorted(e.done for e in embed_events)
    assert len({e.done for e in embed_events}) >= 8
    assert embed_events[0].done == 0 and embed_events[0].detail.startswith("0/")
    assert events[[e.phase for e in events].index("parse")].done == 0  # before the first batch

    # nothing changed: nothing parsed, nothing embedded
    embedder.texts.clear()
    again = CodeIndexer(settings, big_project, embedder).update()
    assert (again.files_indexed, again.files_unchanged, len(embedder.texts)) == (0, FILES + 1, 0)

    # touched but same content: hashed, not parsed or embedded
    target = big_project / "src" / "p7" / "Service7.java"
    os.utime(target, ns=(1, 1))
    touched = CodeIndexer(settings, big_project, embedder).update()
    assert (touched.files_indexed, len(embedder.texts)) == (0, 0)

    # one method body changed: one file re-parsed, only the changed chunks re-embedded
    target.write_text(_java_file(7, " * 2"), encoding="utf-8")
    changed = CodeIndexer(settings, big_project, embedder).update()
    assert changed.files_indexed == 1
    assert 1 <= len(embedder.texts) <= 3
    assert all("Service7" in text for text in embedder.texts)
    assert changed.chunks_total == first.chunks_total
    assert _rows(settings, big_project, "src/p7/Service7.java")[0] == 3

    # deleted file: its chunks and edges are gone
    (big_project / "src" / "p8" / "Service8.java").unlink()
    deleted = CodeIndexer(settings, big_project, embedder).update()
    assert deleted.files_deleted == 1
    assert _rows(settings, big_project, "src/p8/Service8.java") == (0, 0)
    assert deleted.chunks_total == first.chunks_total - 3
    tables = open_index(index_location(settings, big_project))
    ids = tables.chunks.to_arrow().column("id").to_pylist()
    assert len(ids) == len(set(ids))


def test_a_different_embedder_rebuilds_and_search_says_so(settings, project_dir: Path) -> None:
    (project_dir / "a.py").write_text("def alpha():\n    '''First letter.'''\n    return 1\n")
    CodeIndexer(settings, project_dir, HashEmbedder("fake-a", 8)).update()
    with pytest.raises(SearchError, match="built with the embedder 'fake-a'.*paicli-tui index"):
        search_project(settings, project_dir, "alpha", mode="semantic",
                       embedder=HashEmbedder("fake-b", 16))
    other = HashEmbedder("fake-b", 16)
    summary = CodeIndexer(settings, project_dir, other).update()
    assert summary.rebuilt and "fake-a" in summary.rebuilt and "fake-b" in summary.rebuilt
    assert summary.chunks_embedded == summary.chunks_total == 1
    hits = search_project(settings, project_dir, "alpha", mode="semantic", embedder=other).hits
    assert [h.name for h in hits] == ["alpha()"]


def test_search_without_index_says_how_to_build_one(settings, project_dir: Path) -> None:
    with pytest.raises(SearchError, match="paicli-tui index"):
        search_project(settings, project_dir, "anything")


@pytest.mark.parametrize(("top_k", "expected"), [(None, 5), (1, 1), (30, 30), (99, 30), (0, 1)])
def test_top_k_default_5_max_30(settings, big_project: Path, top_k, expected) -> None:
    embedder = HashEmbedder()
    CodeIndexer(settings, big_project, embedder).update()
    response = search_project(settings, big_project, "compute service value", mode="hybrid",
                              top_k=top_k, embedder=embedder)
    assert len(response.hits) == expected


def test_text_search_finds_chinese_comments(settings, project_dir: Path) -> None:
    (project_dir / "Pay.java").write_text(
        "class Pay {\n    /** 计算订单的运费 */\n    int shippingFee(int weight) { return weight * 2; }\n"
        "    /** 生成发票编号 */\n    String invoiceNumber() { return \"x\"; }\n}\n",
        encoding="utf-8")
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    hits = search_project(settings, project_dir, "运费", mode="text").hits
    assert hits and hits[0].name == "Pay.shippingFee(int weight)"


def test_grep_mode_works_without_an_index_and_names_chunks_with_one(settings,
                                                                  project_dir: Path) -> None:
    (project_dir / "m.py").write_text("def parse_config(path):\n    return open(path).read()\n"
                                      "\n\ndef other():\n    return 2\n")
    plain = search_project(settings, project_dir, "parse_config", mode="grep").hits
    assert [(h.path, h.start_line, h.kind) for h in plain] == [("m.py", 1, "line")]
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    named = search_project(settings, project_dir, "parse_config", mode="grep").hits
    assert [(h.path, h.start_line, h.end_line, h.name) for h in named] == [
        ("m.py", 1, 2, "parse_config(path)")]


def test_a_parse_failure_stops_the_update_and_loses_nothing(settings, project_dir: Path,
                                                           monkeypatch) -> None:
    import paicli_tui.core.code.indexer as indexer

    (project_dir / "a.py").write_text("def a():\n    return 1\n")
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    (project_dir / "b.py").write_text("def b():\n    return 2\n")

    def broken(path: str, text: str):
        raise RuntimeError(f"parser exploded on {path}")

    with monkeypatch.context() as patch:
        patch.setattr(indexer, "chunk_file", broken)
        with pytest.raises(RuntimeError, match="parser exploded on b.py"):
            CodeIndexer(settings, project_dir, HashEmbedder()).update()
    # the failed file was never recorded, so the next run indexes it
    retry = CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert (retry.files_indexed, retry.chunks_total) == (1, 2)


def test_index_uri_setting_puts_the_index_elsewhere(settings, project_dir: Path,
                                                    tmp_path: Path) -> None:
    (project_dir / "a.py").write_text("def alpha():\n    return 1\n")
    elsewhere = settings.with_overrides(index_uri=str(tmp_path / "shared-index"))
    summary = CodeIndexer(elsewhere, project_dir, HashEmbedder()).update()
    assert summary.location == str(tmp_path / "shared-index")
    assert (tmp_path / "shared-index" / "chunks.lance").is_dir()
    assert not (project_dir / ".paicli" / "index").exists()
    hits = search_project(elsewhere, project_dir, "alpha", mode="text").hits
    assert [h.name for h in hits] == ["alpha()"]


@pytest.mark.parametrize(("rankers", "weights"), [
    (["text", "semantic"], {"text": 1.5, "semantic": 1.0}),
    (["text", "semantic", "semantic:en"], {"text": 1.5, "semantic": 0.5, "semantic:en": 0.5}),
    (["semantic", "semantic:en"], {"semantic": 0.5, "semantic:en": 0.5}),
    (["text"], {"text": 1.5}),
])
def test_fusion_gives_each_kind_of_evidence_one_vote(rankers, weights) -> None:
    # exact words first: full-text 1.5, the embedder's rankings share 1
    from paicli_tui.core.code.search import modality_weights

    assert modality_weights(dict.fromkeys(rankers, [])) == weights


def test_grep_mode_ranks_places_by_distinct_and_rarer_words(settings, project_dir: Path) -> None:
    common = "".join(f"def helper{i}(value):\n    return value\n\n\n" for i in range(6))
    (project_dir / "common.py").write_text(common)
    (project_dir / "target.py").write_text(
        "def load(value):\n    # read the yaml settings file\n    return value\n")
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    hits = search_project(settings, project_dir, "value from the yaml settings", mode="grep",
                          top_k=3).hits
    assert hits[0].name == "load(value)"  # three distinct words, two of them rare
    assert [h.ranks["grep"] for h in hits] == [1, 2, 3]


def test_a_class_hit_is_answered_by_its_best_ranked_member() -> None:
    from paicli_tui.core.code.fusion import rrf
    from paicli_tui.core.code.search import members_for_classes

    rows = {
        "cls": {"path": "a.py", "kind": "class", "name": "Cart", "parent": ""},
        "other": {"path": "b.py", "kind": "function", "name": "f()", "parent": ""},
        "m1": {"path": "a.py", "kind": "method", "name": "Cart.add(self)", "parent": "Cart"},
        "m2": {"path": "a.py", "kind": "method", "name": "Cart.pay(self)", "parent": "Cart"},
        "lone": {"path": "c.py", "kind": "class", "name": "Lone", "parent": ""},
        "elsewhere": {"path": "z.py", "kind": "method", "name": "Cart.x()", "parent": "Cart"},
    }
    fused = rrf({"text": ["cls", "other", "lone", "m2", "m1", "elsewhere"]})
    picked = [(item.id, via) for item, via in members_for_classes(fused, rows)]
    assert picked == [("m2", "Cart"), ("other", ""), ("lone", ""), ("m1", ""),
                      ("elsewhere", "")]


def test_go_members_may_live_in_another_file_of_the_package() -> None:
    from paicli_tui.core.code.fusion import rrf
    from paicli_tui.core.code.search import members_for_classes

    rows = {
        "type": {"path": "srv/server.go", "kind": "class", "name": "Server", "parent": "",
                 "language": "go"},
        "start": {"path": "srv/start.go", "kind": "method", "name": "Server.Start()",
                  "parent": "Server", "language": "go"},
    }
    picked = members_for_classes(rrf({"text": ["type", "start"]}), rows)
    assert [(item.id, via) for item, via in picked] == [("start", "Server")]


def test_small_changes_are_text_searchable_without_rebuilding_the_fts_index(
        settings, big_project: Path) -> None:
    embedder = HashEmbedder()
    CodeIndexer(settings, big_project, embedder).update()
    (big_project / "src" / "Zebra.java").write_text(
        "class Zebra {\n    /** Counts the stripes of a zebra. */\n"
        "    int stripes() { return 42; }\n}\n")
    events: list[IndexProgress] = []
    CodeIndexer(settings, big_project, embedder).update(events.append)
    assert "fulltext" not in {e.phase for e in events}  # 2 new rows of 603: no rebuild
    hits = search_project(settings, big_project, "zebra stripes", mode="text").hits
    assert hits[0].name == "Zebra.stripes()"
