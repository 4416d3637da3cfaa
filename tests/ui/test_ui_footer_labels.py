"""The footer's labels on the right (the memory inbox's count, an index build's progress,
errors logged) sit side by side and leave the keys whole.

Found in tmux: with "✉ 1 new memory (F2)" showing, the chat's footer took two lines at 80
columns (^q Quit alone on the second, a wide gap on the first: the room of the palette key
was kept though the count lay over it), and a logged error lay over the count: each label
was docked right on its own, so they were drawn over each other."""

from __future__ import annotations

import logging

import pytest
from pilot_helpers import wait_until
from textual.widgets._footer import FooterKey
from ui_fakes import FakeBackend, FakeClient, FakeMemory, FakeSession, seeded_memories

from paicli_tui.app import PaicliApp
from paicli_tui.logs import LOG_FILE, start_logging, stop_logging
from paicli_tui.ui.backend import IndexStep
from paicli_tui.ui.index_job import IndexJob, IndexState, footer_texts
from paicli_tui.ui.memory_inbox import inbox_texts
from paicli_tui.ui.widgets.app_footer import (
    ActivityLabel,
    AppFooter,
    LoggedErrorsLabel,
    activity_texts,
    fitting_text,
)


def shown_text(label) -> str:
    return str(label.render()) if label.display else ""


def keys_beside(footer: AppFooter, label) -> list[str]:
    """What is wrong with the footer's keys beside ``label`` ([]: every key of the chat is
    there, whole, and none lies under the label)."""
    keys = [k for k in footer.query(FooterKey) if k.display]
    found = [f"{k.description} is cut at {k.region}" for k in keys
             if not footer.region.contains_region(k.region)]
    found += [f"{k.description} at {k.region} is under the label at {label.region}"
              for k in keys if k.region.overlaps(label.region)]
    if not {k.description for k in keys} >= {"Help", "Memory", "Search", "Context", "Quit"}:
        found.append(f"keys missing: {[k.description for k in keys]}")
    return found


@pytest.mark.parametrize(("size", "lines", "count"), [
    ((80, 24), 1, "✉ 1 new (F2)"),  # short: the palette key stays beside it
    ((60, 20), 2, "✉ 1 new memory (F2)"),  # no form fits beside the keys: said whole
    ((120, 30), 1, "✉ 1 new memory (F2)"),
])
async def test_the_inbox_count_leaves_the_keys_whole_and_on_few_lines(settings, project_dir,
                                                                       size, lines,
                                                                       count) -> None:
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          memory_=FakeMemory(seeded_memories()))
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=size) as pilot:
        def footer() -> AppFooter:
            return app.screen.query_one(AppFooter)

        def problems() -> list[str]:
            """What is wrong with the footer as drawn now ([]: the count and the keys sit
            side by side, on ``lines`` lines)."""
            labels = footer().query(ActivityLabel)
            if not labels or shown_text(labels.first()) != count:
                return [f"the label reads {shown_text(labels.first())!r}" if labels
                        else "no label"]
            label = labels.first()
            found = keys_beside(footer(), label)
            palette = [k for k in footer().query(FooterKey)
                       if k.display and k.has_class("-command-palette")]
            right = palette[0].region.x if palette else size[0]  # the palette key is last
            if label.region.right != right:
                found.append(f"the count ends at {label.region.right}, not {right}")
            if footer().region.height != lines:
                found.append(f"{footer().region.height} lines")
            return found

        await wait_until(pilot, lambda: not problems(), explain=problems)


