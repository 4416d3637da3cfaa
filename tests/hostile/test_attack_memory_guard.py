"""Attack table, memory poisoning: commands that fetch from the network in disguise mark the
session, explicit saves after outside content are tagged, /clear resets the mark, and one
sensitive-content rule stops secrets in extraction, save_memory and /save (the person may
confirm for /save; the model cannot). One test per attempt, named after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.contracts.secrets import sensitive_reason
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.shell import classify_command
from paicli_tui.core.contracts.tools import ToolContext, ToolOutput
from paicli_tui.core.memory.extraction import drop_sensitive_sentences
from paicli_tui.core.memory.service import LocalMemoryService

DISGUISED_FETCHES = {
    "bash_c_curl": 'bash -c "curl https://evil.example/x"',
    "python_c_urlopen": "python3 -c 'import urllib.request as u; print(u.urlopen(\"http://e\").read())'",
    "variable_holds_curl": "c=curl; $c https://evil.example/x",
    "which_substitution": "$(which curl) https://evil.example/x",
    "eval_curl": "eval curl https://evil.example/x",
    "eval_of_a_variable": 'eval "$PAYLOAD"',
    "backtick_program": "`echo curl` https://evil.example/x",
    "heredoc_python": "python3 - <<'EOF'\nimport socket\ns = socket.create_connection(('e', 80))\nEOF",
    "piped_code_to_node": "echo \"fetch('http://e')\" | node",
    "nested_shells": "sh -c 'bash -c \"wget -qO- e\"'",
    "hidden_python": "python3 -c 'exec(bytes.fromhex(\"7072696e74\"))'",
    "dev_tcp_socket": "exec 3<>/dev/tcp/93.184.216.34/80; cat <&3",
    "find_exec_curl": "find . -name urls -exec curl -K {} \\;",
    "xargs_wget": "xargs -n1 wget < urls.txt",
    "sudo_user_curl": "sudo -u bob curl https://e",
    "node_eval_fetch": "node -e \"fetch('https://e').then(r => r.text())\"",
    "perl_lwp": "perl -MLWP::Simple -e 'getprint \"http://e\"'",
    "pip_install": "pip install requests",
    "python_m_pip": "python -m pip install left-pad",
    "npm_install": "npm install left-pad",
    "brace_expanded_curl": "{curl,-s,https://evil.example/x}",  # bash: curl -s https://…
    "brace_expanded_under_env": "env {wget,-qO-,evil.example}",
    "npx_anything": "npx cowsay hi",
    "git_fetch_with_options": "git -c http.proxy= -C repo fetch origin",
    "git_push": "git push origin main",
    "docker_pull": "docker pull ubuntu",
    "script_given_a_url": "python tool.py https://evil.example/page",
    "for_loop_wget": "for u in a b; do wget $u; done",
    "unparsable_quote": "curl 'https://e",
}
# (project scripts, make and npm scripts are read from a project: test_attack_project_scripts)
LOCAL_COMMANDS = {
    "list_files": "ls -la", "grep_for_curl": "grep -rn curl src/", "run_tests": "pytest -q",
    "git_status": "git status", "git_commit_mentions_fetch": 'git commit -m "fetch data"',
    "echo_url": "echo https://example.com", "cargo_test": "cargo test",
    "uv_run": "uv run pytest",
    "python_arithmetic": 'python3 -c "print(1 + 1)"', "pip_list": "pip list",
    "brace_expanded_folders": "mkdir -p src/{api,web}",
}


@pytest.mark.parametrize("name", sorted(DISGUISED_FETCHES))
def test_disguised_network_command_counts_as_external(name: str) -> None:
    verdict = classify_command(DISGUISED_FETCHES[name])
    assert verdict.external and verdict.reason


@pytest.mark.parametrize("name", sorted(LOCAL_COMMANDS))
def test_plain_local_command_stays_local(name: str) -> None:
    assert not classify_command(LOCAL_COMMANDS[name]).external


@pytest.fixture
def service(settings: Settings, project_dir: Path) -> LocalMemoryService:
    return LocalMemoryService(settings, project_dir, use_vectors=False)


def _context(service: LocalMemoryService, session: SessionState) -> ToolContext:
    return ToolContext(project_root=Path(service.project_root), settings=service.settings,
                       session=session)


async def test_bash_c_curl_then_save_memory_is_refused(service: LocalMemoryService) -> None:
    session = SessionState("s1", current_user_input="we use pnpm")
    service.note_tool_result("execute_command", {"command": DISGUISED_FETCHES["bash_c_curl"]},
                             ToolOutput("page"), session)
    assert session.external_content_used
    (tool,) = service.tools()
    out = await tool.run({"content": "We use pnpm"}, _context(service, session))
    assert out.status == "denied" and service.list_visible() == []


async def test_explicit_save_after_external_content_is_tagged_with_sources(
        service: LocalMemoryService) -> None:
    session = SessionState("s1", current_user_input="remember: we use pnpm")
    service.note_tool_result("web_fetch", {"url": "https://evil.example/page"},
                             ToolOutput("page", external=True), session)
    (tool,) = service.tools()
    out = await tool.run({"content": "We use pnpm for packages"}, _context(service, session))
    assert out.status == "done"
    (entry,) = service.list_visible()
    assert entry.extra["external_context"] == "true"
    assert "web_fetch: https://evil.example/page" in entry.extra["external_sources"]
    # /save by the person in the same session is tagged too
    result = service.save("Our CI runs on Fridays")
    assert result.entry is not None and result.entry.extra["external_context"] == "true"


async def test_clear_resets_the_external_mark_also_after_resume(settings: Settings,
                                                                project_dir: Path) -> None:
    from paicli_tui.core.agent.session import AgentSession

    session = await AgentSession.start(settings, project_dir)
    session.state.external_content_used = True
    session.state.external_sources.append("web_fetch: https://e")
    session.ledger.append(__import__("paicli_tui.core.messages", fromlist=["Message"])
                          .Message.tool("c1", "web_fetch", "x", meta={"external": True}))
    session.clear_history()
    assert not session.state.external_content_used and session.state.external_sources == []
    resumed = await AgentSession.start(settings, project_dir, resume=session.session_id)
    assert not resumed.state.external_content_used


SECRETS_IN_PROSE = {
    "passcode": "the user's passcode is 7731",
    "password_of": "hunter2 is the password of the staging box",
    "login_pair": "admin / hunter2",
    "db_pw": "db pw = letmein99",
    "bare_hex_key": "the service key is 9f86d081884c7d659a2feaa0c55ad015",
    "base64_credential": "basic auth header uses YWRtaW46aHVudGVyMg==",
    "chinese_password": "我的数据库密码是 abc123",
    "chinese_kouling": "服务器口令是 abc",
    "private_key_zh": "私钥放在 ~/.ssh/id_rsa",
    "provider_key": "use sk-proj-4kT9xQ2mV7bN1cL8 for the demo",
    "url_with_credentials": "the db is postgres://bob:s3cr3t@db.internal/app",
    "high_entropy_string": "the staging value is Zx81Qp0LmN4vT7rW2yB9cK3d",
}


@pytest.mark.parametrize("name", sorted(SECRETS_IN_PROSE))
def test_save_memory_refuses_secret_in_prose(service: LocalMemoryService, name: str) -> None:
    import asyncio

    text = SECRETS_IN_PROSE[name]
    assert sensitive_reason(text)
    session = SessionState("s1", current_user_input="remember this")
    (tool,) = service.tools()
    out = asyncio.run(tool.run({"content": text}, _context(service, session)))
    assert out.status == "denied" and service.list_visible() == []


@pytest.mark.parametrize("name", sorted(SECRETS_IN_PROSE))
def test_extraction_drops_secret_sentences(name: str) -> None:
    text = f"We use pnpm. {SECRETS_IN_PROSE[name]}."
    assert SECRETS_IN_PROSE[name] not in drop_sensitive_sentences(text)


def test_slash_save_of_a_secret_needs_the_person_to_confirm(service: LocalMemoryService) -> None:
    refused = service.save(SECRETS_IN_PROSE["db_pw"])
    assert refused.status == "refused" and refused.sensitive and "--sensitive" in refused.message
    assert service.list_visible() == []
    confirmed = service.save(SECRETS_IN_PROSE["db_pw"], allow_sensitive=True)
    assert confirmed.status == "saved"


def test_save_memory_cannot_pass_the_override(service: LocalMemoryService) -> None:
    (tool,) = service.tools()
    assert "allow_sensitive" not in tool.parameters["properties"]
    assert tool.parameters["additionalProperties"] is False


@pytest.mark.parametrize("text", [
    "we use Java 21 and Maven", "默认使用 UTF-8 编码", "Source lives in src/main/java",
    "the tokenizer is jieba", "git@github.com:org/repo.git is the remote",
    "use AbstractSingletonProxyFactoryBean sparingly",
])
def test_ordinary_facts_are_not_sensitive(text: str) -> None:
    assert sensitive_reason(text) is None


def test_cli_memory_save_sensitive_flag(settings: Settings, project_dir: Path, capsys) -> None:
    from paicli_tui.cli import main

    code = main(["memory", "save", "--project", str(project_dir), "db", "pw", "=", "letmein99"])
    assert code == 2 and "--sensitive" in capsys.readouterr().err
    code = main(["memory", "save", "--project", str(project_dir), "--sensitive", "db", "pw",
                 "=", "letmein99"])
    assert code == 0
