""".gitignore rules decide as git decides: the files every code tool walks are the files
`git ls-files --others --exclude-standard` lists, for rules generated from git's syntax
(negations, anchors, ``**``, classes, escapes, trailing spaces) in nested .gitignore files."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from paicli_tui.core.code.ignore import walk_project_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

FILES = ["a", "b", "ab", "a.log", "x y", "c[1]", "d*", "b ", "]", "1", "#f", "e!",
         "d/a", "d/b ", "d/a.log", "d/e/ab", "d/e/1", "e/d/a", "[a/a", "[a/b", "ab2/a",
         "ab2/c/a", "b\\"]
SEGMENTS = ["a", "b", "d", "e", "*", "?", "**", "***", "a*", "a**", "*.log", "[ab]", "[!a]",
            "[^a]", "[]a]", "[!]]", "[a-]", "[a-c]*", "[[:digit:]]", "[a", "\\*", "d\\*",
            "b\\ ", "\\#f", "c\\[1]", "x y", "a\\", "\\!e",
            "[/a]", "[--0]", "b\\\\"]


def listed_by_git(root: Path) -> set[str]:
    """What git lists as untracked and not ignored, its own settings and the person's kept
    out (a global excludes file would change its answer)."""
    env = {**os.environ, "HOME": str(root), "XDG_CONFIG_HOME": str(root),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    out = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard"],
                         cwd=root, env=env, capture_output=True, check=True).stdout
    return {path for path in os.fsdecode(out).split("\0") if path}


def project(root: Path, ignores: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    for folder, text in ignores.items():
        (root / folder / ".gitignore").write_text(text)
    return root


def walked(root: Path) -> set[str]:
    return set(walk_project_files(root))


@pytest.mark.parametrize(("rules", "ignored", "kept"), [
    # a run of three stars is git's '**': any folders, or everything at the end
    ("***/a\n", {"a", "d/a", "e/d/a"}, {"ab"}),
    ("*\n!/***\n", set(), {"a", "d/e/ab", "[a/a"}),
    # an unclosed '[' or a final lone backslash: git matches nothing with the line
    ("[a\n", set(), {"[a/a", "[a/b"}),
    ("/[a/\n", set(), {"[a/a"}),
    ("a\\\n", set(), {"a"}),
    # one slash comes off each end: 'd//' and '//a' name nothing
    ("d//\n", set(), {"d/a", "d/e/ab"}),
    ("//a\n", set(), {"a"}),
    # '**' right after the literal start of an anchored line starts the rest, as in git
    ("a**/a\n", {"ab2/a", "ab2/c/a"}, {"a", "d/a"}),
    # a class never matches the folder separator, even one that names it
    ("d[/]a\n", set(), {"d/a"}),
    ("d[--0]a\n", set(), {"d/a"}),
    # a backslash keeps the character after it: an escaped backslash keeps no space
    ("b\\\\ \n", {"b\\"}, {"b "}),
    ("b\\ \n", {"b "}, {"b", "b\\"}),
    # a UTF-8 byte order mark (Windows editors write one) is not part of the first line
    ("\ufeffa.log\nab\n", {"a.log", "d/a.log", "ab"}, {"a"}),
    ("\ufeff#f\n", set(), {"#f"}),
])
def test_lines_git_reads_its_own_way(tmp_path: Path, rules: str, ignored: set[str],
                                     kept: set[str]) -> None:
    root = project(tmp_path, {"": rules})
    assert ignored.isdisjoint(walked(root)) and kept <= walked(root)
    assert walked(root) == listed_by_git(root)


line = st.builds(
    lambda bang, lead, segments, trail, spaces: bang + lead + "/".join(segments) + trail
    + spaces,
    st.sampled_from(["", "", "!"]), st.sampled_from(["", "", "/"]),
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3),
    st.sampled_from(["", "", "/"]), st.sampled_from(["", "", "  "]))


@settings_(max_examples=120, deadline=None,
           suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(line, min_size=1, max_size=6), st.lists(line, max_size=3),
       st.sampled_from(["d", "d/e", "[a"]))
def test_the_walk_lists_what_git_lists(tmp_path_factory, rules: list[str],
                                       nested: list[str], folder: str) -> None:
    root = project(tmp_path_factory.mktemp("ignores"),
                   {"": "\n".join(rules) + "\n", folder: "\n".join(nested) + "\n"})
    assert walked(root) == listed_by_git(root)


@pytest.mark.parametrize(("exclude", "gitignore", "ignored", "kept"), [
    ("a.log\nd/e/\n", "", {"a.log", "d/a.log", "d/e/ab", "d/e/1"}, {"a", "d/a"}),
    # every .gitignore wins over the repository's own excludes, as in git
    ("a.log\n", "!a.log\n", set(), {"a.log"}),
    ("# only a comment\n", "*.log\n", {"a.log", "d/a.log"}, {"a"}),
], ids=["excluded", "a-gitignore-wins", "comments-only"])
def test_the_repositorys_own_excludes_count_as_in_git(tmp_path: Path, exclude: str,
                                                      gitignore: str, ignored: set[str],
                                                      kept: set[str]) -> None:
    """.git/info/exclude (a person's ignores for one clone, never committed) hid files from
    git but not from grep_code, glob_files, @path and the index."""
    root = project(tmp_path / "p", {"": gitignore} if gitignore else {})
    (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text(exclude)
    assert walked(root) == listed_by_git(root) | {".gitignore"} & walked(root)
    assert not ignored & walked(root) and kept <= walked(root)


@pytest.fixture(autouse=True)
def _no_real_git_config_of_the_person(tmp_path_factory, monkeypatch) -> None:
    """The walk reads the person's global git config: never the real one in these tests."""
    person = tmp_path_factory.mktemp("nobody")
    monkeypatch.setenv("HOME", str(person))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(person / "xdg"))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)


