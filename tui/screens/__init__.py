"""Textual screens, one module per area."""
