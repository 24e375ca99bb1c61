"""The storage stage entry: tiers and their content, node counts, bandwidth demand and
supply, checkpoint interval and goodput, the hot-tier fill projection, disaster recovery,
and the ``storage_nodes`` table the network and facility stages read."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import CatalogError, HubplanError
from ..core.findings import Finding
from ..core.frames import frame as _frame
from ..core.frames import records as _records
from ..core.stage import Stage, StageResult
from ..workload.section import Workload
from .bandwidth import (
    SUPERPOD_NODE_READ_GB_S,
    client_gb_s,
    read_demand_gb_s,
    token_read_gb_s,
)
from .capacity import PROTECTION_USABLE, checkpoint_tb, nodes_for, usable_needed_tb
from .checkpoint import (
    checkpoint_interval_s,
    checkpoint_time_share,
    goodput,
    write_window_s,
)
from .dr import replication_gb_s, transfer_hours
from .failure import job_interruptions, mtbf_hours
from .section import Storage

#: The contract the network and facility stages read: one row per node type.
#: The storage_nodes table: the contract the network and facility stages read.
STORAGE_NODE_COLUMNS = ["tier", "role", "model", "nodes", "rack_units", "max_power_kw",
                "typical_power_kw", "price_usd", "nic_ports", "nic_gbps"]  # fmt: skip
WEIGHT_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
TIERS = ("hot", "warm", "cold")
#: Most rows the fill curve keeps (the crossings are computed on every checkpoint).
CURVE_POINTS = 400


def _num(v: object) -> float:
    return math.nan if v is None else float(v)


def _server_storage(name: str, catalog: Catalog) -> tuple[float, float]:
    """(storage NIC ports, usable storage Gb/s) of a pool's server; NaN when unknown."""
    if not name:
        return math.nan, math.nan
    try:
        row = catalog.server(name)
    except CatalogError:  # a custom server: the server stage checks it
        return math.nan, math.nan
    return _num(row["storage_nics"]), _num(row["storage_usable_gbps"])


def _service_params(service, catalog: Catalog) -> float:
    if service.params is not None:
        return float(service.params)
    if service.architecture is not None:
        return float(service.architecture.total_params)
    return float(catalog.model(service.model)["total_params"])


def _checkpoint_bytes(method: str, storage: Storage) -> tuple[float, float, float]:
    """(weights, master, optimizer) bytes per parameter a job's checkpoint saves."""
    if method == "full":
        return (storage.checkpoint_weights_bytes, storage.checkpoint_master_bytes,
                storage.checkpoint_optimizer_bytes)  # fmt: skip
    # LoRA / QLoRA: the base is frozen; the merged model is saved as weights only.
    return storage.checkpoint_weights_bytes, 0.0, 0.0


def _per_node(row: pd.Series, field: str, storage: Storage) -> tuple[float, float, float]:
    """(read, write, raw) per node of a data building block; errors name the gap."""
    read, write, raw = _num(row["read_gb_s"]), _num(row["write_gb_s"]), _num(row["raw_tb"])
    for col, v in (("read_gb_s", read), ("raw_tb", raw)):
        if math.isnan(v) or v <= 0:
            raise HubplanError(
                f"{field} = {row['name']!r}: column {col} is empty in data/storage.csv, so "
                "the tier cannot be sized; choose another building block or add the "
                "figure with its source"
            )
    if math.isnan(write):
        write = read * storage.write_to_read_when_unknown
    return read, write, raw


