"""A project that ships its own git folder cannot make a "read-only" git command run code.

`git status`, `git diff`, `git log -p` and `git show` run without asking (the read-only list).
But git obeys the repository's configuration and hooks: `core.fsmonitor` is run by
`git status`, a diff driver's `textconv` by `git log -p`, the `post-index-change` hook by
`git status` when a file was touched. A cloned project cannot ship `.git/config`, but an
archive with `.git` can, and so can a clone through a bare repository committed inside it
(`vendor/evil/{HEAD,config,objects,refs}`, then `git -C vendor/evil log -p`). Each row plants
one of these, checks with the real git that the planted program does run, and then that the
same command through `execute_command` asks first (and, denied, runs nothing).
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from denied_command import run_denied

from paicli_tui.core.contracts.read_only import read_only_verdict

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def git(*args: str, cwd) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV})


def repository(root) -> None:
    git("init", "-q", ".", cwd=root)
    (root / "a.txt").write_text("one\n")
    git("add", "a.txt", cwd=root)
    git("commit", "-q", "-m", "one", cwd=root)
    (root / "a.txt").write_text("one\ntwo\n")
    git("commit", "-q", "-am", "two", cwd=root)


def plant_fsmonitor(root) -> str:
    repository(root)
    git("config", "core.fsmonitor", "touch pwned; false", cwd=root)
    return "git status"


def plant_textconv(root) -> str:
    repository(root)
    git("config", "diff.x.textconv", "sh -c 'touch pwned; cat \"$0\"'", cwd=root)
    (root / ".gitattributes").write_text("* diff=x\n")
    return "git log -p"


def plant_hook(root) -> str:
    repository(root)
    hook = root / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch '{root}/pwned'\n")
    hook.chmod(0o755)
    os.utime(root / "a.txt", (1, 1))  # a touched file: git status refreshes the index
    return "git status"


def plant_hooks_path(root) -> str:
    """core.hooksPath is relative to the work tree's top, whatever folder git -C names."""
    repository(root)
    (root / "src").mkdir()
    git("config", "core.hooksPath", "tools/hooks", cwd=root)
    hook = root / "tools" / "hooks" / "post-index-change"
    hook.parent.mkdir(parents=True)
    hook.write_text(f"#!/bin/sh\ntouch '{root}/pwned'\n")
    hook.chmod(0o755)
    os.utime(root / "a.txt", (1, 1))
    return "git -C src status"


def plant_linked_worktree(root) -> str:
    """A linked worktree keeps only a .git file; git reads the main repository's config."""
    repository(root)
    git("worktree", "add", "-q", "wt", cwd=root)
    git("config", "core.fsmonitor", f"touch '{root}/pwned'; false", cwd=root)
    return "git -C wt status"


def planted_config(root, text: str | bytes) -> str:
    """A repository whose .git/config is ``text`` as it stands; git status is the command."""
    repository(root)
    data = text if isinstance(text, bytes) else text.encode()
    (root / ".git" / "config").write_bytes(data)
    return "git status"


def plant_bom_config(root) -> str:
    """Git skips a BOM at the start of its config; the reader missed the [core] after it."""
    return planted_config(root, b"\xef\xbb\xbf[core]\n\trepositoryformatversion = 0\n"
                                b"\tfsmonitor = \"touch pwned; false\"\n")


def plant_line_separator(root) -> str:
    """Only \\n ends a line for git: a U+2028 inside a value started a section for the
    reader alone."""
    return planted_config(root, "[core]\n\trepositoryformatversion = 0\n\tfoo = bar"
                                "\u2028[x]\n\tfsmonitor = \"touch pwned; false\"\n")


def plant_continued_value(root) -> str:
    """A value ending in a backslash goes on on the next line: "[x]" there is no section."""
    return planted_config(root, "[core]\n\trepositoryformatversion = 0\n\tfoo = bar \\\n"
                                "[x]\n\tfsmonitor = \"touch pwned; false\"\n")


def plant_backslash_in_comment(root) -> str:
    """A backslash in a comment continues nothing: the next line is a key of its own."""
    return planted_config(root, "[core]\n\trepositoryformatversion = 0\n\tfoo = bar ; note "
                                "\\\n\tfsmonitor = \"touch pwned; false\"\n")


def plant_bare_repository(root) -> str:
    """The clonable one: a bare repository's files committed under vendor/."""
    git("init", "-q", ".", cwd=root)
    seed = root.parent / "seed"
    seed.mkdir()
    repository(seed)
    bare = root / "vendor" / "evil"
    git("clone", "-q", "--bare", str(seed), str(bare), cwd=root)
    git("config", "diff.x.textconv", f"sh -c 'touch {root}/pwned; cat \"$0\"'", cwd=bare)
    (bare / "info").mkdir(exist_ok=True)
    (bare / "info" / "attributes").write_text("* diff=x\n")
    return "git -C vendor/evil log -p"


