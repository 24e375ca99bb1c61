"""build_plan: run the stage calculators in order and collect a Plan.

A Plan is named DataFrames (one per output table) plus findings. The same scenario
and catalogue always give the same Plan. Views (panels, charts, exports, CLI) read a
Plan and never compute (DESIGN.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .catalog import Catalog, load_catalog
from .findings import Finding, findings_frame
from .labels import localize
from .scenario import Scenario
from .selection import run_selection
from .servers import run_servers
from .workload import run_workload

#: Stages in planning order (DESIGN.md); later issues append theirs.
STAGES = ("workload", "accelerator", "server")


@dataclass(frozen=True)
class Plan:
    """The outputs of one scenario: ``tables[name]`` and ``findings``."""

    scenario: Scenario
    tables: dict[str, pd.DataFrame]
    findings: pd.DataFrame
    raw_findings: tuple[Finding, ...] = field(default=(), repr=False)

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self.tables:
            raise KeyError(f"no table {name!r} in this plan; tables: {', '.join(self.tables)}")
        return self.tables[name]

    def table(self, name: str, lang: str = "en") -> pd.DataFrame:
        """A table with its headers in ``lang`` ('en' or 'zh')."""
        return localize(self[name], lang)

    @property
    def errors(self) -> pd.DataFrame:
        return self.findings[self.findings["severity"] == "error"]


def build_plan(scenario: Scenario, catalog: Catalog | None = None) -> Plan:
    """Run every stage on ``scenario`` and return the Plan.

    >>> from hubplan import default_scenario
    >>> plan = build_plan(default_scenario())
    >>> int(plan["training"].loc[0, "gpus"])
    136
    """
    catalog = catalog if catalog is not None else load_catalog()
    tables: dict[str, pd.DataFrame] = {}
    findings: list[Finding] = []
    t, f = run_workload(scenario.workload, scenario.pools, catalog)
    tables.update(t)
    findings += f
    t, f = run_selection(scenario.workload, scenario.pools, scenario.accelerator, catalog,
                         tables["training"])  # fmt: skip
    tables.update(t)
    findings += f
    t, f = run_servers(tables["pool_demand"], scenario.pools, scenario.server, catalog)
    tables.update(t)
    findings += f
    return Plan(scenario, tables, findings_frame(findings), tuple(findings))
