"""The routes a caller may reach without an `api-key`: an explicit list, nothing by prefix.

Everything else, every `/_sandbox/` control included, goes through authentication. A browser
has no key, so the list holds only what a browser opens: the API docs and their three assets,
the payment-link checkout page (and its old address, which redirects), the 3-D Secure
challenge page with its form, and the page of a non-card method's step (redirect, QR code,
transfer, voucher) with its form. The pages authorise themselves: a link id shows only its own
payment, and the challenge needs the payment's `client_secret`.

A `{name}` in a template matches one path segment.
"""

from __future__ import annotations

import re
from typing import Final

PAY_PAGE: Final = "/pay/{payment_link_id}"
OLD_PAY_PAGE: Final = "/_sandbox/assets/pay/{payment_link_id}"
THREE_DS_PAGE: Final = "/_sandbox/payments/{payment_id}/3ds"
THREE_DS_FORM: Final = "/_sandbox/payments/{payment_id}/3ds/challenge"
# The customer's step of a non-card method: a redirect, QR code, transfer, voucher or collect.
REDIRECT_PAGE: Final = "/_sandbox/payments/{payment_id}/redirect"
REDIRECT_FORM: Final = "/_sandbox/payments/{payment_id}/redirect/answer"

PUBLIC_ROUTES: Final[frozenset[tuple[str, str]]] = frozenset(
    {
        ("GET", "/docs"),
        ("GET", "/openapi.json"),
        ("GET", "/_sandbox/assets/swagger-ui-bundle.js"),
        ("GET", "/_sandbox/assets/swagger-ui.css"),
        ("GET", "/_sandbox/assets/favicon-32x32.png"),
        ("GET", PAY_PAGE),
        ("GET", OLD_PAY_PAGE),
        ("GET", THREE_DS_PAGE),
        ("POST", THREE_DS_FORM),
        ("GET", REDIRECT_PAGE),
        ("POST", REDIRECT_FORM),
    }
)


def _pattern(template: str) -> str:
    return re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))


_STATIC: Final = frozenset((m, t) for m, t in PUBLIC_ROUTES if "{" not in t)
_DYNAMIC: Final = {
    method: re.compile(
        "|".join(_pattern(t) for m, t in sorted(PUBLIC_ROUTES) if m == method and "{" in t)
    )
    for method in {m for m, t in PUBLIC_ROUTES if "{" in t}
}


# The literal text before each template's first parameter: most paths fail this cheap test.
_DYNAMIC_HEADS: Final = tuple(sorted({t.split("{", 1)[0] for _, t in PUBLIC_ROUTES if "{" in t}))


def is_public(method: str, path: str) -> bool:
    """True when `method path` is one of PUBLIC_ROUTES (HEAD counts as GET)."""
    if method == "HEAD":
        method = "GET"
    if (method, path) in _STATIC:
        return True
    if not path.startswith(_DYNAMIC_HEADS):
        return False
    pattern = _DYNAMIC.get(method)
    return pattern is not None and pattern.fullmatch(path) is not None
