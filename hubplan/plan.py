"""build_plan: run the stages in planning order and collect a Plan.

A Plan is named DataFrames (one per output table) plus findings. The same scenario and
catalogue always give the same Plan. Views (panels, charts, exports, CLI) read a Plan
and never compute (docs/architecture.md).

``STAGES`` is the flow: each entry is a :class:`~hubplan.core.stage.Stage` record from
a stage package, in planning order. ``build_plan`` loops over it, hands each stage the
scenario sections and earlier tables it declares, checks it provides exactly the tables
it declares, and reuses a stage's last result while its sections, the catalogue and its
input tables are unchanged, so a control change reruns only the stages it touches.

The cached tables never leave this module: a Plan and each stage get lazy copies
(``DataFrame.copy(deep=False)``; pandas >= 3 copies on write), so editing a Plan's table,
or a stage editing its input, changes that copy only. :func:`clear_cache` empties the
cache.
"""

from __future__ import annotations

import hashlib
import pickle
import weakref
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
    Each table is this Plan's own: a lazy copy of the cached one (copy-on-write), so
    editing it in place changes neither the cache nor any other Plan.
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

    def headline(self) -> dict[str, Any]:
        """The plan's headline figures, read from its tables (nothing is recomputed: a
        figure is a cell of a table, a sum of its rows or a row count).

        Needs a whole Plan (built through the review stage).

        Returns
        -------
        dict
            ``gpus`` and ``servers`` (fleet rows of ``pools``, spares included),
            ``racks`` (rows of ``racks``: compute, storage and network), ``it_mw`` and
            ``facility_mw`` (``facility_power`` total: IT nameplate, and × PUE),
            ``capex_usd`` (priced lines only) and ``capex_unpriced_lines``,
            ``capex_low_usd`` / ``capex_point_usd`` / ``capex_high_usd`` (the point and
            high NaN, withheld, while a line is unpriced; the low then a floor),
            ``opex_usd_per_year`` and ``opex_unpriced_lines``,
            ``cost_per_useful_gpu_hour_usd``, ``breakeven_month`` (inf when owning never
            pays back), ``cloud_basis`` (how owning is set against the cloud:
            utilisation, term_total or no_offer), from ``cost_summary``; and ``errors``,
            ``warnings``, ``infos``: findings by severity.

        >>> from hubplan import default_scenario
        >>> h = build_plan(default_scenario()).headline()
        >>> h["gpus"], h["servers"], round(h["facility_mw"], 3), h["errors"]
        (168, 21, 0.322, 0)
        """
        pools = self["pools"]
        fleet = pools[pools["level"] == "fleet"]
        power = self["facility_power"]
        total = power[power["scope"] == "total"].iloc[0]
        cost = self["cost_summary"].iloc[0]
        severity = self.findings["severity"]
        return {
            "gpus": int(fleet["total_gpus"].sum()),
            "servers": int(fleet["total_servers"].sum()),
            "racks": len(self["racks"]),
            "it_mw": float(total["it_nameplate_kw"]) / 1000,
            "facility_mw": float(total["facility_kw"]) / 1000,
            "capex_usd": float(cost["capex_usd"]),
            "capex_unpriced_lines": int(cost["capex_unpriced_lines"]),
            "capex_low_usd": float(cost["capex_low_usd"]),
            "capex_point_usd": float(cost["capex_point_usd"]),
            "capex_high_usd": float(cost["capex_high_usd"]),
            "opex_usd_per_year": float(cost["opex_usd_per_year"]),
            "opex_unpriced_lines": int(cost["opex_unpriced_lines"]),
            "cost_per_useful_gpu_hour_usd": float(cost["cost_per_useful_gpu_hour_usd"]),
            "breakeven_month": float(cost["breakeven_month"]),
            "cloud_basis": str(cost["cloud_basis"]),
            "errors": int((severity == "error").sum()),
            "warnings": int((severity == "warning").sum()),
            "infos": int((severity == "info").sum()),
        }


