"""graph passes."""
