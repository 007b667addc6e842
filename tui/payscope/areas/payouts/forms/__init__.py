"""The payout forms, one module per family: `payout` (a new payout whose fields follow the chosen
method, and its update before confirmation, on the method kinds of `methods`) and `flow` (the
confirm, fulfil, cancel and, on the local sandbox, reverse confirmations)."""
