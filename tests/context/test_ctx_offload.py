"""Tier 1 offload (behaviour §3): threshold, previews, gitignore, bypasses, failure fallback."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.context.offload import offload_path_in, offload_tool_result
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.paths import ProjectPaths


def _run(project_dir: Path, settings: Settings, content: str, *, tool: str = "grep_code",
         arguments: dict | None = None, is_command: bool = False, bypass: bool = False,
         session: SessionState | None = None):
    return offload_tool_result(
        tool_name=tool, content=content, arguments=arguments or {},
        project=ProjectPaths.for_dir(project_dir), session=session or SessionState("s1"),
        settings=settings, is_command=is_command, bypass=bypass)


def _big(n: int) -> str:
    # distinct head/middle/tail so previews can be checked exactly
    lines = [f"line {i:06d} " + "x" * 50 for i in range(n // 62 + 1)]
    return "\n".join(lines)[:n]


@pytest.mark.parametrize(("size", "offloaded"), [(32_000, False), (32_001, True)])
def test_threshold_is_32000(project_dir: Path, settings: Settings, size: int,
                            offloaded: bool) -> None:
    result = _run(project_dir, settings, _big(size))
    assert (result.offload_path is not None) is offloaded
    assert result.truncated is offloaded and result.original_chars == size


def test_notice_and_file(project_dir: Path, settings: Settings) -> None:
    text = _big(50_000)
    session = SessionState("sess-a")
    result = _run(project_dir, settings, text, tool="grep_code", session=session)
    assert result.offload_path == ".paicli/tool-outputs/sess-a/001-grep_code.txt"
    saved = project_dir / result.offload_path
    assert saved.read_text(encoding="utf-8") == text
    gitignore = project_dir / ".paicli/tool-outputs/.gitignore"
    assert gitignore.read_text(encoding="utf-8").strip() == "*"
    notice = result.content
    assert "grep_code" in notice and "50,000 characters" in notice
    assert f"{text.count(chr(10)) + 1:,} lines" in notice
    assert text[:2_000] in notice and text[-800:] in notice
    assert text[2_000:2_100] not in notice
    assert "read_file" in notice and "limit=200" in notice
    assert offload_path_in(notice) == result.offload_path
    assert len(notice) < 4_000
    second = _run(project_dir, settings, text, tool="grep_code", session=session)
    assert second.offload_path.endswith("/002-grep_code.txt") and session.tool_output_counter == 2


def test_threshold_is_configurable(project_dir: Path, settings: Settings) -> None:
    small = replace(settings, offload_threshold_chars=2_000)
    assert _run(project_dir, small, "y" * 2_001).offload_path is not None
    assert _run(project_dir, small, "y" * 2_000).offload_path is None


@pytest.mark.parametrize(
    ("tool", "arguments", "bypass"),
    [
        ("read_file", {"path": "big.txt", "offset": 1}, False),
        ("read_file", {"path": "big.txt", "limit": 100}, False),
        ("read_file", {"path": ".paicli/tool-outputs/s1/001-grep_code.txt"}, False),
        ("grep_code", {"path": "sub/.paicli/tool-outputs/x.txt"}, False),
        ("anything", {}, True),
    ],
)
def test_bypasses(project_dir: Path, settings: Settings, tool: str, arguments: dict,
                  bypass: bool) -> None:
    text = _big(40_000)
    result = _run(project_dir, settings, text, tool=tool, arguments=arguments, bypass=bypass)
    assert result.content == text and result.offload_path is None and not result.truncated
    assert not (project_dir / ".paicli").exists()


@pytest.mark.parametrize("arguments", [
    {"path": "big.txt"}, {"path": "big.txt", "offset": None}, {"path": "big.txt", "limit": ""},
    {"path": "big.txt", "offset": "", "limit": None},
])
def test_unpaged_read_file_is_offloaded(project_dir: Path, settings: Settings,
                                        arguments: dict) -> None:
    # read_file treats a missing or empty offset/limit as "the whole file": that is offloaded.
    result = _run(project_dir, settings, _big(40_000), tool="read_file", arguments=arguments)
    assert result.offload_path is not None


def test_command_output_rule(project_dir: Path, settings: Settings) -> None:
    assert _run(project_dir, settings, "z" * 8_000, is_command=True).offload_path is None
    text = _big(20_000)
    result = _run(project_dir, settings, text, tool="execute_command", is_command=True)
    assert result.offload_path is not None
    assert text[:8_000] in result.content and text[-800:] in result.content
    assert text[8_000:8_100] not in result.content


def test_command_output_is_capped(project_dir: Path, settings: Settings) -> None:
    capped = replace(settings, command_output_cap_chars=10_000)
    text = _big(30_000)
    result = _run(project_dir, capped, text, tool="execute_command", is_command=True)
    saved = (project_dir / result.offload_path).read_text(encoding="utf-8")
    assert saved == text[:10_000] and result.original_chars == 30_000
    assert "30,000" in result.content


def test_write_failure_falls_back_to_truncation(project_dir: Path, settings: Settings) -> None:
    (project_dir / ".paicli").write_text("a file where a folder should be", encoding="utf-8")
    text = _big(40_000)
    result = _run(project_dir, settings, text)
    assert result.offload_path is None and result.truncated
    assert text[:2_000] in result.content and text[-800:] in result.content
    assert "could not be saved" in result.content and len(result.content) < 4_000


def test_non_utf8_output(project_dir: Path, settings: Settings) -> None:
    raw = (b"\xff\xfe binary \x80" * 5_000).decode("utf-8", "surrogateescape")
    result = _run(project_dir, settings, raw, tool="execute_command", is_command=True)
    result.content.encode("utf-8")
    (project_dir / result.offload_path).read_text(encoding="utf-8")
