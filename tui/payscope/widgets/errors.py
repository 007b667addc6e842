"""Turn any exception a worker raised into a title and a message a person can act on."""

from __future__ import annotations

from payscope.api.terminal import safe_text

_TITLES = {
    "AuthenticationError": "Key refused",
    "PermissionDeniedError": "Not allowed",
    "NotFoundError": "Not found",
    "ConflictError": "Conflict",
    "DuplicateError": "Already exists",
    "InvalidRequestError": "Request refused",
    "RateLimitedError": "Rate limited",
    "ServerError": "Service error",
    "ApiConnectionError": "No answer",
    "ApiTimeoutError": "Timed out",
    "ResponseFormatError": "Unexpected answer",
    "ConfigurationError": "Configuration problem",
    "ProductionKeyError": "Production key refused",
    "ProductionKeyRefused": "Production key refused",
    "KeyringUnavailable": "Keyring unavailable",
    "MissingProfileIdError": "Profile id missing",
    "MissingMerchantIdError": "Merchant id missing",
    "PageOutOfReachError": "Page out of reach",
    "UnsupportedFilterError": "Filter not available",
    "ValidationError": "Invalid input",
    "OSError": "System error",
    "PermissionError": "Permission denied",
    "TimeoutError": "Timed out",
    "NotStarted": "Not ready yet",
    # Start-up failures whose messages carry their own advice (never the generic "try again").
    "StartupError": "Could not start",
    "ListenerError": "Webhook listener problem",
    "DatabaseUnusable": "Sandbox database unusable",
    "OptionsError": "Settings problem",
}

# Settings a profile may lack that some calls need, by the error saying so.
_MISSING_SETTINGS = {
    "MissingMerchantIdError": "merchant id (merchant_id)",
    "MissingProfileIdError": "business profile id (profile_id, pro_...)",
}


_CONTRACT_NAMES = {"spec": "the spec (local sandbox)", "real": "the real service"}


def explain_api_code(error: BaseException) -> str | None:
    """The line explaining an API error's code by the contract its profile speaks (None when the
    error has no code). A remote profile's real service is read by its own table, never the
    local sandbox's: the same code (e.g. IR_01) means different things in the two."""
    code = getattr(error, "code", None)
    if not isinstance(code, str) or not code:
        return None
    from payscope.api.codes import Contract, explain

    said = getattr(error, "contract", None)
    contract: Contract = "real" if said == "real" else "spec"
    info = explain(code, contract)
    if info.family in ("unknown", "none"):
        return None
    # An error no service answered (made by payscope itself) names no contract.
    where = f" on {_CONTRACT_NAMES[contract]}" if said in _CONTRACT_NAMES else ""
    return f"{info.code}{where}: {info.title}. {info.meaning} {info.advice}"


def describe_error(error: BaseException) -> tuple[str, str]:
    """(title, message) for a notification or modal (API errors already read well, with their
    code explained by the contract their profile speaks). A remote's message is text from
    outside: its control and bidi characters come back escaped (`payscope.api.terminal`)."""
    title, message = _described(error)
    return title, safe_text(message)


def _described(error: BaseException) -> tuple[str, str]:
    for cls in type(error).__mro__:
        title = _TITLES.get(cls.__name__)
        if title is not None:
            break
    else:
        title = "Something went wrong"
    message = str(error).strip() or type(error).__name__
    setting = _MISSING_SETTINGS.get(type(error).__name__)
    if setting is not None:
        # The client's own advice names its constructor; in the TUI the fix is the profile.
        operation = getattr(error, "operation", "This")
        needs = getattr(error, "needs", "a setting")
        message = (
            f"{operation} needs {needs}, and this profile has none, so nothing was sent.\n"
            f"What to do: add its {setting} in Settings (select the profile, e edits it) or "
            "in profiles.toml."
        )
    elif (explained := explain_api_code(error)) is not None:
        message = f"{message}\nCode: {explained}"
    elif title == "Something went wrong":
        message = (
            f"{type(error).__name__}: {message}\n"
            "What to do: try again; if it keeps happening, the request log (:requests) shows "
            "what was sent."
        )
    return title, message
