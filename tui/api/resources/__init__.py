"""One namespace class per area of the API, reached as attributes of `ApiClient`."""
