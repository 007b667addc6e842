"""The service's words that the UI needs before pydantic is loaded: the id rule and statuses.

Standard library only (the first frame imports it); the models in `tui.api.models` take their
enums and patterns from here, so there is one copy of each.
"""

from __future__ import annotations

import re
from typing import Final

ID_MAX: Final = 64
ID_CHARACTERS: Final = "A-Za-z0-9_-"
ID_RE: Final = re.compile(rf"[{ID_CHARACTERS}]{{1,{ID_MAX}}}")
"""A merchant-supplied id (payment_id, refund_id, customer_id, ...): 1 to 64 of `A-Za-z0-9_-`."""
BAD_ID_CHARACTER: Final = re.compile(rf"[^{ID_CHARACTERS}]")
