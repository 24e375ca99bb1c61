"""The design review: a flat list of ``check_*`` rules over the plan's tables.

In the manner of PyPSA's ``consistency.py``: one small function per thing a seasoned
reviewer looks for, each taking the tables it reads (and the review policy) and
returning findings that name the offending items; the fix is the template
``fix.<code>`` in ``labels.csv``. Every finding carries ``area``, the stage whose design
is at fault. Rules only check what no earlier stage checks already (those are listed in
:data:`ELSEWHERE` by their codes) so that the plan never reports one fault twice.

Sources: the practitioners' planning guide (智算技术与算力规划设计及部署实施方案 v2.0) and the
review of a compute-hub proposal checked against it, plus the figures cited per rule.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding
from .section import ReviewPolicy


def _f(severity, subject, code, area, **params) -> Finding:
    return Finding(severity, "review", str(subject), code, {"area": area, **params})


def _col(df: pd.DataFrame, name: str) -> np.ndarray:
    """One column of a table as a NumPy array.

    The rules read tables of a few rows (a few thousand racks at most); masking NumPy
    arrays costs a few microseconds where a pandas filter and ``to_dict`` cost hundreds,
    and the review runs on every control change of the workshop dashboard.
    """
    return df[name].to_numpy()


def _names(values, limit: int = 5) -> str:
    items = [str(v) for v in values]
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f" (+{more})" if more > 0 else "")


# -- workload and accelerator --------------------------------------------------------------


def check_training_on_marketing_figure(
    training: pd.DataFrame, compute_claims: pd.DataFrame, policy: ReviewPolicy
) -> list[Finding]:
    """Training sized on INT8 or 2:4-sparse peaks (the scenario allows it only with
    ``force_marketing_figure``): real training runs on dense floating-point math."""
    dense = dict(
        zip(
            _col(compute_claims, "candidate").tolist(),
            _col(compute_claims, "bf16_dense_tflops").tolist(),
            strict=True,
        )
    )
    found = []
    for job, acc, precision, peak in zip(
        _col(training, "job").tolist(),
        _col(training, "accelerator").tolist(),
        _col(training, "precision").tolist(),
        _col(training, "peak_tflops").tolist(),
        strict=True,
    ):
        sparse = False
        if acc in dense and precision in ("bf16", "fp16"):
            figure = float(dense[acc])
            sparse = figure == figure and float(peak) > figure * 1.01
        if precision == "int8" or sparse:
            found.append(
                _f(
                    "error",
                    job,
                    "review_marketing_sizing",
                    "workload",
                    job=job,
                    precision=precision,
                    peak=float(peak),
                )
            )
    return found


def check_no_time_margin(training: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A training job with no schedule margin: any restart or slowdown misses the deadline
    (planning rule: 30 %)."""
    bad = _col(training, "job")[_col(training, "time_margin") <= 0]
    return [_f("warning", j, "review_no_time_margin", "workload", job=j) for j in bad.tolist()]


def check_pcie_cards_multinode_tp(
    training: pd.DataFrame,
    training_memory: pd.DataFrame,
    candidates: pd.DataFrame,
    policy: ReviewPolicy,
) -> list[Finding]:
    """PCIe-only or bridge-paired cards in a multi-server training job with tensor
    parallelism: tensor-parallel all-reduces then cross PCIe and the NIC."""
    kinds: dict = {}  # the first row of each candidate
    for c, k in zip(
        _col(candidates, "candidate").tolist(),
        _col(candidates, "scaleup_kind").tolist(),
        strict=True,
    ):
        kinds.setdefault(c, k)
    tp = dict(
        zip(
            _col(training_memory, "job").tolist(),
            _col(training_memory, "tensor_parallel").tolist(),
            strict=True,
        )
    )
    found = []
    for job, acc, servers in zip(
        _col(training, "job").tolist(),
        _col(training, "accelerator").tolist(),
        _col(training, "servers").tolist(),
        strict=True,
    ):
        kind = kinds.get(acc, "")
        if kind in ("none", "bridge", "pcie") and int(servers) > 1 and int(tp.get(job, 1)) > 1:
            found.append(
                _f(
                    "error",
                    job,
                    "review_pcie_multinode_tp",
                    "accelerator",
                    job=job,
                    accelerator=acc,
                    kind=kind,
                    tp=int(tp[job]),
                    servers=int(servers),
                )
            )
    return found


