"""The Links area."""
