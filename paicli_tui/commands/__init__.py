"""Headless sub-commands of the `paicli-tui` CLI, one module each."""
