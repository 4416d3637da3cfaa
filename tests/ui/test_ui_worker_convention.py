"""One convention from workers to widgets, checked on the source of every UI module.

A worker (a method decorated with ``@work``) does blocking or waiting work and posts a message
— a class nested in the class that posts it — and the handler changes widgets on the message
queue. So no worker calls ``call_from_thread`` to reach a method, and none touches the chat
log, the gauge, the screen's title or a queried widget itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "paicli_tui"
WIDGET_REACHES = {"chat", "gauge", "refresh_gauge", "render_history", "query_one", "query",
                  "sub_title", "title"}
"""Attributes of ``self`` that are (or change) widgets."""


def _ui_files() -> list[Path]:
    return sorted((UI / "ui").rglob("*.py")) + [UI / "app.py"]


def started_by_run_worker(source: str) -> set[str]:
    """Names of the methods whose coroutine ``source`` hands to ``run_worker(x.method(...))``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "run_worker" and node.args
                and isinstance(node.args[0], ast.Call)
                and isinstance(node.args[0].func, ast.Attribute)):
            names.add(node.args[0].func.attr)
    return names


def _is_worker(function: ast.FunctionDef | ast.AsyncFunctionDef, started: set[str]) -> bool:
    if function.name in started:
        return True
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name) and target.id == "work":
            return True
    return False


def widget_reaches(source: str, started: set[str] = frozenset()) -> list[str]:
    """``function: self.attribute`` for each widget a worker in ``source`` touches itself
    (a worker: decorated with ``@work``, or named in ``started``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                or not _is_worker(node, started)):
            continue
        for inner in ast.walk(node):
            if (isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
                    and inner.value.id == "self" and inner.attr in WIDGET_REACHES):
                found.append(f"{node.name}: self.{inner.attr}")
    return found


def test_nothing_is_called_from_a_thread() -> None:
    callers = [str(path.relative_to(UI)) for path in _ui_files()
               if "call_from_thread" in path.read_text(encoding="utf-8")]
    assert callers == []


def test_workers_post_messages_instead_of_changing_widgets() -> None:
    sources = {path: path.read_text(encoding="utf-8") for path in _ui_files()}
    started = set().union(*map(started_by_run_worker, sources.values()))
    reaches = {str(path.relative_to(UI)): found for path, source in sources.items()
               if (found := widget_reaches(source, started))}
    assert reaches == {}


def test_the_checker_sees_a_worker_that_changes_the_chat() -> None:
    source = '''
@work(group="x")
async def show(self):
    await self.chat.add_notice("hi")
    self.post_message(Said("hi"))

def handler(self):
    self.chat.reset()
'''
    assert widget_reaches(source) == ["show: self.chat"]
    assert widget_reaches(source, {"handler"}) == ["show: self.chat", "handler: self.chat"]
    assert started_by_run_worker("self.run_worker(self.handler(1), group='g')") == {"handler"}
