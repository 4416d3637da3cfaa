"""Test doubles shared by every test folder (``tests/`` is on the import path through the
root conftest): a scripted text completer, deterministic embedders, a fake Ollama server.

Doubles speak the real protocols (``TextCompleter``, ``Embedder``, Ollama's HTTP API on
127.0.0.1) so the code under test cannot tell them from the real thing.
"""
