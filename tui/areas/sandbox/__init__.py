"""The Sandbox area."""
