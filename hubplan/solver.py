"""Solve for the cheapest plan: try every catalogue server for a pool, build each plan, and
rank the feasible ones by cost, saying why each other candidate lost.

This sits above the Plan (it builds many): each variant changes only the pool's hardware,
so the stage cache reruns the stages that hardware touches and reuses the rest.
"""

from __future__ import annotations

import math
from typing import Literal

import pandas as pd

from .core.catalog import Catalog, load_catalog
from .core.errors import HubplanError
from .plan import build_plan
from .scenario import Scenario

COLUMNS = [
    "server",
    "accelerator",
    "gpus_per_server",
    "feasible",
    "reason",
    "gpus",
    "servers",
    "days_to_finish",
    "capex_usd",
    "price_basis",
    "capex_unpriced_lines",
    "horizon_cost_usd",
    "cost_per_useful_gpu_hour_usd",
    "rank",
    # prices: a bill is ranked only when complete; its capex range
    "complete",
    "capex_low_usd",
    "capex_high_usd",
]


def _server_line_priced(capex: pd.DataFrame, pool: str) -> bool:
    """Whether the cost stage priced the pool's GPU servers: from the server catalogue, a
    card price, a quote or ``data/prices.csv`` (a server the server catalogue leaves
    unpriced, such as a CNY-listed one, is priced there). A pool that buys no server
    needs no price."""
    mine = capex[(capex["category"] == "gpu_servers") & capex["item"].str.startswith(f"{pool}: ")]
    return bool(mine["priced"].all())


def cheapest_plans(
    scenario: Scenario,
    catalog: Catalog | None = None,
    pool: Literal["training", "inference", "development"] = "training",
    by: Literal["capex", "horizon"] = "capex",
) -> pd.DataFrame:
    """Every catalogue server for ``pool``, built into a whole plan, cheapest feasible first.

    A candidate is feasible when its plan has no error finding (the model fits, the
    deadline and the rack power close, ...). Feasible candidates whose bill is complete
    (no unpriced capex line) are ranked by ``capex`` (hardware and fit-out) or
    ``horizon`` (capex plus the cost of running it for the cost section's horizon); the
    others carry the reason they lost in ``reason``: the first error finding's code,
    ``no_price`` (no server, card, quote or price-catalogue price), ``no_fabric_nics``
    (the catalogue's server row lists no compute NICs, so the plan has no fabric to
    price: a bill that looks cheap for what it leaves out) or ``incomplete_bill`` (some
    capex lines unpriced: the sum of the others is not a cost to rank on).

    Parameters
    ----------
    scenario : Scenario
    catalog : Catalog, optional
    pool : str
        Which pool's hardware to vary.
    by : {'capex', 'horizon'}
        The cost to rank on.

    Examples
    --------
    >>> import hubplan
    >>> ranked = cheapest_plans(hubplan.default_scenario())
    >>> ok = ranked["rank"].notna()
    >>> int(ok.sum()), bool(ranked.loc[ok, "complete"].all())  # complete bills only
    (19, True)
    >>> ranked.set_index("server").loc["Supermicro AS-8125GS-TNMR2 MI300X", "reason"]
    'no_fabric_nics'
    """
    catalog = catalog if catalog is not None else load_catalog()
    rows = []
    servers = catalog.servers[catalog.servers["kind"] == "server"]
    for srv in servers.to_dict(orient="records"):
        prefix = f"pools.{pool}"
        changes = {
            f"{prefix}.accelerator": srv["accelerator"],
            f"{prefix}.server": srv["name"],
            f"{prefix}.custom_server": None,
            f"{prefix}.gpus_per_server": int(srv["gpus"]),
        }
        row = {
            "server": srv["name"],
            "accelerator": srv["accelerator"],
            "gpus_per_server": int(srv["gpus"]),
        }
        try:
            plan = build_plan(scenario.with_changes(changes), catalog, until="cost")
        except HubplanError as exc:  # a figure the plan needs is not in the catalogue
            rows.append({**row, "feasible": False, "reason": f"input: {exc}"})
            continue
        summary = plan["cost_summary"].iloc[0]
        pools = plan["pools"]
        mine = pools[(pools["level"] == "pool") & (pools["pool"] == pool)]
        capex = float(summary["capex_usd"])
        years = float(summary["horizon_years"])
        row.update(
            complete=int(summary["capex_unpriced_lines"]) == 0,
            capex_low_usd=float(summary["capex_low_usd"]),
            capex_high_usd=float(summary["capex_high_usd"]),
            gpus=int(mine["total_gpus"].sum()),
            servers=int(mine["total_servers"].sum()),
            capex_usd=capex,
            price_basis=str(mine["price_basis"].iloc[0]),
            capex_unpriced_lines=int(summary["capex_unpriced_lines"]),
            horizon_cost_usd=capex + float(summary["opex_usd_per_year"]) * years,
            cost_per_useful_gpu_hour_usd=float(summary["cost_per_useful_gpu_hour_usd"]),
        )
        if pool == "training" and not plan["training"].empty:
            row["days_to_finish"] = float(plan["training"]["days_to_finish"].max())
        errors = plan.errors
        if not errors.empty:
            row.update(feasible=False, reason=str(errors["code"].iloc[0]))
        elif not _server_line_priced(plan["cost_capex"], pool) or math.isnan(capex):
            row.update(feasible=False, reason="no_price")
        elif not srv["compute_nics"] > 0:  # NaN or 0: the row lists no NICs
            row.update(feasible=True, reason="no_fabric_nics")
        elif not row["complete"]:
            row.update(feasible=True, reason="incomplete_bill")
        else:
            row.update(feasible=True, reason="")
        rows.append(row)
    out = pd.DataFrame(rows).reindex(columns=COLUMNS)
    key = "capex_usd" if by == "capex" else "horizon_cost_usd"
    ok = out["feasible"].fillna(False).astype(bool) & (out["reason"] == "")
    out.loc[ok, "rank"] = out.loc[ok, key].rank(method="first")
    best = out.loc[ok, key].min() if ok.any() else math.nan
    costlier = ok & (out[key] > best)
    out.loc[costlier, "reason"] = "costlier"
    return out.sort_values(["rank", "server"], na_position="last").reset_index(drop=True)