def _fill_curve(base_tb: float, usable: float, jobs: list[dict], storage: Storage):
    """Hot-tier use at every checkpoint of every job: (curve rows, per-job crossings)."""
    times, adds = [np.array([0.0])], [np.array([base_tb])]
    for j in jobs:
        if not (j["interval_s"] > 0 and math.isfinite(j["interval_s"])):
            continue
        end_s = j["job_days"] * 86400
        n = int(min(end_s // j["interval_s"], 2_000_000))
        k = np.arange(1, n + 1)
        add = np.full(n, j["checkpoint_tb"])
        if storage.checkpoint_offload:  # the oldest moves off once N are kept
            add[k > storage.checkpoint_keep_last] = 0.0
        times.append(k * j["interval_s"])
        adds.append(add)
    t = np.concatenate(times)
    order = np.argsort(t, kind="stable")
    t, used = t[order] / 86400, np.cumsum(np.concatenate(adds)[order])

    def first(level: float) -> float:
        hit = np.flatnonzero(used >= level)
        return float(t[hit[0]]) if hit.size else math.nan

    alert, full = first(storage.alert_fill * usable), first(usable)
    keep = np.unique(np.linspace(0, len(t) - 1, min(len(t), CURVE_POINTS)).astype(int))
    curve = pd.DataFrame({"day": t[keep], "used_tb": used[keep], "usable_tb": usable,
                          "fill": used[keep] / usable,
                          "alert_fill": storage.alert_fill})  # fmt: skip
    return curve, alert, full


def run_storage(
    *,
    catalog: Catalog,
    tables: dict[str, pd.DataFrame],
    storage: Storage,
    workload: Workload,
    network_compute_switch: str,
) -> StageResult:
    """Storage per tier, its nodes, the bandwidth it must deliver and why, checkpoints,
    the hot-tier fill projection and the off-site copy.

    ``network_compute_switch`` (the compute fabric's switch model) sets the switches each
    training job spans in the failure model (:mod:`hubplan.storage.failure`)."""
    findings: list[Finding] = []
    all_pools = tables["pools"]
    pools = _records(all_pools, ["pool", "server", "total_gpus", "total_servers"],
                     all_pools["level"].to_numpy() == "pool")  # fmt: skip
    training = tables["training"]
    jobs_by_name = {j.name: j for j in workload.training}

    train_pool = [p for p in pools if p["pool"] == "training"]
    train_server = str(train_pool[0]["server"]) if train_pool else ""
    _, train_usable_gbps = _server_storage(train_server, catalog)

    # -- checkpoints and datasets per job ------------------------------------------------
    jobs: list[dict] = []
    job_columns = ["job", "method", "params", "tokens", "gpus", "servers", "goodput",
                   "tokens_per_s", "days_to_finish"]  # fmt: skip
    for row in _records(training, job_columns):
        spec = jobs_by_name[row["job"]]
        w, m, o = _checkpoint_bytes(str(row["method"]), storage)
        text_tb = (float(spec.data_bytes) if spec.data_bytes is not None
                   else float(row["tokens"]) * spec.bytes_per_token) / 1e12  # fmt: skip
        jobs.append({
            "job": row["job"], "params": float(row["params"]), "weights_bytes": w,
            "master_bytes": m, "optimizer_bytes": o, "bytes_per_param": w + m + o,
            "checkpoint_tb": checkpoint_tb(float(row["params"]), w + m + o),
            "final_weights_tb": checkpoint_tb(float(row["params"]), w),
            "processed_tb": float(row["tokens"]) * storage.processed_bytes_per_token / 1e12,
            "raw_tb": text_tb * storage.raw_to_text, "gpus": int(row["gpus"]),
            "servers": int(row["servers"]), "goodput": float(row["goodput"]),
            "tokens_per_s": float(row["tokens_per_s"]),
            "job_days": float(row["days_to_finish"]),
        })  # fmt: skip
    repo_tb = sum(
        _service_params(s, catalog) * WEIGHT_BYTES[s.weight_precision] / 1e12
        for s in workload.inference
    )
    developers = workload.development.developers if workload.development is not None else 0

    ck = [j["checkpoint_tb"] for j in jobs]
    content = {
        "hot": {
            "datasets_processed": sum(j["processed_tb"] for j in jobs),
            "checkpoints": storage.checkpoint_keep_last * sum(ck),
            "model_repository": repo_tb + sum(j["final_weights_tb"] for j in jobs),
            "home": developers * storage.home_tb_per_developer,
        },
        "warm": {
            "datasets_raw": sum(j["raw_tb"] for j in jobs),
            "checkpoints": storage.warm_checkpoints * sum(ck),
            "logs": storage.logs_tb,
        },
        "cold": {
            "datasets_raw": sum(j["raw_tb"] for j in jobs),
            "checkpoints": storage.cold_checkpoints * sum(ck),
            "model_repository": repo_tb + sum(j["final_weights_tb"] for j in jobs),
        },
    }
    content_rows = []
    for tier, parts in content.items():
        for name, tb in parts.items():
            content_rows.append({"tier": tier, "content": name, "tb": tb})
        content_rows.append({"tier": tier, "content": "growth",
                             "tb": sum(parts.values()) * storage.growth_margin})  # fmt: skip
    content_df = _frame(content_rows, ["tier", "content", "tb"])

    # -- read demand per pool ------------------------------------------------------------
    bw_rows = []
    for p in pools:
        _, usable_gbps = _server_storage(str(p["server"]), catalog)
        gpus, servers = int(p["total_gpus"]), int(p["total_servers"])
        token = (sum(token_read_gb_s(j["tokens_per_s"], storage.processed_bytes_per_token,
                                     storage.read_amplification) for j in jobs)
                 if p["pool"] == "training" else 0.0)  # fmt: skip
        per_gpu = read_demand_gb_s(gpus, storage.read_gb_s_per_gpu)
        scale = gpus / 8  # the guideline is per 8-GPU DGX node
        bw_rows.append({
            "pool": p["pool"], "gpus": gpus, "servers": servers,
            "read_demand_gb_s": max(per_gpu, token), "token_read_gb_s": token,
            "write_demand_gb_s": 0.0, "client_gb_s": client_gb_s(servers, usable_gbps),
            "guideline_good_read_gb_s": scale * SUPERPOD_NODE_READ_GB_S["good"],
            "guideline_best_read_gb_s": scale * SUPERPOD_NODE_READ_GB_S["best"],
        })  # fmt: skip

    # -- checkpoint write demand (before the tier is sized) ------------------------------
    restart_s = storage.restart_minutes * 60
    failures, per_days = job_interruptions(catalog, storage, network_compute_switch, jobs)
    for j, per_day in zip(jobs, per_days, strict=True):
        j["interruptions_per_day"] = per_day
        mtbf_s = mtbf_hours(per_day) * 3600
        share = (storage.checkpoint_time_share if storage.checkpoint_time_share is not None
                 else checkpoint_time_share(j["goodput"], mtbf_s, restart_s))  # fmt: skip
        j.update(mtbf_hours=mtbf_s / 3600, write_share=share)
        if share <= 0:
            j.update(write_window_s=math.nan, write_demand_gb_s=math.nan)
            findings.append(Finding("error", "storage", j["job"], "goodput_unreachable", {
                "job": j["job"], "goodput": j["goodput"], "mtbf_hours": mtbf_s / 3600,
                "restart_minutes": storage.restart_minutes}))  # fmt: skip
            continue
        window = write_window_s(share, mtbf_s)
        j.update(write_window_s=window, write_demand_gb_s=j["checkpoint_tb"] * 1000 / window)
    write_total = sum(j["write_demand_gb_s"] for j in jobs
                      if math.isfinite(j["write_demand_gb_s"]))  # fmt: skip
    for r in bw_rows:
        if r["pool"] == "training":
            r["write_demand_gb_s"] = write_total
    read_total = sum(r["read_demand_gb_s"] for r in bw_rows)

    # -- tiers ---------------------------------------------------------------------------
    tier_rows, node_rows = [], []
    models = {"hot": (storage.hot_model, "storage.hot_model"),
              "warm": (storage.warm_model, "storage.warm_model"),
              "cold": (storage.cold_model, "storage.cold_model")}  # fmt: skip
    protections = {"hot": storage.hot_protection, "warm": storage.warm_protection,
                   "cold": storage.cold_protection}  # fmt: skip
    supply = {}
    for tier in TIERS:
        name, field = models[tier]
        row = catalog.storage_block(name, field)
        if tier not in str(row["tiers"]).split(";"):
            raise HubplanError(f"{field} = {name!r}: data/storage.csv lists it for "
                               f"{row['tiers']}, not the {tier} tier")  # fmt: skip
        read, write, raw = _per_node(row, field, storage)
        frac = PROTECTION_USABLE[protections[tier]]
        tier_content = float(sum(content[tier].values()))
        need = usable_needed_tb(tier_content, storage.growth_margin, storage.fill_ceiling)
        by = {"capacity": nodes_for(need, raw * frac)}
        if tier == "hot":
            by.update(read=nodes_for(read_total, read), write=nodes_for(write_total, write),
                      minimum=storage.min_hot_nodes)  # fmt: skip
        else:
            by["minimum"] = 1 if tier_content > 0 else 0
        if tier == "hot" and storage.hot_nodes is not None:
            nodes, sized_by = storage.hot_nodes, "fixed"
        else:
            sized_by = max(by, key=lambda k: by[k])  # first of equals: capacity, read, …
            nodes = by[sized_by]
        supply[tier] = (nodes * read, nodes * write, nodes * raw * frac)
        tier_rows.append({
            "tier": tier, "model": row["name"], "protection": protections[tier],
            "usable_fraction": frac, "content_tb": tier_content, "usable_needed_tb": need,
            "nodes_for_capacity": by["capacity"], "nodes_for_read": by.get("read", 0),
            "nodes_for_write": by.get("write", 0), "nodes": nodes, "sized_by": sized_by,
            "raw_tb": nodes * raw, "usable_tb": nodes * raw * frac,
            "fill": tier_content / (nodes * raw * frac) if nodes else math.nan,
            "read_gb_s": nodes * read, "write_gb_s": nodes * write,
        })  # fmt: skip
        node_rows.append((tier, row, nodes))
        if tier == "hot" and row["role"] == "oss" and storage.metadata_model is not None:
            node_rows.append(("hot", catalog.storage_block(storage.metadata_model,
                                                           "storage.metadata_model"),
                              storage.metadata_nodes))  # fmt: skip
    tiers_df = _frame(tier_rows, list(tier_rows[0]))
    hot_read, hot_write, hot_usable = supply["hot"]

    bw_rows.append({
        "pool": "total", "gpus": sum(r["gpus"] for r in bw_rows),
        "servers": sum(r["servers"] for r in bw_rows), "read_demand_gb_s": read_total,
        "token_read_gb_s": sum(r["token_read_gb_s"] for r in bw_rows),
        "write_demand_gb_s": write_total,
        "client_gb_s": sum(r["client_gb_s"] for r in bw_rows),
        "guideline_good_read_gb_s": sum(r["guideline_good_read_gb_s"] for r in bw_rows),
        "guideline_best_read_gb_s": sum(r["guideline_best_read_gb_s"] for r in bw_rows),
    })  # fmt: skip
    total = np.array([r["pool"] == "total" for r in bw_rows])
    bw_df = _frame(bw_rows, list(bw_rows[0]))
    bw_df["supply_read_gb_s"] = np.where(total, hot_read, np.nan)
    bw_df["supply_write_gb_s"] = np.where(total, hot_write, np.nan)

    # -- checkpoint interval, goodput, bursts --------------------------------------------
    for j in jobs:
        clients = client_gb_s(j["servers"], train_usable_gbps)
        # no storage NICs (0) or unknown: the compute fabric carries it (a finding below)
        usable = math.isfinite(clients) and clients > 0
        limited_by = "clients" if usable and clients < hot_write else "tier"
        rate = min(hot_write, clients) if usable else hot_write
        write_s = j["checkpoint_tb"] * 1000 / rate
        mtbf_s = j["mtbf_hours"] * 3600
        tau = checkpoint_interval_s(write_s, mtbf_s)  # compute between checkpoints (Daly)
        j.update(write_supply_gb_s=rate, limited_by=limited_by, write_time_s=write_s,
                 interval_s=tau + write_s, interval_min=(tau + write_s) / 60,
                 compute_min=tau / 60,
                 expected_goodput=goodput(write_s, tau, mtbf_s, restart_s),
                 hot_retained_tb=storage.checkpoint_keep_last * j["checkpoint_tb"])  # fmt: skip
        if math.isfinite(j["write_window_s"]) and write_s > j["write_window_s"] * (1 + 1e-9):
            findings.append(Finding("warning", "storage", j["job"], "checkpoint_burst", {
                "job": j["job"], "checkpoint_tb": j["checkpoint_tb"],
                "demand": j["write_demand_gb_s"], "supply": rate,
                "write_s": write_s, "window_s": j["write_window_s"],
                "limited_by": limited_by}))  # fmt: skip

    # -- hot-tier fill projection --------------------------------------------------------
    base = float(sum(v for k, v in content["hot"].items() if k != "checkpoints"))
    curve, alert_day, full_day = _fill_curve(base, hot_usable, jobs, storage)
    for j in jobs:
        j.update(days_to_alert=alert_day, days_to_full=full_day)
    run_days = max((j["job_days"] for j in jobs), default=0.0)
    if math.isfinite(full_day) and full_day <= run_days:
        findings.append(Finding("error", "storage", "hot", "hot_tier_fills", {
            "day": full_day, "run_days": run_days, "usable_tb": hot_usable,
            "keep_last": storage.checkpoint_keep_last}))  # fmt: skip
    elif math.isfinite(alert_day) and alert_day <= run_days:
        findings.append(Finding("warning", "storage", "hot", "hot_tier_alert", {
            "day": alert_day, "run_days": run_days, "alert": storage.alert_fill,
            "usable_tb": hot_usable}))  # fmt: skip

    ck_cols = ["job", "params", "weights_bytes", "master_bytes", "optimizer_bytes",
               "bytes_per_param", "checkpoint_tb", "hot_retained_tb", "gpus",
               "interruptions_per_day", "mtbf_hours",
               "goodput", "write_share", "write_window_s", "write_demand_gb_s",
               "write_supply_gb_s", "limited_by", "write_time_s", "interval_min", "compute_min",
               "expected_goodput", "job_days", "days_to_alert", "days_to_full"]  # fmt: skip
    ck_df = _frame(jobs, ck_cols)

    # -- storage traffic on the compute fabric -------------------------------------------
    for p in pools:
        if p["pool"] == "development":
            continue
        nics, usable_gbps = _server_storage(str(p["server"]), catalog)
        if nics == 0 or usable_gbps == 0:
            findings.append(Finding("warning", "storage", p["pool"], "storage_on_compute_fabric",
                                    {"pool": p["pool"], "server": p["server"]}))  # fmt: skip

    # -- disaster recovery ---------------------------------------------------------------
    latest = sum(ck)
    restore_tb = latest + content["hot"]["datasets_processed"]
    site_tb = (content["cold"]["datasets_raw"] + storage.dr_checkpoints * latest
               + content["cold"]["model_repository"])  # fmt: skip
    if storage.dr == "none":
        dr = {"dr": "none", "changed_tb": 0.0, "replication_gb_s": 0.0,
              "link_gbps": storage.dr_link_gbps, "rpo_hours": math.nan,
              "rto_hours": math.nan, "second_site_tb": 0.0}  # fmt: skip
        if jobs:
            findings.append(Finding("warning", "storage", "dr", "no_offsite_copy",
                                    {"checkpoint_tb": latest}))  # fmt: skip
    else:
        if storage.dr == "offsite_backup":
            rate = replication_gb_s(latest, storage.backup_window_hours)
            rpo = 24 + storage.backup_window_hours
        else:  # warm standby: every checkpoint replicated as it lands
            rate = sum(j["checkpoint_tb"] * 1000 / j["interval_s"] for j in jobs)
            rpo = max((j["interval_s"] / 3600 + transfer_hours(j["checkpoint_tb"],
                                                               storage.dr_link_gbps)
                       for j in jobs), default=0.0)  # fmt: skip
        dr = {"dr": storage.dr, "changed_tb": latest, "replication_gb_s": rate,
              "link_gbps": storage.dr_link_gbps, "rpo_hours": rpo,
              "rto_hours": transfer_hours(restore_tb, storage.dr_link_gbps),
              "second_site_tb": usable_needed_tb(site_tb, storage.growth_margin,
                                                 storage.fill_ceiling)}  # fmt: skip
        if rate * 8 > storage.dr_link_gbps:
            findings.append(Finding("warning", "storage", "dr", "dr_link_too_slow", {
                "need_gbps": rate * 8, "link_gbps": storage.dr_link_gbps}))  # fmt: skip
    dr_df = pd.DataFrame([dr])

    # -- storage_nodes: the contract -----------------------------------------------------
    node_dicts = [{
        "tier": tier, "role": row["role"], "model": row["name"], "nodes": int(n),
        "rack_units": _num(row["rack_units"]), "max_power_kw": _num(row["max_power_kw"]),
        "typical_power_kw": _num(row["typical_power_kw"]), "price_usd": _num(row["price_usd"]),
        "nic_ports": _num(row["nic_ports"]), "nic_gbps": _num(row["nic_gbps"]),
    } for tier, row, n in node_rows]  # fmt: skip
    nodes_df = _frame(node_dicts, STORAGE_NODE_COLUMNS)
    if nodes_df["nic_ports"].notna().all():
        nodes_df["nic_ports"] = nodes_df["nic_ports"].astype(int)
    unknown_cols = ["rack_units", "max_power_kw", "typical_power_kw", "price_usd"]
    first_of_model = {}  # one finding per model, from its first row
    for r in node_dicts:
        first_of_model.setdefault(r["model"], r)
    for r in first_of_model.values():
        gaps = [c for c in unknown_cols if math.isnan(r[c])]
        if gaps and r["nodes"] > 0:
            findings.append(Finding("info", "storage", r["model"], "storage_figures_unknown",
                                    {"model": r["model"], "columns": ", ".join(gaps)}))  # fmt: skip

    out = {"storage_content": content_df, "storage_tiers": tiers_df,
           "storage_bandwidth": bw_df, "checkpoint_plan": ck_df, "hot_fill": curve,
           "storage_dr": dr_df, "storage_nodes": nodes_df,
           "failure_breakdown": failures}  # fmt: skip
    return StageResult(out, tuple(findings))


STAGE = Stage(
    name="storage",
    sections=("storage", "workload", "network.compute_switch"),
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
)
