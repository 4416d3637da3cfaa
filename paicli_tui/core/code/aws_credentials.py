"""AWS credentials for the index lease, found the way the AWS SDKs find them.

In order: keys in the environment (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` /
``AWS_SESSION_TOKEN``); the active profile's keys in the shared credentials file; a
container's credentials endpoint (ECS, EKS Pod Identity: ``AWS_CONTAINER_CREDENTIALS_FULL_URI``
or ``AWS_CONTAINER_CREDENTIALS_RELATIVE_URI``, with ``AWS_CONTAINER_AUTHORIZATION_TOKEN`` or
``AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE``); the EC2 instance role through IMDSv2 (a token by
``PUT /latest/api/token``, then the role's credentials; ``AWS_EC2_METADATA_SERVICE_ENDPOINT``
moves it, ``AWS_EC2_METADATA_DISABLED=true`` turns it off).

Temporary credentials are kept until :data:`REFRESH_BEFORE_S` before they expire, then fetched
again. Every request to a metadata service times out after :data:`METADATA_TIMEOUT_S` (or
``AWS_METADATA_SERVICE_TIMEOUT``), so a laptop without one loses about a second, once. The
secrets fetched are registered with the redaction (they never reach a log, an error or a
command); errors name the endpoint and the HTTP status, never an answer's body.
"""

from __future__ import annotations

import configparser
import ipaddress
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

METADATA_TIMEOUT_S = 1.0
REFRESH_BEFORE_S = 300.0
"""Temporary credentials are fetched again this long before they expire (the lease renews
every 15 s for as long as an index takes)."""
IMDS_ENDPOINT = "http://169.254.169.254"
IMDS_TOKEN_TTL_S = 21600
ECS_HOST = "http://169.254.170.2"
CONTAINER_HOSTS = frozenset({"169.254.170.2", "169.254.170.23", "fd00:ec2::23"})
"""Plain-http container endpoints the SDKs accept besides loopback (ECS, EKS Pod Identity)."""


@dataclass(frozen=True)
class AwsCredentials:
    access_key: str
    secret_key: str = field(repr=False)
    token: str = field(default="", repr=False)
    expires_at: float | None = None
    """Unix time at which they stop working (None: long-lived keys)."""
    source: str = "environment"

    def fresh(self, now: float) -> bool:
        return self.expires_at is None or now < self.expires_at - REFRESH_BEFORE_S


class CredentialsError(RuntimeError):
    """A credentials source is configured but did not answer usably (no secret in it)."""


def _learn(credentials: AwsCredentials) -> AwsCredentials:
    from ..llm.redact import learn_secret

    for value in (credentials.secret_key, credentials.token):
        learn_secret(value)
    return credentials


def _enabled(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes")


def _timeout(env: Mapping[str, str]) -> float:
    try:
        return max(0.1, float(env.get("AWS_METADATA_SERVICE_TIMEOUT") or METADATA_TIMEOUT_S))
    except ValueError:
        return METADATA_TIMEOUT_S


def _expiry(text: Any) -> float | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _from_answer(body: bytes, where: str, source: str) -> AwsCredentials:
    """Credentials from a metadata service's JSON answer (never quoted in errors)."""
    try:
        data = json.loads(body.decode("utf-8"))
        values = [data["AccessKeyId"], data["SecretAccessKey"], data.get("Token") or ""]
        if not all(isinstance(v, str) for v in values):  # {"AccessKeyId": {...}}: no key
            raise TypeError("not text")
        credentials = AwsCredentials(*values, _expiry(data.get("Expiration")), source)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError):
        raise CredentialsError(f"{where} answered without usable credentials") from None
    if not credentials.access_key or not credentials.secret_key:
        raise CredentialsError(f"{where} answered without usable credentials")
    return _learn(credentials)


def _http(timeout: float) -> Any:
    import httpx

    return httpx.Client(timeout=timeout, trust_env=False)  # never through a proxy


MAX_ANSWER_BYTES = 64 * 1024
"""A metadata answer (credentials ~1.5 KB, a role name, a token) is read no further: a
hostile or broken service cannot fill the memory."""


@dataclass(frozen=True)
class _Answer:
    status_code: int
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


