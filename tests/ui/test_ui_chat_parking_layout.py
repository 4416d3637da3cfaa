"""Parking waits for a layout: a pass made before the conversation (or a far block) has a size
asks to be called again, a bounded number of times, instead of ending with nothing parked
until the next scroll (a resumed session drawn all at once could park nothing)."""

from __future__ import annotations

from types import SimpleNamespace

from paicli_tui.ui.widgets.chat_parking import UNMEASURED_TRIES, ChatParking


def unlaid_log() -> SimpleNamespace:
    return SimpleNamespace(is_mounted=True, size=SimpleNamespace(height=0, width=0),
                           children=[])


def test_a_pass_before_the_layout_asks_again_a_bounded_number_of_times() -> None:
    parking = ChatParking(unlaid_log())  # type: ignore[arg-type]
    answers = [parking.update([]) for _ in range(UNMEASURED_TRIES + 3)]
    assert answers == [True] * UNMEASURED_TRIES + [False] * 3


def test_a_log_taken_off_the_screen_is_not_asked_again() -> None:
    log = unlaid_log()
    log.is_mounted = False
    assert ChatParking(log).update([]) is False  # type: ignore[arg-type]


class Block:
    """A conversation block as parking sees it (hashable, as widgets are)."""

    def __init__(self, y: int, height: int, inner_shown: bool, width: int = 77) -> None:
        self.virtual_region = SimpleNamespace(y=y, height=height, bottom=y + height,
                                              width=width)
        self.display = True
        self.children = [SimpleNamespace(display=inner_shown)]
        self.styles = SimpleNamespace(inline=SimpleNamespace(height=None), height=None)


def block(y: int, height: int, inner_shown: bool = True) -> Block:
    """A block laid out: as wide as the conversation, at its row."""
    return Block(y, height, inner_shown)


def unlaid() -> Block:
    """A block mounted but not laid out yet: Textual has no place for it (an empty region)."""
    return Block(0, 0, True, width=0)


def laid_log(children: list, scroll_y: float = 0.0) -> SimpleNamespace:
    return SimpleNamespace(is_mounted=True, is_attached=False, scroll_y=scroll_y,
                           size=SimpleNamespace(height=20, width=78), children=children)


def settled(log: SimpleNamespace) -> ChatParking:
    parking = ChatParking(log)  # type: ignore[arg-type]
    parking.width = log.size.width  # the first pass after a width change only measures
    return parking


def test_blocks_mounted_but_not_laid_out_yet_ask_again_instead_of_counting_as_near() -> None:
    # Every block of a session drawn just before the pass sits at row 0 with no height,
    # inside the window of an unscrolled view: the pass ended "nothing to park", and the
    # layout after it brought no other pass (in full test runs, a resumed session parked
    # nothing for a minute).
    log = laid_log([unlaid() for _ in range(60)])
    parking = settled(log)
    assert parking.update([]) is True and parking.parked == {}
    # laid out: the view at the end of 600 rows, the blocks above its window are parked
    log.children = [block(10 * i, 10) for i in range(60)]
    log.scroll_y = 580.0
    assert parking.update([]) is False
    window_top = 580 - 2 * 20
    assert len(parking.parked) == sum(1 for i in range(60) if 10 * i + 10 < window_top)
    assert parking.unmeasured_tries == 0


def test_a_block_with_nothing_shown_inside_is_not_waited_for() -> None:
    # a block whose inner widgets are all hidden may truly have no height: not a reason to
    # keep asking for another pass
    log = laid_log([block(0, 0, inner_shown=False), block(0, 10), block(10, 10)])
    assert settled(log).update([]) is False


def test_a_block_laid_out_with_no_height_is_not_waited_for() -> None:
    # A reply of nothing but blank lines before its tool calls ("\n\n", as many models
    # send) is laid out as wide as the conversation and 0 rows high, its text widget shown.
    # Taken for a block not laid out yet, it kept a pass every 0.2 s going for five seconds
    # and then, the tries never counted back, no later pass asked again for the session.
    log = laid_log([block(0, 10), block(10, 0), block(10, 10)], scroll_y=0.0)
    parking = settled(log)
    assert parking.update([]) is False and parking.unmeasured_tries == 0


async def test_a_resumed_session_with_blank_replies_settles(settings, project_dir) -> None:
    """Replies of blank lines before their tool calls are drawn with no height: once the
    session is parked, no pass waits for them (none is pending, none counted unmeasured)."""
    from pilot_helpers import parking_state, resumed_app, wait_until
    from ui_fakes import long_session_history

    from paicli_tui.ui.widgets.chat_log import ChatLog

    history = [m.evolve(content="\n\n") if m.tool_calls and not m.content else m
               for m in long_session_history(12)]
    app = resumed_app(settings, project_dir, history)
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.parking.parked and not log._park_pending, 60,
                         lambda: parking_state(log))
        assert log.parking.unmeasured_tries == 0, parking_state(log)
