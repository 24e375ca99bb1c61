"""Reading quantities the way planners write them: ``70e9``, ``70B``, ``500GB``, ``2T``."""

from __future__ import annotations

import re

from .errors import InputError

# Decimal multipliers (decimal GB/TB unless a name says GiB; docs/architecture.md, conventions).
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}
_PATTERN = re.compile(
    r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)\s*([kmbgtp]?)(b|bytes?|tokens?)?\s*$", re.I
)


def parse_number(value: object, field: str = "value") -> float:
    """Parse ``70e9``, ``70B`` (billion), ``2T``, ``500GB``, ``1.5k`` into a float.

    ``B`` alone means billion (parameter and token counts); a trailing ``B`` after a
    multiplier means bytes (``500GB`` = 5e11). Numbers pass through unchanged.

    >>> parse_number("70B"), parse_number("70e9"), parse_number("500GB"), parse_number(8)
    (70000000000.0, 70000000000.0, 500000000000.0, 8.0)
    >>> parse_number("seventy", "params")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hubplan.core.errors.InputError: params = 'seventy': must be a number such as 70e9, ...
    """
    if isinstance(value, bool):
        raise InputError(field, value, "must be a number, not true/false")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        m = _PATTERN.match(value.replace(",", "").replace("_", ""))
        if m:
            return float(m.group(1)) * _SUFFIX[m.group(2).lower()]
    raise InputError(field, value, "must be a number such as 70e9, 70B, 2T or 500GB")
