"""The stage record: what a planning stage reads, what it adds to the Plan, how it runs.

Every stage package ends in one small ``stage.py`` that builds a :class:`Stage`; the
Plan's ``STAGES`` list puts them in planning order and ``build_plan`` loops over it
(docs/architecture.md, "Adding a stage").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .catalog import Catalog
from .findings import Finding
from .frames import Schema


@dataclass(frozen=True)
class StageResult:
    """What a stage's run function returns: its tables by name, and its findings."""

    tables: dict[str, pd.DataFrame]
    findings: tuple[Finding, ...] = field(default=())


#: ``run(catalog=..., tables=..., <section>=...)``: the catalogue, the tables the stage
#: needs (read-only, by name) and one keyword per scenario section it reads.
RunFunction = Callable[..., StageResult]


@dataclass(frozen=True)
class Stage:
    """One planning stage.

    Attributes
    ----------
    name : str
        Stage name, as findings and ``build_plan(until=...)`` spell it.
    sections : tuple[str, ...]
        Scenario sections it reads (attributes of the Scenario), or single fields of
        another stage's section (``"facility.management_servers"``, passed to ``run`` as
        ``facility_management_servers``); its cache key.
    needs : tuple[str, ...]
        Tables of earlier stages it reads; its cache key too (by content).
    provides : tuple[str, ...]
        Tables it adds to the Plan: exactly these, checked on every run.
    run : RunFunction
        The pure function that computes them.
    columns : Mapping[str, Schema]
        Declared columns and dtypes of some of its tables (:data:`hubplan.core.frames.
        Schema`): each such table must have them, in order, on every run, with rows or
        without (a centre with no training job still has a ``training`` table whose
        ``job`` column later stages read). Checked on every run.
    """

    name: str
    sections: tuple[str, ...]
    needs: tuple[str, ...]
    provides: tuple[str, ...]
    run: RunFunction
    columns: Mapping[str, Schema] | None = None

    def inputs(self, section_of: Callable[[str], Any]) -> dict[str, Any]:
        """Its scenario inputs by name (``section_of(name)`` reads one from the scenario)."""
        return {name: section_of(name) for name in self.sections}

    def __call__(
        self, catalog: Catalog, tables: Mapping[str, pd.DataFrame], sections: Mapping[str, Any]
    ) -> StageResult:
        kwargs = {name.replace(".", "_"): value for name, value in sections.items()}
        result = self.run(catalog=catalog, tables=dict(tables), **kwargs)
        got, declared = set(result.tables), set(self.provides)
        if got != declared:
            missing = ", ".join(sorted(declared - got)) or "none"
            extra = ", ".join(sorted(got - declared)) or "none"
            raise RuntimeError(
                f"stage {self.name!r} must provide exactly {sorted(declared)}; "
                f"missing: {missing}; undeclared: {extra}"
            )
        for name, schema in (self.columns or {}).items():
            table = result.tables[name]
            got_columns = [c for c in table.columns if c in schema]
            if got_columns != list(schema):
                lacking = ", ".join(c for c in schema if c not in table.columns) or "none"
                raise RuntimeError(
                    f"stage {self.name!r}: table {name!r} must have the columns it declares, "
                    f"in order, even with no rows; lacking: {lacking}"
                )
            if table.empty:
                wrong = [c for c, d in schema.items() if str(table[c].dtype) != d]
                if wrong:
                    raise RuntimeError(
                        f"stage {self.name!r}: empty table {name!r} has "
                        f"undeclared dtypes in {', '.join(wrong)}"
                    )
        return result