def listed_by_git_for(root: Path, env: dict[str, str]) -> set[str]:
    """What git lists with the person's global config as ``env`` says (no system config)."""
    env = {**{k: v for k, v in os.environ.items()
              if k not in ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL")},
           "GIT_CONFIG_NOSYSTEM": "1", **env}
    out = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard"],
                         cwd=root, env=env, capture_output=True, check=True).stdout
    return {path for path in os.fsdecode(out).split("\0") if path}


XDG_IGNORE = "xdg/git/ignore"
HOME_IGNORE = "home/.config/git/ignore"


@pytest.mark.parametrize(("person", "repo", "use_xdg", "ignored", "kept"), [
    # unset, the default file: under $XDG_CONFIG_HOME, else ~/.config
    ({XDG_IGNORE: "a.log\nd/e/\n"}, {}, True, {"a.log", "d/a.log", "d/e/ab"}, {"a", "d/a"}),
    ({HOME_IGNORE: "a.log\n", XDG_IGNORE: "ab\n"}, {}, False, {"a.log", "d/a.log"}, {"ab"}),
    ({HOME_IGNORE: "a.log\n"}, {}, True, set(), {"a.log"}),
    # core.excludesFile: '~' expanded, a comment and quotes read as git reads them; the
    # default file is then not read
    ({"home/.gitconfig": "[core]\n\texcludesFile = ~/mine # my ignores\n", "home/mine": "ab\n",
      XDG_IGNORE: "a.log\n"}, {}, True, {"ab", "d/e/ab"}, {"a.log"}),
    ({"home/.gitconfig": '[core] excludesfile = "~/my ignores"\n', "home/my ignores": "a\n"},
     {}, True, {"a", "d/a", "e/d/a"}, {"ab"}),
    # ~/.gitconfig is read after the XDG config, and the repository's config after both
    ({"xdg/git/config": "[core]\nexcludesFile = ~/one\n", "home/one": "a\n",
      "home/.gitconfig": "[core]\nexcludesFile = ~/two\n", "home/two": "ab\n"},
     {}, True, {"ab"}, {"a"}),
    ({"home/.gitconfig": "[core]\nexcludesFile = ~/one\n", "home/one": "a\n",
      "home/two": "ab\n"}, {".git/config": "[core]\n\texcludesFile = ~/two\n"}, True,
     {"ab"}, {"a"}),
    # the lowest precedence: .git/info/exclude and any .gitignore bring a file back
    ({XDG_IGNORE: "*.log\n"}, {".git/info/exclude": "!/a.log\n"}, True, {"d/a.log"},
     {"a.log"}),
    ({XDG_IGNORE: "*.log\nab\n"}, {"d/.gitignore": "!a.log\n"}, True, {"a.log", "ab"},
     {"d/a.log"}),
    # other sections' keys and a subsection of core are not core.excludesFile
    ({"home/.gitconfig": '[user]\nexcludesFile = ~/one\n[core "x"]\nexcludesFile = ~/one\n',
      "home/one": "a\n"}, {}, True, set(), {"a"}),
    # set empty: no excludes file at all, neither the default nor one named 'true'
    ({"home/.gitconfig": "[core]\n\texcludesFile =\n", XDG_IGNORE: "a.log\n"},
     {"true": "ab\n"}, True, set(), {"a.log", "ab"}),
    # a later config's empty value undoes an earlier one's file
    ({"home/.gitconfig": "[core]\nexcludesFile = ~/one\n", "home/one": "a\n"},
     {".git/config": '[core]\n\texcludesFile = ""\n'}, True, set(), {"a"}),
    # two headers on one line: the key is in the last
    ({"home/.gitconfig": "[user] [core] excludesFile = ~/one\n", "home/one": "a\n"},
     {}, True, {"a", "d/a"}, {"ab"}),
    # an included file is read where it is included (relative to the including file, or
    # from ~), nested too; a later line of the includer wins over it
    ({"home/.gitconfig": "[include]\n\tpath = .gitconfig.local\n",
      "home/.gitconfig.local": "[include]\n\tpath = ~/more/config\n",
      "home/more/config": "[core]\n\texcludesFile = ~/one\n", "home/one": "a\n"},
     {}, True, {"a", "d/a"}, {"ab"}),
    ({"home/.gitconfig": "[include]\n\tpath = ~/inc\n[core]\n\texcludesFile = ~/two\n",
      "home/inc": "[core]\n\texcludesFile = ~/one\n", "home/one": "a\n",
      "home/two": "ab\n"}, {}, True, {"ab"}, {"a"}),
], ids=["xdg-default", "home-default", "xdg-wins-over-home", "configured", "quoted",
        "home-over-xdg", "repository-config-last", "info-exclude-wins", "gitignore-wins",
        "other-sections", "set-empty", "emptied-later", "two-headers-on-a-line", "included",
        "includer-later-wins"])
