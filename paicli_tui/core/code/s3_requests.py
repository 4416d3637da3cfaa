"""The few S3 requests the index lease needs (conditional PUT, GET, DELETE), signed with
AWS Signature Version 4, over httpx.

Configured from the same environment variables LanceDB's object store reads, so the lease
reaches the bucket the index is in: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``, ``AWS_REGION`` (or ``AWS_DEFAULT_REGION``), and for S3-compatible
servers ``AWS_ENDPOINT`` (or ``AWS_ENDPOINT_URL[_S3]``), addressed path-style unless
``AWS_VIRTUAL_HOSTED_STYLE_REQUEST`` is true. Without keys in the environment, the keys
of the profile (``AWS_PROFILE``, else ``default``) in the shared credentials file
(``AWS_SHARED_CREDENTIALS_FILE``, else ``~/.aws/credentials``) and its region in the config
file (``AWS_CONFIG_FILE``, else ``~/.aws/config``), as the index's own store reads them;
then a container's or the EC2 instance role's temporary credentials
(:mod:`.aws_credentials`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote

ALGORITHM = "AWS4-HMAC-SHA256"
TIMEOUT_S = 15.0


class S3RequestError(RuntimeError):
    """A request failed in a way the lease cannot work around (the message says what)."""


class PreconditionFailed(Exception):  # noqa: N818 - the name of S3's answer (HTTP 412)
    """The object is not in the state the request required (If-None-Match / If-Match)."""


@dataclass(frozen=True)
class S3Object:
    body: bytes
    etag: str
    age_s: float
    """Seconds since it was last written, by the server's clock (Date - Last-Modified)."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def signature_v4(*, method: str, path: str, query: str, headers: Mapping[str, str],
                 payload_hash: str, secret_key: str, region: str, when: dt.datetime,
                 service: str = "s3") -> tuple[str, str]:
    """(signed header names, signature) of one request, as S3 computes them.

    ``path`` is already URI-encoded (S3 encodes each segment once); ``headers`` must hold
    every header to sign, ``host`` and ``x-amz-date`` included."""
    canonical_headers = {k.lower().strip(): " ".join(str(v).split()) for k, v in headers.items()}
    signed = ";".join(sorted(canonical_headers))
    canonical = "\n".join([
        method, path, query,
        "".join(f"{k}:{canonical_headers[k]}\n" for k in sorted(canonical_headers)),
        signed, payload_hash])
    day = when.strftime("%Y%m%d")
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join([ALGORITHM, when.strftime("%Y%m%dT%H%M%SZ"), scope,
                         sha256_hex(canonical.encode("utf-8"))])
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret_key}".encode(), day), region), service),
                "aws4_request")
    return signed, hmac.new(key, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()


class S3Client:
    """Signed requests to one bucket."""

    def __init__(self, bucket: str, env: Mapping[str, str]) -> None:
        from .aws_credentials import CredentialChain, profile_settings

        self.bucket = bucket
        self.credentials = CredentialChain(env)
        shared_region = "" if env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") else (
            profile_settings(env).get("region", ""))
        self.region = (env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or shared_region
                       or "us-east-1")
        endpoint = (env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
                    or env.get("AWS_ENDPOINT") or "").rstrip("/")
        virtual = env.get("AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "").lower() in ("1", "true")
        if not endpoint:
            self.base, self.prefix = f"https://{bucket}.s3.{self.region}.amazonaws.com", ""
        elif virtual:
            scheme, _, host = endpoint.partition("://")
            self.base, self.prefix = f"{scheme}://{bucket}.{host}", ""
        else:
            self.base, self.prefix = endpoint, f"/{quote(bucket, safe='')}"
        self._http: Any = None

    @property
    def has_credentials(self) -> bool:
        """Whether any source has credentials (may ask a metadata service, ~1 s at most)."""
        return self.credentials.get() is not None

    @property
    def access_key(self) -> str:
        found = self.credentials.get()
        return found.access_key if found else ""

    def _client(self) -> Any:
        if self._http is None:
            import httpx

            self._http = httpx.Client(timeout=TIMEOUT_S)
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def request(self, method: str, key: str, body: bytes = b"",
                extra: Mapping[str, str] | None = None) -> Any:
        found = self.credentials.get()
        if found is None:
            raise S3RequestError(f"{method} s3://{self.bucket}/{key}: no AWS credentials "
                                 f"({self.credentials.error or 'none configured'})")
        path = self.prefix + "/" + quote(key, safe="/-_.~")
        url = self.base + path
        host = url.split("://", 1)[1].split("/", 1)[0]
        when = dt.datetime.now(dt.UTC)
        payload = sha256_hex(body)
        headers = {"host": host, "x-amz-date": when.strftime("%Y%m%dT%H%M%SZ"),
                   "x-amz-content-sha256": payload, **(extra or {})}
        if found.token:
            headers["x-amz-security-token"] = found.token
        signed, signature = signature_v4(method=method, path=path, query="", headers=headers,
                                         payload_hash=payload, secret_key=found.secret_key,
                                         region=self.region, when=when)
        scope = f"{when:%Y%m%d}/{self.region}/s3/aws4_request"
        headers["authorization"] = (f"{ALGORITHM} Credential={found.access_key}/{scope}, "
                                    f"SignedHeaders={signed}, Signature={signature}")
        del headers["host"]  # httpx sends it from the URL
        try:
            return self._client().request(method, url, content=body or None, headers=headers)
        except Exception as exc:  # httpx errors: the host, never the key
            raise S3RequestError(f"{method} s3://{self.bucket}/{key} failed: "
                                 f"{type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _check(response: Any, what: str) -> None:
        if response.status_code == 412:
            raise PreconditionFailed(what)
        if response.status_code >= 300:
            raise S3RequestError(f"{what}: HTTP {response.status_code} "
                                 f"{_error_code(response.text)}".rstrip())

    def put(self, key: str, body: bytes, *, if_none_match: bool = False,
            if_match: str | None = None) -> str:
        """Write ``key``; its new ETag. PreconditionFailed when ``if_none_match`` and it
        exists, or ``if_match`` is not its ETag."""
        extra = {"content-type": "application/json"}
        if if_none_match:
            extra["if-none-match"] = "*"
        if if_match is not None:
            extra["if-match"] = if_match
        response = self.request("PUT", key, body, extra)
        self._check(response, f"PUT s3://{self.bucket}/{key}")
        return response.headers.get("etag", "")

    def get(self, key: str) -> S3Object | None:
        """``key``'s content, ETag and age; None when it does not exist."""
        response = self.request("GET", key)
        if response.status_code == 404:
            return None
        self._check(response, f"GET s3://{self.bucket}/{key}")
        return S3Object(response.content, response.headers.get("etag", ""),
                        _age(response.headers))

    def delete(self, key: str) -> None:
        response = self.request("DELETE", key)
        if response.status_code != 404:
            self._check(response, f"DELETE s3://{self.bucket}/{key}")


def _age(headers: Mapping[str, str]) -> float:
    try:
        now = parsedate_to_datetime(headers["date"])
        written = parsedate_to_datetime(headers["last-modified"])
    except (KeyError, TypeError, ValueError):
        return 0.0  # unknown: treated as fresh (never taken over on a guess)
    return max(0.0, (now - written).total_seconds())


def _error_code(text: str) -> str:
    """S3's error code from an XML error body (``<Code>AccessDenied</Code>``), or ""."""
    start = text.find("<Code>")
    end = text.find("</Code>", start)
    return text[start + 6:end] if start >= 0 and end > start else ""