async def test_a_logged_error_sits_beside_the_inbox_count(settings, project_dir) -> None:
    start_logging(settings)
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          memory_=FakeMemory(seeded_memories()))
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(140, 30)) as pilot:
        logging.getLogger("paicli_tui.ui.test").error("the index could not be opened")

        def labels() -> tuple[str, str]:
            footer = app.screen.query_one(AppFooter)
            errors, activity = footer.query(LoggedErrorsLabel), footer.query(ActivityLabel)
            if not errors or not activity:  # the footer is being composed again
                return "", ""
            return shown_text(errors.first()), shown_text(activity.first())

        def side_by_side() -> bool:
            footer = app.screen.query_one(AppFooter)
            if not labels()[0].startswith("⚠ 1 error logged") or \
                    labels()[1] != "✉ 1 new memory (F2)":
                return False
            errors = footer.query_one(LoggedErrorsLabel).region
            activity = footer.query_one(ActivityLabel).region
            # side by side on the screen; how far right the pair ends depends on what else
            # the footer holds that run (in a full run it ended at 137 once, at 140 alone)
            return errors.right <= activity.x and activity.right <= 140 \
                and errors.y == activity.y

        def regions() -> str:
            footer = app.screen.query_one(AppFooter)
            return f"{labels()} at {[w.region for w in footer.query('#footer-labels > *')]}"

        await wait_until(pilot, side_by_side, explain=regions)
        assert str(settings.home.logs_dir / LOG_FILE) in labels()[0]
    stop_logging()


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (100, 30)])
async def test_a_logged_error_leaves_the_keys_whole(settings, project_dir, size) -> None:
    """Found in tmux: with "⚠ 1 error logged: <log file>" showing, the chat's footer read
    "f1 Help  f2 Memory  f3 Se ⚠ 1 error…" at 80 columns, and at 60 "f1 Hel", "f3 Sea",
    "^q Qui" with Memory and Context nowhere: the label lay over the keys it was meant to
    leave room for. Every key now shows whole, beside the label, never under it."""
    start_logging(settings)
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=size) as pilot:
        logging.getLogger("paicli_tui.ui.test").error("the memory file could not be read")

        def problems() -> list[str]:
            footer = app.screen.query_one(AppFooter)
            labels = footer.query(LoggedErrorsLabel)
            if not labels or not shown_text(labels.first()).startswith("⚠ 1 error logged"):
                return ["no error label yet"]
            return keys_beside(footer, labels.first())

        await wait_until(pilot, lambda: not problems(), explain=problems)
    stop_logging()


@pytest.mark.parametrize(("size", "progress", "palette"), [
    ((80, 24), "⟳ index 52%", True),
    ((60, 20), "⟳ index 52%", False),
    ((120, 30), "⟳ index 52%: embedding 12/23 files", True),
])
async def test_an_index_build_leaves_the_keys_on_one_line(settings, project_dir, size,
                                                          progress, palette) -> None:
    """Found by testers: at 80 columns '⟳ index 52%: embedding 12/23 files' pushed ^q Quit
    onto a second line and hid ^p palette; at 60 the progress itself was cut ('12/2…'). The
    label now says as much as fits beside the keys (the share done at least), and the
    palette key stays where there is room for it too."""
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=size) as pilot:
        app.index_job.stepped(IndexJob.Stepped(IndexStep(12, 23, "", "embed", "64/120")))

        def problems() -> list[str]:
            footer = app.screen.query_one(AppFooter)
            labels = footer.query(ActivityLabel)
            if not labels or shown_text(labels.first()) != progress:
                return [f"the label reads {shown_text(labels.first())!r}" if labels
                        else "no label"]
            found = keys_beside(footer, labels.first())
            shown = {k.description for k in footer.query(FooterKey) if k.display}
            if ("palette" in shown) != palette:
                found.append(f"palette key shown: {'palette' in shown}")
            if footer.region.height != 1:
                found.append(f"{footer.region.height} lines")
            return found

        await wait_until(pilot, lambda: not problems(), explain=problems)
        # the whole step on hover, where the footer says less
        label = app.screen.query_one(ActivityLabel)
        whole = "⟳ index 52%: embedding 12/23 files"
        assert label.tooltip == (None if progress == whole else whole)


