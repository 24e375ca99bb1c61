"""The server stage entry: balance checks per pool server, and the pool table with
servers, spares, scheduler partitions and quotas (the fleet from
:func:`hubplan.pools.fleet_rows`)."""

from __future__ import annotations

import math

import pandas as pd

from ..accelerator import Selection, gpu_cost_usd
from ..core.catalog import Catalog
from ..core.errors import HubplanError
from ..core.findings import Finding, Severity
from ..core.prices import server_price_usd
from ..core.stage import Stage, StageResult
from ..pools import (
    FLEET_KEY,
    POOL_KINDS,
    Pools,
    PoolSpec,
    fleet_rows,
    fleet_shares,
    peak_servers,
)
from .balance import CHECK_COLUMNS, balance_checks, spare_servers
from .resolve import Server, resolve_server
from .section import ServerPolicy

POOL_COLUMNS = [
    "level",
    "pool",
    "policy",
    "partition",
    "accelerator",
    "generation",
    "server",
    "gpus_per_server",
    "gpus_required",
    "servers",
    "spare_servers",
    "total_servers",
    "total_gpus",
    "existing_gpus",
    "owned_servers",
    "new_servers",
    "server_price_usd",
    "price_basis",
    "capex_usd",
    "max_power_kw",
    "quota",
    "max_gpus_per_user",
]
#: Columns the fleet rows add up from their pools.
SUMMED = ["owned_servers", "new_servers", "existing_gpus", "capex_usd", "max_power_kw"]


def _existing_generation_findings(kind: str, spec: PoolSpec, catalog: Catalog) -> list[Finding]:
    acc = catalog.accelerator(spec.accelerator)
    found = []
    for existing in spec.existing_servers:
        row = catalog.server(existing.server)
        other = catalog.accelerator(row["accelerator"])
        if kind == "training" and other["generation"] != acc["generation"]:
            found.append(
                Finding(
                    "warning",
                    "server",
                    kind,
                    "mixed_generations",
                    {
                        "pool": kind,
                        "new": acc["name"],
                        "new_gen": acc["generation"],
                        "old": other["name"],
                        "old_gen": other["generation"],
                        "count": existing.count,
                    },
                )
            )
    return found


def _check_findings(kind: str, table: pd.DataFrame) -> list[Finding]:
    """A finding per failed or warned check, and one listing the checks not sourced."""
    found = []
    # Column by column: each value as the table holds it (a column mixing whole and
    # fractional numbers is a float column), without building a dict per row.
    col = {
        c: table[c].tolist()
        for c in ("server", "check", "status", "value", "required", "gpus", "ram_ratio")
    }
    for i, status in enumerate(col["status"]):
        if status in ("fail", "warn"):
            sev: Severity = "error" if status == "fail" else "warning"
            params = {k: col[k][i] for k in ("server", "value", "required", "gpus")}
            params["ratio"] = col["ram_ratio"][i]
            found.append(Finding(sev, "server", kind, f"check_{col['check'][i]}", params))
    unknown = [
        c for c, status in zip(col["check"], col["status"], strict=True) if status == "unknown"
    ]
    if unknown:
        params = {"server": col["server"][0], "checks": ", ".join(unknown)}
        found.append(Finding("info", "server", kind, "checks_unknown", params))
    return found


def _pool_needs(demand: pd.DataFrame) -> dict[str, dict]:
    """The workload stage's per-pool rows (``level`` = 'pool') by pool, as plain dicts of
    the columns the server stage reads."""
    col = {
        c: demand[c].tolist()
        for c in ("level", "pool", "policy", "gpus_required", "servers", "coincidence")
    }
    return {
        pool: {c: col[c][i] for c in ("policy", "gpus_required", "servers", "coincidence")}
        for i, (level, pool) in enumerate(zip(col["level"], col["pool"], strict=True))
        if level == "pool"
    }


def _known_sum(values: list) -> float:
    """Sum of the known (non-NaN) values, NaN when none is known; whole numbers add exactly,
    fractional ones with compensated (Kahan) summation, as pandas' groupby sum does.

    >>> _known_sum([2, 3]), _known_sum([math.nan, 1.5]), _known_sum([math.nan])
    (5, 1.5, nan)
    >>> _known_sum([1e16, 1.0, 1.0])  # plain float addition would lose both ones
    1.0000000000000002e+16
    """
    known = [v for v in values if v == v]
    if not known:
        return math.nan
    if all(isinstance(v, int) for v in known):
        return sum(known)
    total = compensation = 0.0
    for v in known:
        y = v - compensation
        t = total + y
        compensation = (t - total) - y
        if compensation != compensation:  # an infinite value: nothing to compensate
            compensation = 0.0
        total = t
    return total


