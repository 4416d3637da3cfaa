"""grep_code / glob_files / .gitignore: the exact-search tools behave the same with and
without ripgrep."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli_tui.core.code.globbing import glob_files
from paicli_tui.core.code.grep import GrepError, GrepOptions, grep_code, ripgrep_path
from paicli_tui.core.code.ignore import parse_gitignore, walk_project_files
from paicli_tui.core.code.service import LocalCodeService
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext

HAS_RG = ripgrep_path() is not None
BACKENDS = [
    pytest.param(False, id="python"),
    pytest.param(True, id="ripgrep",
                 marks=pytest.mark.skipif(not HAS_RG, reason="ripgrep is not installed")),
]


def _write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def tree(project_dir: Path) -> Path:
    _write(project_dir, ".gitignore", "build/\n*.log\n!keep.log\n/rootonly.txt\n")
    _write(project_dir, "src/main/App.java",
           "package demo;\n\npublic class App {\n    // TODO: greet\n"
           "    void greet() { System.out.println(\"hello\"); }\n}\n")
    _write(project_dir, "src/util/Strings.java",
           "package util;\nclass Strings {\n  static String greet(String n) { return n; }\n}\n")
    _write(project_dir, "src/sub/.gitignore", "secret.txt\n")
    _write(project_dir, "src/sub/secret.txt", "greet hidden by nested gitignore\n")
    _write(project_dir, "src/sub/open.txt", "greet visible\n")
    _write(project_dir, "other/secret.txt", "greet: nested rule must not leak here\n")
    _write(project_dir, "build/out.java", "greet in build output\n")
    _write(project_dir, "debug.log", "greet in a log\n")
    _write(project_dir, "keep.log", "greet in a kept log\n")
    _write(project_dir, "rootonly.txt", "greet anchored\n")
    _write(project_dir, "deep/rootonly.txt", "greet not anchored here\n")
    _write(project_dir, ".paicli/index/x.txt", "greet in the index\n")
    _write(project_dir, ".git/config", "greet in git\n")
    _write(project_dir, "image.bin", b"greet\x00\x01\x02")
    _write(project_dir, "huge.txt", "greet\n" + "x" * 1_100_000)
    _write(project_dir, "中文/说明.md", "问候 greet 中文\n")
    return project_dir


EXPECTED_GREET_FILES = [
    "deep/rootonly.txt", "keep.log", "other/secret.txt", "src/main/App.java",
    "src/sub/open.txt", "src/util/Strings.java", "中文/说明.md",
]


@pytest.mark.parametrize("use_rg", BACKENDS)
def test_grep_honours_gitignore_and_skips_binary_huge_and_private_dirs(tree: Path,
                                                                       use_rg: bool) -> None:
    result = grep_code(tree, GrepOptions("greet", context=0), use_ripgrep=use_rg)
    assert sorted({m.path for m in result.matches}) == EXPECTED_GREET_FILES
    assert result.backend == ("ripgrep" if use_rg else "python")


@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (GrepOptions("GREET", context=0), []),
        (GrepOptions("GREET", ignore_case=True, context=0, glob="*.java"),
         [("src/main/App.java", 4), ("src/main/App.java", 5), ("src/util/Strings.java", 3)]),
        (GrepOptions("greet\\(", context=0, glob="*.java"),
         [("src/main/App.java", 5), ("src/util/Strings.java", 3)]),
        (GrepOptions("greet(", regex=False, context=0),
         [("src/main/App.java", 5), ("src/util/Strings.java", 3)]),
        (GrepOptions("greet", context=0, path="src/main"), [("src/main/App.java", 4),
                                                            ("src/main/App.java", 5)]),
        (GrepOptions("问候", context=0), [("中文/说明.md", 1)]),
        (GrepOptions("^package \\w+;$", context=0, glob="src/**/*.java"),
         [("src/main/App.java", 1), ("src/util/Strings.java", 1)]),
    ],
)
def test_grep_options_table(tree: Path, use_rg: bool, options: GrepOptions,
                            expected: list[tuple[str, int]]) -> None:
    result = grep_code(tree, options, use_ripgrep=use_rg)
    assert [(m.path, m.line) for m in result.matches] == expected


@pytest.mark.skipif(not HAS_RG, reason="ripgrep is not installed")
@pytest.mark.parametrize("pattern", ["greet", "class \\w+", "n\\)", "TODO", "e"])
def test_both_backends_give_identical_text(tree: Path, pattern: str) -> None:
    options = GrepOptions(pattern, context=1, max_matches=5)
    python = grep_code(tree, options, use_ripgrep=False)
    ripgrep = grep_code(tree, options, use_ripgrep=True)
    assert python.text == ripgrep.text
    assert python.total == ripgrep.total


def test_grep_output_format_with_context_and_cap(tree: Path) -> None:
    result = grep_code(tree, GrepOptions("greet", context=1, path="src/main"),
                       use_ripgrep=False)
    assert result.text.splitlines() == [
        "src/main/App.java-3-public class App {",
        "src/main/App.java:4:    // TODO: greet",
        "src/main/App.java:5:    void greet() { System.out.println(\"hello\"); }",
        "src/main/App.java-6-}",
    ]
    capped = grep_code(tree, GrepOptions("greet", context=0, max_matches=2), use_ripgrep=False)
    assert len(capped.matches) == 2
    assert "more matching lines" in capped.text


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (GrepOptions(""), "empty"),
        (GrepOptions("foo(", context=0), "invalid regular expression"),
        (GrepOptions("x", path="../outside"), "outside the project"),
        (GrepOptions("x", path="/etc"), "outside the project"),
        (GrepOptions("x", path="nope"), "does not exist"),
    ],
)
def test_grep_bad_input_is_a_clear_error(tree: Path, options: GrepOptions, message: str) -> None:
    with pytest.raises(GrepError, match=message):
        grep_code(tree, options, use_ripgrep=False)


def test_glob_files(tree: Path) -> None:
    assert glob_files(tree, "*.java").paths == ["src/main/App.java", "src/util/Strings.java"]
    assert glob_files(tree, "src/**/*.txt").paths == ["src/sub/open.txt"]
    assert glob_files(tree, "**/rootonly.txt").paths == ["deep/rootonly.txt"]
    assert glob_files(tree, "*.java", path="src/util").paths == ["src/util/Strings.java"]
    assert "No files match" in glob_files(tree, "*.rs").text
    limited = glob_files(tree, "*", max_files=2)
    assert len(limited.paths) == 2 and "more files not shown" in limited.text


@pytest.mark.parametrize(
    ("rules", "path", "is_dir", "ignored"),
    [
        ("*.pyc", "a/b/c.pyc", False, True),
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "a/top.txt", False, False),
        ("docs/*.md", "docs/a.md", False, True),
        ("docs/*.md", "docs/x/a.md", False, False),
        ("**/cache", "a/b/cache", True, True),
        ("logs/**", "logs/a/b.txt", False, True),
        ("a/**/z", "a/b/c/z", False, True),
        ("a/**/z", "a/z", False, True),
        ("out/", "out", False, False),
        ("out/", "out", True, True),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("# comment\n\n", "comment", False, False),
        ("\\#hash", "#hash", False, True),
        ("file[0-9].txt", "file7.txt", False, True),
        ("file[!0-9].txt", "file7.txt", False, False),
        ("?.c", "ab.c", False, False),
    ],
)
def test_gitignore_rules(rules: str, path: str, is_dir: bool, ignored: bool) -> None:
    result = False
    for rule in parse_gitignore(rules):
        if rule.matches(path, is_dir):
            result = not rule.negate
    assert result is ignored


def test_walk_skips_symlinks_out_of_the_project(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.txt").write_text("greet secret\n")
    (tree / "link").symlink_to(outside)
    (tree / "linkfile.txt").symlink_to(outside / "leak.txt")
    files = set(walk_project_files(tree))
    assert not any(f.startswith("link") for f in files)


async def test_service_offers_the_four_tools(tree: Path, settings) -> None:
    service = LocalCodeService(settings, tree)
    tools = {t.name: t for t in service.tools()}
    assert list(tools) == ["grep_code", "glob_files", "search_code", "code_graph"]
    context = ToolContext(project_root=tree, settings=settings, session=SessionState("s"))
    out = await tools["grep_code"].run({"pattern": "greet", "glob": "*.java", "context": 0},
                                       context)
    assert out.status == "done" and "src/main/App.java:5:" in out.content
    bad = await tools["grep_code"].run({"pattern": "("}, context)
    assert bad.status == "failed" and "invalid regular expression" in bad.content
    # a weak model's "greet(" meant the text: the error says how to search for it, and
    # that way finds it
    assert bad.content.endswith("; to search for the text as written, use literal=true")
    literal = await tools["grep_code"].run({"pattern": "greet(", "literal": True,
                                            "context": 0}, context)
    assert literal.status == "done" and "src/main/App.java" in literal.content
    listed = await tools["glob_files"].run({"pattern": "*.md"}, context)
    assert listed.content == "中文/说明.md"
    missing = await tools["search_code"].run({"query": "greeting"}, context)
    assert missing.status == "failed" and "paicli-tui index" in missing.content


# A hit in a long (minified, generated) line was cut from the line's start: a match at column
# 50,000 of a bundle showed 400 characters of something else. The part around the first
# match is shown now, with where it lies in the line.
@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize(("before", "after", "pattern", "regex", "shown"), [
    (50_000, 50_000, "secretHandler", False, "columns 49,901-50,300 of 100,013"),
    (50_000, 50_000, "secret[H]andler", True, "columns 49,901-50,300 of 100,013"),
    (10, 50_000, "secretHandler", False, "columns 1-400 of 50,023"),
    (50_000, 5, "secretHandler", False, "columns 49,619-50,018 of 50,018"),
])
def test_a_long_line_shows_the_part_around_its_match(
        project_dir: Path, use_rg: bool, before: int, after: int, pattern: str, regex: bool,
        shown: str) -> None:
    _write(project_dir, "dist/bundle.js",
           "c" * 900 + "\n" + "x" * before + "secretHandler" + "y" * after + "\n")
    result = grep_code(project_dir, GrepOptions(pattern, regex=regex, context=1),
                       use_ripgrep=use_rg)
    context_line, hit = result.text.splitlines()
    assert hit.startswith("dist/bundle.js:2:") and "secretHandler" in hit
    assert hit.endswith(f" … [{shown}]") and len(hit) < 500
    assert context_line == "dist/bundle.js-1-" + "c" * 400 + " … [columns 1-400 of 900]"


@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize(("person", "exclude", "gitignore", "kept"), [
    ("", "debug2.txt\n", "", ["keep2.txt", "person.txt"]),
    ("person.txt\n", "", "", ["debug2.txt", "keep2.txt"]),
    # the repository's own excludes win over the person's, every .gitignore over both
    ("*.txt\n", "!keep2.txt\n", "", ["keep2.txt"]),
    ("*.txt\n", "*.txt\n", "!person.txt\n", ["person.txt"]),
    # past the megabyte the walk reads of it: ripgrep read it whole and hid person.txt,
    # which glob_files, @path and the index list
    ("#" * 1_000_000 + "\nperson.txt\n", "", "", ["debug2.txt", "keep2.txt", "person.txt"]),
], ids=["info-exclude", "persons-excludes", "exclude-wins", "gitignore-wins", "huge"])
def test_both_backends_leave_out_what_gits_excludes_files_list(
        project_dir: Path, monkeypatch, use_rg: bool, person: str, exclude: str,
        gitignore: str, kept: list[str]) -> None:
    """ripgrep was told to read neither .git/info/exclude nor the person's excludes file:
    grep_code searched files that glob_files, @path and the index leave out."""
    home = project_dir.parent / "home"
    _write(home, ".config/git/ignore", person)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    _write(project_dir, ".git/info/exclude", exclude)
    _write(project_dir, ".gitignore", gitignore)
    for name in ("debug2.txt", "keep2.txt", "person.txt"):
        _write(project_dir, name, "greet\n")
    result = grep_code(project_dir, GrepOptions("greet", context=0), use_ripgrep=use_rg)
    assert sorted({m.path for m in result.matches}) == kept
    assert sorted(p for p in walk_project_files(project_dir) if p.endswith(".txt")) == kept


@pytest.mark.parametrize("use_rg", BACKENDS)
def test_a_worktrees_git_file_is_not_searched(project_dir: Path, use_rg: bool) -> None:
    """A linked worktree's or a submodule's .git is a file ('gitdir: …'): grep and glob
    listed it as project code, which git never does."""
    _write(project_dir, ".git", "gitdir: /elsewhere/.git/worktrees/greet\n")
    _write(project_dir, "sub/.git", "gitdir: ../.git/modules/greet\n")
    _write(project_dir, "a.txt", "greet\n")
    result = grep_code(project_dir, GrepOptions("greet", context=0), use_ripgrep=use_rg)
    assert [m.path for m in result.matches] == ["a.txt"]
    assert glob_files(project_dir, "**/*").paths == ["a.txt"]
