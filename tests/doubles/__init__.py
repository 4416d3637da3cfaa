"""Test doubles shared by every test folder (``tests/`` is on the import path through the
root conftest): a scripted text completer (``completers``), deterministic embedders
(``embedders``), a fake Ollama server (``ollama_server``), replayed OpenAI-style streams
(``llm_replay``), a small web server (``web_server``) and a real MCP stdio server
(``mcp_demo_server``, run as a subprocess). The agent's scripted chat model is
``tests/agent/agent_script.py`` and the UI's fakes are ``tests/ui/ui_fakes.py``: each is used
by its own folder only.

Doubles speak the real protocols (``TextCompleter``, ``Embedder``, Ollama's HTTP API on
127.0.0.1) so the code under test cannot tell them from the real thing.
"""
