"""No test reads the machine's global git config, a fixture shared by a module's tests
neither: the project walk reads the person's excludes file through it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paicli_tui.core.code.person_excludes import person_excludes_file


@pytest.fixture(scope="module")
def excludes_seen_by_a_module_fixture(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("project")
    return os.environ.get("GIT_CONFIG_GLOBAL"), person_excludes_file(root)


def test_a_module_fixture_reads_no_global_git_config(excludes_seen_by_a_module_fixture,
                                                      tmp_path_factory) -> None:
    config, excludes = excludes_seen_by_a_module_fixture
    assert config == os.devnull
    # the default excludes file, in a temporary XDG_CONFIG_HOME, never the home folder's
    assert excludes is not None and Path(tmp_path_factory.getbasetemp()) in excludes.parents
