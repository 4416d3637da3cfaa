"""Attack table, files the program reads by itself (not on a tool's request), planted by a
hostile repository or a script the agent ran: a FIFO named ``.gitignore`` (any folder),
``.mcp.json`` or ``.paicli/.gitignore``, and sparse files claiming a gigabyte. Opening a FIFO
for reading waits for a writer forever (grep, glob and the index held for good, a session's
start too); a 1 GB sparse PAI.md took 4.8 s and 3 GB of memory to be cut to 24,000
characters. Each attempt runs in a child process with a deadline and an address-space limit,
so a hang or a giant read fails the test instead of holding it. One test per attempt."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from paicli_tui.core.code.grep import ripgrep_path

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
DEADLINE_S = 60
MEMORY_LIMIT = 1 << 30
"""The child's address space: the imports fit well within it, a 1 GB file read does not."""


def _in_child(code: str, project: Path) -> str:
    """Run ``code`` (with ``project`` bound) in a child process; its stdout."""
    prelude = ("import resource\n"
               f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))\n"
               f"from pathlib import Path\nproject = Path({str(project)!r})\n")
    try:
        done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                              capture_output=True, text=True, timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still waiting after {DEADLINE_S} s (blocked on the planted file)")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _sparse(path: Path, size: int = 1 << 30, head: bytes = b"") -> None:
    with path.open("wb") as handle:
        handle.write(head)
        handle.truncate(size)


@pytest.fixture
def project(project_dir: Path) -> Path:
    (project_dir / "src").mkdir()
    (project_dir / "src" / "app.py").write_text("needle = 1\n")
    return project_dir


GREP = """
from paicli_tui.core.code.grep import GrepOptions, grep_code
print(grep_code(project, GrepOptions("needle"), use_ripgrep={rg}).text)
"""
GLOB = """
from paicli_tui.core.code.globbing import glob_files
print(glob_files(project, "*.py").text)
"""


@pytest.mark.parametrize("where", [".gitignore", "src/.gitignore"])
@pytest.mark.parametrize("scan", [
    GREP.format(rg=False),
    pytest.param(GREP.format(rg=True), marks=pytest.mark.skipif(
        ripgrep_path() is None, reason="ripgrep not installed")),
    GLOB,
], ids=["grep-python", "grep-ripgrep", "glob"])
def test_a_fifo_named_gitignore_does_not_hold_a_scan(project: Path, where: str,
                                                     scan: str) -> None:
    os.mkfifo(project / where)
    assert "src/app.py" in _in_child(scan, project)


def test_a_fifo_named_mcp_json_is_reported_not_waited_on(project: Path) -> None:
    os.mkfifo(project / ".mcp.json")
    out = _in_child("""
        import tempfile
        from paicli_tui.core.mcp.config import project_servers
        from paicli_tui.paths import HomePaths
        found = project_servers(project, HomePaths(Path(tempfile.mkdtemp())))
        print(found.error, found.servers, found.approved)
    """, project)
    assert out.strip() == f"{project / '.mcp.json'} is not a regular file () False"


def test_a_fifo_planted_as_the_dot_dir_ignore_file_is_left_alone(project: Path) -> None:
    (project / ".paicli").mkdir()
    os.mkfifo(project / ".paicli" / ".gitignore")
    out = _in_child("""
        from paicli_tui.paths import keep_dot_dir_out_of_git
        keep_dot_dir_out_of_git(project / ".paicli")
        print("returned")
    """, project)
    assert out.strip() == "returned"


def test_a_sparse_gigabyte_pai_md_is_read_only_as_far_as_the_rules_cap(project: Path) -> None:
    _sparse(project / "PAI.md", head=b"# Rules\nUse tabs.\n")
    out = _in_child("""
        import tempfile
        from paicli_tui.core.memory.rules import load_project_rules
        from paicli_tui.paths import HomePaths
        rules = load_project_rules(project, HomePaths(Path(tempfile.mkdtemp())))
        print(len(rules.text), rules.truncated, rules.text.startswith("# Rules"))
    """, project)
    assert out.split() == ["24000", "True", "True"]


def test_a_sparse_gigabyte_gitignore_is_read_to_its_first_megabyte(project: Path) -> None:
    _sparse(project / ".gitignore", head=b"src/\n")
    assert _in_child(GLOB, project).strip() == "No files match '*.py'."  # its rule holds


