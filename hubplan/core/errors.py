"""Errors a user can act on: each names the field, the value and what is allowed."""

from __future__ import annotations


class HubplanError(ValueError):
    """Base class for every error hubplan raises about its inputs."""


class ScenarioError(HubplanError):
    """A scenario (YAML file, dict or keyword change) is not valid.

    ``problems`` lists ``(field_path, message)`` pairs, one per invalid field.
    """

    def __init__(self, problems: list[tuple[str, str]], source: str | None = None):
        self.problems = problems
        self.source = source
        where = f" in {source}" if source else ""
        lines = [f"{path}: {msg}" for path, msg in problems]
        if len(lines) == 1:
            super().__init__(f"invalid scenario{where}: {lines[0]}")
        else:
            body = "\n  ".join(lines)
            super().__init__(f"invalid scenario{where} ({len(lines)} problems):\n  {body}")


class CatalogError(HubplanError):
    """A catalogue lookup or a user catalogue file is not valid."""


class InputError(HubplanError):
    """A calculator argument is out of its allowed range."""

    def __init__(self, field: str, value: object, allowed: str):
        self.field, self.value, self.allowed = field, value, allowed
        super().__init__(f"{field} = {value!r}: {allowed}")


def check_range(
    field: str,
    value: float,
    *,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> float:
    """Raise :class:`InputError` unless ``value`` lies in the given bounds.

    >>> check_range("mfu", 0.45, gt=0, le=1)
    0.45
    >>> check_range("mfu", 1.5, gt=0, le=1)
    Traceback (most recent call last):
    ...
    hubplan.core.errors.InputError: mfu = 1.5: must be > 0 and <= 1
    """
    parts = []
    ok = value == value  # NaN fails every bound
    if gt is not None:
        parts.append(f"> {gt:g}")
        ok &= value > gt
    if ge is not None:
        parts.append(f">= {ge:g}")
        ok &= value >= ge
    if lt is not None:
        parts.append(f"< {lt:g}")
        ok &= value < lt
    if le is not None:
        parts.append(f"<= {le:g}")
        ok &= value <= le
    if not ok:
        raise InputError(field, value, "must be " + " and ".join(parts))
    return value
