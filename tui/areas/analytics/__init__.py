"""The Analytics area."""
