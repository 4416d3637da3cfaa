"""The UI's fakes and the real core meet the same typed ports (ui.backend, core.agent.port).

A member missing from a fake, a renamed parameter, or a method that is async on one side and
not on the other fails here rather than as a probe at run time.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from ui_fakes import FakeBackend, FakeCode, FakeMemory, FakeSession

from paicli_tui.config import Settings
from paicli_tui.core.agent.port import SessionPort
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.ui.backend import Backend, CodeBackend, MemoryBackend
from paicli_tui.ui.core_adapters import CodeAdapter, MemoryAdapter
from paicli_tui.ui.core_backend import CoreBackend


def protocol_members(protocol: type) -> dict[str, Any]:
    """Name -> the protocol's declaration (a function, a property, or an annotation)."""
    members: dict[str, Any] = {}
    for klass in reversed(protocol.__mro__):
        if klass in (object,) or klass.__module__ == "typing":
            continue
        members.update({name: "attribute" for name in getattr(klass, "__annotations__", {})})
        members.update({name: value for name, value in vars(klass).items()
                        if not name.startswith("_")})
    return members


def _kind(function: Any) -> str:
    # an async generator is called like a plain function that returns an AsyncIterator
    return "coroutine" if inspect.iscoroutinefunction(function) else "call"


def mismatches(thing: Any, protocol: type) -> list[str]:
    problems = []
    for name, declared in protocol_members(protocol).items():
        if not hasattr(thing, name):
            problems.append(f"missing {name}")
            continue
        if not inspect.isfunction(declared):
            continue  # attributes and properties: presence is the contract
        implemented = inspect.getattr_static(type(thing), name, None)
        if not inspect.isfunction(implemented):
            problems.append(f"{name} is not a method")
            continue
        if _kind(declared) != _kind(implemented):
            problems.append(f"{name}: {_kind(implemented)} where the port has {_kind(declared)}")
        wanted = list(inspect.signature(declared).parameters)
        given = list(inspect.signature(implemented).parameters)
        if given[:len(wanted)] != wanted or any(
                inspect.signature(implemented).parameters[p].default is inspect.Parameter.empty
                for p in given[len(wanted):]):
            problems.append(f"{name}{tuple(given)} does not take {tuple(wanted)}")
    return problems


def test_the_checker_catches_a_wrong_fake() -> None:
    class Wrong:
        session_id = "s"

        def estimate(self, exact: bool) -> int:  # an extra required parameter
            return 0

        def compact_now(self) -> list:  # not async
            return []

    problems = mismatches(Wrong(), SessionPort)
    assert "missing history" in problems
    assert any(p.startswith("estimate(") for p in problems)
    assert "compact_now: call where the port has coroutine" in problems


def test_fake_session_meets_the_session_port() -> None:
    assert mismatches(FakeSession(), SessionPort) == []


async def test_the_real_session_meets_the_session_port(settings: Settings,
                                                       project_dir: Path) -> None:
    session = await AgentSession.start(settings, project_dir)
    try:
        assert mismatches(session, SessionPort) == []
    finally:
        await session.aclose()


@pytest.mark.parametrize("make", [
    lambda settings, root: FakeBackend(settings, root),
    lambda settings, root: CoreBackend(settings, root),
])
def test_backends_meet_the_backend_port(settings: Settings, project_dir: Path, make) -> None:
    assert mismatches(make(settings, project_dir), Backend) == []


def test_memory_and_code_sides_meet_their_ports(settings: Settings, project_dir: Path) -> None:
    from paicli_tui.core.code.service import LocalCodeService

    assert mismatches(FakeMemory(), MemoryBackend) == []
    assert mismatches(MemoryAdapter(MemoryBook(settings, project_dir)), MemoryBackend) == []
    assert mismatches(FakeCode(), CodeBackend) == []
    code = CodeAdapter(LocalCodeService(settings, project_dir), settings, project_dir)
    assert mismatches(code, CodeBackend) == []