def section_value(scenario: Scenario, path: str) -> Any:
    """A stage's input from the scenario: a whole section (``"facility"``) or one field of
    it (``"facility.management_servers"``), so a stage that needs one figure of another
    stage's section is not rerun when the rest of that section changes.

    >>> from hubplan import default_scenario
    >>> section_value(default_scenario(), "facility.management_servers")
    3
    """
    value: Any = scenario
    for part in path.split("."):
        value = getattr(value, part)
    return value


def stage_names() -> tuple[str, ...]:
    return tuple(s.name for s in STAGES)


def frame_fingerprint(df: pd.DataFrame) -> str | None:
    """A content hash of a table (its pickle: columns, dtypes, index, values and attrs), or
    None when a cell holds something that cannot be pickled (never a cache key).

    Equal hashes mean equal tables (the pickle rebuilds the table); two equal tables laid
    out differently in memory may hash differently, which costs only a cache miss. The
    pickle is about ten times faster than ``pandas.util.hash_pandas_object`` column by
    column on the plan's small tables (3 ms against 35 ms for the default plan's 47).

    >>> a = pd.DataFrame({"rack": ["A01", "A02"], "kw": [30.0, 40.0]})
    >>> frame_fingerprint(a) == frame_fingerprint(a.copy())
    True
    >>> frame_fingerprint(a) == frame_fingerprint(a.assign(kw=[30.0, 40.5]))
    False
    """
    try:
        data = pickle.dumps(df, protocol=5)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return hashlib.blake2b(data, digest_size=16).hexdigest()


#: id(table) -> (weak reference, fingerprint): a table's content hash, computed once.
_prints: dict[int, tuple[weakref.ref, str | None]] = {}


def _fingerprint(df: pd.DataFrame) -> str | None:
    """:func:`frame_fingerprint`, remembered for the life of the table object.

    The cached tables are never handed out (Plans and stages get lazy copies), so a
    cached stage's tables keep their content for their whole life: hashing them again
    on every build (the review stage alone reads eighteen tables) cost more than
    rerunning the stage a change touched.
    """
    hit = _prints.get(id(df))
    if hit is not None and hit[0]() is df:
        return hit[1]
    key = id(df)

    def forget(ref: weakref.ref, key: int = key) -> None:
        if _prints.get(key, (None,))[0] is ref:
            del _prints[key]

    fp = frame_fingerprint(df)
    _prints[key] = (weakref.ref(df, forget), fp)
    return fp


def _key(
    stage: Stage, sections: dict[str, Any], catalog: Catalog, inputs: dict[str, pd.DataFrame]
) -> tuple | None:
    prints = tuple(_fingerprint(inputs[n]) for n in stage.needs)
    if None in prints:
        return None
    return (tuple(sections[s] for s in stage.sections), catalog.fingerprint, prints)


def clear_cache() -> None:
    """Forget every stage result and table fingerprint kept by :func:`build_plan`.

    The next build computes every stage. Use it to free the memory of large plans, or to
    time a build from cold; results do not depend on it (a cached result is reused only
    while a stage's inputs are unchanged).

    >>> from hubplan import default_scenario
    >>> clear_cache()
    >>> len(build_plan(default_scenario()).stages_run) == len(STAGES)
    True
    >>> build_plan(default_scenario()).stages_run
    ()
    """
    _cache.clear()
    _prints.clear()


def _own(table: pd.DataFrame) -> pd.DataFrame:
    """A lazy copy of a cached table: no data is copied until one side is written to, and
    then only the written columns (pandas >= 3 copy-on-write; ~30 µs a table)."""
    return table.copy(deep=False)


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
        sections = stage.inputs(lambda path: section_value(scenario, path))
        inputs = {n: tables[n] for n in stage.needs}
        key = _key(stage, sections, catalog, inputs) if cache else None
        store = _cache.setdefault(stage.name, OrderedDict())
        result = store.get(key) if key is not None else None
        if result is None:
            result = stage(catalog, {n: _own(t) for n, t in inputs.items()}, sections)
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
    own = {name: _own(t) for name, t in tables.items()}
    return Plan(scenario, own, findings_frame(findings), tuple(findings), tuple(ran))
