"""UI modals."""
