"""The agent core: plain async Python, no Textual import anywhere below here."""
