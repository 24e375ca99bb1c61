"""Pool demand: GPUs each pool needs, and the fleet per the peak-overlap policy."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..pools import POOL_KINDS, Pools, PoolSpec, fleet_rows, server_name, whole_servers
from .section import Overlap

COLUMNS = [
    "level",
    "pool",
    "policy",
    "accelerator",
    "server",
    "gpus_per_server",
    "workloads",
    "gpus_required",
    "gpus",
    "servers",
    "coincidence",
]


def pool_table(
    required: dict[str, int],
    workloads: dict[str, list[str]],
    pools: Pools,
    overlap: Overlap,
    catalog: Catalog,
) -> pd.DataFrame:
    """Pools sized separately (``level`` = 'pool'), then the fleet per the overlap policy
    (``level`` = 'fleet', from :func:`hubplan.pools.fleet_rows`).

    ``required`` is what each pool's workloads occupy when they all run: for training the
    sum of the jobs' parallel layouts (TP × PP × a whole DP, in whole servers: each job's
    ``gpus``), never the bare GPU counts a layout cannot run on; the pool's ``gpus`` and
    ``servers`` round it up to whole servers, so its working GPUs hold every layout.
    ``workloads`` is display text (the jobs a pool carries); nothing parses it.
    """
    rows = []
    for kind in POOL_KINDS:
        if not workloads.get(kind):
            continue
        spec: PoolSpec = getattr(pools, kind)
        need = required.get(kind, 0)
        gpus = whole_servers(need, spec.gpus_per_server)
        rows.append(
            {
                "level": "pool",
                "pool": kind,
                "policy": overlap.policy,
                "accelerator": catalog.accelerator(spec.accelerator)["name"],
                "server": server_name(spec, catalog),
                "gpus_per_server": spec.gpus_per_server,
                "workloads": ", ".join(workloads[kind]),
                "gpus_required": need,
                "gpus": gpus,
                "servers": gpus // spec.gpus_per_server,
                "coincidence": getattr(overlap, f"{kind}_coincidence"),
            }
        )
    df = pd.DataFrame(rows, columns=COLUMNS)
    if df.empty:
        return df
    fleet = fleet_rows(df, overlap.policy).reindex(columns=COLUMNS)
    return pd.concat([df, fleet], ignore_index=True).fillna({"workloads": ""})