def check_single_replica_service(inference: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """An online service on one replica: any failure or driver update takes it down."""
    # NaN (no layout fits) is an error elsewhere
    bad = _col(inference, "service")[_col(inference, "replicas") < 2]
    return [_f("warning", s, "review_single_replica", "workload", service=s) for s in bad.tolist()]


# -- servers and pools -------------------------------------------------------------------


def check_no_spares(pools: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A pool of several servers without a spare: one failed server stalls its jobs until
    the vendor's part arrives."""
    servers = _col(pools, "servers")
    bad = (
        (_col(pools, "level") == "pool")
        & (servers >= policy.min_spares_above_servers)
        & (_col(pools, "spare_servers") <= 0)
    )
    return [
        _f("warning", p, "review_no_spares", "server", pool=p, servers=int(n))
        for p, n in zip(_col(pools, "pool")[bad].tolist(), servers[bad].tolist(), strict=True)
    ]


def check_buy_beyond_need(pools: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """'Buy double for the future': working servers beyond what the workload needs, more
    than rounding to whole servers and the growth headroom allow."""
    level = _col(pools, "level") == "pool"
    bought = _col(pools, "servers")[level] * _col(pools, "gpus_per_server")[level]
    gps, need = _col(pools, "gpus_per_server")[level], _col(pools, "gpus_required")[level]
    excess = bought - need
    over = (excess >= gps) & (excess > need * policy.growth_headroom)
    return [
        _f(
            "warning",
            p,
            "review_buy_beyond_need",
            "server",
            pool=p,
            bought=int(b),
            need=int(n),
            headroom=policy.growth_headroom,
        )
        for p, b, n in zip(
            _col(pools, "pool")[level][over].tolist(),
            bought[over].tolist(),
            need[over].tolist(),
            strict=True,
        )
    ]


# -- storage -----------------------------------------------------------------------------


def check_hot_tier_single_node(storage_tiers: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A hot tier on one node: a node failure stops every job's data and checkpoints."""
    bad = (_col(storage_tiers, "tier") == "hot") & (_col(storage_tiers, "nodes") == 1)
    return [
        _f("warning", m, "review_hot_tier_single_node", "storage", model=m)
        for m in _col(storage_tiers, "model")[bad].tolist()
    ]


def check_storage_below_guideline(
    storage_bandwidth: pd.DataFrame, policy: ReviewPolicy
) -> list[Finding]:
    """Read supply below NVIDIA's 'good' storage guidance for the pool's servers
    (DGX SuperPOD RA: 4 GB/s read per node as 'good')."""
    b = storage_bandwidth
    supply, good = _col(b, "supply_read_gb_s"), _col(b, "guideline_good_read_gb_s")
    bad = supply < good
    return [
        _f(
            "warning",
            p,
            "review_storage_below_guideline",
            "storage",
            pool=p,
            supply=float(s),
            guideline=float(g),
        )
        for p, s, g in zip(
            _col(b, "pool")[bad].tolist(), supply[bad].tolist(), good[bad].tolist(), strict=True
        )
    ]


def check_checkpoint_overhead(checkpoint_plan: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """Checkpoint writes taking more than the allowed share of training time: the write
    path (or a two-stage, host-memory checkpoint) is too slow."""
    c = checkpoint_plan
    write_s = _col(c, "write_time_s")
    with np.errstate(divide="ignore", invalid="ignore"):  # as pandas: inf/NaN, no warning
        share = write_s / (_col(c, "interval_min") * 60)
    bad = share > policy.max_checkpoint_overhead
    return [
        _f(
            "warning",
            j,
            "review_checkpoint_overhead",
            "storage",
            job=j,
            share=float(s),
            write_s=float(w),
            limit=policy.max_checkpoint_overhead,
        )
        for j, s, w in zip(
            _col(c, "job")[bad].tolist(), share[bad].tolist(), write_s[bad].tolist(), strict=True
        )
    ]


# -- network -----------------------------------------------------------------------------


def check_training_oversubscription(fabric: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A training (compute) fabric oversubscribed beyond 1:2 (the network stage checks the
    scenario's own policy; this is the reviewer's hard line)."""
    ratio = _col(fabric, "oversubscription")
    bad = (_col(fabric, "plane") == "compute") & (ratio > policy.max_training_oversubscription)
    return [
        _f(
            "error",
            "compute",
            "review_oversubscription",
            "network",
            ratio=float(r),
            limit=policy.max_training_oversubscription,
        )
        for r in ratio[bad].tolist()
    ]


def check_management_plane(
    fabric: pd.DataFrame, pools: pd.DataFrame, policy: ReviewPolicy
) -> list[Finding]:
    """No separate in-band or BMC plane: management then rides the compute plane."""
    if _col(pools, "total_servers")[_col(pools, "level") == "pool"].sum() == 0 or fabric.empty:
        return []
    planes = set(_col(fabric, "plane").tolist())
    missing = [p for p in ("inband", "bmc") if p not in planes]
    return [_f("error", p, "review_management_on_compute", "network", plane=p) for p in missing]


def check_single_spine(fabric: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A multi-leaf compute fabric with one spine: one switch failure splits the fabric."""
    leaves = _col(fabric, "leaves")
    bad = (_col(fabric, "plane") == "compute") & (leaves > 1) & (_col(fabric, "spines") == 1)
    return [
        _f("warning", "compute", "review_single_spine", "network", leaves=int(r))
        for r in leaves[bad].tolist()
    ]


# -- facility (tables of the facility stage) ------------------------------------------------


def check_rack_headroom(power_allocation: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """The facility's headroom policy set below the planning guide's 15 % (the facility
    stage checks racks against its own policy; this catches the policy itself)."""
    required = _col(power_allocation, "required_headroom_pct")
    low = required < policy.min_rack_headroom - 1e-9
    if not low.any():
        return []
    return [
        _f(
            "warning",
            "facility",
            "review_rack_headroom",
            "facility",
            required=float(required[low].min()),
            floor=policy.min_rack_headroom,
            racks=_names(_col(power_allocation, "rack")[low]),
        )
    ]


def check_inrush_allowance(
    power_on_sequence: pd.DataFrame, inrush_factor: float, policy: ReviewPolicy
) -> list[Finding]:
    """No (or too little) power-on inrush allowance: breakers trip when many GPU servers
    start together."""
    if power_on_sequence.empty or inrush_factor >= policy.min_inrush_factor - 1e-9:
        return []
    return [
        _f(
            "error",
            "facility",
            "review_no_inrush_allowance",
            "facility",
            factor=float(inrush_factor),
            floor=policy.min_inrush_factor,
        )
    ]


def check_air_cooled_density(cooling: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """Liquid-cooling densities on an air-cooled plan: racks whose heat exceeds what air
    can remove."""
    heat = _col(cooling, "heat_kw")
    hot = (
        (_col(cooling, "level") == "rack")
        & (_col(cooling, "cooling_mode") == "air")
        & (heat > policy.air_max_kw)
    )
    if not hot.any():
        return []
    racks = _col(cooling, "rack")[hot]
    return [
        _f(
            "error",
            str(racks[0]),
            "review_air_cooled_density",
            "facility",
            racks=_names(racks),
            heat=float(heat[hot].max()),
            limit=policy.air_max_kw,
        )
    ]


def check_driver_lifecycle(
    equipment_list: pd.DataFrame, schedule: pd.DataFrame, catalog: Catalog, policy: ReviewPolicy
) -> list[Finding]:
    """Pinned GPU drivers on a short-lived new-feature branch, or on a branch that reaches
    end of life within the support horizon after hand-over (the facility stage checks that
    versions are pinned at all). Branches and their end of life: NVIDIA's driver
    lifecycle table (``data/driver_branches.csv``, :meth:`Catalog.driver_branch`)."""
    if equipment_list.empty or schedule.empty:
        return []
    last = pd.Timestamp(schedule["end_date"].max()).date()
    horizon = last + dt.timedelta(days=round(policy.driver_support_years * 365.25))
    found = []
    for model, version in zip(
        equipment_list["model"], equipment_list["driver_version"], strict=True
    ):
        m = re.match(r"^R?(\d{3})(?:\.|$)", str(version).strip())
        branch = catalog.driver_branch(m.group(1)) if m else None
        if m is None or branch is None:
            continue
        kind, eol = branch
        if kind == "new_feature" or eol < horizon:
            found.append(
                _f(
                    "warning",
                    model,
                    "review_driver_lifecycle",
                    "facility",
                    model=model,
                    version=str(version),
                    branch=f"R{m.group(1)}",
                    eol=eol.isoformat(),
                    horizon=horizon.isoformat(),
                )
            )
    return found


# -- delivery ----------------------------------------------------------------------------


def check_no_schedule_buffer(schedule: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A delivery schedule without a time buffer (planning guide: 20 %)."""
    buffer_days = _col(schedule, "buffer_days")[~_col(schedule, "milestone").astype(bool)]
    if buffer_days.size == 0 or np.nansum(buffer_days) > 0:
        return []
    return [_f("warning", "schedule", "review_no_schedule_buffer", "delivery")]


def check_phased_handover(
    schedule: pd.DataFrame, pools: pd.DataFrame, policy: ReviewPolicy
) -> list[Finding]:
    """A large cluster handed over in one batch: users wait for the last server."""
    servers = int(_col(pools, "total_servers")[_col(pools, "level") == "pool"].sum())
    batches = int(_col(schedule, "batch").max()) if not schedule.empty else 0
    if servers >= policy.phased_handover_servers and batches <= 1:
        return [_f("warning", "schedule", "review_single_handover", "delivery", servers=servers)]
    return []


def check_stability_run(acceptance: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A stability run shorter than the 24 h minimum of burn-in practice."""
    hours = _col(acceptance, "expected")
    short = (_col(acceptance, "test") == "stability_run") & (hours < policy.min_stability_hours)
    return [
        _f(
            "warning",
            p,
            "review_short_stability_run",
            "delivery",
            pool=p,
            hours=float(h),
            floor=policy.min_stability_hours,
        )
        for p, h in zip(
            _col(acceptance, "pool")[short].tolist(), hours[short].tolist(), strict=True
        )
    ]


def check_fabric_acceptance(
    acceptance: pd.DataFrame,
    pools: pd.DataFrame,
    fabric_tools: dict[str, str],
    policy: ReviewPolicy,
) -> list[Finding]:
    """A multi-server training pool accepted without a fabric all-reduce or RDMA test.

    ``fabric_tools`` names the training pool's accelerator family's tools for the two
    tests (``rdma_tool``, ``collective_tool``:
    :func:`hubplan.review.stage.fabric_tools_of`), so the fix names ``ib_write_bw`` and
    ``all_reduce_perf`` for NVIDIA, the HCCL test for Ascend, and no tool where the
    family's sources name none.
    """
    training = (
        (_col(pools, "level") == "pool")
        & (_col(pools, "pool") == "training")
        & (_col(pools, "total_servers") > 1)
    )
    if not training.any():
        return []
    tests = set(_col(acceptance, "test")[_col(acceptance, "pool") == "training"].tolist())
    missing = [t for t in ("rdma_write_bw", "fabric_all_reduce") if t not in tests]
    return (
        [
            _f(
                "warning",
                "training",
                "review_fabric_untested",
                "delivery",
                tests=missing,
                **fabric_tools,
            )
        ]
        if missing
        else []
    )


def check_memory_margin(slurm_nodes: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """Slurm RealMemory within a hair of physical memory: the OS and slurmd get no room."""
    real = _col(slurm_nodes, "real_memory_mib").astype(float)
    physical = _col(slurm_nodes, "physical_memory_mib").astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):  # as pandas: inf/NaN, no warning
        margin = 1 - real / physical  # NaN where either is unknown: never below the floor
    bad = margin < policy.min_memory_margin
    return [
        _f(
            "warning",
            g,
            "review_memory_margin",
            "delivery",
            nodes=g,
            margin=float(m),
            floor=policy.min_memory_margin,
        )
        for g, m in zip(
            _col(slurm_nodes, "node_group")[bad].tolist(), margin[bad].tolist(), strict=True
        )
    ]


def check_default_partition(slurm_partitions: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """Slurm partitions with no default, or a training partition as the default: a job
    submitted without ``-p`` then lands on the exclusive training nodes or is refused."""
    p = slurm_partitions
    if p.empty:
        return []
    default = _col(p, "is_default").astype(bool)
    if not default.any() or (len(p) > 1 and (_col(p, "pool")[default] == "training").any()):
        return [
            _f(
                "warning",
                "slurm",
                "review_default_partition",
                "delivery",
                partitions=_names(p["partition"]),
            )
        ]
    return []


@dataclass(frozen=True)
class Rule:
    """A review rule: its function, the plan tables it reads (in argument order) and the
    finding code it raises."""

    check: object
    tables: tuple[str, ...]
    code: str
    extra: tuple[str, ...] = ()  # further arguments the stage supplies (not tables)


RULES: tuple[Rule, ...] = (
    Rule(
        check_training_on_marketing_figure,
        ("training", "compute_claims"),
        "review_marketing_sizing",
    ),
    Rule(check_no_time_margin, ("training",), "review_no_time_margin"),
    Rule(
        check_pcie_cards_multinode_tp,
        ("training", "training_memory", "candidates"),
        "review_pcie_multinode_tp",
    ),
    Rule(check_single_replica_service, ("inference",), "review_single_replica"),
    Rule(check_no_spares, ("pools",), "review_no_spares"),
    Rule(check_buy_beyond_need, ("pools",), "review_buy_beyond_need"),
    Rule(check_hot_tier_single_node, ("storage_tiers",), "review_hot_tier_single_node"),
    Rule(check_storage_below_guideline, ("storage_bandwidth",), "review_storage_below_guideline"),
    Rule(check_checkpoint_overhead, ("checkpoint_plan",), "review_checkpoint_overhead"),
    Rule(check_training_oversubscription, ("fabric",), "review_oversubscription"),
    Rule(check_management_plane, ("fabric", "pools"), "review_management_on_compute"),
    Rule(check_single_spine, ("fabric",), "review_single_spine"),
    Rule(check_rack_headroom, ("power_allocation",), "review_rack_headroom"),
    Rule(
        check_inrush_allowance,
        ("power_on_sequence",),
        "review_no_inrush_allowance",
        extra=("inrush_factor",),
    ),
    Rule(check_air_cooled_density, ("cooling",), "review_air_cooled_density"),
    Rule(
        check_driver_lifecycle,
        ("equipment_list", "schedule"),
        "review_driver_lifecycle",
        extra=("catalog",),
    ),
    Rule(check_no_schedule_buffer, ("schedule",), "review_no_schedule_buffer"),
    Rule(check_phased_handover, ("schedule", "pools"), "review_single_handover"),
    Rule(check_stability_run, ("acceptance",), "review_short_stability_run"),
    Rule(
        check_fabric_acceptance,
        ("acceptance", "pools"),
        "review_fabric_untested",
        extra=("fabric_tools",),
    ),
    Rule(check_memory_margin, ("slurm_nodes",), "review_memory_margin"),
    Rule(check_default_partition, ("slurm_partitions",), "review_default_partition"),
)

#: Review items an earlier stage (or the scenario's validation) already checks: item code
#: -> (the stage that checks it, its finding code). The review lists them, never repeats.
ELSEWHERE: dict[str, tuple[str, str]] = {
    "mfu_above_0_6": ("scenario", "workload.training[].mfu_justification"),
    "mfu_outside_published": ("workload", "mfu_outside"),
    "int8_or_sparse_unforced": ("scenario", "workload.training[].force_marketing_figure"),
    "marketing_figure": ("accelerator", "marketing_figure"),
    "memory_bound_plan": ("workload", "binding_memory"),
    "host_ram_below_gpu_memory": ("server", "check_ram_vs_gpu_memory"),
    "cpu_too_weak": ("server", "check_cpu_cores_per_gpu"),
    "cpu_clock_low": ("server", "check_cpu_base_ghz"),
    "mixed_generations": ("server", "mixed_generations"),
    "tp_beyond_scaleup": ("workload", "tp_beyond_scaleup"),
    "storage_on_compute": ("network", "storage_on_compute_fabric"),
    "oversubscription_policy": ("network", "oversubscription_above_policy"),
    "checkpoints_fill_hot_tier": ("storage", "hot_tier_fills"),
    "no_offsite_copy": ("storage", "no_offsite_copy"),
    "rack_headroom_per_rack": ("facility", "rack_power_headroom"),
    "inrush_over_feed": ("facility", "inrush_over_feed"),
    "cooling_missing": ("facility", "cooling_missing"),
    "versions_unpinned": ("facility", "versions_unpinned"),
    "scheduler_files_validate": ("delivery", "realmemory_not_below_physical"),
}


def run_rules(
    tables: dict[str, pd.DataFrame], policy: ReviewPolicy, extra: dict[str, object] | None = None
) -> tuple[list[Finding], pd.DataFrame]:
    """Run every rule whose tables are present; return the findings and the checklist
    (one row per rule and per item checked elsewhere)."""
    extra = extra or {}
    findings: list[Finding] = []
    rows: list[tuple[str, str, str, str, float]] = []  # item, rule, checked_by, result, found
    for rule in RULES:
        name = rule.check.__name__
        ready = all(t in tables for t in rule.tables) and all(e in extra for e in rule.extra)
        if not ready:
            rows.append((rule.code, name, "review", "not_run", 0))
            continue
        args = [tables[t] for t in rule.tables] + [extra[e] for e in rule.extra]
        if any(tables[t].empty for t in rule.tables):  # e.g. no inference services
            rows.append((rule.code, name, "review", "no_data", 0))
            continue
        got = rule.check(*args, policy)
        findings += got
        rows.append((rule.code, name, "review", "found" if got else "pass", len(got)))
    for item, (stage, code) in ELSEWHERE.items():
        rows.append((item, code, stage, "elsewhere", math.nan))
    columns = ["item", "rule", "checked_by", "result", "found"]
    # column by column: one list per column builds the frame without a dict per row
    return findings, pd.DataFrame(
        dict(zip(columns, map(list, zip(*rows, strict=True)), strict=True))
    )
