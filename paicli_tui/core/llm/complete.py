"""Turn a streaming chat client into a one-shot text completer."""

from __future__ import annotations

from collections.abc import Iterable

from ...config import Secret
from ..contracts.llm import ChatClient, LLMError, StreamDone, TextCompleter
from ..messages import Message
from .redact import redact_known
from .think_tags import split_think


def completer_for(client: ChatClient, secrets: Iterable[Secret | str | None], *,
                  model: str | None = None) -> TextCompleter:
    """``await complete(system, user)`` returns the reply text of one request without tools,
    with the ``secrets`` in it masked (a summary, a plan or a saved memory that quoted a key
    would write it to disk) and any thinking written in ``<think>`` tags left out.

    Raises LLMError when the provider fails or the reply carries no text.
    """
    secrets = tuple(secrets)

    async def complete(system_prompt: str, user_text: str) -> str:
        messages = [Message.system(system_prompt), Message.user(user_text)]
        async for event in client.stream(messages, (), model=model):
            if isinstance(event, StreamDone):
                # thinking a model wrote in <think> tags is no part of the answer asked for
                text = split_think(event.message.content, None)[0].strip()
                if not text:
                    raise LLMError(f"{client.provider} returned no text")
                return redact_known(text, secrets)
        raise LLMError(f"{client.provider} ended the reply without finishing it")

    return complete
