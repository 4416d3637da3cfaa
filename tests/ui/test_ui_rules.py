"""Display rules as plain functions: gauge zones, token numbers, slash parsing, completion,
and the palette carrying every slash command."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.ui.format import (
    fmt_tokens,
    left_truncate,
    marker_column,
    short_args,
    token_change,
    zone_for,
)
from paicli_tui.ui.slash import SLASH_COMMANDS, closest_command, completions, parse_slash

# behaviour §2 at 128k: clearing 57,000, compaction 95,000; near = 90% of clearing = 51,300
ZONES = [
    (0, "ok"), (51_299, "ok"), (51_300, "near"), (56_999, "near"), (57_000, "clearing"),
    (94_999, "clearing"), (95_000, "compaction"), (128_000, "compaction"),
]


@pytest.mark.parametrize(("tokens", "zone"), ZONES)
def test_zone_at_128k(tokens: int, zone: str) -> None:
    assert zone_for(tokens, 57_000, 95_000) == zone


@given(st.integers(0, 2_000_000), st.integers(0, 2_000_000),
       st.integers(1, 200_000), st.integers(1, 1_000_000))
def test_zones_never_go_back_as_tokens_grow(a: int, b: int, clearing: int, gap: int) -> None:
    order = ["ok", "near", "clearing", "compaction"]
    low, high = sorted((a, b))
    compaction = clearing + gap
    assert order.index(zone_for(low, clearing, compaction)) <= \
        order.index(zone_for(high, clearing, compaction))


@pytest.mark.parametrize(("n", "text"), [(0, "0"), (999, "999"), (1_000, "1.0k"),
                                         (9_950, "9.9k"), (12_345, "12k"), (95_000, "95k"),
                                         (1_000_000, "1.0M"), (1_250_000, "1.2M"),
                                         (9_999, "9.9k"), (9_990_000, "9.9M"),
                                         (12_500_000, "12M")])
def test_fmt_tokens(n: int, text: str) -> None:
    assert fmt_tokens(n) == text


@pytest.mark.parametrize(("before", "after", "text"), [
    (61_000, 44_500, "61k → 44k"), (5_800, 4_500, "5.8k → 4.5k"), (900, 850, "900 → 850"),
    # a clearing of a few hundred tokens read "57k → 57k", as if nothing had been cleared
    (57_412, 57_103, "57,412 → 57,103"), (5_412, 5_405, "5,412 → 5,405"),
    (1_250_000, 1_210_000, "1,250,000 → 1,210,000"), (57_000, 57_000, "57k → 57k"),
])
def test_token_change_says_a_small_change_exactly(before: int, after: int, text: str) -> None:
    assert token_change(before, after) == text


def test_a_compaction_notice_shows_a_small_change_exactly() -> None:
    from paicli_tui.ui.widgets.compaction_notice import CompactionNotice

    notice = CompactionNotice("clearing", 57_412, 57_103)
    assert str(notice.title) == "⇣ Old tool results cleared: 57,412 → 57,103 tokens"


@given(st.integers(0, 10**7), st.integers(1, 10**7), st.integers(1, 300))
def test_markers_stay_inside_the_bar(value: int, window: int, width: int) -> None:
    assert 0 <= marker_column(value, window, width) < width


@pytest.mark.parametrize(("line", "parsed"), [
    ("/save hello world", ("/save", "hello world")), ("  /HELP  ", ("/help", "")),
    ("/memory search  java 17 ", ("/memory", "search  java 17")), ("hello", None),
    ("//not a command", None), ("/", None), ("path/to/file", None),
    # a message that starts with a path is a message (found in tmux: it was refused)
    ("/usr/bin/python3 crashes on start, why?", None), ("/tmp/build.log is huge", None),
    ("/etc/", None), ("/memory search src/main", ("/memory", "search src/main")),
    # Claude Code's and Codex's way to quit is ours too
    ("/exit", ("/quit", "")), ("/EXIT", ("/quit", "")),
])
def test_parse_slash(line: str, parsed: tuple[str, str] | None) -> None:
    assert parse_slash(line) == parsed


@pytest.mark.parametrize(("typed", "guess"), [
    ("/hlep", "/help"), ("/contxt", "/context"), ("/weather", None),
    # another agent's command gets ours for the job, not a look-alike spelling: /cost was
    # answered with /context by chance, /rewind with /index and /usage with /save
    ("/cost", "/context"), ("/usage", "/context"), ("/status", "/context"),
    ("/rewind", "/undo"), ("/new", "/clear"),
])
def test_closest_command(typed: str, guess: str | None) -> None:
    assert closest_command(typed) == guess


@pytest.mark.parametrize(("prefix", "names"), [
    ("/c", ["/compact", "/context", "/clear", "/copy"]), ("/me", ["/memory"]), ("/x", []),
    ("/save x", []), ("save", []),
])
def test_completions(prefix: str, names: list[str]) -> None:
    assert [c.name for c in completions(prefix)] == names


@pytest.mark.parametrize(("name", "arguments", "status", "title"), [
    ("read_file", '{"path": "a.py"}', "done", "✓ read_file path=a.py"),
    # a call without arguments (an MCP tool's) read "✗ mcp__demo__broken  · failed"
    ("mcp__demo__broken", "{}", "failed", "✗ mcp__demo__broken"),
    ("mcp__demo__pid", "", "running", "… mcp__demo__pid"),
])
def test_call_title(name: str, arguments: str, status: str, title: str) -> None:
    from paicli_tui.ui.widgets.tool_block import call_title

    assert call_title(name, arguments, status) == title


def test_short_args_and_truncation() -> None:
    assert short_args('{"path": "a.py", "offset": 10}') == "path=a.py offset=10"
    assert short_args("not json") == "not json"
    assert len(short_args('{"command": "' + "x" * 200 + '"}')) == 60
    assert left_truncate("src/main/java/app/Loader.java:12", 16) == "…/Loader.java:12"
    assert left_truncate("Loader.load(Path path)", 8, keep_start=True) == "Loader.…"


async def test_palette_offers_every_slash_command(settings, project_dir) -> None:
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for command in SLASH_COMMANDS:
            assert any(t.split()[0] == command.name for t in titles), command.name
