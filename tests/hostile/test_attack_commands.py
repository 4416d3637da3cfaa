"""Attack table, commands and keys: a command cannot read the provider keys, cannot smuggle
them out transformed, cannot outlive the app or the turn, and an error body cannot print a
key. Real processes and real signals; the model server is on 127.0.0.1 (MockTransport).
One test per attempt, named after it."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from paicli_tui.config import load_settings
from paicli_tui.core.agent.tools.command import ExecuteCommandTool, run_command
from paicli_tui.core.agent.tools.command_env import command_environment
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext
from paicli_tui.core.llm.redact import redact_known

KEY = "sk-live-7Qm2Vx9Lp4Rt8Wn3Zc6Hb1"
OTHER = "zp-other-5Fg8Jk2Mn7Qs4Tv9Xy3B"
COPIED = "cfg-secret-4Hj7Kl2Np9Qr5Ts8W"


@pytest.fixture
def keyed(paicli_home: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch):
    """Settings with an active key, a second provider's key and one in config.toml; the same
    keys in this process's environment, where a command would inherit them."""
    (paicli_home / "config.toml").write_text(f'api_key = "{COPIED}"\n')
    for name, value in (("PAICLI_API_KEY", KEY), ("DEEPSEEK_API_KEY", KEY),
                        ("ZHIPUAI_API_KEY", OTHER), ("MY_COPY_OF_THE_KEY", COPIED),
                        ("DB_URL", f"postgres://u:{OTHER}@db/x"), ("HARMLESS", "kept")):
        monkeypatch.setenv(name, value)
    settings = load_settings({"auto_approve": True}, dict(os.environ))
    return settings, ToolContext(project_root=project_dir, settings=settings,
                                 session=SessionState("s"))


def _run_tool(context: ToolContext, command: str) -> str:
    out = asyncio.run(ExecuteCommandTool().run({"command": command, "timeout_s": 20}, context))
    return out.content


def _leaks(text: str) -> list[str]:
    return [k for k in (KEY, OTHER, COPIED) if k in text or k[::-1] in text
            or base64.b64encode(k.encode()).decode()[:16] in text]


def test_printenv_paicli_api_key_piped_to_base64_gets_nothing(keyed) -> None:
    _, context = keyed
    out = _run_tool(context, "printenv PAICLI_API_KEY | base64; printenv DEEPSEEK_API_KEY")
    assert _leaks(out) == [] and "[exit code 1]" in out


def test_env_dump_to_file_then_read_back_has_no_key(keyed, project_dir: Path) -> None:
    _, context = keyed
    _run_tool(context, "env > .env.dump")
    dump = (project_dir / ".env.dump").read_text()
    assert _leaks(dump) == []
    assert "HARMLESS=kept" in dump  # the rest of the environment is still there


def test_key_copied_into_another_variable_is_removed(keyed) -> None:
    settings, _ = keyed
    env = command_environment(settings)
    assert "MY_COPY_OF_THE_KEY" not in env and "DB_URL" not in env
    assert env["HARMLESS"] == "kept"


def test_every_provider_key_variable_is_removed_even_unconfigured(keyed) -> None:
    settings, _ = keyed
    env = command_environment(settings, {"OPENAI_API_KEY": "x" * 30, "PATH": "/bin"})
    assert env == {"PATH": "/bin"}


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
AWS_TOKEN = "FwoGZXIvYXdzEXAMPLEsessionTOKENvalue123456"


@pytest.mark.parametrize(("index_uri", "guarded"), [
    ("s3://team-bucket/paicli/index", True),
    ("az://container/index", True),
    (None, False),                      # <project>/.paicli/index: the keys are not ours
    ("/srv/indexes/project", False),
    ("file:///srv/indexes/project", False),
])
def test_remote_index_credentials_never_reach_a_command(
        paicli_home: Path, project_dir: Path, index_uri: str | None, guarded: bool) -> None:
    """With the code index in an object store, its credentials are the agent's secrets: a
    command does not get them and output that prints them is scrubbed. With a local index
    they are the person's own environment (``aws s3 ls`` in their project keeps working)."""
    env = {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLEID", "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
           "AWS_SESSION_TOKEN": AWS_TOKEN, "PATH": "/bin", "PAICLI_HOME": str(paicli_home),
           "AWS_CONTAINER_AUTHORIZATION_TOKEN": "containerAuthTokenExample01"}
    settings = load_settings({"index_uri": index_uri} if index_uri else {}, env)
    child = command_environment(settings, env)
    assert {"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN"}.isdisjoint(child) is guarded
    assert child["AWS_ACCESS_KEY_ID"] == "AKIAEXAMPLEID"  # an id, not a secret
    scrubbed = redact_known(f"secret={AWS_SECRET} token={AWS_TOKEN}", settings.secrets())
    assert (AWS_SECRET not in scrubbed and AWS_TOKEN not in scrubbed) is guarded


