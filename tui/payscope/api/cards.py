"""Card numbers: the Luhn checksum they carry (standard library only).

One copy for every layer that checks one: the request models, the request journal that masks
card numbers in what it records, and the local sandbox's test cards.
"""

from __future__ import annotations


def luhn_ok(digits: str) -> bool:
    """True when `digits` (ASCII digits only) pass the Luhn checksum that card numbers carry."""
    if not (digits.isascii() and digits.isdigit()):
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = ord(char) - 48
        if index % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0
