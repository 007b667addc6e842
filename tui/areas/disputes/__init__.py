"""The Disputes area."""