def share_shared_fleet(rows: list[dict]) -> None:
    """Under the shared policy, give each pool its share of the one fleet
    (:func:`hubplan.pools.fleet_rows`): first the whole servers it holds at the fleet's
    peak (:func:`hubplan.pools.peak_servers`: a pool fully busy then keeps all it needs),
    then the servers left over in proportion to what each pool still lacks of its own
    need, and the fleet's spares in proportion to the pools' own spares (largest
    remainders, :func:`hubplan.pools.fleet_shares`). ``servers`` and ``spare_servers`` of
    each pool row become its share, so every later stage (IP plan, port map, racks,
    capex, scheduler) builds the fleet the plan buys, once; ``gpus_required`` stays the
    pool's own demand. Pools on another kind of server than the rest keep their own."""
    df = pd.DataFrame(rows)
    fleet = fleet_rows(df, "shared")
    members: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(*(df[k].tolist() for k in FLEET_KEY), strict=True)):
        members.setdefault(key, []).append(i)
    for key, servers, spares in zip(
        zip(*(fleet[k].tolist() for k in FLEET_KEY), strict=True),
        fleet["servers"].tolist(),
        fleet["spare_servers"].tolist(),
        strict=True,
    ):
        at = members[key]
        own = [rows[i]["servers"] for i in at]
        base = peak_servers(
            [rows[i]["gpus_required"] for i in at],
            [rows[i]["coincidence"] for i in at],
            own,
            int(key[1]),
        )
        lack = [o - b for o, b in zip(own, base, strict=True)]
        rest = fleet_shares(int(servers) - sum(base), lack if sum(lack) else own)
        extra = fleet_shares(int(spares), [rows[i]["spare_servers"] for i in at])
        for i, b, r, e in zip(at, base, rest, extra, strict=True):
            rows[i]["servers"], rows[i]["spare_servers"] = b + r, e


def _net_owned(rows: list[dict]) -> dict[str, int]:
    """Under the shared policy, servers a pool owns beyond its share serve the rest of
    its fleet: the other pools on the same kind of server buy that many fewer. Returns
    the pools whose surplus is still idle after that (the whole fleet owns too many),
    each with the servers its fleet needs."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in FLEET_KEY), []).append(r)
    idle: dict[str, int] = {}
    for members in groups.values():
        surplus = sum(max(r["owned_servers"] - r["total_servers"], 0) for r in members)
        for r in members:
            take = min(surplus, r["new_servers"])
            r["new_servers"] -= take
            surplus -= take
        if surplus:
            need = sum(r["total_servers"] for r in members)
            idle |= {r["pool"]: need for r in members if r["owned_servers"] > r["total_servers"]}
    return idle


def server_price(
    chosen, acc: pd.Series, gpus_per_server: int, platform_overhead: float
) -> tuple[float, str]:
    """Price of one server and where it comes from: the chosen server's catalogue (or
    custom) price; else the price catalogue's (``data/prices.csv``, a CNY row at the cost
    section's default rate: the cost stage re-prices it at the plan's own rate); with no
    priced server, the card price × (1 + platform overhead) × GPUs per server, said so in
    the basis; 'none' when neither is known. [USD]"""
    if chosen is not None:
        price, basis, _ = server_price_usd(chosen.name, chosen.price_usd)
        if basis != "none":
            return price, basis
    card = gpu_cost_usd(acc, platform_overhead)
    if not math.isnan(card):
        return card * gpus_per_server, "card_overhead"
    return math.nan, "none"


def _matching_server(kind: str, spec: PoolSpec, acc: pd.Series, catalog: Catalog) -> Server | None:
    """The pool's server (None when none is chosen); an error when it does not carry the
    pool's accelerator and GPUs per server."""
    chosen = resolve_server(spec, catalog)
    if chosen is not None:
        if chosen.accelerator != acc["name"] or chosen.gpus != spec.gpus_per_server:
            raise HubplanError(
                f"pools.{kind}: server {chosen.name!r} carries {chosen.gpus} × "
                f"{chosen.accelerator}, but the pool plans {spec.gpus_per_server} × "
                f"{acc['name']} per server; make accelerator and gpus_per_server match "
                "the server, or choose another server"
            )
    return chosen


def _pool_row(
    kind: str,
    spec: PoolSpec,
    need: dict,
    acc: pd.Series,
    chosen: Server | None,
    catalog: Catalog,
    platform_overhead: float,
) -> dict:
    """One pool's row: its server, own need, spares, owned servers and server price (with
    ``coincidence``, ``spare_ratio`` and ``server_kw`` for the steps after)."""
    existing = sum(e.count * int(catalog.server(e.server)["gpus"]) for e in spec.existing_servers)
    n = int(need["servers"])
    price, basis = server_price(chosen, acc, spec.gpus_per_server, platform_overhead)
    return {
        "level": "pool",
        "pool": kind,
        "policy": need["policy"],
        "partition": spec.partition or kind,
        "accelerator": acc["name"],
        "generation": acc["generation"],
        "server": chosen.name if chosen else "",
        "gpus_per_server": spec.gpus_per_server,
        "gpus_required": int(need["gpus_required"]),
        "servers": n,
        "spare_servers": spare_servers(n, spec.spare_ratio),
        "existing_gpus": existing,
        "owned_servers": sum(e.count for e in spec.existing_servers),
        "server_price_usd": price,
        "price_basis": basis,
        "quota": spec.quota,
        "max_gpus_per_user": spec.max_gpus_per_user,
        "coincidence": need["coincidence"],
        "spare_ratio": spec.spare_ratio,
        "server_kw": chosen.max_power_kw if chosen is not None else math.nan,
    }