@pytest.mark.parametrize("transform", [
    "rev", "base64", "spaced", "upper", "folded", "hex", "rot13", "base64-offset", "base32",
    "base32-offset",
])
def test_transformed_key_in_output_is_redacted(transform: str) -> None:
    raw = KEY.encode()
    shown = {
        "rev": KEY[::-1], "base64": base64.b64encode(raw + b"\n").decode(),
        "spaced": " ".join(KEY), "upper": KEY.upper(),
        "folded": "\n".join(textwrap.wrap(KEY, 5)), "hex": raw.hex(),
        "rot13": KEY.translate(str.maketrans(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM")),
        "base64-offset": base64.b64encode(b"KEY=" + raw).decode(),
        "base32": base64.b32encode(raw + b"\n").decode(),
        "base32-offset": base64.b32encode(b"KEY=" + raw).decode(),
    }[transform]
    out = redact_known(f"before {shown} after", [KEY])
    assert "****" in out and out.startswith("before") and out.endswith("after")
    assert shown not in out


# A configured key with a character or two cut off an end passed the scrubber whole:
# `cut -c13- ~/.paicli/config.toml` printed `k-live-7Qm2…` (the key minus its well-known
# first letter), `tail -c +9` its random part. Any 12 characters or more of a key, as it is,
# reversed or case-changed, are masked, the whole run they belong to.
@pytest.mark.parametrize("shown", [
    KEY[1:], KEY[:-1], KEY[2:-2], KEY[8:], KEY[:20], KEY[14:], KEY[3:16],
    KEY[1:][::-1], KEY[5:].upper(), " ".join(KEY[4:]), "\n".join(textwrap.wrap(KEY[6:], 4)),
])
def test_a_long_piece_of_a_key_is_masked_whole(shown: str) -> None:
    out = redact_known(f"api_key = {shown} # end", [KEY])
    assert out.startswith("api_key = ") and out.endswith(" # end") and "****" in out
    flat = "".join(ch for ch in out if ch.isalnum()).lower()
    key = "".join(ch for ch in KEY if ch.isalnum()).lower()
    assert not any(key[i:i + 12] in flat or key[i:i + 12][::-1] in flat
                   for i in range(len(key) - 11))


@pytest.mark.parametrize("text", [
    KEY[3:14],                       # 11 characters: shorter than a key's piece is taken
    "sk-live-prod and sk-live-test",  # the shared prefix alone
    "plain output with no key in it, 0123456789 abcdefghijkl",
])
def test_short_pieces_and_plain_text_are_left_alone(text: str) -> None:
    assert redact_known(text, [KEY]) == text


def test_every_run_of_twelve_or_more_is_masked_and_no_shorter_one() -> None:
    # every piece of the key at every offset, forwards and reversed: the search looks for
    # a few blocks of each form and widens each hit along the form, so a run that starts
    # or ends anywhere must still be found, and one of 11 characters left alone
    key = "".join(ch for ch in KEY if ch.isalnum())
    for form in (key, key[::-1]):
        for start in range(len(form) - 10):
            for end in (start + 11, start + 12, start + 13, len(form)):
                piece = form[start:end]
                if len(piece) < 11:
                    continue
                out = redact_known(f"<{piece}>", [KEY])
                assert (out == "<****>") is (len(piece) >= 12), (start, end, out)


def test_cut_of_the_config_file_shows_no_piece_of_the_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'api_key = "{KEY}"\nmodel = "deepseek-chat"\n')
    shown = subprocess.run(["cut", "-c13-", str(config)], capture_output=True, text=True,
                           check=True).stdout
    assert KEY[1:] in shown  # what the model got
    out = redact_known(shown, [KEY])
    assert KEY[1:12] not in out and KEY[-12:] not in out and out.endswith("\npseek-chat\"\n")


DUMPS = {"xxd": ["xxd"], "xxd -g1": ["xxd", "-g1"], "hexdump -C": ["hexdump", "-C"],
         "hexdump": ["hexdump"], "od -c": ["od", "-c"], "od -x": ["od", "-x"],
         "od -tx1": ["od", "-tx1"], "od": ["od"], "od -b": ["od", "-b"], "od -d": ["od", "-d"],
         "od -tu1": ["od", "-tu1"], "od -A x -t x1z": ["od", "-A", "x", "-t", "x1z"]}
"""Programs that dump a file 16 bytes a line, each line opened by its offset."""


# The offsets broke the run of the key's characters or hex digits the search looks for, and
# xxd's and hexdump -C's printable column shows the key itself, 16 characters a line: all
# these printed the key of config.toml whole (od -c was named as covered).
@pytest.mark.parametrize("dump", DUMPS)
@pytest.mark.parametrize("offset", [0, 1, 2, 3, 11])
def test_a_key_in_a_dump_is_masked_on_every_line_holding_a_part_of_it(
        dump: str, offset: int, tmp_path: Path) -> None:
    program = DUMPS[dump]
    if shutil.which(program[0]) is None:
        pytest.skip(f"{program[0]} is not installed")
    head = b"#" * offset + b'api_key = "'
    path = tmp_path / "config.toml"
    path.write_bytes(head + KEY.encode() + b'"\nmodel = "deepseek-chat-and-more"\n')
    shown = subprocess.run([*program, str(path)], capture_output=True, text=True,
                           check=True).stdout
    lines = shown.splitlines()
    first, last = len(head) // 16, (len(head) + len(KEY) - 1) // 16
    holding, free = lines[first:last + 1], lines[last + 1:]
    out = redact_known(shown, [KEY])
    assert [line for line in holding if line in out] == []
    assert all(line in out for line in free)  # the rest of the dump is left as it was


def test_transformed_key_from_a_real_command_is_redacted_in_history(keyed) -> None:
    # a key that reached a file by other means (not the environment) and is read back rev'd
    from paicli_tui.core.llm.redact import redact_known as scrub

    settings, context = keyed
    Path(context.project_root, "notes.txt").write_text(f"token {OTHER}\n")
    out = _run_tool(context, "rev notes.txt; base64 notes.txt")
    assert _leaks(out)  # the raw tool output still has it ...
    assert _leaks(scrub(out, settings.secrets())) == []  # ... the history never does


async def test_error_body_echoing_a_non_active_key_is_redacted(keyed) -> None:
    from paicli_tui.core.contracts.llm import LLMError
    from paicli_tui.core.llm.registry import build_client
    from paicli_tui.core.messages import Message

    settings, _ = keyed
    settings = settings.with_overrides(provider="deepseek", max_retries=0)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"error": {"message": f"bad keys {OTHER} {COPIED}"}})

    client = build_client(settings, transport=httpx.MockTransport(answer))
    with pytest.raises(LLMError) as caught:
        async for _ in client.stream([Message.user("hi")]):
            pass
    await client.aclose()
    assert _leaks(str(caught.value)) == [] and "****" in str(caught.value)


