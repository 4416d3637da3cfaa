"""llm layer of the core."""
