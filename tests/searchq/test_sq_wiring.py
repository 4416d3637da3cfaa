"""The light-model query rewrite wired into search_code, `paicli-tui search` and the session.

Every model here is scripted: a TextCompleter or a minimal ChatClient, never the network.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from doubles.completers import ScriptedCompleter

import paicli_tui.core.code.search as search_module
import paicli_tui.core.llm.registry as registry
from paicli_tui import cli
from paicli_tui.config import load_settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.code.hits import SearchResponse
from paicli_tui.core.code.service import LocalCodeService
from paicli_tui.core.code.tools import SearchCodeTool
from paicli_tui.core.contracts.llm import LLMError, StreamDone
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext
from paicli_tui.core.messages import Message

ZH = "怎么从标题生成网址别名"
REWRITE = "slugify title url slug"


@dataclass
class OneShotClient:
    """Just enough of a ChatClient for one-shot completions; records the model asked for."""

    answer: str = REWRITE
    provider: str = "scripted"
    model: str = "main-1"
    window: int = 128_000
    models_asked: list[str | None] = field(default_factory=list)
    closed: bool = False

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        self.models_asked.append(model)
        yield StreamDone(Message.assistant(self.answer), "stop")

    async def aclose(self) -> None:
        self.closed = True


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Replaces search_project: records the plan each search was handed."""
    seen: list[dict[str, Any]] = []

    def fake_search(settings, root, query, **kwargs) -> SearchResponse:
        seen.append({"query": query, **kwargs})
        return SearchResponse(query, kwargs.get("mode", "hybrid"))

    monkeypatch.setattr(search_module, "search_project", fake_search)
    return seen


def _context(settings, project: Path, complete=None) -> ToolContext:
    return ToolContext(project_root=project, settings=settings, session=SessionState("s"),
                       light_complete=complete)


async def test_tool_hands_the_rewritten_plan_to_the_search(settings, project_dir, spy) -> None:
    model = ScriptedCompleter(REWRITE)
    out = await SearchCodeTool(settings, project_dir).run({"query": ZH},
                                                          _context(settings, project_dir, model))
    assert out.status == "done"
    assert model.calls and model.calls[0][1] == ZH
    plan = spy[0]["plan"]
    assert plan.terms_source == "rewrite" and plan.english_terms == REWRITE
    assert plan.embedding_queries == [ZH, REWRITE]
    assert {"slugify", "slug", "title"} <= set(plan.fulltext_query.split())
    # cached per question: a second search asks the model nothing
    await SearchCodeTool(settings, project_dir).run({"query": ZH},
                                                    _context(settings, project_dir, model))
    assert len(model.calls) == 1 and spy[1]["plan"].english_terms == REWRITE


@pytest.mark.parametrize("answer", [
    "抱歉，我无法回答",                               # Chinese
    "Sorry, as an AI I cannot help with that.",       # refusal
    "",                                                # nothing
    LLMError("provider down"),                         # failure
])
async def test_garbage_or_failing_model_falls_back_to_the_gloss(
        settings, project_dir, spy, answer) -> None:
    model = ScriptedCompleter(answer)
    out = await SearchCodeTool(settings, project_dir).run({"query": ZH},
                                                          _context(settings, project_dir, model))
    assert out.status == "done" and len(model.calls) == 1
    plan = spy[0]["plan"]
    assert plan.terms_source == "gloss" and plan.english_terms
    assert plan.embedding_queries[0] == ZH


async def test_slow_model_times_out_to_the_gloss(settings, project_dir, spy,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "REWRITE_TIMEOUT_S", 0.05)
    model = ScriptedCompleter(REWRITE, delay=30)
    out = await SearchCodeTool(settings, project_dir).run({"query": ZH},
                                                          _context(settings, project_dir, model))
    assert out.status == "done" and spy[0]["plan"].terms_source == "gloss"


@pytest.mark.parametrize(("query", "mode", "complete"), [
    (ZH, "grep", True),                       # grep needs no plan
    ("slug from a title", "grep", True),
    (ZH, "hybrid", False),                    # no model in the session
])
async def test_no_model_call_when_there_is_nothing_to_rewrite(
        settings, project_dir, spy, query, mode, complete) -> None:
    model = ScriptedCompleter(LLMError("must not be called"))
    context = _context(settings, project_dir, model if complete else None)
    out = await SearchCodeTool(settings, project_dir).run({"query": query, "mode": mode},
                                                          context)
    assert out.status == "done" and model.calls == []
    assert spy[0]["plan"] is None  # the search plans offline itself