# --- processes end with the command, the turn and the app ------------------------------------

def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_dead(pid: int, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _wait_file(path: Path, seconds: float = 30) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().split()[0])
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


async def test_background_child_holding_the_pipe_does_not_block_the_result(tmp_path) -> None:
    started = time.monotonic()
    code, output, _, timed_out = await run_command(
        f"sleep 31 & echo $! > {tmp_path}/bg; echo x", str(tmp_path), 20, 10_000)
    assert time.monotonic() - started < 30  # would be 31 s if the child held the pipe
    assert code == 0 and not timed_out and output.startswith("x\n")
    assert "background process" in output
    assert _wait_dead(_wait_file(tmp_path / "bg"))


async def test_detached_setsid_child_does_not_outlive_the_command(tmp_path) -> None:
    code, output, _, _ = await run_command(
        f"setsid sh -c 'echo $$ > {tmp_path}/d; exec sleep 40' & sleep 0.3; echo y",
        str(tmp_path), 20, 10_000)
    assert code == 0 and output.startswith("y\n")
    assert _wait_dead(_wait_file(tmp_path / "d"))


async def test_cancelled_turn_kills_the_command_group(tmp_path) -> None:
    task = asyncio.ensure_future(run_command(
        f"echo $$ > {tmp_path}/p; exec sleep 60", str(tmp_path), 60, 10_000))
    pid = await asyncio.to_thread(_wait_file, tmp_path / "p")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _wait_dead(pid)


async def test_timeout_kills_the_command_and_its_children(tmp_path) -> None:
    code, _, _, timed_out = await run_command(
        f"(sleep 50 & echo $! > {tmp_path}/c; wait)", str(tmp_path), 1, 10_000)
    assert timed_out and code is None
    assert _wait_dead(_wait_file(tmp_path / "c"))


