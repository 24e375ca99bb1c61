"""The compute inventory and the equipment list.

References
----------
.. [guide] "智算技术与算力规划设计及部署实施方案" v2.0 (planning guide): §2.3 the compute
   inventory (server, GPU model, per-card compute, total compute); §5.2 the equipment list
   (type, model, configuration, quantity, location) with pinned firmware and driver
   versions, since mismatched RDMA NIC firmware and drivers halve bandwidth (§4.2).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.catalog import PRECISION_COLUMN, Catalog
from .section import Facility

INVENTORY_COLUMNS = [
    "level",
    "pool",
    "server",
    "accelerator",
    "precision",
    "per_gpu_dense_tflops",
    "gpus_per_server",
    "servers",
    "gpus",
    "total_pflops",
]
EQUIPMENT_COLUMNS = [
    "type",
    "model",
    "configuration",
    "quantity",
    "location",
    "firmware_version",
    "driver_version",
    "unit_price_usd",
    "extended_price_usd",
]


def per_gpu_dense_tflops(accelerator: pd.Series, precision: str) -> float:
    """Dense tensor throughput of one card at a precision [TFLOPS or TOPS]; NaN when the
    catalogue does not give it."""
    stem = PRECISION_COLUMN[precision]
    col = f"{stem}_dense_tops" if stem == "int8" else f"{stem}_dense_tflops"
    value = accelerator.get(col, math.nan)
    return math.nan if value == "" else float(value)


def total_pflops(per_gpu_tflops: float, gpus: int) -> float:
    """Total dense compute of a pool [PFLOPS].

    Notes
    -----
    total = per-card dense TFLOPS × GPUs ÷ 1 000.

    Examples
    --------
    144 H100 SXM at 989.5 dense BF16 TFLOPS (NVIDIA H100 datasheet, half the sparse
    1 979): 142.5 PFLOPS.

    >>> round(total_pflops(989.5, 144), 1)
    142.5
    """
    return per_gpu_tflops * gpus / 1000


def compute_inventory(servers: pd.DataFrame, catalog: Catalog, facility: Facility) -> pd.DataFrame:
    """Per pool: server, GPU model, per-card dense compute at the stated precision, GPUs
    and total compute; and a ``total`` row."""
    rows = []
    for s in servers.to_dict(orient="records"):
        acc = catalog.accelerator(s["accelerator"])
        per = per_gpu_dense_tflops(acc, facility.compute_precision)
        gpus = int(s["servers"]) * int(s["gpus_per_server"])
        rows.append(
            {
                "level": "pool",
                "pool": s["pool"],
                "server": s["model"],
                "accelerator": s["accelerator"],
                "precision": facility.compute_precision,
                "per_gpu_dense_tflops": per,
                "gpus_per_server": int(s["gpus_per_server"]),
                "servers": int(s["servers"]),
                "gpus": gpus,
                "total_pflops": total_pflops(per, gpus),
            }
        )
    out = pd.DataFrame(rows, columns=INVENTORY_COLUMNS)
    if not out.empty:
        total = {
            "level": "total",
            "pool": "total",
            "server": "",
            "accelerator": "",
            "precision": facility.compute_precision,
            "per_gpu_dense_tflops": math.nan,
            "gpus_per_server": math.nan,
            "servers": int(out["servers"].sum()),
            "gpus": int(out["gpus"].sum()),
            "total_pflops": out["total_pflops"].sum(min_count=1),
        }
        out = pd.concat([out, pd.DataFrame([total])], ignore_index=True)
    return out


def rack_range(racks: pd.Series) -> str:
    """Racks as a location: the first and last rack, ``A01–A06`` (racks are named in
    filling order, so a group's racks are one run).

    >>> import pandas as pd
    >>> rack_range(pd.Series(["A01", "A02", "A03"])), rack_range(pd.Series(["A01", "B05"]))
    ('A01–A03', 'A01–B05')
    >>> rack_range(pd.Series(["C04"]))
    'C04'
    """
    names = list(dict.fromkeys(racks))
    return names[0] if len(names) == 1 else f"{names[0]}–{names[-1]}"


def equipment_list(
    layout: pd.DataFrame,
    servers: pd.DataFrame,
    storage_nodes: pd.DataFrame,
    switches: pd.DataFrame,
    facility: Facility,
) -> pd.DataFrame:
    """The equipment list: type, model, configuration, quantity, location (rack range),
    pinned firmware and driver versions (blank = not pinned), unit and extended price.

    GPU servers' compute NICs get rows of their own (type ``nic``): their firmware and
    driver are the versions that decide RDMA bandwidth.
    """
    keys = layout.groupby(["device_type", "model"], sort=False)
    base = keys.agg(
        quantity=("device", "size"),
        unit_price_usd=("price_usd", "first"),
        location=("rack", rack_range),
    ).reset_index()
    config: dict[tuple[str, str], str] = {}
    for s in servers.to_dict(orient="records"):
        text = f"{s['gpus_per_server']} × {s['accelerator']}"
        if not math.isnan(s["compute_nics"]) and not math.isnan(s["compute_nic_gbps"]):
            text += f"; {s['compute_nics']:g} × {s['compute_nic_gbps']:g} Gb/s compute NIC"
        config[("gpu_server", s["model"])] = text
    # One model can serve several tiers or planes (a QM9700 as compute leaf, compute spine
    # and storage leaf): its row names every use, in table order.
    uses: dict[tuple[str, str], dict[str, None]] = {}
    for s in storage_nodes.to_dict(orient="records"):
        key = ("storage_node", s["model"])
        uses.setdefault(key, {})[f"{s['tier']} tier {s['role']}"] = None
        config[key] = f"; {s['nic_ports']:g} × {s['nic_gbps']:g} Gb/s"
    for s in switches.to_dict(orient="records"):
        key = ("switch", s["model"])
        uses.setdefault(key, {})[f"{s['plane']} {s['role']}"] = None
        config[key] = f"; {s['ports']:g} × {s['port_gbps']:g} Gb/s"
    for key, names in uses.items():
        config[key] = ", ".join(names) + config[key]
    base["configuration"] = [
        config.get((t, m), "") for t, m in zip(base["device_type"], base["model"], strict=True)
    ]
    base = base.rename(columns={"device_type": "type"})
    nics = servers[servers["compute_nics"].fillna(0) > 0]
    nics = nics.groupby(["model", "compute_nics", "compute_nic_gbps"], sort=False, as_index=False)[
        "servers"
    ].sum()
    if not nics.empty:
        loc = layout[layout["device_type"] == "gpu_server"].groupby("model")["rack"].agg(rack_range)
        nic = pd.DataFrame(
            {
                "type": "nic",
                "model": "compute NIC " + nics["compute_nic_gbps"].map("{:g}".format) + " Gb/s",
                "configuration": (
                    "in "
                    + nics["model"]
                    + ", "
                    + nics["compute_nics"].map("{:g}".format)
                    + " per server"
                ),
                "quantity": (nics["servers"] * nics["compute_nics"]).astype(int),
                "location": nics["model"].map(loc).to_numpy(),
                "unit_price_usd": math.nan,
            }
        )
        nic = nic.groupby(["type", "model"], sort=False, as_index=False).agg(
            configuration=("configuration", "; ".join),
            quantity=("quantity", "sum"),
            location=("location", ", ".join),
            unit_price_usd=("unit_price_usd", "first"),
        )
        base = pd.concat([base, nic], ignore_index=True)
    pins = {p.model.lower(): p for p in facility.versions}
    base["firmware_version"] = [
        pins[m.lower()].firmware if m.lower() in pins else "" for m in base["model"]
    ]
    base["driver_version"] = [
        pins[m.lower()].driver if m.lower() in pins else "" for m in base["model"]
    ]
    base["extended_price_usd"] = base["quantity"] * base["unit_price_usd"]
    base["quantity"] = base["quantity"].astype(np.int64)
    return base[EQUIPMENT_COLUMNS]
