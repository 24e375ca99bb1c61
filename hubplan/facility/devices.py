"""Every device the plan puts on the floor, one row each, with its power and size.

GPU servers come from the server stage's ``pools`` table and the server catalogue,
storage nodes from the storage stage's ``storage_nodes`` table, switches from the network
stage's ``switches`` table, and management servers from the facility section. Each row
says where its power figures come from (``power_source``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..network import (
    SWITCH_COLUMNS,
    management_server_names,
    server_names,
    storage_node_names,
    switch_number_width,
)
from ..pools import Pools
from ..server import resolve_server
from ..storage import STORAGE_NODE_COLUMNS
from .section import Facility

#: One row per device: what the packer, the power and the equipment tables read.
DEVICE_COLUMNS = [
    "device",
    "device_type",
    "model",
    "kind",
    "group",
    "rack_scale",
    "pool",
    "u_height",
    "max_power_kw",
    "typical_power_kw",
    "weight_kg",
    "price_usd",
    "power_source",
    "size_source",
    "typical_source",
]


#: Storage tiers in rack order.
TIERS = ("hot", "warm", "cold")
#: Network planes in rack order.
PLANES = ("compute", "storage", "inband", "bmc")


def empty_storage_nodes() -> pd.DataFrame:
    """A ``storage_nodes`` table with no rows (until the storage stage provides one)."""
    return pd.DataFrame(columns=STORAGE_NODE_COLUMNS)


def empty_switches() -> pd.DataFrame:
    """A ``switches`` table with no rows (until the network stage provides one)."""
    return pd.DataFrame(columns=SWITCH_COLUMNS)


def estimated_server_kw(gpus: int, gpu_tdp_w: float, gpu_share: float) -> float:
    """A server's maximum power estimated from its GPUs [kW].

    Parameters
    ----------
    gpus : int
        Accelerators in the server.
    gpu_tdp_w : float
        Board power of one accelerator [W].
    gpu_share : float
        GPUs' share of the server's maximum power.

    Notes
    -----
    P_server = gpus × TDP ÷ share.

    References
    ----------
    NVIDIA DGX H100/H200 User Guide: 10.2 kW maximum with 8 × 700 W H100 (share 0.55).

    Examples
    --------
    8 × L40S (350 W) at the DGX H100's share: 2.8 kW ÷ 0.55 ≈ 5.09 kW.

    >>> round(estimated_server_kw(8, 350, 0.55), 2)
    5.09
    """
    return gpus * gpu_tdp_w / 1000 / gpu_share


def _num(v: object) -> float:
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return f


def server_types(
    pools_table: pd.DataFrame, pools: Pools, catalog: Catalog, facility: Facility
) -> pd.DataFrame:
    """One row per pool: its server's model, count, size, power, weight and price.

    Figures the catalogue lacks are estimated (``power_source`` / ``size_source`` say so).
    """
    rows = []
    per_pool = pools_table[pools_table["level"] == "pool"]
    for rec in per_pool.to_dict(orient="records"):
        kind = str(rec["pool"])
        spec = getattr(pools, kind)
        chosen = resolve_server(spec, catalog)
        acc = catalog.accelerator(str(rec["accelerator"]))
        gpus = int(rec["gpus_per_server"])
        row_kind, units, weight = "server", math.nan, math.nan
        if chosen is not None and not chosen.custom:
            cat = catalog.server(chosen.name)
            row_kind, units, weight = (
                str(cat["kind"]),
                _num(cat["rack_units"]),
                _num(cat["weight_kg"]),
            )
        model = chosen.name if chosen is not None else f"{gpus} × {acc['name']} server"
        max_kw = chosen.max_power_kw if chosen is not None else math.nan
        power_source = "catalog" if chosen is not None and not chosen.custom else "scenario"
        if math.isnan(max_kw):
            max_kw = estimated_server_kw(
                gpus, _num(acc["tdp_w"]), facility.gpu_share_of_server_power
            )
            power_source = "estimate"
        if math.isnan(max_kw):  # no TDP either: planned at 0 kW, an error finding
            max_kw, power_source = 0.0, "unknown"
        rack_scale = row_kind == "rack"
        size_source = "catalog"
        if rack_scale:
            units, size_source = float(facility.rack_units - facility.reserved_units), "rack"
        elif math.isnan(units):
            units, size_source = float(facility.unknown_server_units), "estimate"
        rows.append(
            {
                "pool": kind,
                "partition": str(rec["partition"]) or kind,
                "model": model,
                "accelerator": str(acc["name"]),
                "gpus_per_server": gpus,
                "servers": int(rec["total_servers"]),
                "rack_scale": rack_scale,
                "u_height": units,
                "max_power_kw": max_kw,
                "typical_power_kw": max_kw * facility.server_typical_ratio,
                "weight_kg": weight,
                "price_usd": chosen.price_usd if chosen is not None else math.nan,
                "power_source": power_source,
                "size_source": size_source,
                "compute_nics": chosen.compute_nics if chosen is not None else math.nan,
                "compute_nic_gbps": chosen.compute_nic_gbps if chosen is not None else math.nan,
            }
        )
    return pd.DataFrame(rows)


def device_table(
    servers: pd.DataFrame, storage_nodes: pd.DataFrame, switches: pd.DataFrame, facility: Facility
) -> pd.DataFrame:
    """Every device, one row each, in rack-filling order.

    GPU servers are named ``<partition>-<nnnn>`` from 1 over the pool's total servers,
    storage nodes ``stor-<tier>-<role>-<nn>``, switches ``<plane>-<role>-<nn>`` from 01 per
    plane and role, management servers ``mgmt-<nn>``.

    >>> import pandas as pd
    >>> s = pd.DataFrame([{"pool": "training", "partition": "train", "model": "DGX H100",
    ...     "servers": 3, "rack_scale": False, "u_height": 8.0, "max_power_kw": 10.2,
    ...     "typical_power_kw": 8.16, "weight_kg": 130.45, "price_usd": 270000.0,
    ...     "power_source": "catalog"}])
    >>> from hubplan.facility.section import Facility
    >>> d = device_table(s, empty_storage_nodes(), empty_switches(),
    ...                  Facility(management_servers=1))
    >>> d["device"].tolist()
    ['train-0001', 'train-0002', 'train-0003', 'mgmt-01']
    """
    parts = []
    if not servers.empty:
        counts = servers["servers"].to_numpy(int)
        idx = np.repeat(np.arange(len(servers)), counts)
        # named as the network stage cables and addresses them
        names = np.concatenate(
            [server_names(str(p), int(n)).to_numpy(dtype=object)
             for p, n in zip(servers["partition"], counts, strict=True)]
        )  # fmt: skip
        s = servers.iloc[idx].reset_index(drop=True)
        parts.append(
            pd.DataFrame(
                {
                    "device": names,
                    "device_type": "gpu_server",
                    "model": s["model"],
                    "kind": "compute",
                    "group": "compute:" + s["partition"],
                    "rack_scale": s["rack_scale"].astype(bool),
                    "pool": s["pool"],
                    "u_height": s["u_height"],
                    "max_power_kw": s["max_power_kw"],
                    "typical_power_kw": s["typical_power_kw"],
                    "weight_kg": s["weight_kg"],
                    "price_usd": s["price_usd"],
                    "power_source": s["power_source"],
                    "size_source": (s["size_source"] if "size_source" in s.columns else "catalog"),
                    "typical_source": "ratio",
                }
            )
        )
    if not storage_nodes.empty:
        st = storage_nodes.assign(_t=storage_nodes["tier"].map({t: i for i, t in enumerate(TIERS)}))
        st = st.sort_values("_t", kind="stable").reset_index(drop=True)
        counts = st["nodes"].to_numpy(int)
        idx = np.repeat(np.arange(len(st)), counts)
        names = storage_node_names(st)["device"].to_numpy(dtype=object)  # as the network
        s = st.iloc[idx].reset_index(drop=True)
        parts.append(
            pd.DataFrame(
                {
                    "device": names,
                    "device_type": "storage_node",
                    "model": s["model"],
                    "kind": "storage",
                    "group": "storage",
                    "rack_scale": False,
                    "pool": "",
                    "u_height": s["rack_units"].astype(float),
                    "max_power_kw": s["max_power_kw"],
                    "typical_power_kw": s["typical_power_kw"],
                    "weight_kg": math.nan,
                    "price_usd": s["price_usd"],
                    "power_source": "storage_nodes",
                    "typical_source": "storage_nodes",
                }
            )
        )
    net = switches.copy()
    if not net.empty:
        net["unit"] = net["unit"].astype(str).replace({"nan": ""})
        # Number per plane and role in table order; rack by unit (shared last).
        net = net.reset_index(drop=True)
        net["_first"] = net.groupby(["plane", "role"], sort=False)["count"].cumsum() - net["count"]
        idx = np.repeat(np.arange(len(net)), net["count"].to_numpy(int))
        s = net.iloc[idx].reset_index(drop=True)
        within = np.arange(len(idx)) - np.repeat(
            np.cumsum(net["count"].to_numpy(int)) - net["count"].to_numpy(int),
            net["count"].to_numpy(int),
        )
        number = s["_first"].to_numpy(int) + within + 1
        # Zero-padded as the network stage names them in the port map and IP plan
        # (compute-leaf-01 … compute-leaf-99, compute-leaf-001 … from 100 switches on).
        total = net.groupby(["plane", "role"], sort=False)["count"].transform("sum")
        digits = total.map(switch_number_width).to_numpy(int)[idx]
        text = pd.Series(number).astype(str)
        for w in np.unique(digits):
            text[digits == w] = text[digits == w].str.zfill(int(w))
        names = s["plane"].astype(str) + "-" + s["role"].astype(str) + "-" + text
        unit_key = s["unit"].where(s["unit"] != "", "shared")
        parts.append(
            pd.DataFrame(
                {
                    "device": names,
                    "device_type": "switch",
                    "model": s["model"],
                    "kind": "network",
                    "group": "network:" + unit_key,
                    "rack_scale": False,
                    "pool": "",
                    "u_height": s["rack_units"].astype(float),
                    "max_power_kw": s["max_power_kw"],
                    "typical_power_kw": s["typical_power_kw"],
                    "weight_kg": math.nan,
                    "price_usd": s["price_usd"],
                    "power_source": "switches",
                    "typical_source": "switches",
                }
            )
        )
    if facility.management_servers:
        n = facility.management_servers
        parts.append(
            pd.DataFrame(
                {
                    "device": management_server_names(n),
                    "device_type": "management_server",
                    "model": facility.management_server_model,
                    "kind": "network",
                    "group": "network:shared",
                    "rack_scale": False,
                    "pool": "",
                    "u_height": float(facility.management_server_units),
                    "max_power_kw": facility.management_server_kw,
                    "typical_power_kw": facility.management_server_typical_kw,
                    "weight_kg": math.nan,
                    "price_usd": (
                        facility.management_server_price_usd
                        if facility.management_server_price_usd is not None
                        else math.nan
                    ),
                    "power_source": "scenario",
                    "size_source": "scenario",
                    "typical_source": "scenario",
                }
            )
        )
    if not parts:
        return pd.DataFrame(columns=DEVICE_COLUMNS)
    out = pd.concat(parts, ignore_index=True).reindex(columns=DEVICE_COLUMNS)
    for col in ("u_height", "max_power_kw", "typical_power_kw", "weight_kg", "price_usd"):
        out[col] = out[col].astype(float)
    out["rack_scale"] = out["rack_scale"].astype(bool)
    return estimate_missing(out, facility)


def estimate_missing(devices: pd.DataFrame, facility: Facility) -> pd.DataFrame:
    """Storage nodes and switches whose size or power the catalogue does not source get the
    section's stated stand-ins, marked ``estimate`` in ``power_source`` / ``size_source``
    (the stage names each such model in a warning); nothing is left at zero.

    Maximum from typical where only the typical draw is sourced (÷ server_typical_ratio),
    typical from maximum the other way round.
    """
    out = devices.copy()
    # GPU and management servers say where their size comes from; storage nodes and
    # switches are sized by the catalogue unless their height is missing.
    out["size_source"] = out["size_source"].where(
        out["size_source"].notna(), np.where(out["u_height"].isna(), "estimate", "catalog")
    )
    ratio = facility.server_typical_ratio
    for kind, units, kw in (("switch", facility.unknown_switch_units, facility.unknown_switch_kw),
                            ("storage_node", facility.unknown_storage_units,
                             facility.unknown_storage_kw)):  # fmt: skip
        mine = out["device_type"] == kind
        out.loc[mine & out["u_height"].isna(), "u_height"] = float(units)
        no_max = mine & out["max_power_kw"].isna()
        from_typical = no_max & out["typical_power_kw"].notna()
        out.loc[from_typical, "max_power_kw"] = out.loc[from_typical, "typical_power_kw"] / ratio
        out.loc[no_max & ~from_typical, "max_power_kw"] = kw
        out.loc[no_max, "power_source"] = "estimate"
        no_typ = mine & out["typical_power_kw"].isna()
        out.loc[no_typ, "typical_power_kw"] = out.loc[no_typ, "max_power_kw"] * ratio
        out.loc[no_typ, "typical_source"] = "ratio"
    return out
