"""Accelerator stage: which card, for each workload, and why.

Every candidate is sized for every workload with the workload stage's own calculators
(dense peaks only for training), then priced and ranked. Alongside: the "TOPS trap" —
the marketing figure (INT8 or 2:4-sparse) beside the figure that applies — and the
interconnect fit of the pools as planned.

Cost measures are hardware only (the cost stage adds power, facility and operations):
cost per GPU = accelerator price × (1 + platform overhead); cost per effective PFLOP-day =
cost per GPU / (useful life in days) / (dense peak × MFU in PFLOPS).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.catalog import Catalog, peak_tflops
from ..core.errors import HubplanError
from ..core.prices import server_price_usd
from ..pools import Pools, PoolSpec
from ..workload import size_inference, size_training, training_days, training_memory
from ..workload.section import InferenceService, TrainingJob
from .section import Selection

MARKETING_COLUMNS = (
    ("int8_sparse_tops", "INT8 sparse"),
    ("fp8_sparse_tflops", "FP8 sparse"),
    ("bf16_sparse_tflops", "BF16 sparse"),
    ("int8_dense_tops", "INT8 dense"),
    ("fp8_dense_tflops", "FP8 dense"),
)


def gpu_cost_usd(acc: pd.Series, platform_overhead: float) -> float:
    """Hardware cost of one accelerator's share of a server. [USD]

    >>> gpu_cost_usd(pd.Series({"price_usd": 30000.0}), 0.3)
    39000.0
    """
    return float(acc["price_usd"]) * (1 + platform_overhead)


def server_cost_per_gpu(name: str, catalog: Catalog) -> float:
    """Hardware cost of one accelerator from the cheapest priced catalogue server that
    carries it: the whole server's price ÷ its GPUs [USD] (no platform overhead added:
    the server's price holds it). The server catalogue's price, else the price
    catalogue's (``data/prices.csv``, a CNY row at the cost section's default rate,
    7.1884); NaN when no server carrying the card has a price.

    Used for a card that has no card price of its own (Huawei Ascend is sold in servers:
    an Atlas 800T A2 at 1 480 000 CNY ÷ 7.1884 ÷ 8 = 25 735.91 USD a GPU).
    """
    servers = catalog.servers
    mine = servers[(servers["accelerator"] == name) & (servers["kind"] == "server")]
    best = math.nan
    for r in mine.to_dict(orient="records"):
        price = server_price_usd(str(r["name"]), float(r["price_usd"]))[0]
        gpus = float(r["gpus"])
        if not math.isnan(price) and gpus > 0 and not price / gpus >= best:
            best = price / gpus
    return best


def usd_per_effective_pflop_day(
    cost_usd: float, peak_tflops: float, mfu: float, years: float
) -> float:
    """Hardware cost of one PFLOP-day of useful compute. [USD/(PFLOP/s·d)]

    cost / (years × 365 days) / (peak × MFU / 1000).

    Examples
    --------
    US$39 000 per H100 over 5 years at 989.5 TFLOPS × 0.45 (hand: 39 000 / 1 825 /
    0.4453 = 48.0):

    >>> round(usd_per_effective_pflop_day(39000, 989.5, 0.45, 5), 1)
    48.0
    """
    return cost_usd / (years * 365) / (peak_tflops * mfu / 1000)


def marketing_figure(acc: pd.Series) -> tuple[float, str]:
    """The headline number a datasheet leads with: its largest INT8/FP8/sparse figure."""
    best, which = math.nan, ""
    for col, name in MARKETING_COLUMNS:
        v = float(acc[col])
        if not math.isnan(v) and (math.isnan(best) or v > best):
            best, which = v, name
    return best, which


def candidate_names(selection: Selection, pools: Pools, catalog: Catalog) -> list[str]:
    """Resolved candidate names; the pools' own accelerators when none are listed."""
    names = selection.candidates or tuple(
        getattr(pools, k).accelerator for k in ("training", "inference", "development")
    )
    return list(dict.fromkeys(catalog.accelerator(n)["name"] for n in names))


def compute_claims(candidates: list[str], catalog: Catalog) -> pd.DataFrame:
    """Marketing figure beside the dense BF16 figure that training applies."""
    rows = []
    for name in candidates:
        acc = catalog.accelerator(name)
        figure, which = marketing_figure(acc)
        dense = float(acc["bf16_dense_tflops"])
        rows.append(
            {
                "candidate": name,
                "vendor": acc["vendor"],
                "segment": acc["segment"],
                "bf16_dense_tflops": dense,
                "bf16_sparse_tflops": float(acc["bf16_sparse_tflops"]),
                "fp8_dense_tflops": float(acc["fp8_dense_tflops"]),
                "int8_dense_tops": float(acc["int8_dense_tops"]),
                "int8_sparse_tops": float(acc["int8_sparse_tops"]),
                "marketing_figure": figure,
                "marketing_basis": which,
                "marketing_ratio": figure / dense if dense else math.nan,
            }
        )
    return pd.DataFrame(rows)


