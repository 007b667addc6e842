"""payscope: a terminal UI for exploring a payment processor's sandbox."""

__version__ = "0.1.0"
