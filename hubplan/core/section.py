"""The section base every stage's scenario section builds on, and typed quantities."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict

from .errors import InputError
from .units import parse_number


def _number(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return parse_number(v)
        except InputError:
            return v  # let pydantic report it with the field path
    return v


#: A float that may be written ``70e9``, ``70B`` or ``500GB`` in YAML.
Quantity = Annotated[float, BeforeValidator(_number)]


class Section(BaseModel):
    """A frozen, strictly-keyed part of the Scenario (hashable: the stage cache keys on it)."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)
