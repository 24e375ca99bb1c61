"""The section base every stage's scenario section builds on, and typed quantities."""

from __future__ import annotations

import re
import types
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo, field_validator

from .errors import InputError
from .units import parse_number


def _parser(kind: str):
    def parse(v: Any) -> Any:
        if isinstance(v, str):
            try:
                return parse_number(v, kind=kind)
            except InputError as exc:
                if kind == "count" and "not bytes" in exc.allowed:
                    raise ValueError(exc.allowed) from None
                return v  # let pydantic report it with the field path
        return v

    return parse


#: A count (parameters, tokens) that may be written ``70e9``, ``70B`` or ``2T`` in YAML;
#: a byte unit (``70GB``) is refused, since a count in bytes is a slip.
Quantity = Annotated[float, BeforeValidator(_parser("count"))]
Count = Quantity
#: A size in bytes that may be written ``500GB``, ``2TB`` or ``5e11``. [B]
Bytes = Annotated[float, BeforeValidator(_parser("bytes"))]


def _numeric(annotation: Any) -> bool:
    """Whether a field's type takes numbers and never true/false."""
    if annotation is bool:
        return False
    if annotation in (int, float):
        return True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        return bool(args) and all(
            isinstance(a, int | float) and not isinstance(a, bool) for a in args
        )
    if origin is Annotated:
        return _numeric(args[0])
    if origin in (typing.Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        return bool(kinds) and all(_numeric(a) for a in kinds)
    return False


#: Control characters no xlsx cell can hold (the XML 1.0 character range, which
#: openpyxl enforces as ``ILLEGAL_CHARACTERS_RE``): every text of a scenario (its name, a
#: job's name) reaches the appendix. Tab, line feed and carriage return are allowed.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


class Section(BaseModel):
    """A frozen, strictly-keyed part of the Scenario (hashable: the stage cache keys on it).

    A number field never takes true/false: YAML 1.1 reads ``days: yes`` as a boolean,
    and pydantic would otherwise turn it into 1. A text never holds a control character
    (``"a\x00b"``): the appendix could not be written.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) and info.field_name is not None:
            field = cls.model_fields.get(info.field_name)
            if field is not None and _numeric(field.annotation):
                raise ValueError("must be a number, not true/false (yes/no/on/off in YAML)")
        if isinstance(value, str) and (bad := _CONTROL.search(value)):
            raise ValueError(
                f"contains the control character U+{ord(bad.group()):04X}, which no "
                "spreadsheet can hold; use printable text (tabs and line breaks are fine)"
            )
        return value
