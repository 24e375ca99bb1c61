"""The accelerator stage entry: the comparison table, the compute claims, and findings on
the interconnect fit of the pools and on cheaper (or cooler) candidates."""

from __future__ import annotations

import math

import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding
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
    tables_out = {"candidates": table, "compute_claims": compute_claims(names, catalog)}
    return StageResult(tables_out, tuple(findings))


def _plan_findings(workload: Workload, pools: Pools, catalog: Catalog,
                   training: pd.DataFrame) -> list[Finding]:  # fmt: skip
    """Interconnect fit of the pools as planned."""
    found = []
    acc = catalog.accelerator(pools.training.accelerator)
    servers = dict(zip(training.get("job", []), training.get("servers", []), strict=True))
    for job in workload.training:
        verdict = interconnect_fit(acc, job.tensor_parallel, int(servers.get(job.name, 1)))
        domain = acc["scaleup_domain_gpus"]
        if verdict != "ok":
            found.append(Finding("warning", "accelerator", job.name, verdict,
                                 {"tp": job.tensor_parallel, "accelerator": acc["name"],
                                  "domain": int(domain) if domain == domain else 1,
                                  "link": acc["scaleup_link"] or acc["scaleup_kind"]}))  # fmt: skip
    return found


def _winner_findings(table: pd.DataFrame, pools: Pools, catalog: Catalog,
                     rank_by: str) -> list[Finding]:  # fmt: skip
    if table.empty:
        return []
    found = []
    key = "capex_usd" if rank_by == "capex" else "power_kw"
    for workload, grp in table.groupby("workload", sort=False):
        kind = grp["kind"].iloc[0]
        chosen = catalog.accelerator(getattr(pools, kind).accelerator)["name"]
        win = grp[grp["winner"]]
        if win.empty:
            continue
        w = win.iloc[0]
        mine = grp[grp["candidate"] == chosen]
        if w["candidate"] != chosen and not mine.empty and not math.isnan(mine[key].iloc[0]):
            found.append(Finding("info", "accelerator", str(workload), f"winner_{rank_by}",
                                 {"winner": w["candidate"], "chosen": chosen,
                                  "winner_value": w[key], "chosen_value": mine[key].iloc[0],
                                  "gpus": int(w["gpus"])}))  # fmt: skip
    return found


def _unranked_findings(table: pd.DataFrame) -> list[Finding]:
    """One info finding per workload naming the candidates that could not be ranked."""
    if table.empty:
        return []
    found = []
    for workload, grp in table[table["unranked"] != ""].groupby("workload", sort=False):
        for reason, names in grp.groupby("unranked", sort=False)["candidate"]:
            found.append(Finding("info", "accelerator", str(workload), f"unranked_{reason}",
                                 {"candidates": ", ".join(names)}))  # fmt: skip
    return found


STAGE = Stage(
    name="accelerator",
    sections=("workload", "pools", "accelerator"),
    needs=("training",),
    provides=("candidates", "compute_claims"),
    run=run_selection,
)
