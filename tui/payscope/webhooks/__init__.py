"""The built-in webhook listener: verify, dedupe, journal, forward, stream."""
