"""The bar of the context gauge: fill by zone colour, markers at both triggers."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..format import marker_column, zone_for


class GaugeBar(Widget):
    """One line: ``█`` up to the estimate, ``░`` after it, ``┃`` at the clearing trigger and
    at the compaction trigger. Colours come from the component classes in styles/."""

    COMPONENT_CLASSES = {
        "gaugebar--ok",
        "gaugebar--near",
        "gaugebar--clearing",
        "gaugebar--compaction",
        "gaugebar--empty",
        "gaugebar--clear-marker",
        "gaugebar--compact-marker",
    }

    tokens: reactive[int] = reactive(0)
    window: reactive[int] = reactive(128_000)
    clearing_trigger: reactive[int] = reactive(57_000)
    compaction_trigger: reactive[int] = reactive(95_000)

    def render(self) -> Text:
        width = max(1, self.size.width)
        window = max(1, self.window)
        filled = min(width, round(min(self.tokens, window) / window * width))
        zone = zone_for(self.tokens, self.clearing_trigger, self.compaction_trigger)
        fill = self.get_component_rich_style(f"gaugebar--{zone}")
        empty = self.get_component_rich_style("gaugebar--empty")
        clear_col = marker_column(self.clearing_trigger, window, width)
        compact_col = marker_column(self.compaction_trigger, window, width)
        text = Text()
        for col in range(width):
            style = fill if col < filled else empty
            if col == clear_col:
                text.append("┃", style + self.get_component_rich_style("gaugebar--clear-marker"))
            elif col == compact_col:
                text.append("┃",
                            style + self.get_component_rich_style("gaugebar--compact-marker"))
            else:
                text.append("█" if col < filled else "░", style)
        return text
