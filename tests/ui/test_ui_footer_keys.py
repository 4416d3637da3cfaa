"""Every key a screen shows in its footer is whole on screen, at 60×20 and 80×24.

Found in tmux: at 60 columns the memory browser's footer ended at "v Ver", so Delete, Accept
and Reject (the inbox's keys) were nowhere on screen; the code search lost Index now, the
context inspector its Restore, the chat its Quit. The footer now drops the hints' padding
below 80 columns and puts what still does not fit on a second line.
"""

from __future__ import annotations

import pytest
from pilot_helpers import wait_until
from textual.widgets._footer import FooterKey
from ui_scenarios import reach, scenes

from paicli_tui.config import Settings
from paicli_tui.ui.widgets.app_footer import AppFooter, key_rows


@pytest.mark.parametrize(("widths", "room", "rows"), [
    ([9, 11, 11, 12, 9], 60, [[0, 1, 2, 3, 4]]),
    ([9, 11, 11, 12, 9], 52, [[0, 1, 2, 3, 4]]),
    ([9, 11, 11, 12, 9], 51, [[0, 1, 2, 3], [4]]),
    ([10, 10, 10], 20, [[0, 1], [2]]),
    ([30, 5], 20, [[0], [1]]),  # wider than the room: a line of its own
    ([], 40, []),
])
def test_keys_fill_a_line_then_wrap(widths, room, rows) -> None:
    assert key_rows(widths, room) == rows


SCREENS = ["chat_midstream", "memory_browser", "code_search", "context_inspector"]


@pytest.mark.parametrize("size", [(60, 20), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", SCREENS)
async def test_every_footer_key_is_whole_on_screen(name: str, size: tuple[int, int],
                                                   settings: Settings, stable_project) -> None:
    scene = next(s for s in scenes(settings, stable_project) if s.name == name)
    async with scene.app.run_test(size=size) as pilot:
        await reach(pilot, scene)
        screen = pilot.app.screen
        footer = screen.query_one(AppFooter)

        def unplaced() -> list[str]:
            return [k.description for k in footer.query(FooterKey) if k.region.width == 0]

        # the footer's keys are laid out after a refresh: late on a busy machine
        await wait_until(pilot, lambda: bool(footer.query(FooterKey)) and unplaced() == [],
                         30, lambda: f"no room for {unplaced()}")
        keys = list(footer.query(FooterKey))
        shown = {b.binding.action for b in screen.active_bindings.values() if b.binding.show}
        assert shown <= {k.action for k in keys}, "a shown binding has no footer key"
        for key in keys:
            region = key.region
            assert region.width > 0, f"{key.key_display} {key.description} has no room"
            assert region.right <= size[0], f"{key.description} runs off the screen"
            assert footer.region.contains_region(region), f"{key.description} is cut"
            for other in keys:
                assert other is key or not region.overlaps(other.region), \
                    f"{key.description} is under {other.description}"
        assert footer.region.height <= 2
