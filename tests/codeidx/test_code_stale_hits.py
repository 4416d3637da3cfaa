"""Search hits from files changed since the index was built (core.code.stale): the line
ranges and source a search shows come from the index, so a file edited or deleted since was
shown as it had been, with nothing saying so. Each such hit is now marked, for the model
(search_code's text), the person (`paicli-tui search`) and --json."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

import paicli_tui.core.embedders as embedders
from paicli_tui import cli
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.search import format_hits_for_model, search_project

CART = ("package shop;\n\npublic class Cart {\n    public int total(int price, int tax) {\n"
        "        return price + tax;\n    }\n}\n")


def _touch(path: Path) -> None:
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))


def _edit(path: Path) -> None:
    path.write_text("// moved down\n\n" + CART)
    _touch(path)


@pytest.mark.parametrize(("change", "mark", "shown"), [
    (lambda path: None, "", ""),
    (_touch, "", ""),  # saved again unchanged: same content, not called changed
    (_edit, "changed", " (changed since the index was built: read the file, its lines may "
                       "have moved)"),
    (Path.unlink, "deleted", " (deleted since the index was built)"),
])
def test_a_hit_from_a_file_changed_since_indexing_says_so(settings, project_dir: Path, change,
                                                          mark: str, shown: str) -> None:
    cart = project_dir / "src" / "Cart.java"
    cart.parent.mkdir()
    cart.write_text(CART)
    (project_dir / "src" / "Other.java").write_text("class Other { int total() { return 0; } }\n")
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    change(cart)
    response = search_project(settings, project_dir, "total price tax", mode="text",
                              embedder=HashEmbedder())
    hit = next(h for h in response.hits if h.path == "src/Cart.java")
    other = next(h for h in response.hits if h.path == "src/Other.java")
    assert (hit.changed, other.changed) == (mark, "")
    assert response.to_json()["results"][response.hits.index(hit)].get("changed", "") == mark
    header = next(line for line in format_hits_for_model(response).splitlines()
                  if f" {hit.path}:" in line)
    assert header.endswith(f"{hit.kind} {hit.name}{shown}")


def test_the_search_command_says_a_file_changed(settings, project_dir: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys) -> None:
    cart = project_dir / "Cart.java"
    cart.write_text(CART)
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: HashEmbedder())
    monkeypatch.chdir(project_dir)
    assert cli.main(["index", "--quiet"]) == 0
    _edit(cart)
    capsys.readouterr()
    assert cli.main(["search", "--mode", "text", "total"]) == 0
    out = capsys.readouterr().out
    assert "   changed since the index was built: read the file, its lines may have moved\n" \
        in out
    assert cli.main(["search", "--mode", "text", "--json", "total"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["changed"] == "changed"


def test_the_tui_panel_says_how_many_results_changed(settings, project_dir: Path) -> None:
    from paicli_tui.core.code.service import LocalCodeService
    from paicli_tui.ui.core_adapters import CodeAdapter

    (project_dir / "Cart.java").write_text(CART)
    (project_dir / "Other.java").write_text("class Other { int total() { return 0; } }\n")
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    code = CodeAdapter(LocalCodeService(settings, project_dir), settings, project_dir)
    assert code.search("total", "text", 5).summary == ""
    _edit(project_dir / "Cart.java")
    results = code.search("total", "text", 5)
    assert results.summary == ("* 1 of 2 from files changed since the index was built "
                               "(/index refreshes it)")
    assert {hit.path: hit.changed for hit in results.hits} == {"Cart.java": "changed",
                                                               "Other.java": ""}


@pytest.mark.parametrize(("change", "said"), [
    (lambda path: None, ""),
    (_touch, ""),
    (_edit, "changed since the index was built: read the file, its lines may have moved"),
    (Path.unlink, "deleted since the index was built"),
])
def test_the_code_graph_says_which_of_its_files_changed(settings, project_dir: Path, change,
                                                        said: str) -> None:
    from paicli_tui.core.code.graph_query import format_relations, relations_for

    cart = project_dir / "Cart.java"
    cart.write_text(CART.replace("}\n}\n", "}\n    int checkout() { return total(1, 2); }\n}\n"))
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    change(cart)
    relations = relations_for(settings, project_dir, "total")
    text = format_relations(relations)
    if said:
        assert text.endswith(f"\nCart.java: {said} (`paicli-tui index` or /index refreshes "
                             "the graph)")
        assert relations.to_json()["changed"] == {"Cart.java": said.split(" ")[0]}
    else:
        assert "since the index was built" not in text and relations.changed == {}


def test_a_file_rewritten_in_the_same_tick_at_the_same_size_is_seen(settings,
                                                                    project_dir: Path) -> None:
    """A write right after the index read the file (an agent's edit during /index) can keep
    its size and, within the file system's clock tick, its time: the file is then checked by
    content, by the stale mark and by the next index."""
    cart = project_dir / "Cart.java"
    cart.write_text(CART)
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    recorded = cart.stat()
    cart.write_text(CART.replace("price + tax", "price - tax"))  # same size
    os.utime(cart, ns=(recorded.st_atime_ns, recorded.st_mtime_ns))  # same tick
    assert cart.stat().st_size == recorded.st_size
    response = search_project(settings, project_dir, "total price tax", mode="text",
                              embedder=HashEmbedder())
    assert next(h for h in response.hits if h.path == "Cart.java").changed == "changed"
    assert CodeIndexer(settings, project_dir, HashEmbedder()).update().files_indexed == 1
    response = search_project(settings, project_dir, "total price tax", mode="text",
                              embedder=HashEmbedder())
    hit = next(h for h in response.hits if h.path == "Cart.java")
    assert hit.changed == "" and "price - tax" in hit.source
