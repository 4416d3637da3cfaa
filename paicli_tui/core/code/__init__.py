"""code layer of the core."""
