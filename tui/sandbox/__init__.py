"""The local, stateful sandbox of the payment service (an ASGI application)."""