def _host(url: str) -> str:
    """Host and port of ``url`` without any user:password in it."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:  # not a number: say nothing more than the host
        port = None
    return host + (f":{port}" if port else "")


def _where(url: str) -> str:
    return _host(url) + urlsplit(url).path


def _fetch(method: str, url: str, headers: dict[str, str], timeout: float) -> _Answer:
    """One request, its answer read within about ``timeout`` in all (not per read: a
    service dripping a byte at a time is cut off) and up to :data:`MAX_ANSWER_BYTES`."""
    deadline = time.monotonic() + timeout
    try:
        with _http(timeout) as client, client.stream(method, url, headers=headers) as answer:
            body = bytearray()
            for chunk in answer.iter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise CredentialsError(f"{method} {_where(url)} answered more than "
                                           f"{MAX_ANSWER_BYTES} bytes")
                if time.monotonic() > deadline:
                    raise CredentialsError(f"{method} {_where(url)} failed: answer not read "
                                           f"within {timeout:g} s")
            return _Answer(answer.status_code, bytes(body))
    except CredentialsError:
        raise
    except Exception as exc:  # httpx: unreachable, timed out
        raise CredentialsError(f"{method} {_where(url)} failed: "
                               f"{type(exc).__name__}") from None


def _container_url(env: Mapping[str, str]) -> str | None:
    relative = env.get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
    if relative:
        return ECS_HOST + (relative if relative.startswith("/") else "/" + relative)
    full = env.get("AWS_CONTAINER_CREDENTIALS_FULL_URI")
    if not full:
        return None
    parts = urlsplit(full)
    host = (parts.hostname or "").lower()
    if parts.scheme == "https":
        return full
    if parts.scheme == "http":
        if host == "localhost" or host in CONTAINER_HOSTS:
            return full
        try:
            if ipaddress.ip_address(host).is_loopback:
                return full
        except ValueError:
            pass
    raise CredentialsError(
        f"AWS_CONTAINER_CREDENTIALS_FULL_URI must be https, or http on a loopback or "
        f"container host (not {parts.scheme}://{_host(full)})")


def container_credentials(env: Mapping[str, str]) -> AwsCredentials | None:
    """The container's credentials, None when no container endpoint is configured."""
    url = _container_url(env)
    if url is None:
        return None
    headers: dict[str, str] = {}
    token = env.get("AWS_CONTAINER_AUTHORIZATION_TOKEN", "")
    token_file = env.get("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
    if token_file:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise CredentialsError(f"cannot read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE "
                                   f"{token_file}: {exc.strerror}") from None
    if token:
        if "\r" in token or "\n" in token:
            raise CredentialsError("the container authorization token holds a line break")
        headers["Authorization"] = token
        from ..llm.redact import learn_secret

        learn_secret(token)
    where = f"the container credentials endpoint {_host(url)}"
    response = _fetch("GET", url, headers, _timeout(env))
    if response.status_code != 200:
        raise CredentialsError(f"{where} answered HTTP {response.status_code}")
    return _from_answer(response.content, where, "container")


def instance_credentials(env: Mapping[str, str]) -> AwsCredentials | None:
    """The EC2 instance role's credentials through IMDSv2; None when the service is turned
    off, unreachable (not on EC2) or the instance has no role."""
    if _enabled(env.get("AWS_EC2_METADATA_DISABLED")):
        return None
    base = (env.get("AWS_EC2_METADATA_SERVICE_ENDPOINT") or IMDS_ENDPOINT).rstrip("/")
    timeout = _timeout(env)
    try:
        answer = _fetch("PUT", f"{base}/latest/api/token",
                        {"X-aws-ec2-metadata-token-ttl-seconds": str(IMDS_TOKEN_TTL_S)}, timeout)
    except CredentialsError as exc:
        log.debug("no instance metadata service: %s", exc)
        return None
    if answer.status_code != 200 or not answer.text.strip():
        log.debug("instance metadata token refused: HTTP %s", answer.status_code)
        return None
    token = answer.text.strip()
    from ..llm.redact import learn_secret

    learn_secret(token)
    headers = {"X-aws-ec2-metadata-token": token}
    listing = _fetch("GET", f"{base}/latest/meta-data/iam/security-credentials/", headers,
                     timeout)
    if listing.status_code == 404:
        return None  # an instance without a role
    if listing.status_code != 200:
        raise CredentialsError(f"the instance metadata service answered HTTP "
                               f"{listing.status_code} for the role name")
    role = listing.text.strip().splitlines()[0].strip() if listing.text.strip() else ""
    if not role or "/" in role:
        return None
    where = "the instance metadata service"
    response = _fetch("GET", f"{base}/latest/meta-data/iam/security-credentials/{role}",
                      headers, timeout)
    if response.status_code != 200:
        raise CredentialsError(f"{where} answered HTTP {response.status_code} for the "
                               f"credentials of role {role}")
    return _from_answer(response.content, where, f"instance role {role}")


def _ini_section(path: Path, names: tuple[str, ...]) -> dict[str, str]:
    """The first of ``names`` found in an INI file; {} when the file or section is absent or
    unreadable (a broken file must not stop indexing: the lease then says it has no keys)."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError, configparser.Error):
        return {}
    for name in names:
        if parser.has_section(name):
            return dict(parser.items(name))
    return {}


def profile_settings(env: Mapping[str, str]) -> dict[str, str]:
    """Keys and region of the active AWS profile from the shared files, for when the
    environment has no keys: ``aws_access_key_id``, ``aws_secret_access_key``,
    ``aws_session_token``, ``region`` (those present)."""
    home = Path(env.get("HOME") or Path.home())
    profile = env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE") or "default"
    credentials = Path(env.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials")
    config = Path(env.get("AWS_CONFIG_FILE") or home / ".aws" / "config")
    found = {k: v for k, v in _ini_section(credentials, (profile,)).items()
             if k in ("aws_access_key_id", "aws_secret_access_key", "aws_session_token")}
    # the config file names a profile "profile NAME", except the default one
    region = _ini_section(config, (f"profile {profile}", profile)).get("region")
    if region:
        found["region"] = region
    return found


def static_credentials(env: Mapping[str, str]) -> AwsCredentials | None:
    """Keys from the environment, else from the active profile's shared credentials file."""
    if env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):
        return AwsCredentials(env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"],
                              env.get("AWS_SESSION_TOKEN", ""), None, "environment")
    shared = profile_settings(env)
    if shared.get("aws_access_key_id") and shared.get("aws_secret_access_key"):
        return _learn(AwsCredentials(shared["aws_access_key_id"],
                                     shared["aws_secret_access_key"],
                                     shared.get("aws_session_token", ""), None, "profile"))
    return None


