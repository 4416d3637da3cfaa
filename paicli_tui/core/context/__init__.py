"""context layer of the core."""
