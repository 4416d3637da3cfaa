"""A reply's block whose text widget is gone (seen once while a resumed session was drawn on
a loaded machine, which then failed to draw at all) draws its parts again when its text is
set, instead of raising."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from paicli_tui.ui.widgets.assistant_block import AssistantBlock


class OneBlock(App[None]):
    def compose(self) -> ComposeResult:
        yield AssistantBlock()


async def test_set_text_on_a_block_without_its_parts_draws_them_again() -> None:
    app = OneBlock()
    async with app.run_test() as pilot:
        block = app.query_one(AssistantBlock)
        await block.remove_children()
        await block.set_text("It prints **hello**.")
        await pilot.pause()
        assert block.text == "It prints **hello**."
        assert "hello" in block.query_one(".assistant-text", Markdown).source
        assert not block.query_one(".reasoning").display
