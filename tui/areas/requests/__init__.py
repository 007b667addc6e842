"""The Requests area."""
