"""memory layer of the core."""