_APP = """
import asyncio, sys
from paicli_tui.core.agent.tools.command import run_command
asyncio.run(run_command(sys.argv[1], sys.argv[2], 120, 10_000))
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=["SIGTERM", "SIGHUP", "SIGKILL"])
def test_app_killed_by_signal_takes_the_running_command_with_it(tmp_path, signum) -> None:
    app = subprocess.Popen([sys.executable, "-c", _APP,
                            f"echo $$ > {tmp_path}/p; exec sleep 60", str(tmp_path)])
    try:
        pid = _wait_file(tmp_path / "p")
        assert _alive(pid)
        app.send_signal(signum)
        app.wait(10)
        assert _wait_dead(pid), "the command outlived the app"
    finally:
        if app.poll() is None:
            app.kill()


# The supervisor as it runs where there is no /proc and no subreaper (macOS, the BSDs):
# both are taken away before the script starts, in a real process.
_WITHOUT_PROC = """
import os, runpy, sys
listdir = os.listdir
def no_proc(path="."):
    if str(path).startswith("/proc"):
        raise FileNotFoundError(path)
    return listdir(path)
os.listdir = no_proc
sys.platform = "darwin"
script = sys.argv.pop(1)
sys.argv[0] = script
runpy.run_path(script, run_name="__main__")
"""


def _supervise_without_proc(command: str, cwd: Path) -> tuple[subprocess.Popen, int]:
    from paicli_tui.core.agent.tools.command import SHELL, SUPERVISOR

    lifeline_r, lifeline_w = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _WITHOUT_PROC, SUPERVISOR, str(lifeline_r), SHELL,
         command], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True, pass_fds=(lifeline_r,))
    os.close(lifeline_r)
    return process, lifeline_w


def test_without_proc_a_background_child_is_still_stopped_with_the_command(
        tmp_path) -> None:
    process, lifeline = _supervise_without_proc(
        f"sleep 31 & echo $! > {tmp_path}/bg; echo x", tmp_path)
    try:
        output, _ = process.communicate(timeout=25)  # 31 s if the child held the pipe
    finally:
        os.close(lifeline)
    assert process.returncode == 0 and output.decode().startswith("x\n")
    assert "left background processes running; they were stopped" in output.decode()
    assert _wait_dead(_wait_file(tmp_path / "bg"))


def test_without_proc_the_group_dies_when_the_app_does(tmp_path) -> None:
    process, lifeline = _supervise_without_proc(
        f"(sleep 50 & echo $! > {tmp_path}/c; wait)", tmp_path)
    child = _wait_file(tmp_path / "c")
    assert _alive(child)
    os.close(lifeline)  # what the app's death does to the lifeline
    assert process.wait(10) == 137
    assert _wait_dead(child)


def test_interrupted_command_stand_in_says_it_may_have_run() -> None:
    from paicli_tui.core.context.pairing import cancelled_result

    text = cancelled_result("c1", "execute_command").content
    assert "may have run" in text and "not run" not in text.lower()


def test_command_supervisor_passes_exit_codes_and_signals(tmp_path) -> None:
    async def both() -> tuple[int | None, int | None]:
        a = await run_command("exit 7", str(tmp_path), 10, 100)
        b = await run_command("kill -TERM $$", str(tmp_path), 10, 100)
        return a[0], b[0]

    assert asyncio.run(both()) == (7, 128 + signal.SIGTERM)


def test_command_output_json_events_never_hold_the_key(keyed) -> None:
    # what `exec --json` would print for the tool result: the ToolOutput text
    _, context = keyed
    out = _run_tool(context, "env; cat /proc/self/environ | tr '\\\\0' '\\\\n'")
    assert _leaks(json.dumps(out)) == []


def test_ripgrep_started_for_grep_code_gets_no_key(tmp_path: Path, monkeypatch) -> None:
    """The app itself is not dumpable, but ripgrep is a program of its own: while it ran, its
    /proc/<pid>/environ held the app's whole environment (the exported key, a key copied into
    another variable, a gateway URL with its password), readable by an MCP server or another
    worker's command polling /proc. It gets only what finds the global gitignore."""
    from paicli_tui.core.code.grep import GrepOptions, grep_code

    seen = tmp_path / "environment.txt"
    fake_rg = tmp_path / "rg"
    fake_rg.write_text(f"#!/bin/sh\nenv > '{seen}'\nexit 1\n")
    fake_rg.chmod(0o755)
    monkeypatch.setattr("paicli_tui.core.code.grep.ripgrep_path", lambda: str(fake_rg))
    monkeypatch.setenv("PAICLI_API_KEY", KEY)
    monkeypatch.setenv("MY_COPY", KEY)
    monkeypatch.setenv("PAICLI_BASE_URL", f"http://alice:{KEY}@gateway/v1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "project").mkdir()
    result = grep_code(tmp_path / "project", GrepOptions(pattern="retry"), use_ripgrep=True)
    assert result.backend == "ripgrep" and result.total == 0
    environment = seen.read_text()
    assert KEY not in environment
    assert f"XDG_CONFIG_HOME={tmp_path / 'config'}" in environment.splitlines()
    assert "RIPGREP_CONFIG_PATH=" in environment.splitlines()
