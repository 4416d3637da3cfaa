"""Attack table, patterns and file names: a regex or glob from the model, a .gitignore line
from the repository, or a file name made of any bytes never hangs, crashes or hides a file.
One test per attempt, named after it."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from paicli_tui.core.code.globbing import glob_files
from paicli_tui.core.code.grep import GrepError, GrepOptions, grep_code, ripgrep_path
from paicli_tui.core.code.ignore import parse_gitignore, walk_project_files
from paicli_tui.core.code.patterns import GlobPattern, ScanCancelled, ScanControl
from paicli_tui.core.code.tools import GrepCodeTool
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext

BACKENDS = [False, pytest.param(True, marks=pytest.mark.skipif(
    ripgrep_path() is None, reason="ripgrep not installed"))]


@pytest.fixture
def evil_lines(project_dir: Path) -> Path:
    (project_dir / "evil.txt").write_text(("a" * 60 + "!\n") * 50)
    (project_dir / "ok.txt").write_text("needle here\n")
    return project_dir


def test_grep_nested_quantifier_stops_with_simplify_the_pattern(evil_lines: Path) -> None:
    started = time.perf_counter()
    with pytest.raises(GrepError, match="simplify the pattern"):
        grep_code(evil_lines, GrepOptions(r"(a|aa)+$"), use_ripgrep=False)
    assert time.perf_counter() - started < 60  # a hang guard, not a speed test


def test_grep_nested_quantifier_tool_reports_failed(evil_lines: Path, settings,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # ripgrep's engine is linear anyway; the Python scanner is the one that could hang
    monkeypatch.setattr("paicli_tui.core.code.grep.ripgrep_path", lambda: None)
    context = ToolContext(project_root=evil_lines, settings=settings, session=SessionState("s"))
    out = asyncio.run(GrepCodeTool(evil_lines).run({"pattern": r"(x+x+)+y|(a|aa)+$"}, context))
    assert out.status == "failed" and "simplify the pattern" in out.content


def test_grep_cancelled_turn_stops_the_scan(evil_lines: Path) -> None:
    control = ScanControl(budget_s=60)
    outcome: list[BaseException] = []

    def scan() -> None:
        try:
            grep_code(evil_lines, GrepOptions(r"(a|aa)+$"), use_ripgrep=False, control=control)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    # a regex slice can run out before a sleep here ends on a loaded machine, so the turn
    # is cancelled as the scan starts: the scan must notice and stop, not report or go on
    control.cancel.set()
    worker = threading.Thread(target=scan)
    worker.start()
    worker.join(30)
    assert not worker.is_alive()
    assert outcome and isinstance(outcome[0], ScanCancelled)


async def test_grep_tool_cancel_sets_the_scan_flag(evil_lines: Path, settings,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    context = ToolContext(project_root=evil_lines, settings=settings, session=SessionState("s"))
    seen: list[ScanControl] = []
    started = threading.Event()

    def long_scan(root, options, *, control: ScanControl):
        seen.append(control)
        started.set()
        control.cancel.wait(20)  # a scan that runs until someone stops it
        control.check()

    monkeypatch.setattr("paicli_tui.core.code.tools.grep_code", long_scan)
    task = asyncio.ensure_future(GrepCodeTool(evil_lines).run({"pattern": r"(a|aa)+$"},
                                                              context))
    assert await asyncio.to_thread(started.wait, 20)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen and seen[0].cancel.is_set()


def test_glob_many_stars_against_long_name_is_linear(project_dir: Path) -> None:
    (project_dir / ("a" * 200)).write_text("x")
    started = time.perf_counter()
    result = glob_files(project_dir, "*a" * 12 + "*b")
    assert result.paths == []
    assert time.perf_counter() - started < 30  # a hang guard, not a speed test
    assert glob_files(project_dir, "*a" * 12 + "*").paths == ["a" * 200]


def test_gitignore_many_stars_line_does_not_hang_index_grep_glob(project_dir: Path,
                                                                 settings) -> None:
    (project_dir / ".gitignore").write_text("*a" * 15 + "*b\n")
    (project_dir / ("a" * 200 + ".py")).write_text("def f():\n    return 1\n")
    (project_dir / "keep.py").write_text("def keep():\n    return 2\n")
    started = time.perf_counter()
    files = list(walk_project_files(project_dir))
    assert sorted(files) == sorted([".gitignore", "a" * 200 + ".py", "keep.py"])
    assert grep_code(project_dir, GrepOptions("return"), use_ripgrep=False).total == 2
    assert len(glob_files(project_dir, "*.py").paths) == 2
    from paicli_tui.core.code.indexer import CodeIndexer

    summary = CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert summary.files_indexed == 2
    assert time.perf_counter() - started < 30


# A repository's .gitignore of 1 MB (some 70,000 lines) was matched rule by rule for every
# path: 50 ms a path, so each grep, glob and index run of a few thousand files took minutes.
# Each rule is filed under the literal text it needs (below), so a path is tried against a few
# rules; the cost no longer grows with the files times the lines.
def test_a_gitignore_of_a_megabyte_does_not_cost_minutes_a_scan(project_dir: Path) -> None:
    from doubles.one_pass import assert_read_in_one_pass

    (project_dir / ".gitignore").write_text(
        "".join(f"build{n:05d}/*.o\n" for n in range(70_000)) + "!keep/\n*.tmp\n")
    (project_dir / "src").mkdir()
    for n in range(5_000):
        (project_dir / "src" / f"module_{n}.py").write_text("x = 1\n")

    def scan() -> None:  # the walk grep_code, glob_files and the index share
        assert sum(1 for _ in walk_project_files(project_dir, "src")) == 5_000

    assert_read_in_one_pass(scan)


# Leading wildcards are no better: 20,000 rules such as ``*name123*`` (three wildcards, so
# walked state by state in Python) took 0.4 s a path, each path tried against every rule.
# A rule is now filed under the literal text it needs, and a path is tried only against the
# rules filed under its own substrings: this counts the rules tried, not the seconds.
@pytest.mark.parametrize(("line", "ignored", "kept"), [
    ("*name{n}*", "src/a_name19999_b.java", "src/File.java"),
    ("**/gen{n}/*.log", "x/gen7/out.log", "x/gen7/out.txt"),
    ("*.ext{n}", "docs/readme.ext12345", "docs/readme.ext"),
    ("build{n:05d}/*.o", "build00042/x.o", "build00042/x.c"),
])
def test_tens_of_thousands_of_rules_are_not_each_tried_on_every_path(
        line: str, ignored: str, kept: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from paicli_tui.core.code.ignore import IgnoreIndex, IgnoreMatcher, IgnoreRule

    rules = parse_gitignore("".join(line.format(n=n) + "\n" for n in range(20_000)))
    matcher = IgnoreMatcher([IgnoreIndex.build(rules, "")])
    tried: list[str] = []
    matches = IgnoreRule.matches
    monkeypatch.setattr(IgnoreRule, "matches",
                        lambda rule, path, is_dir: tried.append(path) or matches(rule, path, is_dir))
    assert matcher.is_ignored(ignored, False) and not matcher.is_ignored(kept, False)
    assert len(tried) <= 20  # of 20,000: only rules whose literal text the path holds


def test_a_line_repeated_is_tried_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from paicli_tui.core.code.ignore import IgnoreIndex, IgnoreMatcher, IgnoreRule

    rules = parse_gitignore("*.log\n" * 20_000 + "!keep.log\n/*.log\n")
    matcher = IgnoreMatcher([IgnoreIndex.build(rules, "")])
    tried: list[str] = []
    matches = IgnoreRule.matches
    monkeypatch.setattr(IgnoreRule, "matches",
                        lambda rule, path, is_dir: tried.append(path) or matches(rule, path, is_dir))
    assert not matcher.is_ignored("src/a.log.txt", False)
    assert matcher.is_ignored("src/a.log", False) and matcher.is_ignored("keep.log", False)
    assert not matcher.is_ignored("src/keep.log", False)  # the negation, then no anchored match
    assert len(tried) <= 8  # three distinct rules, not 20,000 copies of one


def test_rules_are_filed_under_their_longest_literal_text() -> None:
    from paicli_tui.core.code.ignore import IgnoreIndex

    index = IgnoreIndex.build(parse_gitignore("*a*name1*\n!keep/\n*\n?[ab]\nvery_long_name\n"), "")
    assert index.by_key == {"name1": [0], "keep": [1], "ong_name": [4]}
    assert index.unkeyed == [2, 3] and index.key_lengths == (4, 5, 8)


@settings_(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["a*", "*.o", "b/", "!a1", "a/b", "/c?", "**/d", "!b/",
                                 "[ab]x", "*a*a*b", "e\\*", "#x", "\\!f"]), max_size=8),
       st.lists(st.sampled_from(["a", "a1", "b", "c1", "d", "x.o", "ax", "bx", "e*", "!f",
                                 "aab"]), min_size=1, max_size=3).map("/".join),
       st.booleans(), st.sampled_from(["", "a", "a/b"]))
def test_filed_rules_decide_as_the_rules_one_by_one(lines: list[str], path: str,
                                                    is_dir: bool, base: str) -> None:
    from paicli_tui.core.code.ignore import IgnoreIndex, IgnoreMatcher

    rules = parse_gitignore("\n".join(lines), base)
    one_by_one = False
    for rule in rules:
        if rule.matches(path, is_dir):
            one_by_one = not rule.negate
    assert IgnoreMatcher([IgnoreIndex.build(rules, base)]).is_ignored(path, is_dir) is one_by_one


@pytest.mark.parametrize("line", ["[z-a]", "[z-a].py", "[]", "[!]", "x[", "[[:bogus:]]",
                                  "\\", "[\\", "**/[9-0]/**"])
def test_gitignore_lines_git_tolerates_never_raise(project_dir: Path, line: str) -> None:
    (project_dir / ".gitignore").write_text(line + "\n")
    (project_dir / "a.py").write_text("x = 1\n")
    assert "a.py" in list(walk_project_files(project_dir))
    assert grep_code(project_dir, GrepOptions("x = 1"), use_ripgrep=False).total == 1
    assert glob_files(project_dir, "*.py").paths == ["a.py"]


def test_gitignore_reversed_range_matches_nothing_like_git() -> None:
    rules = parse_gitignore("[z-a]\nb[z-ac]\n")
    assert not rules[0].matches("m", False)
    assert rules[1].matches("bc", False) and not rules[1].matches("bm", False)


@pytest.mark.parametrize(("glob", "path", "matches"), [
    ("*a*a*a*b", "xaxaxab", True), ("*a*a*a*b", "aaaa", False),
    ("**/x/**/*.py", "a/x/b/c.py", True), ("**/x/**/*.py", "x/c.py", True),
    ("**/x/**/*.py", "a/y/c.py", False), ("a*b*c*d", "a/b/c/d", False),
    ("[!a]*[0-9]*z", "b1z", True), ("[!a]*[0-9]*z", "a1z", False),
    ("*[[:digit:]]*[x]*", "q7rx", True),
])
def test_linear_glob_walk_agrees_with_gitignore_meaning(glob: str, path: str,
                                                        matches: bool) -> None:
    pattern = GlobPattern(glob)
    # the set-of-states walk (used past two wildcards) and the C engine agree
    assert pattern._walk(path) is matches
    assert pattern.fullmatch(path) is matches


@pytest.mark.parametrize("use_rg", BACKENDS)
def test_non_utf8_file_name_is_grepped_and_shown_escaped(project_dir: Path,
                                                         use_rg: bool) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (project_dir / name).write_text("needle = 1\n")
    result = grep_code(project_dir, GrepOptions("needle"), use_ripgrep=use_rg)
    assert result.total == 1
    assert result.text.startswith("caf\\xe9.py:1:needle")
    result.text.encode("utf-8")  # printable, storable, JSON-able


def test_non_utf8_file_name_in_glob_and_list_dir(project_dir: Path, settings) -> None:
    from paicli_tui.core.agent.tools.files import ListDirTool, ReadFileTool

    (project_dir / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    (project_dir / "line\nbreak.py").write_text("y = 2\n")
    assert glob_files(project_dir, "*.py").text == "caf\\xe9.py\nline\\x0abreak.py"
    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s"))
    listed = asyncio.run(ListDirTool().run({"path": "."}, context))
    assert "caf\\xe9.py" in listed.content and "line\\x0abreak.py" in listed.content
    read = asyncio.run(ReadFileTool().run({"path": "caf\\xe9.py"}, context))
    assert read.status == "done" and "x = 1" in read.content


def test_non_utf8_file_name_does_not_break_index_or_search(project_dir: Path,
                                                           settings) -> None:
    from paicli_tui.core.code.indexer import CodeIndexer
    from paicli_tui.core.code.search import search_project

    (project_dir / os.fsdecode(b"caf\xe9.py")).write_text("def brew_coffee():\n    pass\n")
    (project_dir / "tea.py").write_text("def brew_tea():\n    pass\n")
    summary = CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert summary.files_indexed == 2
    hits = search_project(settings, project_dir, "brew_coffee", mode="text",
                          embedder=HashEmbedder()).hits
    assert hits and hits[0].path == "caf\\xe9.py"
    # a second run sees the same file as unchanged (same key both times)
    again = CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert again.files_unchanged == 2 and again.files_deleted == 0


def test_symlink_loop_does_not_empty_list_dir(project_dir: Path, settings) -> None:
    from paicli_tui.core.agent.tools.files import ListDirTool

    (project_dir / "real.txt").write_text("hi\n")
    os.symlink("loop_b", project_dir / "loop_a")
    os.symlink("loop_a", project_dir / "loop_b")
    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s"))
    out = asyncio.run(ListDirTool().run({"path": ".", "depth": 3}, context))
    assert "real.txt" in out.content
    assert "loop_a" in out.content and "link loop" in out.content


_NAME_BYTES = st.builds(
    lambda stem, suffix: stem + suffix,
    st.binary(min_size=1, max_size=60).filter(
        lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b"..")
        and not b.startswith((b".git", b".paicli", b".hg", b".svn"))),
    st.sampled_from([b".py", b".txt", b".md", b""]))


@settings_(max_examples=8, deadline=None,
           suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(raw=_NAME_BYTES)
def test_property_any_bytes_file_name_survives_index_search_grep(tmp_path_factory, raw: bytes,
                                                                 settings) -> None:
    from paicli_tui.core.code.chunking import language_of
    from paicli_tui.core.code.indexer import CodeIndexer
    from paicli_tui.core.code.search import search_project
    from paicli_tui.core.text.fsnames import display_name, resolve_shown

    root = tmp_path_factory.mktemp("anyname")
    name = os.fsdecode(raw)
    try:
        (root / name).write_text("def zebra_marker():\n    return 1\n")
    except OSError:  # a name the file system itself refuses (too long, reserved)
        return
    shown = display_name(name)
    shown.encode("utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    grep = grep_code(root, GrepOptions("zebra_marker"), use_ripgrep=False)
    assert grep.total == 1 and grep.text.startswith(f"{shown}:1:")
    assert resolve_shown(root, shown) == root / name
    if language_of(shown) is not None:
        hits = search_project(settings, root, "zebra_marker", mode="text",
                              embedder=HashEmbedder()).hits
        assert [h.path for h in hits] == [shown]


# --- a match only in a file too large to search ------------------------------------------------

@pytest.mark.parametrize("use_ripgrep", [
    False, pytest.param(True, marks=pytest.mark.skipif(ripgrep_path() is None,
                                                       reason="ripgrep not installed"))])
@pytest.mark.parametrize("options,said", [
    (GrepOptions("needle"), " Not searched: 2 files over 1,000,000 bytes: gen/big.py (1.1 MB),"
                            " one.min.js (1.5 MB)."),
    (GrepOptions("needle", glob="*.py"), " Not searched: 1 file over 1,000,000 bytes: "
                                         "gen/big.py (1.1 MB)."),
    (GrepOptions("needle", path="src"), ""),  # none in the searched folder: nothing to say
    (GrepOptions("nowhere"), " Not searched: 2 files over"),
])
def test_no_matches_names_the_files_too_large_to_search(project_dir: Path, use_ripgrep: bool,
                                                        options: GrepOptions, said: str
                                                        ) -> None:
    # "No matches" over a 1.1 MB generated file holding 100,000 hits read as "the project
    # does not have it"; the size rule was only in the tool's description
    (project_dir / "gen").mkdir()
    (project_dir / "gen" / "big.py").write_text("needle = 1\n" * 100_000)
    (project_dir / "one.min.js").write_text("x" * 1_500_000 + "needle")
    (project_dir / "src").mkdir()
    (project_dir / "src" / "small.py").write_text("print('hi')\n")
    (project_dir / ".gitignore").write_text("ignored/\n")
    (project_dir / "ignored").mkdir()
    (project_dir / "ignored" / "huge.txt").write_text("needle\n" * 200_000)  # ignored: silent
    text = grep_code(project_dir, options, use_ripgrep=use_ripgrep).text
    assert text.startswith(f"No matches for {options.pattern!r}.")
    assert text[len(f"No matches for {options.pattern!r}."):].startswith(said)
    assert "huge.txt" not in text
    if said:
        assert text.endswith("Read them with read_file (offset/limit) or search them with "
                             "execute_command.")
    else:
        assert text == f"No matches for {options.pattern!r}."
