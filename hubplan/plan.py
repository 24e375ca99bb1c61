"""build_plan: run the stages in planning order and collect a Plan.

A Plan is named DataFrames (one per output table) plus findings. The same scenario and
catalogue always give the same Plan. Views (panels, charts, exports, CLI) read a Plan
and never compute (docs/architecture.md).

``STAGES`` is the flow: each entry is a :class:`~hubplan.core.stage.Stage` record from
a stage package, in planning order. ``build_plan`` loops over it, hands each stage the
scenario sections and earlier tables it declares, checks it provides exactly the tables
it declares, and reuses a stage's last result while its sections, the catalogue and its
input tables are unchanged, so a control change reruns only the stages it touches.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .accelerator.stage import STAGE as ACCELERATOR
from .core.catalog import Catalog, load_catalog
from .core.findings import Finding, findings_frame
from .core.labels import localize
from .core.stage import Stage, StageResult
from .cost.stage import STAGE as COST
from .delivery.stage import STAGE as DELIVERY
from .facility.stage import STAGE as FACILITY
from .network.stage import STAGE as NETWORK
from .review.stage import STAGE as REVIEW
from .scenario import Scenario
from .server.stage import STAGE as SERVER
from .storage.stage import STAGE as STORAGE
from .workload.stage import STAGE as WORKLOAD

#: The stages in planning order; adding a stage is one package and one line here.
STAGES: tuple[Stage, ...] = (
    WORKLOAD,
    ACCELERATOR,
    SERVER,
    STORAGE,
    NETWORK,
    FACILITY,
    COST,
    DELIVERY,
    REVIEW,
)

#: How many past results each stage keeps (a workshop flips between a few settings).
CACHE_SIZE = 32
_cache: dict[str, OrderedDict[tuple, StageResult]] = {}


@dataclass(frozen=True)
class Plan:
    """The outputs of one scenario: ``tables[name]`` and ``findings``.

    ``findings`` is data: severity, stage, subject, code and the code's parameters;
    :func:`hubplan.views.render.findings_table` renders it in English or Chinese.
    ``stages_run`` names the stages this build computed (the others came from the cache).
    Tables are shared with the stage cache: treat them as read-only (copy before editing).
    """

    scenario: Scenario
    tables: dict[str, pd.DataFrame]
    findings: pd.DataFrame
    raw_findings: tuple[Finding, ...] = field(default=(), repr=False)
    stages_run: tuple[str, ...] = ()

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


def stage_names() -> tuple[str, ...]:
    return tuple(s.name for s in STAGES)


def frame_fingerprint(df: pd.DataFrame) -> str | None:
    """A content hash of a table (columns, dtypes, index and values), or None when a
    cell holds something unhashable (such a table is never a cache key)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((list(df.columns), [str(t) for t in df.dtypes], df.shape)).encode())
    try:
        h.update(pd.util.hash_pandas_object(df, index=True).to_numpy().tobytes())
    except TypeError:
        return None
    return h.hexdigest()


def _key(stage: Stage, sections: dict[str, Any], catalog: Catalog,
         inputs: dict[str, pd.DataFrame]) -> tuple | None:  # fmt: skip
    prints = tuple(frame_fingerprint(inputs[n]) for n in stage.needs)
    if None in prints:
        return None
    return (tuple(sections[s] for s in stage.sections), catalog.fingerprint, prints)


def build_plan(
    scenario: Scenario,
    catalog: Catalog | None = None,
    *,
    until: str | None = None,
    cache: bool = True,
) -> Plan:
    """Run the stages on ``scenario`` and return the Plan.

    Parameters
    ----------
    scenario : Scenario
    catalog : Catalog, optional
        Defaults to the shipped catalogue.
    until : str, optional
        Stop after this stage (e.g. ``"server"``); later stages' tables are absent.
    cache : bool
        Reuse a stage's result while its sections, the catalogue and its input tables
        are unchanged (default). ``False`` recomputes every stage.

    >>> from hubplan import default_scenario
    >>> plan = build_plan(default_scenario())
    >>> int(plan["training"].loc[0, "gpus"])
    136
    >>> sorted(build_plan(default_scenario(), until="workload").tables)
    ['inference', 'pool_demand', 'training', 'training_curve', 'training_memory']
    """
    names = stage_names()
    if until is not None and until not in names:
        raise ValueError(f"until = {until!r}: use one of {', '.join(names)}")
    catalog = catalog if catalog is not None else load_catalog()
    tables: dict[str, pd.DataFrame] = {}
    findings: list[Finding] = []
    ran: list[str] = []
    for stage in STAGES:
        sections = {s: getattr(scenario, s) for s in stage.sections}
        inputs = {n: tables[n] for n in stage.needs}
        key = _key(stage, sections, catalog, inputs) if cache else None
        store = _cache.setdefault(stage.name, OrderedDict())
        result = store.get(key) if key is not None else None
        if result is None:
            result = stage(catalog, inputs, sections)
            ran.append(stage.name)
            if key is not None:
                store[key] = result
                if len(store) > CACHE_SIZE:
                    store.popitem(last=False)
        else:
            store.move_to_end(key)
        tables.update(result.tables)
        findings += result.findings
        if stage.name == until:
            break
    return Plan(scenario, tables, findings_frame(findings), tuple(findings), tuple(ran))