RETRY_AFTER_FAILURE_S = 30.0
"""After a configured source failed, ask it again no sooner than this."""


class CredentialChain:
    """The first source that has credentials, cached until shortly before they expire."""

    def __init__(self, env: Mapping[str, str], *,
                 clock: Callable[[], float] = time.time) -> None:
        self.env = env
        self.clock = clock
        self._cached: AwsCredentials | None = None
        self._next_look = 0.0
        self._lock = threading.Lock()
        self.error = ""
        """Why a configured source gave nothing (shown when there are no credentials)."""

    def get(self) -> AwsCredentials | None:
        with self._lock:
            now = self.clock()
            cached = self._cached
            if cached is not None and cached.fresh(now):
                return cached
            if now < self._next_look:  # looked lately: keep what there is while it works
                return cached if cached is not None and cached.expires_at is not None \
                    and now < cached.expires_at else None
            try:
                found = self._find()
                if found is not None and found.expires_at is not None \
                        and found.expires_at <= now:
                    raise CredentialsError(f"the {found.source} credentials had expired when "
                                           "they were fetched")
            except CredentialsError as exc:
                self.error = str(exc)
                log.warning("AWS credentials for the index lease: %s", exc)
                self._next_look = now + RETRY_AFTER_FAILURE_S
                found = cached if cached is not None and cached.expires_at is not None \
                    and now < cached.expires_at else None
            else:
                # nothing configured anywhere (a laptop): do not wait for a service again;
                # keys fetched with less than REFRESH_BEFORE_S left: used, not fetched again
                # on every request
                self._next_look = (float("inf") if found is None else 0.0 if found.fresh(now)
                                   else now + RETRY_AFTER_FAILURE_S)
            self._cached = found
            return found

    def _find(self) -> AwsCredentials | None:
        for source in (static_credentials, container_credentials, instance_credentials):
            found = source(self.env)
            if found is not None:
                return found
        return None
