"""Shared fixtures: every test runs with a temporary PAICLI_HOME and no outside network."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from paicli_tui.config import Settings, load_settings

# Hypothesis fails an example that takes over 200 ms, and a run whose examples are slow to
# make: on a busy two-core CI machine that is the machine, not the code under test. Tests
# that set their own settings keep these unless they name them.
hypothesis_settings.register_profile(
    "busy-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile("busy-machine")


def _is_loopback(address: object) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # unix sockets and the like
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class NetworkBlocked(RuntimeError):
    pass


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any accidental connection outside 127.0.0.0/8 fails loudly."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: object) -> object:
        if not _is_loopback(address):
            raise NetworkBlocked(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: object) -> object:
        if not _is_loopback(address):
            raise NetworkBlocked(f"test tried to reach the network: {address!r}")
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


@pytest.fixture(autouse=True)
def _no_server_left_serving() -> Iterator[None]:
    """A test double's server that outlives its test can take a later test's connections
    (doubles/server_leaks.py says how): the test that leaves one fails."""
    from doubles.server_leaks import left_behind, listening_sockets, serving_threads

    threads, sockets = serving_threads(), listening_sockets()
    yield
    problems = left_behind(threads, sockets)
    assert not problems, "a server outlived its test: " + "; ".join(problems)


@pytest.fixture(autouse=True)
def _no_child_process_left_running() -> Iterator[None]:
    """A test that failed before it waited for its second process left it running beside
    the tests that follow (doubles/child_processes.py): it is ended here."""
    from doubles.child_processes import children, end_new_children

    before = children()
    yield
    end_new_children(before)


@pytest.fixture(autouse=True)
def _learned_secrets_forgotten_after_each_test() -> Iterator[None]:
    """A credential fetched at run time is masked for the rest of the process (the object
    store tests fetch some): a later test's streamed reply was held back at a tail that
    could begin one, and its text came in two pieces instead of one."""
    from paicli_tui.core.llm import redact

    before = dict(redact._learned)
    yield
    redact._learned.clear()
    redact._learned.update(before)


@pytest.fixture(autouse=True)
def _log_file_closed_after_each_test() -> Iterator[None]:
    """cli.main starts the log file; a later test must not write into this test's home."""
    yield
    from paicli_tui.logs import stop_logging

    stop_logging()


@pytest.fixture(autouse=True, scope="session")
def no_global_git_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No machine's global git config for the whole run: a module's fixture (an index built
    once for a file's tests) runs before paicli_home sets it per test, and its walk read the
    developer's excludes file ('*.py' there emptied the index the tests search)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config-session")))
        patch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
        yield


@pytest.fixture(autouse=True)
def paicli_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh PAICLI_HOME for every test; provider keys from the real environment removed."""
    home = tmp_path_factory.mktemp("paicli-home")
    monkeypatch.setenv("PAICLI_HOME", str(home))
    # the S3 lease asks the EC2 metadata service for an instance role's keys when none are
    # set: tests reach only 127.0.0.1 (the credentials tests start their own fake service)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    # the project walk reads the person's git excludes file (core.code.person_excludes): a
    # developer's '.env' or '*.log' there hid files tests expect; git run by a test reads no
    # global config either (a test that needs one sets it)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for variable in ("PAICLI_PROVIDER", "PAICLI_MODEL", "PAICLI_BASE_URL", "PAICLI_API_KEY",
                     "PAICLI_WINDOW", "PAICLI_LIGHT_MODEL", "PAICLI_EMBEDDER", "PAICLI_THEME",
                     "OLLAMA_HOST", "DEEPSEEK_API_KEY", "ZHIPUAI_API_KEY", "MOONSHOT_API_KEY",
                     "STEPFUN_API_KEY", "HUNYUAN_API_KEY", "DASHSCOPE_API_KEY",
                     "OPENAI_API_KEY", "PAICLI_LOG_LEVEL", "PAICLI_ASK_BEFORE_SUMMARY",
                     "PAICLI_MEMORY_SELECTION"):
        monkeypatch.delenv(variable, raising=False)
    return home


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


@pytest.fixture
def settings(paicli_home: Path) -> Settings:
    return load_settings({}, {"PAICLI_HOME": str(paicli_home)})
