"""The Customers area."""
