"""The storage stage entry: tiers and their content, node counts, bandwidth demand and
supply, checkpoint interval and goodput, the hot-tier fill projection, disaster recovery,
and the ``storage_nodes`` table the network and facility stages read.

``run_storage`` runs named steps, each a calculator with its own tests: demand
(:mod:`.demand`: what jobs store and write, what each tier holds, read and write demand
from the DGX SuperPOD guideline), tiers (:mod:`.tiers`: each tier's building block and
what a node delivers after its protection), nodes (:mod:`.nodes`: the count and what set
it) and protection (:mod:`.protection`: failure domains, write amplification, and whether
each tier drains the one above it).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding
from ..core.frames import Schema, typed
from ..core.frames import records as _records
from ..core.stage import Stage, StageResult
from ..core.units import SECONDS_PER_DAY, SECONDS_PER_HOUR
from ..pools import Pools
from ..server import pool_server
from ..workload.section import Workload
from .bandwidth import client_gb_s
from .capacity import usable_needed_tb
from .checkpoint import checkpoint_interval_s, goodput
from .demand import (
    bandwidth_rows,
    checkpoint_write_demand,
    content_rows,
    job_storage,
    tier_content,
)
from .dr import replication_gb_s, transfer_hours
from .failure import BREAKDOWN_SCHEMA, job_interruptions
from .nodes import tier_nodes
from .protection import job_inflow_gb_s, nodes_for_protection
from .section import Storage
from .tiers import TIERS, node_figures, tier_block

#: The storage_nodes table: the contract the network and facility stages read.
STORAGE_NODE_COLUMNS = [
    "tier",
    "role",
    "model",
    "nodes",
    "rack_units",
    "max_power_kw",
    "typical_power_kw",
    "price_usd",
    "nic_ports",
    "nic_gbps",
]
WEIGHT_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
#: Most rows the fill curve keeps (the crossings are computed on every checkpoint).
CURVE_POINTS = 400

# The stage's tables, their columns and dtypes (checked on every run, rows or none).
_F, _I, _S = "float64", "int64", "str"
CONTENT: Schema = {"tier": _S, "content": _S, "tb": _F}
TIERS_TABLE: Schema = {
    "tier": _S,
    "model": _S,
    "protection": _S,
    "usable_fraction": _F,
    "content_tb": _F,
    "usable_needed_tb": _F,
    "nodes_for_capacity": _I,
    "nodes_for_read": _I,
    "nodes_for_write": _I,
    "nodes": _I,
    "sized_by": _S,
    "raw_tb": _F,
    "usable_tb": _F,
    "fill": _F,
    "read_gb_s": _F,
    "write_gb_s": _F,
    "write_factor": _F,
    "nodes_for_protection": _I,
}
BANDWIDTH: Schema = {
    "pool": _S,
    "gpus": _I,
    "servers": _I,
    "read_demand_gb_s": _F,
    "token_read_gb_s": _F,
    "write_demand_gb_s": _F,
    "client_gb_s": _F,
    "guideline_good_read_gb_s": _F,
    "guideline_best_read_gb_s": _F,
    "guideline_read_gb_s": _F,
    "guideline_write_gb_s": _F,
    "checkpoint_write_gb_s": _F,
    "supply_read_gb_s": _F,
    "supply_write_gb_s": _F,
}
CHECKPOINTS: Schema = {
    "job": _S,
    "params": _F,
    "weights_bytes": _F,
    "master_bytes": _F,
    "optimizer_bytes": _F,
    "bytes_per_param": _F,
    "checkpoint_tb": _F,
    "hot_retained_tb": _F,
    "gpus": _I,
    "interruptions_per_day": _F,
    "mtbf_hours": _F,
    "goodput": _F,
    "write_share": _F,
    "write_window_s": _F,
    "write_demand_gb_s": _F,
    "write_supply_gb_s": _F,
    "limited_by": _S,
    "write_time_s": _F,
    "interval_min": _F,
    "compute_min": _F,
    "expected_goodput": _F,
    "job_days": _F,
    "days_to_alert": _F,
    "days_to_full": _F,
    "warm_inflow_gb_s": _F,
    "cold_inflow_gb_s": _F,
}
HOT_FILL: Schema = {"day": _F, "used_tb": _F, "usable_tb": _F, "fill": _F, "alert_fill": _F}
DR: Schema = {
    "dr": _S,
    "changed_tb": _F,
    "replication_gb_s": _F,
    "link_gbps": _F,
    "rpo_hours": _F,
    "rto_hours": _F,
    "second_site_tb": _F,
}
NODES: Schema = {
    "tier": _S,
    "role": _S,
    "model": _S,
    "nodes": _I,
    "rack_units": _F,
    "max_power_kw": _F,
    "typical_power_kw": _F,
    "price_usd": _F,
    "nic_ports": _F,
    "nic_gbps": _F,
}


def _num(v: float | str | None) -> float:
    return math.nan if v is None else float(v)


def _server_storage(pool: str, specs: Pools, catalog: Catalog) -> tuple[float, float]:
    """(storage NIC ports, usable storage Gb/s) of a pool's server; NaN when unknown."""
    server = pool_server(specs, pool, catalog) if pool else None  # the one resolver
    if server is None:
        return math.nan, math.nan
    return server.storage_nics, server.storage_usable_gbps


