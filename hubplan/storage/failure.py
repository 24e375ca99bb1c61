"""Job interruptions from component failure rates: GPU, HBM, NIC, switch, host, software.

A synchronous training job stops when any part it depends on fails. Its interruption
rate is the sum, over components, of the component's rate per unit-hour times the units
the job spans: its GPUs, its nodes (NICs, host parts, the software ranks they run) and
the switches of its fabric; a rate may also be counted per job. The job's mean time
between interruptions is the inverse of that sum:

    λ_job = Σ_c  m_c · r_c · n_c        M = 1 / λ_job

with r_c the rate per unit-hour of ``data/failure_rates.csv``, n_c the units of that
kind the job spans and m_c the scenario's multiplier (``storage.failure_scale_<c>``).
M is not simply inversely proportional to GPUs: the switches a job depends on grow by
a tier when the fabric does (48 switches for 1 024 GPUs, 1 280 for 16 384 on 64-port
switches, 25 % more per GPU), and each component's share changes with the ratio of
GPUs to nodes to switches.

Checked in ``tests/test_failure.py`` against the Llama 3 16 K-GPU run (Grattafiori et
al., arXiv 2407.21783, Table 5) and Meta's research clusters at 8 to 1 024 GPUs
(Kokolis et al., arXiv 2410.21680): the shape with job size agrees; the level differs
by the fleet (the research clusters' A100 jobs failed about six times as often per
node-day as the Llama 3 run), which the multipliers carry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from ..core.catalog import FAILURE_COMPONENTS, FAILURE_UNITS, Catalog
from ..core.errors import CatalogError, HubplanError
from ..core.frames import Schema, empty, typed
from .section import Storage

#: The ``failure_breakdown`` table: one row per training job and component.
BREAKDOWN_SCHEMA: Schema = {
    "job": "str",
    "failure_component": "str",
    "failure_per": "str",
    "units_spanned": "int64",
    "per_million_hours": "float64",
    "failure_scale": "float64",
    "interruptions_per_day": "float64",
    "failure_share": "float64",
}


def fat_tree_switches(endpoints: int, ports: int) -> int:
    """Switches of the smallest non-blocking fat tree that connects ``endpoints`` ports.

    Notes
    -----
    A fat tree of ``k``-port switches with ``t`` tiers connects up to 2 (k/2)^t
    endpoints (Al-Fares et al., "A scalable, commodity data center network
    architecture", SIGCOMM 2008: k³/4 hosts with three tiers). Every tier below the
    top has half its ports down, so it has ⌈E / (k/2)⌉ switches; the top tier has all
    its ports down, ⌈E / k⌉ switches. One switch suffices for E ≤ k. A job depends on
    every one of them: its collectives cross all of its leaves, and a spine or core
    failure takes down links it uses. One compute port per GPU (rail-optimised, as the
    DGX SuperPOD) makes E the job's GPUs. ``ports`` is the switch's port count as the
    catalogue lists it (``data/switches.csv``), without breakout: a 64 × 800G switch
    split to 128 × 400G would need fewer switches than counted here.

    Examples
    --------
    1 024 GPUs on 64-port switches (NVIDIA QM9700): 1 024 ≤ 2 × 32² = 2 048, two tiers:
    1 024 / 32 = 32 leaves + 1 024 / 64 = 16 spines = 48, the 4-SU DGX SuperPOD's
    32 leaf and 16 spine switches (RA-11333-001).

    >>> fat_tree_switches(1024, 64)
    48
    >>> fat_tree_switches(16_384, 64)  # three tiers: 512 + 512 + 256
    1280
    """
    if ports < 2:
        raise HubplanError(f"switch ports = {ports}: a fat tree needs switches of 2 or more ports")
    if endpoints <= 0:
        return 0
    if endpoints <= ports:
        return 1
    half = ports // 2
    tiers = 2
    while endpoints > 2 * half**tiers:
        tiers += 1
    return (tiers - 1) * math.ceil(endpoints / half) + math.ceil(endpoints / ports)


def interruption_breakdown(
    rates: pd.DataFrame,
    *,
    gpus: int,
    nodes: int,
    switches: int,
    scale: Mapping[str, float] | None = None,
    job: str = "",
) -> pd.DataFrame:
    """Interruptions per day of one job, by component. [1/d]

    Parameters
    ----------
    rates : DataFrame
        ``Catalog.failure_rates``: ``name`` (component), ``per`` (gpu / node / switch /
        job) and ``per_million_hours``.
    gpus, nodes, switches : int
        What the job spans: its GPUs, its servers and the switches of its fabric
        (:func:`fat_tree_switches`).
    scale : mapping, optional
        Multiplier per component (1 when absent).
    job : str
        The job's name, for the table and for errors.

    Notes
    -----
    interruptions/day of component c = m_c × r_c / 10⁶ × n_c × 24, with n_c the
    job's GPUs, nodes, switches or 1 (a job) as the row's ``per`` says; the share is
    that over the job's total.

    Examples
    --------
    The shipped rates (Llama 3, arXiv 2407.21783 Table 5) at Llama 3's own exposure
    — 16 384 GPUs, 2 048 nodes, 1 024 ToR switches — give back its 419 unexpected
    interruptions in 54 days:

    >>> from hubplan.core.catalog import load_catalog
    >>> b = interruption_breakdown(load_catalog().failure_rates, gpus=16_384,
    ...                            nodes=2_048, switches=1_024)
    >>> round(b["interruptions_per_day"].sum() * 54)
    419
    """
    scale = dict(scale or {})
    known = set(rates["name"])
    missing = [c for c in FAILURE_COMPONENTS if c not in known]
    if missing:
        raise CatalogError(
            f"data/failure_rates.csv has no row for component(s) {missing}; "
            "the failure model needs one per component"
        )
    counts = {"gpu": gpus, "node": nodes, "switch": switches, "job": 1}
    rows: list[dict[str, object]] = []
    per_days: list[float] = []  # each row's interruptions per day
    for r in rates.to_dict("records"):
        c, per = str(r["name"]), str(r["per"])
        if per not in FAILURE_UNITS:
            raise CatalogError(
                f"data/failure_rates.csv, component {c}: per = {per!r} is not "
                f"one of {', '.join(FAILURE_UNITS)}"
            )
        m = float(scale.get(c, 1.0))
        per_day = m * float(r["per_million_hours"]) / 1e6 * counts[per] * 24
        rows.append(
            {
                "job": job,
                "failure_component": c,
                "failure_per": per,
                "units_spanned": int(counts[per]),
                "per_million_hours": float(r["per_million_hours"]),
                "failure_scale": m,
                "interruptions_per_day": per_day,
            }
        )
        per_days.append(per_day)
    total = sum(per_days)
    for row, per_day in zip(rows, per_days, strict=True):
        row["failure_share"] = per_day / total if total > 0 else math.nan
    return typed(rows, BREAKDOWN_SCHEMA)


def mtbf_hours(interruptions_per_day: float) -> float:
    """Mean time between interruptions from the job's interruptions per day. [h]

    Notes
    -----
    M = 24 h / λ (independent failures: exponential inter-arrival times, so the job's
    rate is the sum of its parts' rates). No interruptions give an infinite M.

    Examples
    --------
    Llama 3 405B: 419 unexpected interruptions in 54 days (arXiv 2407.21783 §3.3.4) is
    7.759 a day, one every 54 × 24 / 419 = 3.093 h.

    >>> round(mtbf_hours(419 / 54), 3)
    3.093
    """
    return 24.0 / interruptions_per_day if interruptions_per_day > 0 else math.inf


def job_interruptions(
    catalog: Catalog, storage: Storage, compute_switch: str, jobs: Sequence[Mapping]
) -> tuple[pd.DataFrame, list[float]]:
    """The ``failure_breakdown`` table of the training jobs, and each job's
    interruptions per day (in the order of ``jobs``).

    Each job (a mapping with ``job``, ``gpus`` and ``servers``) spans its GPUs, its
    servers and the switches of a fat tree of ``compute_switch``
    (:func:`fat_tree_switches`); the multipliers are ``storage.failure_scale_<c>``.
    Every multiplier at 0 is an error: a job that is never interrupted needs no
    checkpoint, and the interval would be infinite.
    """
    ports = int(catalog.switch(compute_switch, "network.compute_switch")["ports"])
    scale = {c: getattr(storage, f"failure_scale_{c}") for c in FAILURE_COMPONENTS}
    tables, totals = [], []
    for j in jobs:
        b = interruption_breakdown(
            catalog.failure_rates,
            gpus=int(j["gpus"]),
            nodes=int(j["servers"]),
            switches=fat_tree_switches(int(j["gpus"]), ports),
            scale=scale,
            job=str(j["job"]),
        )
        total = float(b["interruptions_per_day"].sum())
        if total <= 0:
            raise HubplanError(
                "storage.failure_scale_*: every component's multiplier is 0, "
                "so a job would never be interrupted and need no checkpoint; "
                "set at least one above 0"
            )
        tables.append(b)
        totals.append(total)
    table = pd.concat(tables, ignore_index=True) if tables else empty(BREAKDOWN_SCHEMA)
    return table, totals
