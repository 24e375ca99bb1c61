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
    "unit_weight_kg",
    "total_weight_kg",
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
    precision = facility.compute_precision
    read = ("pool", "model", "accelerator", "gpus_per_server", "servers")
    columns: dict[str, list] = {c: [] for c in INVENTORY_COLUMNS}
    for pool, model, accelerator, per_server, count in zip(
        *(servers[c].tolist() for c in read), strict=True
    ):
        per = per_gpu_dense_tflops(catalog.accelerator(accelerator), precision)
        gpus = int(count) * int(per_server)
        for col, v in (
            ("level", "pool"),
            ("pool", pool),
            ("server", model),
            ("accelerator", accelerator),
            ("precision", precision),
            ("per_gpu_dense_tflops", per),
            ("gpus_per_server", int(per_server)),
            ("servers", int(count)),
            ("gpus", gpus),
            ("total_pflops", total_pflops(per, gpus)),
        ):
            columns[col].append(v)
    if not columns["pool"]:
        return pd.DataFrame([], columns=INVENTORY_COLUMNS)
    total = {
        "level": "total",
        "pool": "total",
        "server": "",
        "accelerator": "",
        "precision": precision,
        "per_gpu_dense_tflops": math.nan,
        "gpus_per_server": math.nan,
        "servers": sum(columns["servers"]),
        "gpus": sum(columns["gpus"]),
        "total_pflops": pd.Series(columns["total_pflops"]).sum(min_count=1),
    }
    for col, v in total.items():
        columns[col].append(v)
    return pd.DataFrame(columns)


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


