"""The Settings area."""
