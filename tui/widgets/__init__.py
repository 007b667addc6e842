"""Reusable Textual widgets."""
