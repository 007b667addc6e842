"""pydantic v2 models for every object of the payment service, one module per resource."""
