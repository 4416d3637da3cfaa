"""← / → and Backspace / Delete in the chat input take a character as a person sees it whole:
an emoji of joined characters, a flag, a skin tone, an accent typed as a combining mark.

Found in tmux: ← stepped inside 👨‍👩‍👧 (five code points) and Backspace left a lone 👨‍👩‍."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_until
from textual.app import App, ComposeResult
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.ui.widgets.graphemes import character_start, next_boundary, previous_boundary
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.typed_input import TypedInput

FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467"   # 👨‍👩‍👧: three people, two joiners
THUMB = "\U0001F44D\U0001F3FD"                          # 👍🏽: a skin tone
FLAGS = "\U0001F1E8\U0001F1F3\U0001F1EF\U0001F1F5"      # 🇨🇳🇯🇵: two flags, four indicators
HEART = "\u2764\ufe0f"                                  # ❤️: a variation selector
ACCENT = "e\u0301"                                      # é as e + combining acute
KEYCAP = "1\ufe0f\u20e3"                                # 1️⃣


@pytest.mark.parametrize(("line", "stops"), [
    (f"a{FAMILY}b", [0, 1, 6, 7]),
    (f"{THUMB}x", [0, 2, 3]),
    (FLAGS, [0, 2, 4]),
    (f"x{FLAGS[:2]}{FLAGS[:1]}", [0, 1, 3, 4]),  # a lone indicator after a flag is its own
    (f"{HEART}{ACCENT}", [0, 2, 4]),
    (f"{KEYCAP}中文", [0, 3, 4, 5]),
    ("plain 中文", list(range(9))),
])
def test_character_boundaries(line: str, stops: list[int]) -> None:
    forward = [0]
    while forward[-1] < len(line):
        forward.append(next_boundary(line, forward[-1]))
    backward = [len(line)]
    while backward[-1] > 0:
        backward.append(previous_boundary(line, backward[-1]))
    assert forward == stops
    assert backward == stops[::-1]


@pytest.mark.parametrize(("line", "starts"), [
    (f"x{FAMILY}y", [0, 1, 1, 1, 1, 1, 6, 7]),
    (f"{FLAGS}", [0, 0, 2, 2, 4]),
    (f"{THUMB}{ACCENT}", [0, 0, 2, 2, 4]),
    ("中文", [0, 1, 2]),
])
def test_a_place_inside_a_character_is_its_start(line: str, starts: list[int]) -> None:
    assert [character_start(line, column) for column in range(len(line) + 1)] == starts


async def test_up_down_and_a_click_never_land_inside_a_joined_emoji(settings, project_dir):
    """↓ from every column of the line above, ↑ from the line below, and a click on every
    cell of the emoji: what is typed then goes before or after 👨‍👩‍👧, never into it (↓ from
    column 3 put the cursor after 👨‍, and 'q' split the family in two)."""
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        emoji_line = f"x{FAMILY}yz"
        for key, text, row in (("down", f"abcdefghij\n{emoji_line}", 0),
                               ("up", f"{emoji_line}\nabcdefghij", 1)):
            for column in range(10):
                prompt.load_text(text)
                prompt.move_cursor((row, column))
                await pilot.press(key, "q")
                typed = prompt.document.get_line(1 - row)
                assert FAMILY in typed and typed.replace("q", "", 1) == emoji_line, \
                    (key, column, typed)
        for x in range(8):
            prompt.load_text(emoji_line)
            region = prompt.content_region
            await pilot.click(prompt, offset=(region.x - prompt.region.x + x,
                                              region.y - prompt.region.y))
            await pilot.press("q")
            assert FAMILY in prompt.text, (x, prompt.text)


async def test_arrows_and_deletes_take_a_joined_emoji_whole(settings, project_dir):
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        prompt.load_text(f"hi {FAMILY} {THUMB}")
        prompt.move_cursor((0, len(prompt.text)))
        await pilot.press("left")
        assert prompt.cursor_location == (0, len(prompt.text) - len(THUMB))
        await pilot.press("left", "left")
        assert prompt.cursor_location == (0, 3)  # before the family, not inside it
        await pilot.press("right")
        assert prompt.cursor_location == (0, 3 + len(FAMILY))
        await pilot.press("backspace")
        assert prompt.text == f"hi  {THUMB}"
        await pilot.press("right", "delete")
        assert prompt.text == "hi  "
        # at a line's ends the keys still cross to the next line, as before
        prompt.load_text("a\nb")
        prompt.move_cursor((0, 1))
        await pilot.press("right")
        assert prompt.cursor_location == (1, 0)
        await pilot.press("left", "left")
        assert prompt.cursor_location == (0, 0)


def one_box(value: str) -> App:
    """An app holding a one-line box with ``value``."""

    class OneBox(App):
        def compose(self) -> ComposeResult:
            yield TypedInput(value)

    return OneBox()


async def test_one_line_boxes_take_a_joined_emoji_whole() -> None:
    """The memory text, the filters, the code query: the same keys, the same steps."""
    app = one_box(f"hi {FAMILY} {FLAGS}")
    async with app.run_test(size=(60, 5)) as pilot:
        box = app.query_one(TypedInput)
        box.focus()
        box.cursor_position = len(box.value)
        await pilot.press("left")
        assert box.cursor_position == len(box.value) - 2  # before the second flag
        await pilot.press("backspace")
        assert box.value == f"hi {FAMILY} {FLAGS[2:]}"
        box.cursor_position = 3
        await pilot.press("delete")
        assert box.value == f"hi  {FLAGS[2:]}"
        await pilot.press("right", "right")
        assert box.cursor_position == 6  # past the space, then the flag's two indicators
        await pilot.press("shift+left")  # selecting still goes by code point, as Textual does
        assert (box.selection.start, box.selection.end) == (6, 5)


async def test_a_click_in_a_one_line_box_never_lands_inside_a_joined_emoji() -> None:
    app = one_box(f"x{FAMILY}yz")
    async with app.run_test(size=(60, 5)) as pilot:
        box = app.query_one(TypedInput)
        for x in range(8):
            box.value = f"x{FAMILY}yz"
            region = box.content_region
            await pilot.click(box, offset=(region.x - box.region.x + x,
                                           region.y - box.region.y))
            await pilot.press("q")
            assert FAMILY in box.value, (x, box.value)
