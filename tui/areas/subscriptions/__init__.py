"""The Subscriptions area."""
