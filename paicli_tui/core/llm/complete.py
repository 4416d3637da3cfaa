"""Turn a streaming chat client into a one-shot text completer."""

from __future__ import annotations

from ..contracts.llm import ChatClient, LLMError, StreamDone, TextCompleter
from ..messages import Message


def completer_for(client: ChatClient, *, model: str | None = None) -> TextCompleter:
    """``await complete(system, user)`` returns the reply text of one request without tools.

    Raises LLMError when the provider fails or the reply carries no text.
    """

    async def complete(system_prompt: str, user_text: str) -> str:
        messages = [Message.system(system_prompt), Message.user(user_text)]
        async for event in client.stream(messages, (), model=model):
            if isinstance(event, StreamDone):
                text = event.message.content.strip()
                if not text:
                    raise LLMError(f"{client.provider} returned no text")
                return text
        raise LLMError(f"{client.provider} ended the reply without finishing it")

    return complete
