"""UI widgets."""
