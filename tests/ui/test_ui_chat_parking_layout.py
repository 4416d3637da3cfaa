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
