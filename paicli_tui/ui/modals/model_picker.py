"""/model: choose a provider and model; the context thresholds follow its window."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ..backend import ModelChoice
from ..format import fmt_tokens
from ..widgets.typed_input import TypedInput
from .dialog_keys import CTRL_C
from .short_terminal import SMALL_HEIGHT

ModelAnswer = tuple[str, str] | None
"""(provider, model) or None."""



def readiness(choice: ModelChoice) -> str:
    """A row's last word: a local server was shown as "ready" while nothing ran on its port
    (the first message then failed with "cannot reach")."""
    if not choice.configured:
        return "no key"
    return "local" if choice.local else "ready"

class ModelPicker(ModalScreen[ModelAnswer]):
    """Providers with their default model and window; the model name can be edited."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), CTRL_C]

    def __init__(self, choices: list[ModelChoice], current: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker-dialog model-picker-dialog"):
            yield Label("Switch model", classes="dialog-title")
            yield Label(f"current: {self.current or 'none'}", classes="dim", markup=False)
            # the model column as wide as the longest default, so a row fits at 60 columns
            wide = min(28, max((len(c.model) for c in self.choices), default=0))
            yield OptionList(*[
                Option(f"{c.provider:<10} {self._model_of(c):<{wide}} "
                       f"{fmt_tokens(c.window):>6}  {readiness(c)}",
                       id=c.provider)
                for c in self.choices], id="model-options")
            yield TypedInput(placeholder="model name (Enter to use the provider's default)",
                        id="model-name")
            yield Label("↑↓ choose · Enter, Enter switches · Esc cancels",
                        classes="dim dialog-keys")

    def _model_of(self, choice: ModelChoice) -> str:
        """The model in use for the provider in use (/model may have changed it), else the
        one the provider would start with."""
        provider, _, model = self.current.partition(":")
        return model if provider == choice.provider and model else choice.model

    def on_resize(self, event: events.Resize) -> None:
        # a short terminal: less padding and a shorter list, so the name box stays whole
        self.set_class(event.size.height < SMALL_HEIGHT, "-small")

    def on_mount(self) -> None:
        self.set_class(self.size.height < SMALL_HEIGHT, "-small")
        options = self.query_one(OptionList)
        if options.option_count:
            # on the provider in use: Enter, Enter keeps it (with an edited model name)
            in_use = self.current.partition(":")[0]
            options.highlighted = next(
                (i for i, c in enumerate(self.choices) if c.provider == in_use), 0)
        options.focus()

    def _chosen(self) -> ModelChoice | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        return self.choices[options.highlighted]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        choice = self._chosen()
        if choice is not None:
            name = self.query_one("#model-name", Input)
            name.value = self._model_of(choice)
            name.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        choice = self._chosen()
        if choice is not None:
            self.dismiss((choice.provider, event.value.strip() or choice.model))

    def action_cancel(self) -> None:
        self.dismiss(None)
