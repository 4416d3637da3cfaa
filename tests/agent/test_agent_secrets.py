"""Issue #3: the person's provider key never reaches the history, the ledger or a saved file,
even when a tool prints it (a .env file, `env`)."""

from __future__ import annotations

from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.config import load_settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.llm.redact import redact_known

KEY = "sk-live-0123456789abcdef"
OTHER = "glm-key-9876543210"


def test_redact_known_touches_only_the_given_values() -> None:
    text = f"DEEPSEEK_API_KEY={KEY}\nexample = 'sk-not-a-real-key-1234'\n{OTHER}"
    out = redact_known(text, [KEY, OTHER, None, "ab"])
    assert KEY not in out and OTHER not in out
    assert "sk-not-a-real-key-1234" in out  # key-shaped data in files stays as it is
    assert redact_known("ab ab", ["ab"]) == "ab ab"  # too short to be a key


async def test_tool_output_with_the_key_is_scrubbed(paicli_home, project_dir) -> None:
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home), "DEEPSEEK_API_KEY": KEY,
                                  "ZHIPUAI_API_KEY": OTHER})
    (project_dir / ".env").write_text(f"DEEPSEEK_API_KEY={KEY}\nZHIPUAI_API_KEY={OTHER}\n"
                                      + "padding line\n" * 3_000)
    steps = [Step(calls=[call("read_file", path=".env")]),
             Step(calls=[call("read_file", path=".env", limit=2)]), Step(text="done")]
    client = ScriptedClient(steps)
    session = await AgentSession.start(settings, project_dir, client=client)
    await drain(session.run_turn("show me .env"))
    sent = "".join(m.content for request in client.requests for m in request)
    assert "DEEPSEEK_API_KEY=****" in sent
    assert list((project_dir / ".paicli").rglob("*-read_file.txt"))  # the whole read was saved
    for secret in (KEY, OTHER):
        assert secret not in sent
        assert secret not in session.ledger.path.read_text()
        for saved in (project_dir / ".paicli").rglob("*.txt"):
            assert secret not in saved.read_text()


async def test_an_edit_beside_the_key_shows_it_masked_in_the_dialog(paicli_home,
                                                                     project_dir) -> None:
    """The diff an edit is approved on shows the lines around the change: a .env's key beside
    the edited line was drawn in clear in the approval dialog (and any screenshot of it),
    where every other view masks it. The file itself keeps it."""
    from paicli_tui.core.agent.tools import EditFileTool
    from paicli_tui.core.contracts.asks import ApprovalDecision
    from paicli_tui.core.contracts.session_state import SessionState
    from paicli_tui.core.contracts.tools import ToolContext

    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home), "DEEPSEEK_API_KEY": KEY})
    (project_dir / ".env").write_text(f"DEBUG=0\nDEEPSEEK_API_KEY={KEY}\nPORT=80\n")
    shown: list[str] = []

    async def approve(request):
        shown.append(request.detail)
        return ApprovalDecision.ONCE

    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s1"), approve=approve)
    await EditFileTool().run({"path": ".env", "old_string": "DEBUG=0", "new_string": "DEBUG=1"},
                             context)
    assert KEY not in shown[0] and " DEEPSEEK_API_KEY=****" in shown[0]
    assert (project_dir / ".env").read_text() == f"DEBUG=1\nDEEPSEEK_API_KEY={KEY}\nPORT=80\n"
