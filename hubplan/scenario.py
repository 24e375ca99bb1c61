"""The Scenario: every planning assumption, validated, with units in each field's name.

A Scenario is a tree of frozen pydantic models with one section per planning stage; each
stage package owns its section (``hubplan.workload.section`` and so on) and this module
only assembles them (docs/architecture.md). It loads from and saves to YAML without loss
(``load_scenario``, ``Scenario.to_yaml``). Invalid input raises
:class:`~hubplan.core.errors.ScenarioError` naming the field path, the value and what is
allowed; unknown keys get a "did you mean" hint.

Each field's ``description`` says what it is and why its default is that value.
"""

from __future__ import annotations

import difflib
import os
import re
import warnings
from pathlib import Path
from typing import Any, Literal

import yaml
from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, Field, ValidationError

from .accelerator.section import Selection
from .core.errors import FileReadError, ScenarioError, ScenarioMovedWarning
from .core.files import SCENARIO_MAX_BYTES, read_user_text, write_text_atomic
from .core.paths import templates_dir
from .core.section import Section
from .cost.section import Cost
from .delivery.section import Delivery
from .facility.section import Facility, VersionPin
from .network.section import Network
from .pools.section import ExistingServers, Pools, PoolSpec, ServerSpec
from .review.section import ReviewPolicy
from .server.section import ServerPolicy
from .storage.section import Storage
from .workload.section import (
    Architecture,
    DevelopmentPool,
    InferenceService,
    Overlap,
    TrainingJob,
    Workload,
)

SCHEMA_VERSION = 1

__all__ = [
    "SCHEMA_VERSION",
    "Architecture",
    "Cost",
    "Delivery",
    "DevelopmentPool",
    "ExistingServers",
    "Facility",
    "InferenceService",
    "Network",
    "Overlap",
    "PoolSpec",
    "Pools",
    "ReviewPolicy",
    "Scenario",
    "Selection",
    "ServerPolicy",
    "ServerSpec",
    "Storage",
    "TrainingJob",
    "VersionPin",
    "Workload",
    "default_scenario",
    "load_scenario",
]


#: Fields that moved to another section: (section, field) it was in -> the section it is
#: in now. A file (or a ``with_changes`` path) that still gives one at its old place
#: loads with the value read at the new place and a :class:`ScenarioMovedWarning` saying
#: so; a file that gives it at both places is an error (which value was meant?).
MOVED_FIELDS: dict[tuple[str, str], str] = {
    # the tariff is a price: the cost stage prices energy
    ("facility", "electricity_usd_per_kwh"): "cost",
}


def _moved_message(old: str, new: str, source: str | None) -> str:
    where = f"{source}: " if source else ""
    return (
        f"{where}{old} has moved to {new}; the value is read there. Save the scenario "
        f"(or write it under {new.split('.')[0]}) to update the file."
    )


def _migrate(data: dict, source: str | None) -> dict:
    """``data`` with every :data:`MOVED_FIELDS` field moved to its section, warning once
    per field moved; a field given at both places is a ScenarioError."""
    for (section, field), to in MOVED_FIELDS.items():
        old = data.get(section)
        if not isinstance(old, dict) or field not in old:
            continue
        new = data.get(to)
        if new is None:
            new = {}
        if not isinstance(new, dict):
            continue  # the section's own validation says what is wrong with it
        if field in new:
            raise ScenarioError(
                [
                    (
                        f"{section}.{field}",
                        f"has moved to {to}.{field}, which "
                        "this file also gives: keep the one under "
                        f"{to}",
                    )
                ],
                source,
            )
        data = data | {
            section: {k: v for k, v in old.items() if k != field},
            to: new | {field: old[field]},
        }
        warnings.warn(
            _moved_message(f"{section}.{field}", f"{to}.{field}", source),
            ScenarioMovedWarning,
            stacklevel=4,
        )
    return data


