"""The index lease finds AWS credentials as the SDKs do when no keys are in the environment:
a container's credentials endpoint, then the EC2 instance role through IMDSv2 — tested
against small fake metadata servers on 127.0.0.1: the requests each service expects, the
order of the sources, caching until shortly before expiry, timeouts (a machine without a
metadata service does not hang), ``AWS_EC2_METADATA_DISABLED``, and secrets that reach no
log line and no error message."""

from __future__ import annotations

import json
import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from paicli_tui.core.code.aws_credentials import (
    ECS_HOST,
    REFRESH_BEFORE_S,
    CredentialChain,
    _container_url,
)
from paicli_tui.core.llm.redact import redact

SECRET = "fakeRoleSecret/K7MDENG/InstanceRoleKey01"
SESSION = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKENvalue0123456789"
EXPIRES = 1_900_000_000.0  # 2030-03-17T17:46:40Z
ANSWER = {"Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": "ASIAEXAMPLEINSTANCE1",
          "SecretAccessKey": SECRET, "Token": SESSION, "Expiration": "2030-03-17T17:46:40Z"}
IMDS_TOKEN = "AQAEAImdsSessionTokenExample=="


class FakeMetadata:
    """An IMDSv2 (token by PUT, then the role's credentials with the token) and a container
    credentials endpoint (Authorization header), on 127.0.0.1; records every request."""

    def __init__(self, *, role: str | None = "ci-indexer", answer: bytes | None = None,
                 status: int = 200, container_token: str = "container-auth-token-1234") -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                return None

            def _reply(self, code: int, body: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_PUT(self) -> None:  # noqa: N802 - http.server's name
                fake.requests.append(("PUT", self.path, dict(self.headers)))
                if self.path == "/latest/api/token" and self.headers.get(
                        "X-aws-ec2-metadata-token-ttl-seconds"):
                    return self._reply(200, IMDS_TOKEN.encode())
                return self._reply(400, b"")

            def do_GET(self) -> None:  # noqa: N802
                fake.requests.append(("GET", self.path, dict(self.headers)))
                body = answer if answer is not None else json.dumps(ANSWER).encode()
                if self.path == "/container/creds":
                    if self.headers.get("Authorization") != container_token:
                        return self._reply(403, b"denied")
                    return self._reply(status, body)
                if self.headers.get("X-aws-ec2-metadata-token") != IMDS_TOKEN:
                    return self._reply(401, b"")  # IMDSv2 only: no token, no answer
                base = "/latest/meta-data/iam/security-credentials/"
                if self.path == base:
                    return self._reply(200, role.encode()) if role else self._reply(404, b"")
                if role and self.path == base + role:
                    return self._reply(status, body)
                return self._reply(404, b"")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def metadata():
    servers: list[FakeMetadata] = []

    def start(**kw) -> FakeMetadata:
        servers.append(FakeMetadata(**kw))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _no_files(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
            "AWS_CONFIG_FILE": str(tmp_path / "none")}


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_instance_role_through_imdsv2_cached_until_shortly_before_expiry(
        metadata, tmp_path: Path) -> None:
    imds = metadata()
    clock = Clock(EXPIRES - 3600)
    chain = CredentialChain({**_no_files(tmp_path),
                             "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url + "/"}, clock=clock)
    found = chain.get()
    assert (found.access_key, found.secret_key, found.token, found.expires_at, found.source) == (
        "ASIAEXAMPLEINSTANCE1", SECRET, SESSION, EXPIRES, "instance role ci-indexer")
    put, listing, role = imds.requests
    assert (put[0], put[1], put[2]["X-aws-ec2-metadata-token-ttl-seconds"]) == (
        "PUT", "/latest/api/token", "21600")
    assert [(r[0], r[1], r[2]["X-aws-ec2-metadata-token"]) for r in (listing, role)] == [
        ("GET", "/latest/meta-data/iam/security-credentials/", IMDS_TOKEN),
        ("GET", "/latest/meta-data/iam/security-credentials/ci-indexer", IMDS_TOKEN)]
    clock.now = EXPIRES - REFRESH_BEFORE_S - 1
    assert chain.get() is found and len(imds.requests) == 3  # cached
    clock.now = EXPIRES - REFRESH_BEFORE_S + 1
    assert chain.get() == found and len(imds.requests) == 6  # fetched again before expiry


@pytest.mark.parametrize("variables", [
    {"AWS_CONTAINER_AUTHORIZATION_TOKEN": "container-auth-token-1234"},
    {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": "token-file"},
])
def test_container_credentials_with_the_authorization_token(
        metadata, tmp_path: Path, variables: dict[str, str]) -> None:
    server = metadata()
    (tmp_path / "token-file").write_text("container-auth-token-1234\n")
    env = {**_no_files(tmp_path), "AWS_CONTAINER_CREDENTIALS_FULL_URI": server.url +
           "/container/creds", "AWS_EC2_METADATA_SERVICE_ENDPOINT": server.url,
           **{k: str(tmp_path / v) if k.endswith("_FILE") else v for k, v in variables.items()}}
    found = CredentialChain(env).get()
    assert (found.access_key, found.source) == ("ASIAEXAMPLEINSTANCE1", "container")
    assert [(r[0], r[1]) for r in server.requests] == [("GET", "/container/creds")]  # no IMDS


@pytest.mark.parametrize(("env", "url"), [
    ({"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/abc"},
     ECS_HOST + "/v2/credentials/abc"),
    ({"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "v2/x",
      "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1:1/y"}, ECS_HOST + "/v2/x"),
    ({"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.23/v1/credentials"},
     "http://169.254.170.23/v1/credentials"),
    ({"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://[::1]:8080/c"}, "http://[::1]:8080/c"),
    ({"AWS_CONTAINER_CREDENTIALS_FULL_URI": "https://creds.example.com/c"},
     "https://creds.example.com/c"),
    ({}, None),
])
def test_container_endpoints(env: dict[str, str], url: str | None) -> None:
    assert _container_url(env) == url


def test_a_plain_http_container_endpoint_elsewhere_is_refused(tmp_path: Path) -> None:
    chain = CredentialChain({**_no_files(tmp_path), "AWS_EC2_METADATA_DISABLED": "true",
                             "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://10.1.2.3/creds"})
    assert chain.get() is None
    assert "must be https, or http on a loopback or container host" in chain.error


def test_sources_in_the_sdks_order(metadata, tmp_path: Path) -> None:
    """Environment keys, then the profile file, then the container, then the instance."""
    imds = metadata()
    base = {**_no_files(tmp_path), "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url,
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": imds.url + "/container/creds",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN": "container-auth-token-1234"}
    assert CredentialChain({**base, "AWS_ACCESS_KEY_ID": "env-id",
                            "AWS_SECRET_ACCESS_KEY": "env-secret"}).get().source == "environment"
    (tmp_path / "credentials").write_text("[default]\naws_access_key_id = file-id\n"
                                          "aws_secret_access_key = file-secret\n")
    with_file = {**base, "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials")}
    assert CredentialChain(with_file).get().access_key == "file-id"
    assert imds.requests == []  # neither service asked
    assert CredentialChain(base).get().source == "container"
    del base["AWS_CONTAINER_CREDENTIALS_FULL_URI"]
    assert CredentialChain(base).get().source == "instance role ci-indexer"


def test_disabled_or_roleless_instance_metadata(metadata, tmp_path: Path) -> None:
    imds = metadata(role=None)
    env = {**_no_files(tmp_path), "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url}
    assert CredentialChain({**env, "AWS_EC2_METADATA_DISABLED": "true"}).get() is None
    assert imds.requests == []
    chain = CredentialChain(env)
    assert chain.get() is None and len(imds.requests) == 2  # token, then no role (404)
    assert chain.get() is None and len(imds.requests) == 2  # not asked again


def test_a_metadata_service_that_never_answers_costs_one_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A listening socket that never replies (what a laptop's network does with the
    metadata address is worse: nothing answers at all): the chain gives up after the
    timeout, once, and the next call does not ask again (so does not wait again)."""
    from paicli_tui.core.code import aws_credentials

    asked: list[str] = []
    real_fetch = aws_credentials._fetch

    def counting(method: str, url: str, *args, **kwargs):
        asked.append(method)
        return real_fetch(method, url, *args, **kwargs)

    monkeypatch.setattr(aws_credentials, "_fetch", counting)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        env = {**_no_files(tmp_path), "AWS_METADATA_SERVICE_TIMEOUT": "0.3",
               "AWS_EC2_METADATA_SERVICE_ENDPOINT": f"http://127.0.0.1:{silent.getsockname()[1]}"}
        chain = CredentialChain(env)
        assert chain.get() is None  # returned after the timeout (the test would hang)
        after_first = len(asked)
        assert chain.get() is None
        assert after_first >= 1 and len(asked) == after_first  # not asked a second time
    finally:
        silent.close()


@pytest.mark.parametrize(("answer", "status", "expected"), [
    (b"<html>" + SECRET.encode() + b"</html>", 200, "answered without usable credentials"),
    (json.dumps({"AccessKeyId": "ASIAX", "SecretAccessKey": ""}).encode(), 200,
     "answered without usable credentials"),
    (json.dumps(ANSWER).encode(), 500, "answered HTTP 500"),
])
def test_bad_answers_are_clear_errors_without_the_secret(
        metadata, tmp_path: Path, caplog: pytest.LogCaptureFixture, answer: bytes,
        status: int, expected: str) -> None:
    imds = metadata(answer=answer, status=status)
    chain = CredentialChain({**_no_files(tmp_path),
                             "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url})
    with caplog.at_level(logging.DEBUG):
        assert chain.get() is None
    assert expected in chain.error
    text = chain.error + " ".join(r.getMessage() for r in caplog.records)
    assert SECRET not in text and SESSION not in text and IMDS_TOKEN not in text


def test_fetched_secrets_are_masked_by_every_redaction(metadata, tmp_path: Path) -> None:
    from paicli_tui.config import load_settings
    from paicli_tui.logs import RedactingFormatter

    imds = metadata()
    CredentialChain({**_no_files(tmp_path), "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url}).get()
    leaked = f"secret={SECRET} token={SESSION} imds={IMDS_TOKEN}"
    assert SECRET not in redact(leaked) and SESSION not in redact(leaked)
    assert IMDS_TOKEN not in redact(leaked)
    formatter = RedactingFormatter(load_settings({}, {"PAICLI_HOME": str(tmp_path)}))
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed: %s", (leaked,), None)
    line = formatter.format(record)
    assert SECRET not in line and SESSION not in line and "failed: " in line
