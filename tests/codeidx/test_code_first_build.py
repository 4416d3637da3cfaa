"""A first index stopped midway (Ctrl+C in a 200,000-file repository, the embedder failing)
keeps what it wrote, and the next run continues it; but searches over it looked complete:
files it had not reached were simply missing. Until a first build has read every file, the
index's meta says so, and search_code, `paicli-tui search` (text and --json) and the TUI
panel add a note; the index command's Ctrl+C message says what was kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

import paicli_tui.core.embedders as embedders
from paicli_tui import cli
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.lance_store import FIRST_BUILD_UNFINISHED, index_location, open_index
from paicli_tui.core.code.search import UNFINISHED_NOTE, format_hits_for_model, search_project
from paicli_tui.core.contracts.embedder import EmbedderError

FILES = 30


class FailingEmbedder(HashEmbedder):
    """Raises ``error`` on its ``fail_at``-th call."""

    def __init__(self, fail_at: int, error: BaseException) -> None:
        super().__init__()
        self.fail_at, self.error, self.calls = fail_at, error, 0

    def embed(self, texts):
        self.calls += 1
        if self.calls == self.fail_at:
            raise self.error
        return super().embed(texts)


@pytest.fixture
def project(project_dir: Path) -> Path:
    for i in range(FILES):
        (project_dir / f"m{i}.py").write_text(
            f"def step{i}(x):\n    '''Handles the step case {i}.'''\n    return x + {i}\n")
    return project_dir


def _meta(settings, project: Path) -> dict[str, str]:
    return open_index(index_location(settings, project)).meta


def test_a_stopped_first_build_is_searchable_and_says_it_is_unfinished(settings,
                                                                       project: Path) -> None:
    with pytest.raises(EmbedderError):
        CodeIndexer(settings, project, FailingEmbedder(3, EmbedderError("down")),
                    batch_chunks=4).update()
    assert FIRST_BUILD_UNFINISHED in _meta(settings, project)
    response = search_project(settings, project, "step case", mode="text",
                              embedder=HashEmbedder())
    assert 0 < len({h.path for h in response.hits}) and response.note == UNFINISHED_NOTE
    assert format_hits_for_model(response).endswith(f"\n\nNote: {UNFINISHED_NOTE}.")
    assert response.to_json()["note"] == UNFINISHED_NOTE
    from paicli_tui.core.code.service import LocalCodeService
    from paicli_tui.ui.core_adapters import CodeAdapter

    panel = CodeAdapter(LocalCodeService(settings, project), settings, project)
    assert panel.search("step case", "text", 5).summary == UNFINISHED_NOTE
    summary = CodeIndexer(settings, project, HashEmbedder(), batch_chunks=4).update()
    assert summary.files_unchanged > 0 and summary.files_indexed < FILES  # continued
    assert FIRST_BUILD_UNFINISHED not in _meta(settings, project)
    again = search_project(settings, project, "step case", mode="text", embedder=HashEmbedder())
    assert again.note == "" and "Note:" not in format_hits_for_model(again)


def test_a_finished_first_build_has_no_note(settings, project: Path) -> None:
    CodeIndexer(settings, project, HashEmbedder()).update()
    assert FIRST_BUILD_UNFINISHED not in _meta(settings, project)
    assert search_project(settings, project, "step", mode="text",
                          embedder=HashEmbedder()).note == ""


def test_ctrl_c_in_a_first_build_says_what_was_kept(settings, project: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys) -> None:
    with pytest.raises(EmbedderError):  # a first build stopped earlier, then Ctrl+C in this one
        CodeIndexer(settings, project, FailingEmbedder(3, EmbedderError("down")),
                    batch_chunks=4).update()
    monkeypatch.setattr(embedders, "get_embedder",
                        lambda settings: FailingEmbedder(1, KeyboardInterrupt()))
    monkeypatch.chdir(project)
    assert cli.main(["index", "--json"]) != 0
    error = json.loads(capsys.readouterr().out)["message"]
    assert error == ("interrupted (Ctrl+C); the files indexed so far are kept and searchable "
                     "(searches say the index is unfinished): the same command finishes it")
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: HashEmbedder())
    assert cli.main(["search", "--mode", "text", "step case"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(f"Note: {UNFINISHED_NOTE}.")
