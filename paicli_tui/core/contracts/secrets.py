"""The one sensitive-content rule: what counts as a secret or a personal identifier.

Automatic extraction (sentences dropped, quotes refused), the ``save_memory`` tool (refused,
the model cannot override), ``/save`` and ``paicli-tui memory save`` (refused unless the
person confirms) and the scrubbing of error messages all ask this module, so a word or a key
shape added here counts everywhere at once.

Two kinds of evidence:

- words: password, passcode, passwd, pw, secret, token, api key, credential, bearer, private
  key, 密码, 口令, 私钥, 密钥, … and personal identifiers (e-mail, phone number, 身份证, …);
- values: known key prefixes (``sk-``, ``ghp_``, ``AKIA…``, JWTs, PEM private keys), bare hex
  keys of 32+ digits, base64 blobs, long high-entropy strings, and login pairs such as
  ``admin / hunter2`` or ``user:pass@host``.
"""

from __future__ import annotations

import math
import re
from collections import Counter

SENSITIVE_ZH = ("密码", "密钥", "秘钥", "口令", "令牌", "私钥", "公钥", "凭证", "凭据", "手机号",
                "电话号码", "联系电话", "身份证", "护照号", "邮箱", "银行卡", "信用卡", "验证码",
                "家庭住址", "账号密码", "登录名")
# Prefix matches on purpose: "tokens", "secret_key", "passwords", "credentials". A tokenizer
# (tokenise, tokenization) names a text-processing tool, not a credential.
_SENSITIVE_EN = re.compile(
    r"(?<![a-z0-9])(?:password|passwd|passcode|passphrase|pass[_\- ]?word|pw(?![a-z0-9])"
    r"|pin[_\- ]?code|secret|token(?!i[sz])|api[_\- ]?key|apikey|bearer|credential"
    r"|private[_\- ]?key|access[_\- ]?key|ssh[_\- ]?key|auth[_\- ]?key|client[_\- ]?secret"
    r"|session[_\- ]?id|cookie|e-?mail|phone[_\- ]?number|id[_\- ]?card|credit[_\- ]?card"
    r"|social[_\- ]?security|ssn(?![a-z]))",
    re.IGNORECASE,
)
# Values with a known shape: provider and platform keys, JWTs, PEM keys, e-mails, phones.
_KEY_VALUES = re.compile(
    r"(?<![A-Za-z0-9])(?:sk|pk|rk|ak)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_])?"
    r"[A-Za-z0-9_\-]{8,}"
    r"|(?<![A-Za-z0-9])(?:ghp|gho|ghs|ghu|ghr|github_pat|glpat|xox[abprs]|npm|pypi|hf|shpat"
    r"|dop_v1|SG)[-_.][A-Za-z0-9_\-.]{10,}"
    r"|(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{20,}|(?<![A-Za-z0-9])ya29\.[A-Za-z0-9_\-]{10,}"
    r"|(?<![A-Za-z0-9])eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|(?i:bearer)\s+[A-Za-z0-9._\-]{8,}"
)
_PERSONAL_VALUES = re.compile(
    r"(?<![A-Za-z0-9._%+\-])(?!git@)[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}"
    r"|(?<!\d)1[3-9]\d{9}(?!\d)"
)
_LOGIN_PAIR = re.compile(
    r"(?i)\b(?:admin|root|user(?:name)?|login|account|uid|owner)\s*(?:/|:|=)\s*[^\s/:=]{3,}"
    # user:password@ in a URL whose run of scheme characters holds a letter; tried only from
    # the start of such a run: from every letter it scanned to the run's end (12,000: 1.7 s)
    r"|(?<![a-z0-9+.\-])[0-9+.\-]*[a-z][a-z0-9+.\-]*://[^\s/:@]+:[^\s/@]+@"
)
_HEX_KEY = re.compile(r"(?<![A-Za-z0-9])(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)"
                      r"[0-9a-fA-F]{32,}(?![A-Za-z0-9])")
_BASE64_BLOB = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{12,}={1,2}(?![A-Za-z0-9+/=])"
                          r"|(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/_\-]{24,}(?![A-Za-z0-9+/=_\-])")
HIGH_ENTROPY_BITS = 3.5
"""Bits per character above which a long mixed string reads as random (a key, not a word)."""


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _random_looking(token: str) -> bool:
    classes = sum((any(c.islower() for c in token), any(c.isupper() for c in token),
                   any(c.isdigit() for c in token)))
    if "/" in token and token.count("/") > 1 and not token.endswith("="):
        return False  # a path, not a blob
    return classes >= 3 or (classes == 2 and any(c.isdigit() for c in token)
                            and _entropy(token) >= HIGH_ENTROPY_BITS)


def secret_values(text: str) -> list[tuple[int, int]]:
    """Spans of values that look like keys or tokens (known prefixes, hex keys, base64
    blobs, long random strings), for scrubbing text whose keys we do not know."""
    spans = [m.span() for m in _KEY_VALUES.finditer(text)]
    spans += [m.span() for m in _HEX_KEY.finditer(text)]
    spans += [m.span() for m in _BASE64_BLOB.finditer(text) if _random_looking(m.group())
              or m.group().endswith("=")]
    return sorted(spans)


def sensitive_reason(text: str) -> str | None:
    """Why ``text`` must not be stored as a memory or sent for extraction (None: it may):
    it names a credential or personal identifier, or holds a value shaped like one."""
    if any(word in text for word in SENSITIVE_ZH):
        return "it mentions a credential or personal identifier"
    match = _SENSITIVE_EN.search(text)
    if match:
        return f"it mentions {match.group().lower()!r}"
    if _KEY_VALUES.search(text) or _HEX_KEY.search(text):
        return "it holds a value shaped like a key or token"
    if _PERSONAL_VALUES.search(text):
        return "it holds an e-mail address or phone number"
    if _LOGIN_PAIR.search(text):
        return "it holds what looks like a login and password"
    if any(_random_looking(m.group()) or m.group().endswith("=")
           for m in _BASE64_BLOB.finditer(text)):
        return "it holds a long random-looking value (a key or an encoded credential)"
    return None


def is_sensitive(text: str) -> bool:
    return sensitive_reason(text) is not None


def scrub_secret_values(text: str, mask: str = "****") -> str:
    """``text`` with every key-shaped value replaced (the bearer word kept)."""
    out, last = [], 0
    for start, end in secret_values(text):
        if start < last:
            continue
        piece = text[start:end]
        keep = re.match(r"(?i)bearer\s+", piece)
        out += [text[last:start], keep.group() if keep else "", mask]
        last = end
    out.append(text[last:])
    return "".join(out)