class Scenario(Section):
    """Every assumption of a plan. Build with :func:`load_scenario` or
    :func:`default_scenario`; change with :meth:`with_changes`."""

    schema_version: Literal[1] = Field(SCHEMA_VERSION, description="File format version.")
    name: str = Field("scenario", min_length=1, description="Shown on every output.")
    description: str = Field("", description="Free text for the proposal.")
    workload: Workload = Field(default_factory=Workload)
    pools: Pools = Field(default_factory=Pools)
    accelerator: Selection = Field(default_factory=Selection)
    server: ServerPolicy = Field(default_factory=ServerPolicy)
    storage: Storage = Field(default_factory=Storage)
    network: Network = Field(default_factory=Network)
    facility: Facility = Field(default_factory=Facility)
    cost: Cost = Field(default_factory=Cost)
    delivery: Delivery = Field(default_factory=Delivery)
    review: ReviewPolicy = Field(default_factory=ReviewPolicy)

    # -- construction ----------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> Scenario:
        """Validate a plain dict (as read from YAML) into a Scenario."""
        if not isinstance(data, dict):
            raise ScenarioError([("(top level)", f"expected a mapping, got {data!r}")], source)
        data = _migrate(data, source)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ScenarioError(_problems(exc, cls), source) from None

    @classmethod
    def from_yaml(cls, text: str, source: str | None = None) -> Scenario:
        if not text.strip():
            raise ScenarioError(
                [("(file)", "is empty; start from templates/scenarios/default.yaml")], source
            )
        try:
            data = yaml.load(text, Loader=_Loader)  # a SafeLoader subclass
        except yaml.YAMLError as exc:
            problem, mark = getattr(exc, "problem", None), getattr(exc, "problem_mark", None)
            if problem and mark is not None and "duplicate key" not in problem:
                problem = f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
            one_line = " ".join(str(problem or exc).split())
            raise ScenarioError([("(file)", f"not valid YAML: {one_line}")], source) from None
        if data is None:  # only comments
            data = {}
        return cls.from_dict(data, source)

    def to_dict(self) -> dict[str, Any]:
        """Every field, defaults included, as plain YAML-safe values."""
        return self.model_dump(mode="json")

    def to_yaml(self) -> str:
        """YAML text that :meth:`from_yaml` turns back into an equal Scenario."""
        return yaml.dump(
            self.to_dict(), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the YAML atomically (a crash never leaves a half-written file); a path
        that cannot be written is an :class:`~hubplan.core.errors.ExportError`."""
        return write_text_atomic(path, self.to_yaml(), what="scenario")

    def with_changes(self, changes: dict[str, Any]) -> Scenario:
        """A new Scenario with dotted-path fields replaced, validated as a whole.

        >>> s = default_scenario().with_changes({"workload.training.0.days": 20})
        >>> s.workload.training[0].days
        20.0
        """
        data = self.to_dict()
        for dotted, value in changes.items():
            section, _, field = str(dotted).partition(".")
            if (section, field) in MOVED_FIELDS:
                new = f"{MOVED_FIELDS[section, field]}.{field}"
                warnings.warn(
                    _moved_message(str(dotted), new, None), ScenarioMovedWarning, stacklevel=2
                )
                dotted = new
            node: Any = data
            keys = str(dotted).split(".")
            try:
                for key in keys[:-1]:
                    if isinstance(node, list):
                        node = node[_index(key, len(node))]
                    elif isinstance(node, dict):
                        node = node.setdefault(key, {})
                    else:
                        raise TypeError
                last = keys[-1]
                if isinstance(node, list):
                    node[_index(last, len(node))] = value
                elif isinstance(node, dict):
                    node[last] = value
                else:
                    raise TypeError
            except (IndexError, ValueError, TypeError):
                raise ScenarioError(
                    [
                        (
                            str(dotted),
                            "no such field in the scenario (write a dotted path such "
                            "as workload.training.0.days; list items by index from 0)",
                        )
                    ]
                ) from None
        return Scenario.from_dict(data)


def _index(key: str, length: int) -> int:
    i = int(key)
    if not 0 <= i < length:
        raise IndexError(key)
    return i


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses a key written twice in one mapping (YAML keeps the last
    one silently, so a second ``days:`` would quietly win)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key; the base class reports it
                continue
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"duplicate key {key!r} on line {line} (first on line {first})",
                    key_node.start_mark,
                )
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


class _Dumper(yaml.SafeDumper):
    """SafeDumper that keeps YAML line-break characters (NEL, LS, PS) exact.

    PyYAML writes them raw inside single quotes, where a reader folds them; double
    quotes escape them (\\N, \\L, \\P) and the text survives the round trip.
    """


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    if any(ch in data for ch in "\x85\u2028\u2029"):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    return dumper.represent_str(data)


_Dumper.add_representer(str, _represent_str)


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read a scenario YAML file; errors name the file and each invalid field.

    Only a regular file of at most :data:`~hubplan.core.files.SCENARIO_MAX_BYTES` (1 MiB)
    is read: a folder, a named pipe, a device such as ``/dev/zero`` or a larger file is a
    :class:`~hubplan.core.errors.ScenarioError` at once, never a hang.
    """
    path = Path(path)
    try:
        text = read_user_text(path, limit_bytes=SCENARIO_MAX_BYTES)
    except FileReadError as exc:
        raise ScenarioError([("(file)", f"cannot read {path}: {exc.problem}")], str(path)) from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            [("(file)", f"not UTF-8 text (byte {exc.start}); save it as UTF-8")], str(path)
        ) from None
    return Scenario.from_yaml(text, source=str(path))


