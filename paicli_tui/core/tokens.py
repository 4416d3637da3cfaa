"""Token estimation (behaviour §1), memoised per message, with a learned correction factor.

The estimate is deliberately simple and provider-independent: CJK characters count 1/1.5
token, everything else 1/4. Each message's estimate is stored in ``Message.token_cache`` so
the check before every request only pays for messages it has not seen yet.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from .messages import ImagePart, Message
from .text_slices import text_slices

# Code points strictly between U+4E00 and U+9FFF (behaviour §1: both ends excluded); matched in
# runs so Chinese text yields a few long matches instead of one per character.
_CJK_RUNS = re.compile("[\u4e01-\u9ffe]+")

MESSAGE_OVERHEAD = 4
"""Tokens added per message for role and framing."""
IMAGE_URL_TOKENS = 1024
IMAGE_MIN_TOKENS = 256
IMAGE_MAX_TOKENS = 4096
IMAGE_BYTES_PER_TOKEN = 768


def estimate_text(text: str) -> int:
    """Tokens for a text: ceil(cjk / 1.5 + other / 4), CJK = U+4E01..U+9FFE."""
    if not text:
        return 0
    total = len(text)
    # slice by slice (a 20 MB result in one scan holds the interpreter half a second)
    cjk = 0 if text.isascii() else sum(len(run) for piece in text_slices(text)
                                       for run in _CJK_RUNS.findall(piece))
    # cjk/1.5 + other/4 == (8*cjk + 3*other) / 12, kept in integers so rounding is exact.
    return -(-(8 * cjk + 3 * (total - cjk)) // 12)


def estimate_image(image: ImagePart) -> int:
    """An inline image costs max(256, min(4096, bytes/768)); an image by URL costs 1024."""
    if image.data_base64:
        decoded_bytes = len(image.data_base64) * 3 // 4
        return max(IMAGE_MIN_TOKENS, min(IMAGE_MAX_TOKENS, decoded_bytes // IMAGE_BYTES_PER_TOKEN))
    return IMAGE_URL_TOKENS


def _compute_message(message: Message) -> int:
    total = MESSAGE_OVERHEAD + estimate_text(message.content)
    for call in message.tool_calls:
        total += estimate_text(call.name) + estimate_text(call.arguments)
    if message.reasoning:
        total += estimate_text(message.reasoning)
    for image in message.images:
        total += estimate_image(image)
    return total


def estimate_message(message: Message) -> int:
    """Tokens for one message (content, tool calls, reasoning, images, +4), memoised on it."""
    cache = message.token_cache
    if cache:
        return cache[0]
    value = _compute_message(message)
    cache.append(value)
    return value


# Tool schemas are usually the same list objects every request; memoise by identity and keep
# a reference so the id cannot be reused by another object while the entry lives.
_SCHEMA_CACHE: dict[int, tuple[Any, int]] = {}
_SCHEMA_CACHE_LIMIT = 512


def estimate_schema(schema: dict[str, Any]) -> int:
    """Tokens for one tool schema as it goes on the wire (its compact JSON text)."""
    key = id(schema)
    hit = _SCHEMA_CACHE.get(key)
    if hit is not None and hit[0] is schema:
        return hit[1]
    value = estimate_text(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))
    if len(_SCHEMA_CACHE) >= _SCHEMA_CACHE_LIMIT:
        _SCHEMA_CACHE.clear()
    _SCHEMA_CACHE[key] = (schema, value)
    return value


def estimate_request(messages: Sequence[Message], tool_schemas: Sequence[dict] = ()) -> int:
    """Tokens for a whole request: every message plus the tool schemas sent with it.

    Incremental: messages that already carry a memo cost a list lookup each.
    """
    total = 0
    for message in messages:
        cache = message.token_cache
        total += cache[0] if cache else estimate_message(message)
    for schema in tool_schemas:
        total += estimate_schema(schema)
    return total


class TokenCalibrator:
    """A running correction factor: reported prompt tokens / our estimate.

    The factor is an exponential moving average of the observed ratios, clamped to
    [0.5, 3.0] so one odd report (a provider counting cached tokens oddly, a tiny request)
    cannot make the estimate absurd; a ratio outside [0.25, 6] is not taken at all.
    """

    MIN_FACTOR = 0.5
    MAX_FACTOR = 3.0
    CREDIBLE = (0.25, 6.0)
    """Ratios outside this range are no tokenizer's count of the request: ignored."""

    def __init__(self, factor: float = 1.0, smoothing: float = 0.3,
                 min_estimate: int = 200) -> None:
        self.factor = min(self.MAX_FACTOR, max(self.MIN_FACTOR, factor))
        self.smoothing = smoothing
        self.min_estimate = min_estimate
        """Requests smaller than this say little about the ratio and are ignored."""
        self.observations = 0

    def observe(self, estimated: int, reported_prompt_tokens: int) -> None:
        """Fold one pair into the factor: ``estimated`` is the raw (uncalibrated) estimate of
        the request that was sent, ``reported_prompt_tokens`` the provider's count for it."""
        if estimated < self.min_estimate or reported_prompt_tokens <= 0:
            return
        ratio = reported_prompt_tokens / estimated
        if not self.CREDIBLE[0] <= ratio <= self.CREDIBLE[1]:
            # not a count of this request (a proxy's running total, 10^12, or 1): folded
            # in, one such report pinned the factor to its clamp for many requests
            return
        if self.observations == 0:
            blended = ratio
        else:
            blended = self.factor + self.smoothing * (ratio - self.factor)
        self.factor = min(self.MAX_FACTOR, max(self.MIN_FACTOR, blended))
        self.observations += 1

    def adjust(self, estimate: int) -> int:
        """The estimate corrected by the learned factor (rounded up)."""
        return math.ceil(estimate * self.factor - 1e-9)
