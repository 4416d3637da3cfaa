"""Attack table, provider streams and config files: a server that never finishes, a reply
without end, and config values that used to crash or slip through. The server is faked at
its protocol (SSE over httpx.MockTransport, no network). One test per attempt."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from doubles.openai_mock import collect, mock_client

from paicli_tui.config import ConfigError, load_settings
from paicli_tui.core.contracts.llm import LLMError, StreamDone, StreamInterrupted


def _chunk(text: str) -> bytes:
    body = {"choices": [{"index": 0, "delta": {"content": text}}]}
    return f"data: {json.dumps(body)}\n\n".encode()


async def test_sse_keepalive_comments_forever_hit_the_idle_deadline() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield _chunk("Hel")
        while True:
            await asyncio.sleep(0.05)
            yield b": keep-alive\n\n"

    started = time.monotonic()
    with pytest.raises(StreamInterrupted, match="no data for 0.4 s"):
        await collect(mock_client(body(), timeout=0.4))
    assert time.monotonic() - started < 30  # a hang guard


async def test_steady_trickle_hits_the_total_cap() -> None:
    async def body() -> AsyncIterator[bytes]:
        while True:
            await asyncio.sleep(0.05)
            yield _chunk("x")

    started = time.monotonic()
    with pytest.raises(LLMError, match="longer than the 0.6 s cap"):
        await collect(mock_client(body(), timeout=5, total_timeout=0.6))
    assert time.monotonic() - started < 30  # a hang guard


async def test_reply_above_the_size_cap_is_cut_and_what_arrived_is_kept() -> None:
    async def body() -> AsyncIterator[bytes]:
        for _ in range(1_000):
            yield _chunk("y" * 50)
        yield b"data: [DONE]\n\n"

    events = await collect(mock_client(body(), max_reply_chars=500))
    done = events[-1]
    assert isinstance(done, StreamDone) and done.finish_reason == "length"
    assert done.message.content.startswith("y" * 500)
    assert "reply cut" in done.message.content and len(done.message.content) < 1_000


async def test_normal_stream_is_untouched_by_the_deadlines() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b": keep-alive\n\n"
        yield _chunk("Hello")
        yield _chunk(" world")
        yield b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
        yield b"data: [DONE]\n\n"

    events = await collect(mock_client(body(), timeout=2, total_timeout=10))
    assert events[-1].message.content == "Hello world"


def _home(tmp_path: Path, toml: bytes | str) -> dict[str, str]:
    (tmp_path / "config.toml").write_bytes(toml.encode() if isinstance(toml, str) else toml)
    return {"PAICLI_HOME": str(tmp_path)}


@pytest.mark.parametrize(("toml", "message"), [
    ("window = inf", "window must be a finite number"),
    ("window = nan", "window must be a finite number"),
    ("window = true", "window must be a whole number"),
    ("window = 0", "window must be above 0"),
    ("window = 1.5", "window must be a whole number"),
    ("request_timeout_s = 0", "request_timeout_s must be above 0"),
    ("command_timeout_s = -5", "command_timeout_s must be above 0"),
    ("command_timeout_s = inf", "command_timeout_s must be a finite number"),
    ("max_iterations = -1", "max_iterations must be 0 or more"),
    ("auto_extract = 1", "auto_extract must be a boolean"),
    ('auto_extract = "yes"', "auto_extract must be a boolean"),
    ("model = 5", "model must be a string"),
    (b'model = "caf\xe9"\n', "not UTF-8"),
])
def test_bad_config_value_names_the_key_and_the_file(tmp_path: Path, toml, message) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        load_settings({}, _home(tmp_path, toml))
    assert str(tmp_path / "config.toml") in str(caught.value)


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("PAICLI_WINDOW", "inf", "PAICLI_WINDOW: window"),
    ("PAICLI_WINDOW", "-4", "PAICLI_WINDOW: window must be above 0"),
])
def test_bad_environment_value_names_the_variable(tmp_path: Path, variable, value,
                                                 message) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings({}, {"PAICLI_HOME": str(tmp_path), variable: value})


def test_bad_config_exits_2_for_every_subcommand(tmp_path: Path, monkeypatch, capsys) -> None:
    from paicli_tui.cli import main

    (tmp_path / "config.toml").write_bytes(b"window = inf\n")
    monkeypatch.setenv("PAICLI_HOME", str(tmp_path))
    for argv in (["memory", "list"], ["sessions"], ["context"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "window" in err and "config.toml" in err and "Traceback" not in err


def test_good_config_values_still_load(tmp_path: Path) -> None:
    settings = load_settings({}, _home(tmp_path, "window = 128000.0\nmax_iterations = 0\n"
                                                  "auto_extract = false\n"))
    assert settings.window == 128_000 and settings.max_iterations == 0
    assert settings.auto_extract is False


# --- credentials inside a configured URL ----------------------------------------------------

@pytest.mark.parametrize("url,secrets", [
    ("http://alice:Hunter2SuperSecretPw@gateway:4000/v1", ["Hunter2SuperSecretPw"]),
    ("http://alice:p%40ss%2Fword99@gateway/v1", ["p%40ss%2Fword99", "p@ss/word99"]),
    ("https://x.openai.azure.com/openai?api-version=2024-06-01&api-key=AzureKey0123456789",
     ["AzureKey0123456789"]),
    ("https://h/v1?key=QueryKey123456789&model=m", ["QueryKey123456789"]),
    ("https://h/v1?sig=Sig0123456789abc&token=Tok0123456789", ["Sig0123456789abc",
                                                               "Tok0123456789"]),
    # an Azure SAS signature is base64: the URL (and every error quoting it) spells it
    # percent-encoded, so both spellings are secrets
    ("https://h/v1?sv=2024&sig=AbC%2Bdef%2F123%3D", ["AbC%2Bdef%2F123%3D", "AbC+def/123="]),
    ("https://h/v1?api%2Dkey=Tok+en0123456789", ["Tok+en0123456789", "Tok en0123456789"]),
    ("http://alice:pw@gateway/v1", []),  # too short to mask without mangling every text
    ("https://api.deepseek.com/v1", []),
    ("https://h/v1?model=secret-model-name", []),  # a parameter not named like a key
    ("127.0.0.1:11434", []),  # OLLAMA_HOST without a scheme
    ("http://[bad", []),
])
def test_credentials_in_a_configured_url_are_secrets(tmp_path: Path, url: str,
                                                     secrets: list[str]) -> None:
    settings = load_settings({"base_url": url}, {"PAICLI_HOME": str(tmp_path)})
    assert [s.reveal() for s in settings.secrets()] == secrets


def test_a_base_url_password_never_reaches_a_command_or_an_error(tmp_path: Path) -> None:
    from paicli_tui.core.agent.tools.command_env import command_environment
    from paicli_tui.core.llm.redact import redact_known

    url = "http://alice:Hunter2SuperSecretPw@127.0.0.1:9/v1"
    environ = {"PAICLI_HOME": str(tmp_path), "PAICLI_BASE_URL": url, "PATH": "/usr/bin"}
    settings = load_settings({}, environ)
    assert "PAICLI_BASE_URL" not in command_environment(settings, environ)
    assert "PATH" in command_environment(settings, environ)
    said = redact_known(f"cannot reach {url} (ConnectError)", settings.secrets())
    assert said == "cannot reach http://alice:****@127.0.0.1:9/v1 (ConnectError)"


def test_an_error_quoting_a_percent_encoded_signature_hides_it(tmp_path: Path) -> None:
    from paicli_tui.core.llm.redact import redact_known

    url = "https://gw.example/v1?sv=2024-08&sig=Xy9%2BAbCdEf%2FGh%3D"
    settings = load_settings({"base_url": url}, {"PAICLI_HOME": str(tmp_path)})
    said = redact_known(f"cannot reach {url} (ConnectError)", settings.secrets())
    assert said == "cannot reach https://gw.example/v1?sv=2024-08&sig=**** (ConnectError)"
