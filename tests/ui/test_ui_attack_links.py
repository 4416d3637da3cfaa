"""A link in the chat opens only when it is a web page.

The model's words are Markdown, and a click on a link hands its URL to the system, which opens
whatever it names: `file:///…/report.app` starts a program the repository shipped (macOS
`open`), `vscode://…` or another app's scheme passes it an action. A prompt-injected reply
("[see the test report](file:///…)") is one click from that. What a person sees: an http(s)
link opens the browser; any other link is not opened, and a warning names it.
"""

from __future__ import annotations

import webbrowser

import pytest
from pilot_helpers import wait_until
from textual.widgets import Markdown
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.ui.widgets.chat_log import ChatLog


@pytest.mark.parametrize("href,opened", [
    ("https://docs.python.org/3/", True),
    ("HTTP://example.com/x", True),
    ("file:///tmp/project/report.app", False),
    ("vscode://ms-python.python/install", False),
    ("javascript:alert(1)", False),
    ("ssh://evil.example", False),
    ("  file:///etc/passwd", False),
    ("report.html", False),
])
async def test_only_web_links_open(href, opened, settings, project_dir, monkeypatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: calls.append(url))
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        notice = await app.screen.query_one(ChatLog).add_notice(f"[the report]({href})")
        notice.post_message(Markdown.LinkClicked(notice, href))
        # one or the other, however late the click is handled
        await wait_until(pilot, lambda: bool(calls or app._notifications))
        warnings = [n.message for n in app._notifications]
    assert calls == ([href] if opened else [])
    assert bool(warnings) is not opened
    if not opened:
        assert warnings[-1].startswith("Not opened: only http(s) links open")
