"""The Events area."""