def _service_params(service, catalog: Catalog) -> float:
    if service.params is not None:
        return float(service.params)
    if service.architecture is not None:
        return float(service.architecture.total_params)
    return float(catalog.model(service.model)["total_params"])


def _fill_curve(base_tb: float, usable: float, jobs: list[dict], storage: Storage):
    """Hot-tier use at every checkpoint of every job: (curve rows, per-job crossings)."""
    times, adds = [np.array([0.0])], [np.array([base_tb])]
    for j in jobs:
        if not (j["interval_s"] > 0 and math.isfinite(j["interval_s"])):
            continue
        end_s = j["job_days"] * SECONDS_PER_DAY
        n = int(min(end_s // j["interval_s"], 2_000_000))
        k = np.arange(1, n + 1)
        add = np.full(n, j["checkpoint_tb"])
        if storage.checkpoint_offload:  # the oldest moves off once N are kept
            add[k > storage.checkpoint_keep_last] = 0.0
        times.append(k * j["interval_s"])
        adds.append(add)
    t = np.concatenate(times)
    order = np.argsort(t, kind="stable")
    t, used = t[order] / SECONDS_PER_DAY, np.cumsum(np.concatenate(adds)[order])

    def first(level: float) -> float:
        hit = np.flatnonzero(used >= level)
        return float(t[hit[0]]) if hit.size else math.nan

    alert, full = first(storage.alert_fill * usable), first(usable)
    keep = np.unique(np.linspace(0, len(t) - 1, min(len(t), CURVE_POINTS)).astype(int))
    curve = pd.DataFrame(
        {
            "day": t[keep],
            "used_tb": used[keep],
            "usable_tb": usable,
            "fill": used[keep] / usable,
            "alert_fill": storage.alert_fill,
        }
    )
    return curve, alert, full


def _pool_rows(pools: list[dict], specs: Pools, catalog: Catalog) -> list[dict]:
    """Per pool: GPUs and servers with spares, working GPUs (without) and what its
    servers' storage NICs move."""
    rows = []
    for p in pools:
        _, usable_gbps = _server_storage(str(p["pool"]), specs, catalog)
        rows.append(
            {
                "pool": p["pool"],
                "gpus": int(p["total_gpus"]),
                "servers": int(p["total_servers"]),
                "working_gpus": float(p["servers"]) * float(p["gpus_per_server"]),
                "client_gb_s": client_gb_s(int(p["total_servers"]), usable_gbps),
            }
        )
    return rows


def _size_tier(
    tier: str,
    catalog: Catalog,
    storage: Storage,
    content_tb: float,
    read_need: float,
    write_need: float,
) -> tuple[dict, pd.Series, list[Finding]]:
    """One tier's block, node figures and count: (storage_tiers row, block, findings)."""
    row, field, protection = tier_block(tier, catalog, storage)
    fig = node_figures(row, field, protection, storage)
    need = usable_needed_tb(content_tb, storage.growth_margin, storage.fill_ceiling)
    hot = tier == "hot"
    domains = nodes_for_protection(protection)
    nodes, sized_by, by = tier_nodes(
        usable_needed_tb=need,
        usable_per_node_tb=fig.usable_tb,
        minimum=storage.min_hot_nodes if hot else int(content_tb > 0),
        protection_nodes=domains,
        read_need_gb_s=read_need if hot else None,
        write_need_gb_s=write_need if hot else None,
        read_per_node_gb_s=fig.read_gb_s,
        write_per_node_gb_s=fig.write_gb_s,
        fixed=storage.hot_nodes if hot else None,
    )
    findings = []
    if 0 < nodes < domains:  # only a fixed count can fall short
        findings.append(
            Finding(
                "error",
                "storage",
                tier,
                "protection_short",
                {"tier": tier, "nodes": nodes, "protection": protection, "needed": domains},
            )
        )
    tier_row = {
        "tier": tier,
        "model": row["name"],
        "protection": protection,
        "usable_fraction": fig.usable_tb / fig.raw_tb,
        "content_tb": content_tb,
        "usable_needed_tb": need,
        "nodes_for_capacity": by["capacity"],
        "nodes_for_read": by.get("read", 0),
        "nodes_for_write": by.get("write", 0),
        "nodes": nodes,
        "sized_by": sized_by,
        "raw_tb": nodes * fig.raw_tb,
        "usable_tb": nodes * fig.usable_tb,
        "fill": content_tb / (nodes * fig.usable_tb) if nodes else math.nan,
        "read_gb_s": nodes * fig.read_gb_s,
        "write_gb_s": nodes * fig.write_gb_s,
        "write_factor": fig.write_factor,
        "nodes_for_protection": by["protection"],
    }
    return tier_row, row, findings


def _size_tiers(
    catalog: Catalog, storage: Storage, content: dict, read_need: float, write_need: float
) -> tuple[list[dict], list[tuple[str, pd.Series, int]], list[Finding]]:
    """Tiers and nodes: each tier's block, node figures and count; the storage_nodes rows."""
    tier_rows: list[dict] = []
    node_rows: list[tuple[str, pd.Series, int]] = []
    findings: list[Finding] = []
    for tier in TIERS:
        tier_content_tb = float(sum(content[tier].values()))
        tier_row, row, found = _size_tier(
            tier, catalog, storage, tier_content_tb, read_need, write_need
        )
        findings += found
        tier_rows.append(tier_row)
        node_rows.append((tier, row, tier_row["nodes"]))
        if tier == "hot" and row["role"] == "oss" and storage.metadata_model is not None:
            node_rows.append(
                (
                    "hot",
                    catalog.storage_block(storage.metadata_model, "storage.metadata_model"),
                    storage.metadata_nodes,
                )
            )
    return tier_rows, node_rows, findings


def _offload(tier_rows: list[dict], jobs: list[dict], storage: Storage) -> list[Finding]:
    """Protection, the flows between tiers: each job's warm and cold inflow
    (:func:`~hubplan.storage.protection.job_inflow_gb_s`) into ``warm_inflow_gb_s`` and
    ``cold_inflow_gb_s``; a finding where a tier's client write cannot drain their sum."""
    for j in jobs:
        j["warm_inflow_gb_s"], j["cold_inflow_gb_s"] = job_inflow_gb_s(j, storage)
    to_warm = storage.checkpoint_offload and storage.warm_checkpoints > 0
    above = {"warm": "hot", "cold": "warm" if to_warm else "hot"}
    findings = []
    for r in tier_rows[1:]:  # warm, cold
        tier = r["tier"]
        need = sum(j[f"{tier}_inflow_gb_s"] for j in jobs)
        if need > r["write_gb_s"] * (1 + 1e-9):
            findings.append(
                Finding(
                    "warning",
                    "storage",
                    tier,
                    "offload_too_slow",
                    {"tier": tier, "source": above[tier], "need": need, "supply": r["write_gb_s"]},
                )
            )
    return findings


def _job_rows(tables: dict[str, pd.DataFrame], workload: Workload, storage: Storage) -> list[dict]:
    """What each training job of the ``training`` table stores and writes."""
    jobs_by_name = {j.name: j for j in workload.training}
    job_columns = [
        "job",
        "method",
        "params",
        "tokens",
        "gpus",
        "servers",
        "goodput",
        "tokens_per_s",
        "days_to_finish",
    ]
    return [
        job_storage(
            row,
            jobs_by_name[row["job"]].data_bytes,
            jobs_by_name[row["job"]].bytes_per_token,
            storage,
        )
        for row in _records(tables["training"], job_columns)
    ]


def _repository_tb(workload: Workload, catalog: Catalog) -> float:
    """The model repository: the weights of every inference service. [TB]"""
    return sum(
        _service_params(s, catalog) * WEIGHT_BYTES[s.weight_precision] / 1e12
        for s in workload.inference
    )


def _plan_checkpoints(
    jobs: list[dict], hot_write: float, train_usable_gbps: float, storage: Storage
) -> list[Finding]:
    """Each job's checkpoint write rate, interval and goodput on the sized hot tier (added
    to its dict); a finding where a checkpoint outlasts its write window."""
    findings = []
    restart_s = storage.restart_minutes * 60
    for j in jobs:
        clients = client_gb_s(j["servers"], train_usable_gbps)
        # no storage NICs (0) or unknown: the compute fabric carries it (a finding below)
        usable = math.isfinite(clients) and clients > 0
        limited_by = "clients" if usable and clients < hot_write else "tier"
        rate = min(hot_write, clients) if usable else hot_write
        write_s = j["checkpoint_tb"] * 1000 / rate
        mtbf_s = j["mtbf_hours"] * SECONDS_PER_HOUR
        tau = checkpoint_interval_s(write_s, mtbf_s)  # compute between checkpoints (Daly)
        j.update(
            write_supply_gb_s=rate,
            limited_by=limited_by,
            write_time_s=write_s,
            interval_s=tau + write_s,
            interval_min=(tau + write_s) / 60,
            compute_min=tau / 60,
            expected_goodput=goodput(write_s, tau, mtbf_s, restart_s),
            hot_retained_tb=storage.checkpoint_keep_last * j["checkpoint_tb"],
        )
        if math.isfinite(j["write_window_s"]) and write_s > j["write_window_s"] * (1 + 1e-9):
            findings.append(
                Finding(
                    "warning",
                    "storage",
                    j["job"],
                    "checkpoint_burst",
                    {
                        "job": j["job"],
                        "checkpoint_tb": j["checkpoint_tb"],
                        "demand": j["write_demand_gb_s"],
                        "supply": rate,
                        "write_s": write_s,
                        "window_s": j["write_window_s"],
                        "limited_by": limited_by,
                    },
                )
            )
    return findings


def _hot_fill(
    jobs: list[dict], content: dict[str, dict[str, float]], hot_usable: float, storage: Storage
) -> tuple[pd.DataFrame, list[Finding]]:
    """The hot-tier fill projection (each job gets the alert and full days); a finding
    where the tier reaches its alert fill or fills within the longest job."""
    findings = []
    base = float(sum(v for k, v in content["hot"].items() if k != "checkpoints"))
    curve, alert_day, full_day = _fill_curve(base, hot_usable, jobs, storage)
    for j in jobs:
        j.update(days_to_alert=alert_day, days_to_full=full_day)
    run_days = max((j["job_days"] for j in jobs), default=0.0)
    if math.isfinite(full_day) and full_day <= run_days:
        findings.append(
            Finding(
                "error",
                "storage",
                "hot",
                "hot_tier_fills",
                {
                    "day": full_day,
                    "run_days": run_days,
                    "usable_tb": hot_usable,
                    "keep_last": storage.checkpoint_keep_last,
                },
            )
        )
    elif math.isfinite(alert_day) and alert_day <= run_days:
        findings.append(
            Finding(
                "warning",
                "storage",
                "hot",
                "hot_tier_alert",
                {
                    "day": alert_day,
                    "run_days": run_days,
                    "alert": storage.alert_fill,
                    "usable_tb": hot_usable,
                },
            )
        )
    return curve, findings


def _storage_on_compute_fabric(
    pool_rows: list[dict], specs: Pools, catalog: Catalog
) -> list[Finding]:
    """A finding for each pool (but development) whose servers have no storage NICs, so
    the compute fabric carries their storage traffic."""
    findings = []
    for p in pool_rows:
        if p["pool"] == "development":
            continue
        nics, usable_gbps = _server_storage(str(p["pool"]), specs, catalog)
        if nics == 0 or usable_gbps == 0:
            findings.append(
                Finding(
                    "warning",
                    "storage",
                    p["pool"],
                    "storage_on_compute_fabric",
                    {"pool": p["pool"], "server": p["server"]},
                )
            )
    return findings


def _storage_nodes(
    node_rows: list[tuple[str, pd.Series, int]],
) -> tuple[pd.DataFrame, list[Finding]]:
    """The storage_nodes table (the contract); an info finding per model with unknown
    rack units, power or price."""
    findings = []
    node_dicts = [
        {
            "tier": tier,
            "role": row["role"],
            "model": row["name"],
            "nodes": int(n),
            "rack_units": _num(row["rack_units"]),
            "max_power_kw": _num(row["max_power_kw"]),
            "typical_power_kw": _num(row["typical_power_kw"]),
            "price_usd": _num(row["price_usd"]),
            "nic_ports": _num(row["nic_ports"]),
            "nic_gbps": _num(row["nic_gbps"]),
        }
        for tier, row, n in node_rows
    ]
    nodes_df = typed(node_dicts, NODES)
    if nodes_df["nic_ports"].notna().all():
        nodes_df["nic_ports"] = nodes_df["nic_ports"].astype(int)
    unknown_cols = ["rack_units", "max_power_kw", "typical_power_kw", "price_usd"]
    first_of_model: dict[str, dict] = {}  # one finding per model, from its first row
    for r in node_dicts:
        first_of_model.setdefault(r["model"], r)
    for r in first_of_model.values():
        gaps = [c for c in unknown_cols if math.isnan(r[c])]
        if gaps and r["nodes"] > 0:
            findings.append(
                Finding(
                    "info",
                    "storage",
                    r["model"],
                    "storage_figures_unknown",
                    {"model": r["model"], "columns": ", ".join(gaps)},
                )
            )
    return nodes_df, findings


def run_storage(
    *,
    catalog: Catalog,
    tables: dict[str, pd.DataFrame],
    storage: Storage,
    workload: Workload,
    pools: Pools,
    network_compute_switch: str,
) -> StageResult:
    """Storage per tier, its nodes, the bandwidth it must deliver and why, checkpoints,
    the hot-tier fill projection and the off-site copy.

    Steps: demand (jobs, tier content, checkpoint and guideline bandwidth), tiers and
    nodes (block, client-side figures, count), checkpoint interval and goodput on the
    sized hot tier, protection (offload between tiers), hot-tier fill, DR, storage_nodes.

    ``network_compute_switch`` (the compute fabric's switch model) sets the switches each
    training job spans in the failure model (:mod:`hubplan.storage.failure`).
    """
    specs = pools  # the scenario's pools section (its servers); `pool_rows`: the table rows
    findings: list[Finding] = []
    all_pools = tables["pools"]
    pool_rows = _records(
        all_pools,
        ["pool", "server", "total_gpus", "total_servers", "servers", "gpus_per_server"],
        all_pools["level"].to_numpy() == "pool",
    )
    train_pool = [p for p in pool_rows if p["pool"] == "training"]
    train_server = str(train_pool[0]["server"]) if train_pool else ""
    _, train_usable_gbps = _server_storage("training" if train_server else "", specs, catalog)

    # -- demand ----------------------------------------------------------------------------
    jobs = _job_rows(tables, workload, storage)
    developers = workload.development.developers if workload.development is not None else 0
    content = tier_content(jobs, _repository_tb(workload, catalog), developers, storage)
    failures, per_days = job_interruptions(catalog, storage, network_compute_switch, jobs)
    findings += checkpoint_write_demand(jobs, per_days, storage)
    bw_rows = bandwidth_rows(_pool_rows(pool_rows, specs, catalog), jobs, storage)
    total = bw_rows[-1]

    # -- tiers and nodes -------------------------------------------------------------------
    tier_rows, node_rows, found = _size_tiers(
        catalog, storage, content, total["read_demand_gb_s"], total["write_demand_gb_s"]
    )
    findings += found
    hot_row = tier_rows[0]
    for r in bw_rows:
        last = r is total
        r.update(
            supply_read_gb_s=hot_row["read_gb_s"] if last else math.nan,
            supply_write_gb_s=hot_row["write_gb_s"] if last else math.nan,
        )

    # -- checkpoint interval, goodput, bursts; protection: the offload between tiers -------
    findings += _plan_checkpoints(jobs, hot_row["write_gb_s"], train_usable_gbps, storage)
    findings += _offload(tier_rows, jobs, storage)

    # -- hot-tier fill projection; storage traffic on the compute fabric -------------------
    curve, found = _hot_fill(jobs, content, hot_row["usable_tb"], storage)
    findings += found
    findings += _storage_on_compute_fabric(pool_rows, specs, catalog)

    # -- disaster recovery; storage_nodes: the contract ------------------------------------
    dr, found = _disaster_recovery(jobs, content, storage)
    findings += found
    nodes_df, found = _storage_nodes(node_rows)
    findings += found

    out = {
        "storage_content": typed(content_rows(content, storage.growth_margin), CONTENT),
        "storage_tiers": typed(tier_rows, TIERS_TABLE),
        "storage_bandwidth": typed(bw_rows, BANDWIDTH),
        "checkpoint_plan": typed([{c: j[c] for c in CHECKPOINTS} for j in jobs], CHECKPOINTS),
        "hot_fill": curve,
        "storage_dr": typed([dr], DR),
        "storage_nodes": nodes_df,
        "failure_breakdown": failures,
    }
    return StageResult(out, tuple(findings))


def _disaster_recovery(
    jobs: list[dict], content: dict, storage: Storage
) -> tuple[dict, list[Finding]]:
    """The off-site copy: changed data, replication rate, RPO, RTO, second-site capacity."""
    findings = []
    latest = sum(j["checkpoint_tb"] for j in jobs)
    restore_tb = latest + content["hot"]["datasets_processed"]
    site_tb = (
        content["cold"]["datasets_raw"]
        + storage.dr_checkpoints * latest
        + content["cold"]["model_repository"]
    )
    if storage.dr == "none":
        dr = {
            "dr": "none",
            "changed_tb": 0.0,
            "replication_gb_s": 0.0,
            "link_gbps": storage.dr_link_gbps,
            "rpo_hours": math.nan,
            "rto_hours": math.nan,
            "second_site_tb": 0.0,
        }
        if jobs:
            findings.append(
                Finding("warning", "storage", "dr", "no_offsite_copy", {"checkpoint_tb": latest})
            )
        return dr, findings
    if storage.dr == "offsite_backup":
        rate = replication_gb_s(latest, storage.backup_window_hours)
        rpo = 24 + storage.backup_window_hours
    else:  # warm standby: every checkpoint replicated as it lands
        rate = sum(j["checkpoint_tb"] * 1000 / j["interval_s"] for j in jobs)
        rpo = max(
            (
                j["interval_s"] / SECONDS_PER_HOUR
                + transfer_hours(j["checkpoint_tb"], storage.dr_link_gbps)
                for j in jobs
            ),
            default=0.0,
        )
    dr = {
        "dr": storage.dr,
        "changed_tb": latest,
        "replication_gb_s": rate,
        "link_gbps": storage.dr_link_gbps,
        "rpo_hours": rpo,
        "rto_hours": transfer_hours(restore_tb, storage.dr_link_gbps),
        "second_site_tb": usable_needed_tb(site_tb, storage.growth_margin, storage.fill_ceiling),
    }
    if rate * 8 > storage.dr_link_gbps:
        findings.append(
            Finding(
                "warning",
                "storage",
                "dr",
                "dr_link_too_slow",
                {"need_gbps": rate * 8, "link_gbps": storage.dr_link_gbps},
            )
        )
    return dr, findings


STAGE = Stage(
    name="storage",
    sections=("storage", "workload", "pools", "network.compute_switch"),
    needs=("pools", "training"),
    provides=(
        "storage_content",
        "storage_tiers",
        "storage_bandwidth",
        "checkpoint_plan",
        "hot_fill",
        "storage_dr",
        "storage_nodes",
        "failure_breakdown",
    ),
    run=run_storage,
    columns={
        "storage_content": CONTENT,
        "storage_tiers": TIERS_TABLE,
        "storage_bandwidth": BANDWIDTH,
        "checkpoint_plan": CHECKPOINTS,
        "hot_fill": HOT_FILL,
        "storage_dr": DR,
        "storage_nodes": NODES,
        "failure_breakdown": BREAKDOWN_SCHEMA,
    },
)
