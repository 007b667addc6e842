"""The Payments area."""
