"""Where a work tree's repository keeps its files, found as git finds them, without git.

``.git`` is a folder in a plain clone, but a file (``gitdir: <path>``) in a linked worktree
(``git worktree add``) and in a submodule; a linked worktree's own folder then names, in
``commondir``, the main repository's folder, which holds what all its worktrees share:
``config``, ``info/exclude``, ``hooks/``.
"""

from __future__ import annotations

import os

from ...regular_files import read_regular

POINTER_BYTES = 4_096
"""A ``.git`` file or a ``commondir`` holds one path: read this far."""


def _pointer(path: str) -> str:
    """The text of a small pointer file, '' when it cannot be read (a FIFO is not read)."""
    try:
        data, _ = read_regular(path, POINTER_BYTES)
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip()


def git_folders(top: str) -> tuple[str, str] | None:
    """(the repository's folder for this work tree, the folder its worktrees share) when
    ``top`` holds a ``.git`` folder or a ``.git`` file naming one; None otherwise."""
    found = os.path.join(top, ".git")
    if os.path.isdir(found):
        git_dir = found
    else:
        target = _pointer(found).partition("gitdir:")[2].strip() if os.path.isfile(found) \
            else ""
        if not target:
            return None
        git_dir = os.path.realpath(os.path.join(top, target))
    common = _pointer(os.path.join(git_dir, "commondir"))
    return git_dir, os.path.realpath(os.path.join(git_dir, common)) if common else git_dir
