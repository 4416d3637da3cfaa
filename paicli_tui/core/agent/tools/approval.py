"""Asking the person before a tool changes anything (writes, commands)."""

from __future__ import annotations

from ...contracts.approval import ask_approval

__all__ = ["ask_approval", "denied"]


def denied(what: str) -> str:
    """The result text for a refused change (the model should not retry it blindly)."""
    return (f"The person declined: {what}. Nothing was changed. Do not try the same change "
            "again; ask the person how to proceed if it is needed.")
