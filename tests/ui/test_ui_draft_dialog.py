"""The editor dialog of /init's PAI.md draft and /plan's tasks."""

from __future__ import annotations

from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp


async def test_esc_on_an_edited_draft_asks_before_dropping_the_edits(settings, project_dir):
    """/init's PAI.md (and /plan's tasks) open in an editor dialog; Esc dropped what had
    been typed there without a word. With edits, Esc asks first (Esc or n keeps editing);
    an untouched draft still closes at once."""
    from textual.widgets import TextArea

    from paicli_tui.ui.modals.confirm import ConfirmModal
    from paicli_tui.ui.modals.rules_draft import RulesDraftModal

    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    answers: list[str | None] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        app.push_screen(RulesDraftModal("PAI.md", "# project\n"), answers.append)
        await wait_until(pilot, lambda: isinstance(app.screen, RulesDraftModal))
        await pilot.press("end", *" 规则 用 pytest")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("escape")  # keep editing
        await wait_until(pilot, lambda: isinstance(app.screen, RulesDraftModal))
        assert "规则 用 pytest" in app.screen.query_one(TextArea).text and answers == []
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_until(pilot, lambda: answers == [None])
        app.push_screen(RulesDraftModal("PAI.md", "# project\n"), answers.append)
        await wait_until(pilot, lambda: isinstance(app.screen, RulesDraftModal))
        await pilot.press("escape")
        await wait_until(pilot, lambda: answers == [None, None])


async def test_the_plan_reviews_title_wraps_whole_at_60_columns(settings, project_dir):
    """At 60x20 the plan review's title was cut: "… then Run (Ctrl+S); Esc rejec". It
    wraps now, so the key that rejects the plan is read whole."""
    from textual.widgets import Label

    from paicli_tui.ui.modals.rules_draft import RulesDraftModal

    title = "Plan — edit the tasks, then Run (Ctrl+S); Esc rejects"
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        app.push_screen(RulesDraftModal("plan", "{}", title=title))
        await wait_until(pilot, lambda: isinstance(app.screen, RulesDraftModal))
        await pilot.pause()
        label = app.screen.query_one(".dialog-title", Label)
        dialog = app.screen.query_one(".rules-draft-dialog")
        shown = " ".join(line.text.strip() for line in
                         (label.render_line(y) for y in range(label.size.height)))
        assert shown == title
        assert label.region.right <= dialog.content_region.right
