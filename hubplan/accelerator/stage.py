"""The accelerator stage entry: the comparison table, the compute claims, and findings on
the interconnect fit of the pools and on cheaper (or cooler) candidates."""

from __future__ import annotations

import math

import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding
from ..core.frames import Schema, with_schema
from ..core.stage import Stage, StageResult
from ..pools import Pools
from ..workload.section import Workload
from .section import Selection
from .selection import (
    candidate_names,
    compare_inference,
    compare_training,
    compute_claims,
    interconnect_fit,
    rank,
)

_F, _S = "float64", "str"
#: The comparison's columns when no training job or service is there to compare on (a
#: development-only centre): those of a centre with both, so views find every column.
CANDIDATES: Schema = {
    "workload": _S,
    "kind": _S,
    "candidate": _S,
    "vram_gb": _F,
    "mem_bw_tb_s": _F,
    "scaleup_kind": _S,
    "scaleup_domain_gpus": _F,
    "tdp_w": _F,
    "gpu_cost_usd": _F,
    "gpu_cost_basis": _S,
    "precision": _S,
    "peak_tflops": _F,
    "mfu": _F,
    "effective_tflops": _F,
    "gpus": "int64",
    "servers": "int64",
    "binding": _S,
    "compute_bound_gpus": _F,
    "memory_bound_gpus": _F,
    "state_per_gpu_gb": _F,
    "fits": "bool",
    "days_to_finish": _F,
    "capex_usd": _F,
    "power_kw": _F,
    "usd_per_pflop_day": _F,
    "scaleout_gbps_per_gpu": _F,
    "interconnect": _S,
    "budget_gpus": _F,
    "days_on_budget": _F,
    "tensor_parallel": _F,
    "concurrent_seqs": _F,
    "decode_tokens_per_s": _F,
    "decode_tokens_per_s_per_seq": _F,
    "tokens_per_s_per_kusd": _F,
    "tokens_per_s_per_kw": _F,
    "unranked": _S,
    "rank": _F,
    "winner": "bool",
    "over_budget": "bool",
}


def run_selection(
    *,
    catalog: Catalog,
    tables: dict[str, pd.DataFrame],
    workload: Workload,
    pools: Pools,
    accelerator: Selection,
) -> StageResult:
    """The accelerator stage: comparison, claims, and interconnect-fit findings.

    Reads the workload stage's ``training`` table (the servers each job is sized to).
    """
    selection, training = accelerator, tables["training"]
    names = candidate_names(selection, pools, catalog)
    rows: list[dict] = []
    for job in workload.training:
        rows += compare_training(job, pools.training, selection, names, catalog)
    for svc in workload.inference:
        rows += compare_inference(svc, pools.inference, selection, names, catalog)
    table = rank(pd.DataFrame(rows), selection.rank_by) if rows else pd.DataFrame()
    if not table.empty:
        budget = selection.budget_usd
        table["over_budget"] = (table["capex_usd"] > budget) if budget is not None else False
    findings = _plan_findings(workload, pools, catalog, training)
    findings += _winner_findings(table, pools, catalog, selection.rank_by)
    findings += _unranked_findings(table)
    tables_out = {
        "candidates": with_schema(table, CANDIDATES),
        "compute_claims": compute_claims(names, catalog),
    }
    return StageResult(tables_out, tuple(findings))


def _plan_findings(
    workload: Workload, pools: Pools, catalog: Catalog, training: pd.DataFrame
) -> list[Finding]:
    """Interconnect fit of the pools as planned."""
    found = []
    acc = catalog.accelerator(pools.training.accelerator)
    servers = dict(zip(training.get("job", []), training.get("servers", []), strict=True))
    for job in workload.training:
        verdict = interconnect_fit(acc, job.tensor_parallel, int(servers.get(job.name, 1)))
        domain = acc["scaleup_domain_gpus"]
        if verdict != "ok":
            found.append(
                Finding(
                    "warning",
                    "accelerator",
                    job.name,
                    verdict,
                    {
                        "tp": job.tensor_parallel,
                        "accelerator": acc["name"],
                        "domain": int(domain) if domain == domain else 1,
                        "link": acc["scaleup_link"] or acc["scaleup_kind"],
                    },
                )
            )
    return found


def _winner_findings(
    table: pd.DataFrame, pools: Pools, catalog: Catalog, rank_by: str
) -> list[Finding]:
    if table.empty:
        return []
    found = []
    key = "capex_usd" if rank_by == "capex" else "power_kw"
    kinds, names = table["kind"].tolist(), table["candidate"].tolist()
    winner, value, gpus = table["winner"].tolist(), table[key].to_numpy(), table["gpus"].tolist()
    for workload, members in _rows_by_workload(table).items():
        chosen = catalog.accelerator(getattr(pools, kinds[members[0]]).accelerator)["name"]
        win = next((i for i in members if winner[i]), None)
        if win is None:
            continue
        mine = next((i for i in members if names[i] == chosen), None)
        if names[win] != chosen and mine is not None and not math.isnan(value[mine]):
            found.append(
                Finding(
                    "info",
                    "accelerator",
                    str(workload),
                    f"winner_{rank_by}",
                    {
                        "winner": names[win],
                        "chosen": chosen,
                        "winner_value": value[win],
                        "chosen_value": value[mine],
                        "gpus": int(gpus[win]),
                    },
                )
            )
    return found


def _rows_by_workload(table: pd.DataFrame) -> dict[object, list[int]]:
    """Row positions of each workload, workloads in order of first appearance."""
    rows: dict[object, list[int]] = {}
    for i, workload in enumerate(table["workload"].tolist()):
        rows.setdefault(workload, []).append(i)
    return rows


def _unranked_findings(table: pd.DataFrame) -> list[Finding]:
    """One info finding per workload naming the candidates that could not be ranked."""
    if table.empty:
        return []
    # workload -> reason -> candidates, each in order of first appearance
    unranked: dict[object, dict[str, list[str]]] = {}
    for workload, name, reason in zip(
        table["workload"].tolist(),
        table["candidate"].tolist(),
        table["unranked"].tolist(),
        strict=True,
    ):
        if reason != "":
            unranked.setdefault(workload, {}).setdefault(reason, []).append(name)
    found = []
    for workload, by_reason in unranked.items():
        for reason, candidates in by_reason.items():
            found.append(
                Finding(
                    "info",
                    "accelerator",
                    str(workload),
                    f"unranked_{reason}",
                    {"candidates": ", ".join(candidates)},
                )
            )
    return found


STAGE = Stage(
    name="accelerator",
    sections=("workload", "pools", "accelerator"),
    needs=("training",),
    provides=("candidates", "compute_claims"),
    run=run_selection,
)
