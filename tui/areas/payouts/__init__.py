"""The Payouts area."""
