"""Reading quantities the way planners write them: ``70e9``, ``70B``, ``500GB``, ``2T``."""

from __future__ import annotations

import re

from .errors import InputError

# One definition of each unit factor the stages share (docs/architecture.md, conventions:
# decimal GB and TB unless a name says GiB).
#: Hours in a planning year: 365 × 24 (a year of continuous operation, leap days ignored).
HOURS_PER_YEAR = 8760.0
#: Seconds in an hour and in a day.
SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86_400
#: A decimal gigabyte [bytes].
GB = 1e9
#: Binary units, where a consumer counts in them (Slurm's MiB, Kubernetes' GiB) [bytes].
MIB = 2**20
GIB = 2**30

# Decimal multipliers (decimal GB/TB unless a name says GiB; docs/architecture.md, conventions).
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}
_PATTERN = re.compile(
    r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)\s*([kmbgtp]?)(b|bytes?|tokens?)?\s*$", re.I
)


#: Why a count refuses a byte unit (shown in the error; the CLI translates it).
COUNT_NOT_BYTES = "is a count, not bytes: write it as 70B, 70e9 or 2T"


def parse_number(value: object, field: str = "value", kind: str = "any") -> float:
    """Parse ``70e9``, ``70B`` (billion), ``2T``, ``500GB``, ``1.5k`` into a float.

    ``B`` alone means billion (parameter and token counts); a trailing ``B`` after a
    multiplier means bytes (``500GB`` = 5e11). Numbers pass through unchanged.
    ``kind="count"`` (parameters, tokens) refuses byte units: ``70GB`` of parameters
    is a slip, not 70e9 parameters.

    >>> parse_number("70B"), parse_number("70e9"), parse_number("500GB"), parse_number(8)
    (70000000000.0, 70000000000.0, 500000000000.0, 8.0)
    >>> parse_number("seventy", "params")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hubplan.core.errors.InputError: params = 'seventy': must be a number such as 70e9, ...
    >>> parse_number("70GB", "params", kind="count")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hubplan.core.errors.InputError: params = '70GB': is a count, not bytes: ...
    """
    if isinstance(value, bool):
        raise InputError(field, value, "must be a number, not true/false")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        m = _PATTERN.match(value.replace(",", "").replace("_", ""))
        if m:
            unit = (m.group(3) or "").lower()
            if kind == "count" and unit.startswith("b"):
                raise InputError(field, value, COUNT_NOT_BYTES)
            return float(m.group(1)) * _SUFFIX[m.group(2).lower()]
    raise InputError(field, value, "must be a number such as 70e9, 70B, 2T or 500GB")
