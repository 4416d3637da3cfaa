"""UI screens."""