def group_codes(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group code of each row by its key columns, groups numbered in order of first
    appearance (``groupby(sort=False)``), and the first row of each group; rows with a
    missing key get -1, as groupby drops them."""
    code = np.zeros(len(keys[0]), dtype=np.int64)
    missing = np.zeros(len(keys[0]), dtype=bool)
    for key in keys:
        c, uniques = pd.factorize(key)
        missing |= c < 0
        code = code * (len(uniques) + 1) + c
    code = pd.factorize(np.where(missing, -1, code))[0]
    if missing.any():
        code = np.where(missing, -1, code - (code > code[missing][0]))
    rows = np.flatnonzero(code >= 0)
    first = np.full(int(code.max()) + 1 if len(rows) else 0, -1)
    first[code[rows[::-1]]] = rows[::-1]
    return code, first


def equipment_list(
    layout: pd.DataFrame,
    servers: pd.DataFrame,
    storage_nodes: pd.DataFrame,
    switches: pd.DataFrame,
    facility: Facility,
    server_nics: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The equipment list: type, model, configuration, quantity, location (rack range),
    pinned firmware and driver versions (blank = not pinned), unit and extended price.

    GPU servers' NIC ports get rows of their own (type ``nic``), one per plane and speed
    (``compute NIC 400 Gb/s``, ``storage NIC 400 Gb/s``, ``in-band NIC 100 Gb/s``): their
    firmware and driver are the versions that decide RDMA bandwidth. They are the
    network stage's ``server_nics``, the ports its port map cables, so every NIC port
    listed is cabled and every cabled server port is listed; without that table (the
    network stage not run) no NIC is listed.
    """
    columns = _device_rows(layout)
    config = _configurations(servers, storage_nodes, switches)
    columns["configuration"] = [
        config.get(k, "") for k in zip(columns["type"], columns["model"], strict=True)
    ]
    # NIC ports: one row per plane and speed, naming every server model that carries it
    where = {
        (t, m): loc
        for t, m, loc in zip(columns["type"], columns["model"], columns["location"], strict=True)
    }
    nic_rows = nic_equipment_rows(servers, server_nics, where)
    for nic_model, (configs, count, locs) in nic_rows.items():
        columns["type"].append("nic")
        columns["model"].append(nic_model)
        columns["configuration"].append("; ".join(configs))
        columns["quantity"].append(count)
        columns["location"].append(", ".join(dict.fromkeys(locs)))
        columns["unit_price_usd"].append(math.nan)
        columns["unit_weight_kg"].append(math.nan)  # inside the servers' weight
    return _equipment_frame(columns, facility)


def _device_rows(layout: pd.DataFrame) -> dict[str, list]:
    """One equipment row per device type and model, in order of appearance: its type,
    model, quantity, location, unit price [USD] and unit weight [kg], one list each."""
    device_type = layout["device_type"].to_numpy()
    model = layout["model"].to_numpy()
    rack = layout["rack"].to_numpy()
    price = layout["price_usd"].to_numpy(float)
    # one row per device type and model, in order of appearance
    code, first_row = group_codes(device_type, model)
    n = len(first_row)
    rows = np.flatnonzero(code >= 0)
    quantity = np.bincount(code[rows], minlength=n)
    # unit price: the first one given (groupby's "first" skips missing prices)
    priced = rows[~np.isnan(price[rows])]
    unit_price = np.full(n, math.nan)
    unit_price[code[priced[::-1]]] = price[priced[::-1]]
    # unit weight: the first one given, as the price [kg]
    kg = layout["weight_kg"].to_numpy(float)
    weighed = rows[~np.isnan(kg[rows])]
    unit_weight = np.full(n, math.nan)
    unit_weight[code[weighed[::-1]]] = kg[weighed[::-1]]
    # location: first rack, and the last rack the group reaches (rack_range)
    first_pair_row = group_codes(code, rack)[1]  # row where each (group, rack) starts
    first_pair_row = first_pair_row[code[first_pair_row] >= 0]
    last_row = np.full(n, -1)
    np.maximum.at(last_row, code[first_pair_row], first_pair_row)
    location = [
        rack[a] if rack[a] == rack[b] else f"{rack[a]}–{rack[b]}"
        for a, b in zip(first_row.tolist(), last_row.tolist(), strict=True)
    ]
    return {
        "type": device_type[first_row].tolist(),
        "model": model[first_row].tolist(),
        "quantity": quantity.tolist(),
        "location": location,
        "unit_price_usd": unit_price.tolist(),
        "unit_weight_kg": unit_weight.tolist(),
    }


def _configurations(
    servers: pd.DataFrame, storage_nodes: pd.DataFrame, switches: pd.DataFrame
) -> dict[tuple[str, str], str]:
    """The configuration of each (device type, model): a GPU server's GPUs and compute
    NICs; a storage node's or switch's uses (tiers, planes and roles) and ports."""
    config: dict[tuple[str, str], str] = {}
    read = ("model", "gpus_per_server", "accelerator", "compute_nics", "compute_nic_gbps")
    server_rows = list(zip(*(servers[c].tolist() for c in read), strict=True))
    for name, gpus, acc, nics, gbps in server_rows:
        text = f"{gpus} × {acc}"
        if not math.isnan(nics) and not math.isnan(gbps):
            text += f"; {nics:g} × {gbps:g} Gb/s compute NIC"
        config[("gpu_server", name)] = text
    # One model can serve several tiers or planes (a QM9700 as compute leaf, compute spine
    # and storage leaf): its row names every use, in table order.
    uses: dict[tuple[str, str], dict[str, None]] = {}
    for kind, table, read, use in (
        (
            "storage_node",
            storage_nodes,
            ("model", "tier", "role", "nic_ports", "nic_gbps"),
            "{} tier {}",
        ),
        ("switch", switches, ("model", "plane", "role", "ports", "port_gbps"), "{} {}"),
    ):
        for name, where, role, ports, gbps in zip(*(table[c].tolist() for c in read), strict=True):
            # a UFM appliance rides in the switches table (role ufm) but is its own type
            key = ("ufm" if role == "ufm" and kind == "switch" else kind, name)
            uses.setdefault(key, {})[use.format(where, role)] = None
            config[key] = f"; {ports:g} × {gbps:g} Gb/s"
    for key, names in uses.items():
        config[key] = ", ".join(names) + config[key]
    return config


def _equipment_frame(columns: dict[str, list], facility: Facility) -> pd.DataFrame:
    """The equipment list from its rows' columns, with each model's pinned versions and
    the extended price [USD] and total weight [kg]."""
    models = columns["model"]
    pins = {p.model.lower(): p for p in facility.versions}
    firmware = [pins[m.lower()].firmware if m.lower() in pins else "" for m in models]
    driver = [pins[m.lower()].driver if m.lower() in pins else "" for m in models]
    quantity_arr = np.array(columns["quantity"], dtype=np.int64)
    unit_price_arr = np.array(columns["unit_price_usd"], dtype=float)
    unit_weight_arr = np.array(columns["unit_weight_kg"], dtype=float)
    return pd.DataFrame(
        {
            "type": columns["type"],
            "model": models,
            "configuration": columns["configuration"],
            "quantity": quantity_arr,
            "location": columns["location"],
            "firmware_version": firmware,
            "driver_version": driver,
            "unit_price_usd": unit_price_arr,
            "extended_price_usd": quantity_arr * unit_price_arr,
            "unit_weight_kg": unit_weight_arr,
            "total_weight_kg": quantity_arr * unit_weight_arr,
        },
        columns=EQUIPMENT_COLUMNS,
    )


#: A NIC plane's name in an equipment-list model.
_NIC_PLANE = {"compute": "compute", "storage": "storage", "inband": "in-band"}


def nic_equipment_rows(
    servers: pd.DataFrame, server_nics: pd.DataFrame | None, where: dict
) -> dict[str, list]:
    """NIC rows of the equipment list from the network stage's cabled ports.

    Returns ``{model: [configurations, quantity, locations]}``, model
    ``<plane> NIC <gbps> Gb/s`` (``… NIC, speed unknown`` when the catalogue has no
    speed), one configuration per server model (``in DGX H100, 8 per server``).

    >>> s = pd.DataFrame({"pool": ["training"], "model": ["DGX H100"]})
    >>> n = pd.DataFrame({"pool": ["training"], "plane": ["compute"], "nic_gbps": [400.0],
    ...                   "ports_per_server": [8], "ports": [144]})
    >>> nic_equipment_rows(s, n, {("gpu_server", "DGX H100"): "A01–A06"})
    {'compute NIC 400 Gb/s': [['in DGX H100, 8 per server'], 144, ['A01–A06']]}
    """
    rows: dict[str, list] = {}
    if server_nics is None or server_nics.empty:
        return rows
    model_of = dict(zip(servers["pool"], servers["model"], strict=True))
    for pool, plane, gbps, per, ports in zip(
        *(
            server_nics[c].tolist()
            for c in ("pool", "plane", "nic_gbps", "ports_per_server", "ports")
        ),
        strict=True,
    ):
        name = _NIC_PLANE.get(plane, plane)
        nic = f"{name} NIC, speed unknown" if _missing(gbps) else f"{name} NIC {gbps:g} Gb/s"
        model = model_of.get(pool, pool)
        row = rows.setdefault(nic, [[], 0, []])
        text = f"in {model}, {per:g} per server"
        if text not in row[0]:
            row[0].append(text)
        row[1] += int(ports)
        row[2].append(where.get(("gpu_server", model), ""))
    return rows


def _missing(v: object) -> bool:
    """True for None and NaN (what groupby drops from its keys)."""
    return v is None or (isinstance(v, float) and math.isnan(v))
