"""Global keys of the chat screen, shown by the help screen and docs/tui.md."""

from __future__ import annotations

KEY_HELP: tuple[tuple[str, str], ...] = (
    ("Enter", "send the message (during a turn: queue it); run the highlighted command"),
    ("Ctrl+J / Alt+Enter", "new line in the message"),
    ("↑ / ↓", "previous / next input (at the first / last row shown); in the slash menu: choose"),
    ("↑ on an empty input", "edit the last queued message (clear it to cancel it)"),
    ("Ctrl+R", "search what you typed before (every project, newest first); Enter puts it "
               "in the input"),
    ("PgUp / PgDn", "scroll the conversation a page (the input keeps the focus)"),
    ("Tab / Shift+Tab", "slash menu: complete, or cycle through the matches"),
    ("Shift+Tab", "accept-edits mode on / off: file changes go ahead unasked, commands "
                  "still ask (a line under the input says it is on)"),
    ("Esc", "cancel the running turn and return to the input; close the menu, a panel or "
            "a dialog"),
    ("Ctrl+C", "copy the selection; else stop the running turn (in a question the turn "
               "asks, such as an approval: answer no and stop it); else clear the input; "
               "on an empty input, twice quits"),
    ("Ctrl+W / Ctrl+U", "delete the word before the cursor / to the start of the line"),
    ("Ctrl+A / Ctrl+E / Ctrl+K", "start / end of the line / delete to its end (the whole "
                                 "line where it wraps; Home / End: the row shown)"),
    ("Alt+B / Alt+F / Alt+D", "a word left / a word right / delete the next word"),
    ("← / → / Backspace / Delete", "one character as it is seen: an emoji of joined "
                                   "characters, a flag or an accent moves and goes whole"),
    ("@path", "attach a project file to the message (a menu lists the matches; Enter "
              "picks)"),
    ("!command", "run a shell command yourself; the model reads its output with your next "
                 "message"),
    ("Ctrl+P", "command palette (every slash command is there)"),
    ("F1", "this help"),
    ("F2", "memory browser"),
    ("F3", "code search"),
    ("F4", "context inspector"),
    ("F5", "resume a session"),
    ("F8", "switch model"),
    ("Ctrl+T", "toggle dark / light theme"),
    ("Ctrl+Q", "quit"),
    ("F6 (in a panel)", "dock beside the chat (≥ 140 columns) / full screen"),
    ("memory browser: a / e / v / d / /", "add / replace / verify / delete / filter"),
    ("memory browser: y / n", "inbox: accept (verify) / reject (delete) an automatic memory"),
    ("code search: Enter / ↓", "search (the query box keeps the focus) / walk into the results"),
    ("code search: Enter on a result / Ctrl+O", "insert path:line into the chat input"),
    ("code search: Ctrl+G / Ctrl+B", "change mode / index now"),
    ("/mcp view: r", "restart the highlighted MCP server"),
)
