"""The slash menu shows the highlighted command's description whole, wrapped.

Found in tmux: at 80 columns five of the first six descriptions ended in "…" ("Summarise
older turns now (keeps th…"), at 60 all but one; the highlighted one is what Enter runs."""

from __future__ import annotations

from rich.console import Console

from paicli_tui.ui.slash import BY_NAME, SLASH_COMMANDS
from paicli_tui.ui.widgets.slash_menu import SlashMenu


def shown(menu: SlashMenu, width: int) -> str:
    console = Console(width=width, color_system=None)
    with console.capture() as capture:
        console.print(menu.renderable(width))
    return capture.get()


def test_the_highlighted_description_wraps_whole_and_the_others_stay_one_line() -> None:
    menu = SlashMenu()
    menu.matches = list(SLASH_COMMANDS)
    for width in (80, 58):  # the menu's width in an 80- and a 60-column terminal
        for name in ("/compact", "/plan"):
            menu.highlighted = menu.matches.index(BY_NAME[name])
            text = shown(menu, width)
            assert " ".join(BY_NAME[name].help.split()) in " ".join(text.split()), text
            lines = text.splitlines()
            hint = lines[-1].lstrip()  # "Tab …", or "7 above · 7 below · Tab …"
            assert hint.startswith("Tab") or hint[:1].isdigit(), text
        # a short description stays one line, and so does every row not highlighted
        menu.highlighted = menu.matches.index(BY_NAME["/help"])
        assert len(shown(menu, width).splitlines()) == 7  # six rows and the hint
