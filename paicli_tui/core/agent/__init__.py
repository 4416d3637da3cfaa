"""agent layer of the core."""