def matmul_share(acc: pd.Series) -> float:
    """Measured maximum-achievable BF16 matmul ÷ dense BF16 peak (NaN when unmeasured).

    >>> round(matmul_share(pd.Series({"mamf_bf16_tflops": 794.5, "bf16_dense_tflops": 989.5})), 3)
    0.803
    """
    return float(acc["mamf_bf16_tflops"]) / float(acc["bf16_dense_tflops"])


def candidate_mfu(job_mfu: float, candidate: pd.Series, reference: pd.Series) -> float:
    """The job's MFU carried from the pool's accelerator to another candidate.

    MFU × (candidate's measured matmul share ÷ reference's); unchanged when either card
    has no measurement. H100 → MI300X: 0.45 × (668.4/1307.4) / (794.5/989.5) = 0.287.

    >>> h100 = pd.Series({"mamf_bf16_tflops": 794.5, "bf16_dense_tflops": 989.5})
    >>> mi300x = pd.Series({"mamf_bf16_tflops": 668.4, "bf16_dense_tflops": 1307.4})
    >>> round(candidate_mfu(0.45, mi300x, h100), 3)
    0.287
    """
    ratio = matmul_share(candidate) / matmul_share(reference)
    return job_mfu if math.isnan(ratio) else min(job_mfu * ratio, 1.0)


