"""A project cannot point the program's own folder out of itself, nor jam it.

The program writes into `<project>/.paicli/`: the code index, its lock and a `.gitignore`
holding `*`. A repository can ship `.paicli` (or `.paicli/index`, `.paicli/index.lock`,
`.paicli/.gitignore`) as a link to a folder of its choosing, `../..` being the person's home
for a clone in `~/src/x`. The index then landed there, with a lock file and a `.gitignore` that
hides every file of that folder from git. Each row plants one link: nothing is written outside,
and indexing fails with a reason naming the link and `index_uri`.
"""

from __future__ import annotations

import os
import subprocess
import threading

import pytest
from doubles.embedders import HashEmbedder

from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.paths import LeadsOutside, keep_dot_dir_out_of_git


def link_dot_dir(root, outside) -> None:
    os.symlink(os.path.relpath(outside, root), root / ".paicli")


def link_index(root, outside) -> None:
    (root / ".paicli").mkdir()
    os.symlink(os.path.relpath(outside, root / ".paicli"), root / ".paicli" / "index")


def link_lock(root, outside) -> None:
    (root / ".paicli").mkdir()
    os.symlink(os.path.relpath(outside / "index.lock", root / ".paicli"),
               root / ".paicli" / "index.lock")


@pytest.fixture
def places(tmp_path):
    root, outside = tmp_path / "project", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.py").write_text("def hello():\n    return 1\n")
    return root, outside


@pytest.mark.parametrize("plant,named", [(link_dot_dir, ".paicli/index"),
                                         (link_index, ".paicli/index"),
                                         (link_lock, ".paicli/index.lock")])
def test_the_index_is_never_written_through_a_link_out(plant, named, places,
                                                        settings) -> None:
    root, outside = places
    plant(root, outside)
    with pytest.raises(LeadsOutside) as raised:
        CodeIndexer(settings, root, HashEmbedder()).update()
    assert str(raised.value).startswith(f"{named} leads outside the project")
    assert "index_uri" in str(raised.value)
    assert sorted(os.listdir(outside)) == []


def test_a_dangling_gitignore_link_is_not_followed(places) -> None:
    root, outside = places
    (root / ".paicli").mkdir()
    os.symlink(os.path.relpath(outside / ".gitignore", root / ".paicli"),
               root / ".paicli" / ".gitignore")
    keep_dot_dir_out_of_git(root / ".paicli")
    assert sorted(os.listdir(outside)) == []


def test_a_link_that_stays_inside_still_indexes(places, settings) -> None:
    """`.paicli -> build/paicli` (inside the project) is the person's own arrangement."""
    root, outside = places
    (root / "build" / "paicli").mkdir(parents=True)
    os.symlink("build/paicli", root / ".paicli")
    summary = CodeIndexer(settings, root, HashEmbedder()).update()
    assert summary.files_indexed == 1
    assert (root / "build" / "paicli" / "index").is_dir()
    assert (root / "build" / "paicli" / ".gitignore").read_text() == "*\n"
    assert sorted(os.listdir(outside)) == []


def test_a_link_into_the_git_folder_is_refused(places, settings) -> None:
    """`.paicli -> .git` stays inside the project, but made the index lock `.git/index.lock`,
    git's own lock: left after the build, every `git add` and `git commit` failed ("Another
    git process seems to be running") until the person found and removed it."""
    root, _ = places
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "a.py"], check=True)
    os.symlink(".git", root / ".paicli")
    with pytest.raises(LeadsOutside) as raised:
        CodeIndexer(settings, root, HashEmbedder()).update()
    assert str(raised.value).startswith(".paicli/index leads into the repository's .git folder")
    assert not (root / ".git" / "index.lock").exists()
    assert not (root / ".git" / ".gitignore").exists()
    (root / "a.py").write_text("def hello():\n    return 2\n")
    added = subprocess.run(["git", "-C", str(root), "add", "a.py"], capture_output=True,
                           text=True)
    assert added.returncode == 0, added.stderr


def test_a_fifo_shipped_as_the_index_lock_is_refused_at_once(places, settings) -> None:
    """Opening a FIFO for writing waits for a reader: every index build hung for good."""
    root, _ = places
    (root / ".paicli").mkdir()
    os.mkfifo(root / ".paicli" / "index.lock")
    outcome: list[BaseException | None] = []

    def build() -> None:
        try:
            CodeIndexer(settings, root, HashEmbedder()).update()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=build, daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # release the writer's open so the thread can end
        os.close(os.open(root / ".paicli" / "index.lock", os.O_RDONLY | os.O_NONBLOCK))
        pytest.fail("the index build waited on the FIFO")
    (error,) = outcome
    assert isinstance(error, OSError) and "index.lock is not a regular file" in str(error)