def default_scenario() -> Scenario:
    """The embedded default: a 70 B industry-model fine-tune, an online service and a
    development pool (``templates/scenarios/default.yaml``)."""
    return load_scenario(templates_dir() / "scenarios" / "default.yaml")


# -- error messages ----------------------------------------------------------------------


def _format_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _model_at(cls: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class that owns the last element of ``loc`` (for hints and ranges)."""
    current: Any = cls
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return None
        current = _inner_model(fields[part].annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _inner_model(arg)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    return annotation


def _allowed(owner: type[BaseModel] | None, field: str) -> str:
    if owner is None or field not in owner.model_fields:
        return ""
    info = owner.model_fields[field]
    bounds = []
    for m in info.metadata:
        for kind, attr, sym in (
            (Gt, "gt", ">"),
            (Ge, "ge", ">="),
            (Lt, "lt", "<"),
            (Le, "le", "<="),
        ):
            if isinstance(m, kind):
                bounds.append(f"{sym} {_bound(getattr(m, attr))}")
    return f" (allowed: {field} {' and '.join(bounds)})" if bounds else ""


def _bound(value: Any) -> str:
    """A bound as text: 1e+14 rather than 100000000000000.0, 3650 rather than 3650.0."""
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _is_tag(part: Any) -> bool:
    """Whether a location part is a pydantic validator tag rather than a field name."""
    return isinstance(part, str) and re.fullmatch(r"[a-z][\w-]*\[.*\]", part) is not None


#: Keys earlier versions accepted, with what replaced them (said instead of a guess).
REMOVED_KEYS = {
    "storage.interruptions_per_gpu_year": "removed: job MTBF now sums component failure "
    "rates (data/failure_rates.csv) over the GPUs, servers and switches a job spans; tune "
    "them with storage.failure_scale_gpu, _hbm, _nic, _switch, _host and _software.",
    "storage.read_gb_s_per_gpu": "removed: reads follow the DGX SuperPOD storage guideline "
    "(RA-11333-001 Table 6) at storage.performance_level: good (4 GB/s per DGX, 15 per SU), "
    "better (8, 40) or best (40, 125).",
}


def _problems(exc: ValidationError, cls: type[BaseModel]) -> list[tuple[str, str]]:
    problems = []
    for err in exc.errors(include_url=False):
        kind = err["type"]
        raw = tuple(err["loc"])
        # Drop pydantic's validator tags ("function-after[_check(), TrainingJob]"); an
        # unknown key is the user's own text, kept whatever it holds ("s[chema_version").
        keep = raw[-1:] if kind == "extra_forbidden" else ()
        loc = tuple(p for p in raw[: len(raw) - len(keep)] if not _is_tag(p)) + keep
        path = _format_path(loc)
        if kind == "extra_forbidden":
            owner = _model_at(cls, loc[:-1]) if len(loc) > 1 else cls
            names = list(owner.model_fields) if owner else []
            close = difflib.get_close_matches(str(loc[-1]), names, n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            if path in REMOVED_KEYS:
                hint = f"; {REMOVED_KEYS[path]}"
            valid = f" Valid keys here: {', '.join(names)}." if names else ""
            problems.append((path, f"unknown key{hint}{valid}"))
            continue
        value = err.get("input")
        owner = _model_at(cls, loc[:-1]) if loc else None
        field = str(loc[-1]) if loc else ""
        msg = err["msg"].removeprefix("Value error, ")
        if kind == "value_error" and isinstance(value, dict):
            problems.append((path, msg))  # a whole-section rule; the message names its fields
        else:
            problems.append((f"{path} = {value!r}", f"{msg}{_allowed(owner, field)}"))
    return problems
