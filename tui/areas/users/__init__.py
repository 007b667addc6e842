"""The Users area."""