def scaleout_gbps_per_gpu(servers: pd.DataFrame) -> dict[str, float]:
    """Scale-out bandwidth per GPU for each accelerator: the best catalogue server's
    compute NICs × speed ÷ GPUs. [Gb/s]"""
    nics, gbps = servers["compute_nics"].to_numpy(), servers["compute_nic_gbps"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        per_gpu = nics * gbps / servers["gpus"].to_numpy()
    known: dict[str, list[float]] = {}
    for acc, value, nic, speed in zip(
        servers["accelerator"].tolist(), per_gpu.tolist(), nics.tolist(), gbps.tolist(), strict=True
    ):
        if nic == nic and speed == speed:  # servers with both figures sourced
            known.setdefault(acc, []).append(value)
    # the best server per accelerator; NaN when no server gives a number
    return {
        acc: max((v for v in values if v == v), default=math.nan)
        for acc, values in sorted(known.items())
    }


def interconnect_fit(acc: pd.Series, tp: int, servers: int) -> str:
    domain = acc["scaleup_domain_gpus"]
    domain = int(domain) if domain == domain else 1
    if tp > domain:
        return "tp_beyond_scaleup"
    if acc["segment"] in ("workstation", "consumer") and servers > 1:
        return "workstation_multinode"
    return "ok"


def _base_row(kind: str, workload: str, acc: pd.Series, cost: float, basis: str) -> dict:
    return {
        "workload": workload,
        "kind": kind,
        "candidate": acc["name"],
        "vram_gb": float(acc["vram_gb"]),
        "mem_bw_tb_s": float(acc["mem_bw_tb_s"]),
        "scaleup_kind": acc["scaleup_kind"],
        "scaleup_domain_gpus": acc["scaleup_domain_gpus"],
        "tdp_w": float(acc["tdp_w"]),
        "gpu_cost_usd": cost,
        "gpu_cost_basis": basis,
    }


def _each_candidate(
    kind: str,
    workload: str,
    mfu: float,
    pool: PoolSpec,
    selection: Selection,
    candidates: list[str],
    catalog: Catalog,
):
    """For each candidate: (accelerator row, its pool, its MFU, cost per GPU, base row).

    The candidate's pool is the workload's pool with that accelerator and no server
    model; its MFU is carried over from the pool's own card per ``mfu_scaling``.
    """
    reference = catalog.accelerator(pool.accelerator)
    for name in candidates:
        acc = catalog.accelerator(name)
        cost, basis = gpu_cost_usd(acc, selection.platform_overhead), "card_overhead"
        if math.isnan(cost):  # a card sold only in servers: a priced server's share
            cost, basis = server_cost_per_gpu(name, catalog), "server_price"
        if math.isnan(cost):
            basis = "none"
        cand_pool = pool.model_copy(
            update={"accelerator": name, "server": None, "custom_server": None}
        )
        cand_mfu = mfu
        if selection.mfu_scaling == "measured_matmul":
            cand_mfu = candidate_mfu(mfu, acc, reference)
        yield acc, cand_pool, cand_mfu, cost, _base_row(kind, workload, acc, cost, basis)


def compare_training(
    job: TrainingJob, pool: PoolSpec, selection: Selection, candidates: list[str], catalog: Catalog
) -> list[dict]:
    """One row per candidate for one training job."""
    rows = []
    scaleout = scaleout_gbps_per_gpu(catalog.servers)
    for acc, cand_pool, mfu, cost, row in _each_candidate(
        "training", job.name, job.mfu, pool, selection, candidates, catalog
    ):
        name = acc["name"]
        cand_job = job.model_copy(update={"mfu": mfu})
        try:
            sized, _ = size_training(cand_job, cand_pool, catalog)
        except HubplanError as exc:
            rows.append({**row, "note": str(exc), "binding": "no_figure"})
            continue
        mem, _ = training_memory(cand_job, cand_pool, catalog, sized["gpus"])
        peak = sized["peak_tflops"]
        row.update(
            {
                "precision": job.precision,
                "peak_tflops": peak,
                "mfu": mfu,
                "effective_tflops": peak * mfu,
                "gpus": sized["gpus"],
                "servers": sized["servers"],
                "binding": sized["binding"],
                "compute_bound_gpus": sized["compute_bound_gpus"],
                "memory_bound_gpus": sized["memory_bound_gpus"],
                "state_per_gpu_gb": mem["total_gb"],
                "fits": mem["fits"],
                "days_to_finish": sized["days_to_finish"],
                "capex_usd": sized["gpus"] * cost,
                "power_kw": sized["gpus"] * float(acc["tdp_w"]) / 1000,
                "usd_per_pflop_day": usd_per_effective_pflop_day(
                    cost, peak, mfu, selection.depreciation_years
                ),
                "scaleout_gbps_per_gpu": scaleout.get(name, math.nan),
                "interconnect": interconnect_fit(acc, job.tensor_parallel, sized["servers"]),
            }
        )
        if selection.budget_usd is not None and not math.isnan(cost):
            per_server = cost * pool.gpus_per_server
            n = int(selection.budget_usd // per_server) * pool.gpus_per_server
            row["budget_gpus"] = n
            ok = n >= sized["gpus_to_hold_state"]
            row["days_on_budget"] = (
                training_days(sized["flops"], n, peak, mfu, job.goodput) if ok else math.inf
            )
        rows.append(row)
    return rows


def compare_inference(
    service: InferenceService,
    pool: PoolSpec,
    selection: Selection,
    candidates: list[str],
    catalog: Catalog,
) -> list[dict]:
    """One row per candidate for one inference service."""
    rows = []
    scaleout = scaleout_gbps_per_gpu(catalog.servers)
    for acc, cand_pool, mfu, cost, row in _each_candidate(
        "inference", service.name, service.compute_mfu, pool, selection, candidates, catalog
    ):
        name = acc["name"]
        try:
            sized, _ = size_inference(
                service.model_copy(update={"compute_mfu": mfu}), cand_pool, catalog
            )
        except HubplanError as exc:
            rows.append({**row, "note": str(exc), "binding": "no_figure"})
            continue
        fits = not math.isnan(sized["token_gpus"])
        row.update(
            {
                "precision": service.compute_precision,
                "mfu": mfu,
                "peak_tflops": peak_tflops(acc, service.compute_precision),
                "gpus": sized["gpus"],
                "servers": sized["servers"],
                "binding": sized["binding"],
                "fits": fits,
                "capex_usd": sized["gpus"] * cost,
                "power_kw": sized["gpus"] * float(acc["tdp_w"]) / 1000,
                "scaleout_gbps_per_gpu": scaleout.get(name, math.nan),
            }
        )
        if fits:
            tp = int(sized["tensor_parallel"])
            tokens = (sized["gpus"] // tp) * sized["decode_tokens_per_s"]
            row.update(
                {
                    # serving stays within one server: only the scale-up domain question remains
                    "interconnect": interconnect_fit(acc, tp, 1),
                    "tensor_parallel": tp,
                    "concurrent_seqs": sized["concurrent_seqs"],
                    "decode_tokens_per_s": tokens,
                    "decode_tokens_per_s_per_seq": sized["decode_tokens_per_s_per_seq"],
                    "tokens_per_s_per_kusd": tokens / (row["capex_usd"] / 1000),
                    "tokens_per_s_per_kw": tokens / row["power_kw"],
                }
            )
        rows.append(row)
    return rows


def rank(table: pd.DataFrame, rank_by: str) -> pd.DataFrame:
    """Rank candidates within each workload.

    A candidate that cannot hold the workload, or has no sourced figure for the ranking
    key (no public price, no TDP), is kept in the table unranked, with the reason in
    ``unranked`` ('does_not_fit', 'no_price', 'no_power'); ranked rows have ''.
    """
    key = "capex_usd" if rank_by == "capex" else "power_kw"
    out = table.copy()
    n = len(out)
    if "fits" in out.columns:  # missing (a candidate without a figure) counts as not fitting
        fits = [v is not None and v == v and bool(v) for v in out["fits"].tolist()]
    else:
        fits = [True] * n
    value, gpus = out[key].tolist(), out["gpus"].tolist()
    unranked = [""] * n
    by_workload: dict[object, list[int]] = {}  # ranked rows per workload, in table order
    for i, workload in enumerate(out["workload"].tolist()):
        if not fits[i]:
            unranked[i] = "does_not_fit"
        elif value[i] != value[i]:
            unranked[i] = "no_price" if rank_by == "capex" else "no_power"
        else:
            by_workload.setdefault(workload, []).append(i)
    rank = np.full(n, math.nan)
    for members in by_workload.values():
        # cheapest (or coolest) first, then fewest GPUs; ties keep table order
        order = sorted(members, key=lambda i: (value[i], gpus[i] != gpus[i], gpus[i]))
        rank[order] = range(1, len(order) + 1)
    out["unranked"] = unranked
    out["rank"] = rank
    out["winner"] = out["rank"] == 1
    return out
