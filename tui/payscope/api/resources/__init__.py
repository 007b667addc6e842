"""One namespace class per area of the API, reached as attributes of `ApiClient`."""

# Moves the sandbox's clock on (`SandboxResource.advance_clock`); here, where nothing is
# imported with it, for the status bar, which watches the request journal for it.
CLOCK_ADVANCE = "/_sandbox/clock/advance"