def test_the_persons_excludes_file_counts_as_in_git(tmp_path: Path, monkeypatch,
                                                     person: dict[str, str],
                                                     repo: dict[str, str], use_xdg: bool,
                                                     ignored: set[str],
                                                     kept: set[str]) -> None:
    """git leaves out what the person's core.excludesFile (or its default) lists; the walk
    of grep_code, glob_files, @path and the index listed those files."""
    root = project(tmp_path / "p", {})
    for name, text in {**{f"../{k}": v for k, v in person.items()}, **repo}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    env = {"HOME": str(tmp_path / "home")}
    if use_xdg:
        env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    monkeypatch.setenv("HOME", env["HOME"])
    if use_xdg:
        monkeypatch.setenv("XDG_CONFIG_HOME", env["XDG_CONFIG_HOME"])
    else:
        monkeypatch.delenv("XDG_CONFIG_HOME")
    listed = listed_by_git_for(root, env)
    assert walked(root) == listed
    assert not ignored & walked(root) and kept <= walked(root)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_the_persons_excludes_file_is_not_waited_on(tmp_path: Path,
                                                               monkeypatch) -> None:
    """Opening a FIFO for reading waits for a writer forever: the walk would never end."""
    root = project(tmp_path / "p", {})
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".gitconfig").write_text("[core]\nexcludesFile = ~/fifo\n")
    os.mkfifo(tmp_path / "home" / "fifo")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert set(FILES) <= walked(root)


