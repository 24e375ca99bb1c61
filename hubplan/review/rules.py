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

import pandas as pd

from ..core.findings import Finding
from .section import ReviewPolicy


def _f(severity, subject, code, area, **params) -> Finding:
    return Finding(severity, "review", str(subject), code, {"area": area, **params})


def _names(values, limit: int = 5) -> str:
    items = [str(v) for v in values]
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f" (+{more})" if more > 0 else "")


# -- workload and accelerator --------------------------------------------------------------


def check_training_on_marketing_figure(training: pd.DataFrame,
                                       compute_claims: pd.DataFrame,
                                       policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """Training sized on INT8 or 2:4-sparse peaks (the scenario allows it only with
    ``force_marketing_figure``): real training runs on dense floating-point math."""
    dense = compute_claims.set_index("candidate")
    found = []
    for t in training.to_dict(orient="records"):
        sparse = False
        if t["accelerator"] in dense.index and t["precision"] in ("bf16", "fp16"):
            figure = float(dense.loc[t["accelerator"], "bf16_dense_tflops"])
            sparse = figure == figure and float(t["peak_tflops"]) > figure * 1.01
        if t["precision"] == "int8" or sparse:
            found.append(_f("error", t["job"], "review_marketing_sizing", "workload",
                            job=t["job"], precision=t["precision"],
                            peak=float(t["peak_tflops"])))  # fmt: skip
    return found


def check_no_time_margin(training: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A training job with no schedule margin: any restart or slowdown misses the deadline
    (planning rule: 30 %)."""
    bad = training[training["time_margin"] <= 0]
    return [_f("warning", j, "review_no_time_margin", "workload", job=j) for j in bad["job"]]


def check_pcie_cards_multinode_tp(training: pd.DataFrame, training_memory: pd.DataFrame,
                                  candidates: pd.DataFrame,
                                  policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """PCIe-only or bridge-paired cards in a multi-server training job with tensor
    parallelism: tensor-parallel all-reduces then cross PCIe and the NIC."""
    kinds = candidates.drop_duplicates("candidate").set_index("candidate")["scaleup_kind"]
    tp = training_memory.set_index("job")["tensor_parallel"]
    found = []
    for t in training.to_dict(orient="records"):
        kind = kinds.get(t["accelerator"], "")
        if (
            kind in ("none", "bridge", "pcie")
            and int(t["servers"]) > 1
            and int(tp.get(t["job"], 1)) > 1
        ):
            found.append(_f("error", t["job"], "review_pcie_multinode_tp", "accelerator",
                            job=t["job"], accelerator=t["accelerator"], kind=kind,
                            tp=int(tp[t["job"]]), servers=int(t["servers"])))  # fmt: skip
    return found


def check_single_replica_service(inference: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """An online service on one replica: any failure or driver update takes it down."""
    bad = inference[inference["replicas"] < 2]  # NaN (no layout fits) is an error elsewhere
    return [_f("warning", s, "review_single_replica", "workload", service=s)
            for s in bad["service"]]  # fmt: skip


# -- servers and pools -------------------------------------------------------------------


def check_no_spares(pools: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A pool of several servers without a spare: one failed server stalls its jobs until
    the vendor's part arrives."""
    p = pools[(pools["level"] == "pool") & (pools["servers"] >= policy.min_spares_above_servers)
              & (pools["spare_servers"] <= 0)]  # fmt: skip
    return [_f("warning", r["pool"], "review_no_spares", "server", pool=r["pool"],
               servers=int(r["servers"])) for r in p.to_dict(orient="records")]  # fmt: skip


def check_buy_beyond_need(pools: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """'Buy double for the future': working servers beyond what the workload needs, more
    than rounding to whole servers and the growth headroom allow."""
    p = pools[pools["level"] == "pool"]
    excess = p["servers"] * p["gpus_per_server"] - p["gpus_required"]
    over = p[(excess >= p["gpus_per_server"])
             & (excess > p["gpus_required"] * policy.growth_headroom)]  # fmt: skip
    return [_f("warning", r["pool"], "review_buy_beyond_need", "server", pool=r["pool"],
               bought=int(r["servers"] * r["gpus_per_server"]), need=int(r["gpus_required"]),
               headroom=policy.growth_headroom)
            for r in over.to_dict(orient="records")]  # fmt: skip


# -- storage -----------------------------------------------------------------------------


def check_hot_tier_single_node(storage_tiers: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A hot tier on one node: a node failure stops every job's data and checkpoints."""
    bad = storage_tiers[(storage_tiers["tier"] == "hot") & (storage_tiers["nodes"] == 1)]
    return [_f("warning", m, "review_hot_tier_single_node", "storage", model=m)
            for m in bad["model"]]  # fmt: skip


def check_storage_below_guideline(storage_bandwidth: pd.DataFrame,
                                  policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """Read supply below NVIDIA's 'good' storage guidance for the pool's servers
    (DGX SuperPOD RA: 4 GB/s read per node as 'good')."""
    b = storage_bandwidth
    bad = b[b["supply_read_gb_s"] < b["guideline_good_read_gb_s"]]
    return [_f("warning", r["pool"], "review_storage_below_guideline", "storage",
               pool=r["pool"], supply=float(r["supply_read_gb_s"]),
               guideline=float(r["guideline_good_read_gb_s"]))
            for r in bad.to_dict(orient="records")]  # fmt: skip


def check_checkpoint_overhead(checkpoint_plan: pd.DataFrame,
                              policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """Checkpoint writes taking more than the allowed share of training time: the write
    path (or a two-stage, host-memory checkpoint) is too slow."""
    c = checkpoint_plan
    share = c["write_time_s"] / (c["interval_min"] * 60)
    bad = c[share > policy.max_checkpoint_overhead]
    return [_f("warning", r["job"], "review_checkpoint_overhead", "storage", job=r["job"],
               share=float(s), write_s=float(r["write_time_s"]),
               limit=policy.max_checkpoint_overhead)
            for r, s in zip(bad.to_dict(orient="records"), share[bad.index],
                            strict=True)]  # fmt: skip


# -- network -----------------------------------------------------------------------------


def check_training_oversubscription(fabric: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A training (compute) fabric oversubscribed beyond 1:2 (the network stage checks the
    scenario's own policy; this is the reviewer's hard line)."""
    bad = fabric[(fabric["plane"] == "compute")
                 & (fabric["oversubscription"] > policy.max_training_oversubscription)]  # fmt: skip
    return [_f("error", "compute", "review_oversubscription", "network",
               ratio=float(r), limit=policy.max_training_oversubscription)
            for r in bad["oversubscription"]]  # fmt: skip


def check_management_plane(fabric: pd.DataFrame, pools: pd.DataFrame,
                           policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """No separate in-band or BMC plane: management then rides the compute plane."""
    if pools[pools["level"] == "pool"]["total_servers"].sum() == 0 or fabric.empty:
        return []
    missing = [p for p in ("inband", "bmc") if p not in set(fabric["plane"])]
    return [_f("error", p, "review_management_on_compute", "network", plane=p) for p in missing]


def check_single_spine(fabric: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A multi-leaf compute fabric with one spine: one switch failure splits the fabric."""
    bad = fabric[(fabric["plane"] == "compute") & (fabric["leaves"] > 1) & (fabric["spines"] == 1)]
    return [_f("warning", "compute", "review_single_spine", "network",
               leaves=int(r)) for r in bad["leaves"]]  # fmt: skip


# -- facility (tables of the facility stage) ------------------------------------------------


def check_rack_headroom(power_allocation: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """The facility's headroom policy set below the planning guide's 15 % (the facility
    stage checks racks against its own policy; this catches the policy itself)."""
    required = power_allocation["required_headroom_pct"]
    low = power_allocation[required < policy.min_rack_headroom - 1e-9]
    if low.empty:
        return []
    return [_f("warning", "facility", "review_rack_headroom", "facility",
               required=float(low["required_headroom_pct"].min()),
               floor=policy.min_rack_headroom, racks=_names(low["rack"]))]  # fmt: skip


def check_inrush_allowance(power_on_sequence: pd.DataFrame, inrush_factor: float,
                           policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """No (or too little) power-on inrush allowance: breakers trip when many GPU servers
    start together."""
    if power_on_sequence.empty or inrush_factor >= policy.min_inrush_factor - 1e-9:
        return []
    return [_f("error", "facility", "review_no_inrush_allowance", "facility",
               factor=float(inrush_factor), floor=policy.min_inrush_factor)]  # fmt: skip


def check_air_cooled_density(cooling: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """Liquid-cooling densities on an air-cooled plan: racks whose heat exceeds what air
    can remove."""
    c = cooling[(cooling["level"] == "rack") & (cooling["cooling_mode"] == "air")
                & (cooling["heat_kw"] > policy.air_max_kw)]  # fmt: skip
    if c.empty:
        return []
    return [_f("error", str(c["rack"].iloc[0]), "review_air_cooled_density", "facility",
               racks=_names(c["rack"]), heat=float(c["heat_kw"].max()),
               limit=policy.air_max_kw)]  # fmt: skip


#: NVIDIA data-center driver branches: (kind, end of life). NVIDIA R620 release notes,
#: driver lifecycle table (docs.nvidia.com/datacenter/tesla/drivers).
DRIVER_BRANCHES = {
    "535": ("ltsb", dt.date(2026, 6, 30)),
    "580": ("ltsb", dt.date(2028, 6, 30)),
    "595": ("production", dt.date(2027, 3, 31)),
    "610": ("new_feature", dt.date(2026, 8, 31)),
    "620": ("ltsb", dt.date(2029, 9, 30)),
}


def check_driver_lifecycle(equipment_list: pd.DataFrame, schedule: pd.DataFrame,
                           policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """Pinned GPU drivers on a short-lived new-feature branch, or on a branch that reaches
    end of life within the support horizon after hand-over (the facility stage checks that
    versions are pinned at all)."""
    if equipment_list.empty or schedule.empty:
        return []
    last = pd.Timestamp(schedule["end_date"].max()).date()
    horizon = last + dt.timedelta(days=round(policy.driver_support_years * 365.25))
    found = []
    for model, version in zip(equipment_list["model"], equipment_list["driver_version"],
                              strict=True):  # fmt: skip
        m = re.match(r"^R?(\d{3})(?:\.|$)", str(version).strip())
        if not m or m.group(1) not in DRIVER_BRANCHES:
            continue
        kind, eol = DRIVER_BRANCHES[m.group(1)]
        if kind == "new_feature" or eol < horizon:
            found.append(_f("warning", model, "review_driver_lifecycle", "facility",
                            model=model, version=str(version), branch=f"R{m.group(1)}",
                            eol=eol.isoformat(), horizon=horizon.isoformat()))  # fmt: skip
    return found


# -- delivery ----------------------------------------------------------------------------


def check_no_schedule_buffer(schedule: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A delivery schedule without a time buffer (planning guide: 20 %)."""
    work = schedule[~schedule["milestone"]]
    if work.empty or work["buffer_days"].sum() > 0:
        return []
    return [_f("warning", "schedule", "review_no_schedule_buffer", "delivery")]


def check_phased_handover(schedule: pd.DataFrame, pools: pd.DataFrame,
                          policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """A large cluster handed over in one batch: users wait for the last server."""
    servers = int(pools[pools["level"] == "pool"]["total_servers"].sum())
    batches = int(schedule["batch"].max()) if not schedule.empty else 0
    if servers >= policy.phased_handover_servers and batches <= 1:
        return [_f("warning", "schedule", "review_single_handover", "delivery", servers=servers)]
    return []


def check_stability_run(acceptance: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """A stability run shorter than the 24 h minimum of burn-in practice."""
    s = acceptance[(acceptance["test"] == "stability_run")
                   & (acceptance["expected"] < policy.min_stability_hours)]  # fmt: skip
    return [_f("warning", r["pool"], "review_short_stability_run", "delivery",
               pool=r["pool"], hours=float(r["expected"]), floor=policy.min_stability_hours)
            for r in s.to_dict(orient="records")]  # fmt: skip


def check_fabric_acceptance(acceptance: pd.DataFrame, pools: pd.DataFrame,
                            policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """A multi-server training pool accepted without a fabric all-reduce or RDMA test."""
    p = pools[(pools["level"] == "pool") & (pools["pool"] == "training")
              & (pools["total_servers"] > 1)]  # fmt: skip
    if p.empty:
        return []
    tests = set(acceptance.loc[acceptance["pool"] == "training", "test"])
    missing = [t for t in ("rdma_write_bw", "fabric_all_reduce") if t not in tests]
    return [_f("warning", "training", "review_fabric_untested", "delivery",
               tests=", ".join(missing))] if missing else []  # fmt: skip


def check_memory_margin(slurm_nodes: pd.DataFrame, policy: ReviewPolicy) -> list[Finding]:
    """Slurm RealMemory within a hair of physical memory: the OS and slurmd get no room."""
    n = slurm_nodes.dropna(subset=["real_memory_mib", "physical_memory_mib"])
    margin = 1 - n["real_memory_mib"] / n["physical_memory_mib"]
    bad = n[margin < policy.min_memory_margin]
    return [_f("warning", g, "review_memory_margin", "delivery", nodes=g,
               margin=float(m), floor=policy.min_memory_margin)
            for g, m in zip(bad["node_group"], margin[bad.index], strict=True)]  # fmt: skip


def check_default_partition(slurm_partitions: pd.DataFrame,
                            policy: ReviewPolicy) -> list[Finding]:  # fmt: skip
    """Slurm partitions with no default, or a training partition as the default: a job
    submitted without ``-p`` then lands on the exclusive training nodes or is refused."""
    p = slurm_partitions
    if p.empty:
        return []
    default = p[p["is_default"]]
    if default.empty or (len(p) > 1 and (default["pool"] == "training").any()):
        return [_f("warning", "slurm", "review_default_partition", "delivery",
                   partitions=_names(p["partition"]))]  # fmt: skip
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
    Rule(check_training_on_marketing_figure, ("training", "compute_claims"),
         "review_marketing_sizing"),
    Rule(check_no_time_margin, ("training",), "review_no_time_margin"),
    Rule(check_pcie_cards_multinode_tp, ("training", "training_memory", "candidates"),
         "review_pcie_multinode_tp"),
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
    Rule(check_inrush_allowance, ("power_on_sequence",), "review_no_inrush_allowance",
         extra=("inrush_factor",)),
    Rule(check_air_cooled_density, ("cooling",), "review_air_cooled_density"),
    Rule(check_driver_lifecycle, ("equipment_list", "schedule"), "review_driver_lifecycle"),
    Rule(check_no_schedule_buffer, ("schedule",), "review_no_schedule_buffer"),
    Rule(check_phased_handover, ("schedule", "pools"), "review_single_handover"),
    Rule(check_stability_run, ("acceptance",), "review_short_stability_run"),
    Rule(check_fabric_acceptance, ("acceptance", "pools"), "review_fabric_untested"),
    Rule(check_memory_margin, ("slurm_nodes",), "review_memory_margin"),
    Rule(check_default_partition, ("slurm_partitions",), "review_default_partition"),
)  # fmt: skip

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
    rows = []
    for rule in RULES:
        name = rule.check.__name__
        ready = all(t in tables for t in rule.tables) and all(e in extra for e in rule.extra)
        if not ready:
            rows.append({"item": rule.code, "rule": name, "checked_by": "review",
                         "result": "not_run", "found": 0})  # fmt: skip
            continue
        args = [tables[t] for t in rule.tables] + [extra[e] for e in rule.extra]
        if any(tables[t].empty for t in rule.tables):  # e.g. no inference services
            rows.append({"item": rule.code, "rule": name, "checked_by": "review",
                         "result": "no_data", "found": 0})  # fmt: skip
            continue
        got = rule.check(*args, policy)
        findings += got
        rows.append({"item": rule.code, "rule": name, "checked_by": "review",
                     "result": "found" if got else "pass", "found": len(got)})  # fmt: skip
    for item, (stage, code) in ELSEWHERE.items():
        rows.append({"item": item, "rule": code, "checked_by": stage, "result": "elsewhere",
                     "found": math.nan})  # fmt: skip
    return findings, pd.DataFrame(rows, columns=["item", "rule", "checked_by", "result", "found"])