def _add_totals(rows: list[dict]) -> None:
    """What each pool's servers (its share, under the shared policy) come to: total
    servers and GPUs, new servers to buy, maximum power (``server_kw`` is consumed)."""
    for r in rows:
        total = r["servers"] + r["spare_servers"]
        r.update(
            total_servers=total,
            total_gpus=total * r["gpus_per_server"],
            new_servers=max(total - r["owned_servers"], 0),
            max_power_kw=total * r.pop("server_kw"),
        )


def _ownership_findings(rows: list[dict], idle: dict[str, int], shared: bool) -> list[Finding]:
    """A warning per pool that owns more servers than it needs, and per pool whose share
    of a shared fleet works fewer GPUs than it requires."""
    findings = []
    for r in rows:
        if r["pool"] in idle:
            params = {"pool": r["pool"], "owned": r["owned_servers"], "need": idle[r["pool"]]}
            findings.append(Finding("warning", "server", r["pool"], "owned_exceeds_need", params))
        working = r["servers"] * r["gpus_per_server"]  # spares replace failed servers
        if shared and working < r["gpus_required"]:
            params = {"pool": r["pool"], "share": working, "required": r["gpus_required"]}
            findings.append(Finding("warning", "server", r["pool"], "shared_pool_borrows", params))
    return findings


def _with_fleet(pool_df: pd.DataFrame) -> pd.DataFrame:
    """The pool rows followed by the fleet rows (:func:`hubplan.pools.fleet_rows`), whose
    :data:`SUMMED` columns add up their pools' known values."""
    fleet = fleet_rows(pool_df, str(pool_df["policy"].iloc[0]))
    fleet["generation"] = fleet["accelerator"].map(
        dict(zip(pool_df["accelerator"], pool_df["generation"], strict=True))
    )
    # A sum over unknown prices or powers stays unknown, never 0.
    members: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(*(pool_df[k].tolist() for k in FLEET_KEY), strict=True)):
        members.setdefault(key, []).append(i)
    keys = list(zip(*(fleet[k].tolist() for k in FLEET_KEY), strict=True))
    for column in SUMMED:
        values = pool_df[column].tolist()
        fleet[column] = [_known_sum([values[i] for i in members[k]]) for k in keys]
    return pd.concat([pool_df, fleet], ignore_index=True)


def run_servers(
    *,
    catalog: Catalog,
    tables: dict[str, pd.DataFrame],
    pools: Pools,
    server: ServerPolicy,
    accelerator: Selection,
) -> StageResult:
    """Balance checks per pool server, and the pool table with servers and spares.

    Reads the workload stage's ``pool_demand`` table (its per-pool rows) and the overlap
    policy recorded there.
    """
    demand = tables["pool_demand"]
    findings: list[Finding] = []
    checks: list[pd.DataFrame] = []
    rows: list[dict] = []
    per_pool = _pool_needs(demand)
    for kind in POOL_KINDS:
        if kind not in per_pool:
            continue
        spec: PoolSpec = getattr(pools, kind)
        acc = catalog.accelerator(spec.accelerator)
        chosen = _matching_server(kind, spec, acc, catalog)
        if chosen is not None:
            table = balance_checks(
                kind, chosen, float(acc["vram_gb"]), server, training=kind == "training"
            )
            checks.append(table)
            findings += _check_findings(kind, table)
        else:
            findings.append(Finding("info", "server", kind, "no_server", {"pool": kind}))
        findings += _existing_generation_findings(kind, spec, catalog)
        rows.append(
            _pool_row(
                kind, spec, per_pool[kind], acc, chosen, catalog, accelerator.platform_overhead
            )
        )
    shared = bool(rows) and rows[0]["policy"] == "shared"
    if shared:
        share_shared_fleet(rows)
    _add_totals(rows)
    if shared:
        idle = _net_owned(rows)
    else:
        idle = {
            r["pool"]: r["total_servers"] for r in rows if r["owned_servers"] > r["total_servers"]
        }
    for r in rows:
        r["capex_usd"] = r["new_servers"] * r["server_price_usd"]
    findings += _ownership_findings(rows, idle, shared)
    pool_df = pd.DataFrame(rows)
    if not pool_df.empty:
        pool_df = _with_fleet(pool_df)
    pool_df = pool_df.reindex(columns=POOL_COLUMNS).fillna({"partition": "", "quota": ""})
    check_df = (
        pd.concat(checks, ignore_index=True) if checks else pd.DataFrame(columns=CHECK_COLUMNS)
    )
    return StageResult({"pools": pool_df, "server_checks": check_df}, tuple(findings))


STAGE = Stage(
    name="server",
    sections=("pools", "server", "accelerator"),
    needs=("pool_demand",),
    provides=("pools", "server_checks"),
    run=run_servers,
)