@pytest.mark.parametrize(("exclude", "config", "ignored"), [
    ("a.log\n", "", {"a.log", "d/a.log"}),
    ("", "[core]\n\texcludesFile = ~/mine\n", {"ab", "d/e/ab"}),
], ids=["info-exclude", "repository-config"])
def test_a_linked_worktree_uses_its_main_repositorys_excludes(
        tmp_path: Path, monkeypatch, exclude: str, config: str, ignored: set[str]) -> None:
    """In a linked worktree (git worktree add) .git is a file: git reads info/exclude and
    config from the main repository's folder, which the walk never found."""
    main = project(tmp_path / "main", {})
    env = {"HOME": str(tmp_path / "home"), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "mine").write_text("ab\n")
    monkeypatch.setenv("HOME", env["HOME"])
    monkeypatch.delenv("XDG_CONFIG_HOME")

    def git(*args: str, cwd: Path) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                       env={**os.environ, **env})

    git("commit", "-q", "--allow-empty", "-m", "first", cwd=main)
    git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=main)
    worktree = tmp_path / "wt"
    assert (worktree / ".git").is_file()
    for name in FILES:
        (worktree / name).parent.mkdir(parents=True, exist_ok=True)
        (worktree / name).write_text("x")
    (main / ".git" / "info").mkdir(exist_ok=True)
    (main / ".git" / "info" / "exclude").write_text(exclude)
    with (main / ".git" / "config").open("a") as file:
        file.write(config)
    assert walked(worktree) == listed_by_git_for(worktree, {"HOME": env["HOME"]})
    assert not ignored & walked(worktree) and "a" in walked(worktree)


@pytest.mark.parametrize(("chosen", "ignored", "kept"), [
    ("chosen.gitconfig", "ab", "a"),
    # set empty: no global config at all (the default excludes file is still read)
    ("", "d/a.log", "a"),
])
def test_git_config_global_replaces_the_persons_config_files(
        tmp_path: Path, monkeypatch, chosen: str, ignored: str, kept: str) -> None:
    """$GIT_CONFIG_GLOBAL names the one global config git reads: ~/.gitconfig is then not
    read, and neither is the default excludes file once it sets core.excludesFile."""
    root = project(tmp_path / "p", {})
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("*.log\n")
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/ignored\n")
    (home / "ignored").write_text("a\n")
    (home / "chosen.gitconfig").write_text("[core]\n\texcludesFile = ~/chosen\n")
    (home / "chosen").write_text("ab\n")
    env = {"HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / chosen) if chosen else ""}
    monkeypatch.setenv("HOME", env["HOME"])
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", env["GIT_CONFIG_GLOBAL"])
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert walked(root) == listed_by_git_for(root, env)
    assert ignored not in walked(root) and kept in walked(root)


@pytest.mark.parametrize("included", ["config", "big"])
def test_a_config_including_itself_again_and_again_is_read_a_bounded_number_of_times(
        tmp_path: Path, monkeypatch, included: str) -> None:
    """A repository's .git/config that includes itself a hundred times: with ten levels of
    includes followed, 100^10 reads, and the walk of every grep and glob never ended; one
    that includes a file of 600,000 characters a hundred times read 32 of them at every
    walk. What a config brings with its includes is bounded like one config file."""
    from paicli_tui.core.code import person_excludes

    root = project(tmp_path / "p", {})
    (root / ".git" / "big").write_text("[x]\n" + "\ta = b\n" * 100_000)
    (root / ".git" / "config").write_text(
        "[core]\n\texcludesFile = ~/one\n[include]\n" + f"\tpath = {included}\n" * 100)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "one").write_text("a\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    reads = []
    real_read = person_excludes.read_regular_text

    def counted(path, limit):
        if len(reads) > 1_000:  # unbounded: fail rather than read on for ever
            raise AssertionError("the config was read again and again")
        text, whole = real_read(path, limit)
        reads.append((str(path), len(text)))
        return text, whole

    monkeypatch.setattr(person_excludes, "read_regular_text", counted)
    assert "a" not in walked(root)
    of_the_repository = [size for path, size in reads if os.sep + ".git" + os.sep in path]
    assert len(of_the_repository) <= 1 + person_excludes.MAX_INCLUDED_FILES
    assert sum(of_the_repository) <= person_excludes.MAX_CONFIG_BYTES