def test_a_sparse_gigabyte_mcp_json_is_refused_by_its_size(project: Path) -> None:
    _sparse(project / ".mcp.json", head=b'{"mcpServers": {}}')
    out = _in_child("""
        import tempfile
        from paicli_tui.core.mcp.config import project_servers
        from paicli_tui.paths import HomePaths
        print(project_servers(project, HomePaths(Path(tempfile.mkdtemp()))).error)
    """, project)
    assert out.strip() == f"{project / '.mcp.json'} is larger than 1,000,000 bytes"


@pytest.mark.parametrize("plant", ["fifo", "sparse"])
def test_a_planted_go_mod_does_not_hold_the_graph(settings, tmp_path: Path, plant: str) -> None:
    """The graph reads go.mod to tell the project's Go packages from others' (exec.Command is
    not cobra's Command): a FIFO there held `paicli-tui graph` and the code_graph tool for
    good, and a sparse gigabyte was read whole."""
    from doubles.embedders import HashEmbedder

    from paicli_tui.core.code.indexer import CodeIndexer

    root = tmp_path / "proj"
    (root / "cmd").mkdir(parents=True)
    (root / "main.go").write_text('package main\n\nimport (\n\t"os/exec"\n\n'
                                  '\t"example.com/proj/cmd"\n)\n\nfunc run() {\n'
                                  '\tcmd.Command()\n\texec.Command("ls")\n}\n')
    (root / "cmd" / "cmd.go").write_text("package cmd\n\nfunc Command() {}\n")
    CodeIndexer(settings, root, HashEmbedder()).update()
    if plant == "fifo":
        os.mkfifo(root / "go.mod")
    else:
        _sparse(root / "go.mod", head=b"module example.com/proj\n")
    out = _in_child("""
        from paicli_tui.config import load_settings
        from paicli_tui.core.code.graph_query import relations_for
        found = relations_for(load_settings({}), project, "Command")
        print([(e.src, e.dst) for e in found.elsewhere])
    """, root)
    assert out.strip() == "[('run', 'exec.Command')]"


TESTS = Path(__file__).resolve().parents[1]
SWAPS = {"fifo": "os.mkfifo(late)",
         "sparse": "with late.open('wb') as handle: handle.truncate(1 << 30)"}
"""What replaces src/late.py after the walk listed it as a small regular file."""


@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_a_file_swapped_after_the_walk_does_not_hold_the_index(project: Path,
                                                               swap: str) -> None:
    """A file replaced between the walk and the read (a build writing it, a script the agent
    ran): the read believed the walk, so a FIFO held the index for good and a file grown to
    a gigabyte was read whole. It is skipped now, as a file too large or unreadable is."""
    (project / "src" / "late.py").write_text("late = 1\n")
    out = _in_child(f"""
        import os, sys
        sys.path.insert(0, {str(TESTS)!r})
        from doubles.embedders import HashEmbedder
        from paicli_tui.config import load_settings
        from paicli_tui.core.code.indexer import CodeIndexer
        late = project / "src" / "late.py"
        def swap_after_the_scan(event):
            if event.phase == "scan" and event.total and event.done == event.total:
                late.unlink()
                {SWAPS[swap]}
        summary = CodeIndexer(load_settings({{}}), project, HashEmbedder()).update(
            swap_after_the_scan)
        print(summary.files_indexed, summary.files_skipped)
    """, project)
    assert out.split() == ["1", "1"]  # src/app.py indexed, src/late.py skipped


def test_a_file_swapped_after_the_walk_does_not_hold_grep(project: Path) -> None:
    swap = "fifo"  # (its size is looked at just before the read; a FIFO opened waits)
    (project / "src" / "late.py").write_text("needle = 2\n")
    out = _in_child(f"""
        import os
        from paicli_tui.core.code import grep
        late = project / "src" / "late.py"
        listed = grep.walk_project_files

        def walk_then_swap(*args, **kwargs):
            for rel in listed(*args, **kwargs):
                if rel == "src/late.py":
                    late.unlink()
                    {SWAPS[swap]}
                yield rel

        grep.walk_project_files = walk_then_swap
        print(grep.grep_code(project, grep.GrepOptions("needle"), use_ripgrep=False).text)
    """, project)
    assert "src/app.py" in out and "src/late.py" not in out