async def test_session_gives_tools_its_light_model(settings, project_dir) -> None:
    light = load_settings({"light_model": "small-1"}, {"PAICLI_HOME": str(settings.home.home)})
    client = OneShotClient()
    session = await AgentSession.start(light, project_dir, client=client)
    try:
        complete = session.tool_context.light_complete
        assert complete is not None
        assert await complete("system", ZH) == REWRITE
        assert client.models_asked == ["small-1"]
        session.switch_model(OneShotClient(answer="other", provider="elsewhere"))
        # another provider: light_model named a model of the first one, so the main model
        assert await session.tool_context.light_complete("system", ZH) == "other"
    finally:
        await session.aclose()
    bare = await AgentSession.start(settings, project_dir, client=None)
    assert bare.tool_context.light_complete is None
    await bare.aclose()


async def test_session_search_code_call_uses_the_light_model(settings, project_dir, spy) -> None:
    client = OneShotClient()
    session = await AgentSession.start(settings, project_dir, client=client,
                                       code=LocalCodeService(settings, project_dir))
    try:
        _, out = await session.tools.run("search_code", json.dumps({"query": ZH}),
                                         session.tool_context)
    finally:
        await session.aclose()
    assert out.status == "done" and client.models_asked == [None]  # no light_model: main
    assert spy[0]["plan"].terms_source == "rewrite"
    assert spy[0]["plan"].english_terms == REWRITE


# -- paicli-tui search ---------------------------------------------------------------------
def _explain(capsys, *args: str) -> dict[str, Any]:
    assert cli.main(["search", "--json", "--explain", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_rewrites_with_the_configured_model(indexed, capsys,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    clients: list[OneShotClient] = []

    def build(settings, **options):
        clients.append(OneShotClient())
        return clients[-1]

    monkeypatch.setattr(registry, "build_client", build)
    data = _explain(capsys, ZH)
    assert data["plan"]["terms_source"] == "rewrite"
    assert "slugify" in data["plan"]["fulltext_query"].split()
    assert data["results"][0]["path"] == "text/slugify.py"
    assert len(clients) == 1 and clients[0].closed  # its own client, closed after use
    # --no-rewrite: the offline gloss, no client at all (the cache is not consulted either)
    assert _explain(capsys, "--no-rewrite", ZH)["plan"]["terms_source"] == "gloss"
    # grep never opens a client
    assert cli.main(["search", "--mode", "grep", "--json", "网址"]) == 0
    capsys.readouterr()
    assert len(clients) == 1
    # an English question gets the model's identifier words too
    english = _explain(capsys, "slug from a title")["plan"]
    assert english["terms_source"] == "rewrite" and "slugifi" in english["fulltext_query"].split()
    assert len(clients) == 2


def test_cli_asks_the_model_once_per_question(indexed, capsys,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    clients: list[OneShotClient] = []

    def build(settings, **options):
        clients.append(OneShotClient())
        return clients[-1]

    monkeypatch.setattr(registry, "build_client", build)
    first = _explain(capsys, ZH)
    again = _explain(capsys, ZH)  # answered from the rewrite cache: no client is opened
    assert len(clients) == 1
    assert again["plan"] == first["plan"] and again["plan"]["terms_source"] == "rewrite"


def test_cli_without_an_index_asks_no_model(tmp_path: Path, capsys,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    clients: list[OneShotClient] = []

    def build(settings, **options):
        clients.append(OneShotClient())
        return clients[-1]

    monkeypatch.setattr(registry, "build_client", build)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["search", ZH]) == 1
    assert "paicli-tui index" in capsys.readouterr().err
    assert clients == []


def test_cli_without_a_model_uses_the_gloss(indexed, capsys) -> None:
    assert _explain(capsys, ZH)["plan"]["terms_source"] == "gloss"


def test_cli_unreachable_model_falls_back_to_the_gloss(indexed, capsys,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # a real client for a local Ollama that is not running: connection refused, gloss used
    monkeypatch.setenv("PAICLI_PROVIDER", "ollama")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    built: list[Any] = []
    real = registry.build_client

    def build(settings, **options):
        built.append(real(settings, **options))
        return built[-1]

    monkeypatch.setattr(registry, "build_client", build)
    data = _explain(capsys, ZH)
    assert built and built[0] is not None and built[0].provider == "ollama"
    assert data["plan"]["terms_source"] == "gloss" and data["results"]


def test_search_help_mentions_no_rewrite(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["search", "--help"])
    assert "--no-rewrite" in capsys.readouterr().out