async def test_a_build_in_the_memory_browser_leaves_its_keys_two_lines(settings,
                                                                        project_dir) -> None:
    """Found in tmux: at 80 columns the memory browser's keys take two lines whatever the
    label says, and the whole step ('⟳ index 6%: embedding 184/3000 files') pushed them
    onto a third, a row of the list lost for words the hover gives. The label now says the
    share done when the longer words cost the keys a line."""
    from test_ui_memory_meaning import browser_app, open_browser

    app = browser_app(settings, project_dir, FakeMemory(seeded_memories()))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory")
        app.index_job.stepped(IndexJob.Stepped(IndexStep(12, 23, "", "embed", "64/120")))

        def problems() -> list[str]:
            footer = screen.query_one(AppFooter)
            labels = footer.query(ActivityLabel)
            if not labels or shown_text(labels.first()) != "⟳ index 52%":
                return [f"the label reads {shown_text(labels.first())!r}" if labels
                        else "no label"]
            found = [f"{k.description} is cut at {k.region}" for k in footer.query(FooterKey)
                     if k.display and not footer.region.contains_region(k.region)]
            if footer.region.height != 2:
                found.append(f"{footer.region.height} lines")
            return found

        await wait_until(pilot, lambda: not problems(), explain=problems)
        label = screen.query_one(ActivityLabel)
        assert label.tooltip == "⟳ index 52%: embedding 12/23 files"


@pytest.mark.parametrize(("index", "inbox", "texts"), [
    ((), (), []),
    (("⟳ index 52%: embedding 12/23 files", "⟳ index 52%"), (),
     ["⟳ index 52%: embedding 12/23 files", "⟳ index 52%"]),
    (("⟳ index 52%: embedding", "⟳ index 52%"), ("✉ 1 new memory (F2)", "✉ 1 new (F2)"),
     ["⟳ index 52%: embedding · ✉ 1 new memory (F2)", "⟳ index 52%: embedding · ✉ 1 new (F2)",
      "⟳ index 52% · ✉ 1 new memory (F2)", "⟳ index 52% · ✉ 1 new (F2)"]),
])
def test_every_way_to_say_the_background_work(index, inbox, texts) -> None:
    assert activity_texts(index, inbox) == texts


@pytest.mark.parametrize(("room", "share", "chosen"), [
    (40, 40, "⟳ index 52%: embedding 12/23 files"),  # 34 characters and its padding: 36
    (36, 40, "⟳ index 52%: embedding 12/23 files"),
    (35, 40, "⟳ index 52%"),  # the keys keep their line
    (13, 40, "⟳ index 52%"),
    (12, 40, "⟳ index 52%: embedding 12/23 files"),  # the keys wrap: said whole
    (12, 20, "⟳ index 52%"),  # whole within its share
    (5, 10, "⟳ index 52%"),  # nothing fits: the shortest, cut
])
def test_the_label_takes_the_longest_words_that_fit(room, share, chosen) -> None:
    texts = ["⟳ index 52%: embedding 12/23 files", "⟳ index 52%"]
    assert fitting_text(texts, room, share) == chosen


@pytest.mark.parametrize(("state", "texts"), [
    (IndexState(), ()),
    (IndexState(True, 0, 0, ""), ("⟳ index…",)),
    (IndexState(True, 0, 0, "scanning files: 3 found"),
     ("⟳ index: scanning files: 3 found", "⟳ index…")),
    (IndexState(True, 12, 23, "embedding 12/23 files"),
     ("⟳ index 52%: embedding 12/23 files", "⟳ index 52%")),
    (IndexState(True, 1_204, 2_408, ""), ("⟳ index 50%…", "⟳ index 50%")),
])
def test_the_builds_words_long_and_short(state, texts) -> None:
    assert footer_texts(state) == texts


@pytest.mark.parametrize(("new", "texts"), [
    (0, ()), (1, ("✉ 1 new memory (F2)", "✉ 1 new (F2)")),
    (1_204, ("✉ 1,204 new memories (F2)", "✉ 1,204 new (F2)"))])
def test_the_inboxs_words_long_and_short(new, texts) -> None:
    assert inbox_texts(new) == texts


def test_the_whole_step_gives_way_when_it_costs_the_keys_a_line() -> None:
    texts = ["⟳ index 52%: embedding 12/23 files", "⟳ index 52%"]
    assert fitting_text(texts, 12, 40, lambda cells: 3 if cells > 20 else 2) == texts[1]
    assert fitting_text(texts, 12, 40, lambda cells: 2) == texts[0]  # as many lines: whole