def plant_worktree_config(root) -> str:
    repository(root)
    git("config", "extensions.worktreeConfig", "true", cwd=root)
    git("config", "--worktree", "core.fsmonitor", "touch pwned; false", cwd=root)
    return "git diff"


def plant_submodule(root) -> str:
    """git status looks into each submodule and obeys its own config, kept in
    .git/modules/<name>/config: the submodule's core.fsmonitor runs."""
    seed = root.parent / "seed"
    seed.mkdir()
    repository(seed)
    repository(root)
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(seed), "sub",
        cwd=root)
    git("commit", "-q", "-m", "sub", cwd=root)
    git("config", "core.fsmonitor", f"touch '{root}/pwned'; false", cwd=root / "sub")
    (root / "sub" / "a.txt").write_text("changed\n")
    return "git status"


def plant_submodule_own_git_folder(root) -> str:
    """A submodule whose .git is a folder of its own (not absorbed into .git/modules)."""
    plant_submodule(root)
    modules = root / ".git" / "modules" / "sub"
    (root / "sub" / ".git").unlink()
    shutil.move(str(modules), str(root / "sub" / ".git"))
    own = str(root / "sub" / ".git" / "config")
    git("config", "--file", own, "--unset", "core.worktree", cwd=root)
    return "git status"


# (how it is planted, the reason's opening words)
PLANTED = [
    (plant_fsmonitor, "the repository's git config core.fsmonitor makes git run a program"),
    (plant_textconv, "the repository's git config diff.*.textconv makes git run a program"),
    (plant_hook, "git runs the repository's hook post-index-change"),
    (plant_hooks_path, "git runs the repository's hook post-index-change"),
    (plant_linked_worktree, "the repository's git config core.fsmonitor makes git run"),
    (plant_bom_config, "the repository's git config core.fsmonitor makes git run"),
    (plant_line_separator, "the repository's git config core.fsmonitor makes git run"),
    (plant_continued_value, "the repository's git config core.fsmonitor makes git run"),
    (plant_backslash_in_comment, "the repository's git config core.fsmonitor makes git run"),
    (plant_bare_repository, "the repository's git config diff.*.textconv makes git run"),
    (plant_worktree_config, "the repository's git config core.fsmonitor makes git run"),
    (plant_submodule, "the repository's git config core.fsmonitor (a submodule's) makes git"),
    (plant_submodule_own_git_folder,
     "the repository's git config core.fsmonitor (a submodule's) makes git run"),
]


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.mark.parametrize("plant,reason", PLANTED, ids=lambda p: getattr(p, "__name__", ""))
def test_planted_git_programs_run_with_git_itself(plant, reason, project) -> None:
    """The rows are real: the command, run by git, does run the planted program."""
    command = plant(project)
    subprocess.run(command, shell=True, cwd=project, capture_output=True,
                   env={**os.environ, **GIT_ENV})
    assert (project / "pwned").exists()


@pytest.mark.parametrize("plant,reason", PLANTED, ids=lambda p: getattr(p, "__name__", ""))
async def test_planted_git_programs_make_the_command_ask(plant, reason, project,
                                                         settings) -> None:
    command = plant(project)
    out, asked = await run_denied(command, project, settings, reason)
    assert out.status == "denied" and asked == [f"run: {command}"]
    assert not (project / "pwned").exists()


@pytest.mark.parametrize("command", ["git status", "git diff", "git log -p", "git show",
                                     "git log -C --oneline", "git blame a.txt"])
def test_a_plain_repository_stays_read_only(command, project, settings) -> None:
    """Nothing planted (hooks only as git's own .sample files): still no question."""
    repository(project)
    assert read_only_verdict(command, settings.read_only_commands, project).read_only


def test_a_hook_other_commands_fire_does_not_spoil_git_status(project, settings) -> None:
    """A pre-commit hook (the pre-commit framework installs one) runs on commit, not status."""
    repository(project)
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    assert read_only_verdict("git status", settings.read_only_commands, project).read_only


def test_a_plain_submodule_keeps_git_status_read_only(project, settings) -> None:
    """A submodule with nothing planted in its config: git status still runs unasked."""
    plant_submodule(project)
    git("config", "--unset", "core.fsmonitor", cwd=project / "sub")
    assert read_only_verdict("git status", settings.read_only_commands, project).read_only
