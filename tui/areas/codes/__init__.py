"""The Codes area."""
