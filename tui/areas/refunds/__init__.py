"""The Refunds area."""
