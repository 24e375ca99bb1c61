"""Every device the plan puts on the floor, one row each, with its power and size.

GPU servers come from the server stage's ``pools`` table and the server catalogue,
storage nodes from the storage stage's ``storage_nodes`` table, switches from the network
stage's ``switches`` table, and management servers from the facility section. Each row
says where its power figures come from (``power_source``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.paths import data_dir
from ..network import (
    SWITCH_COLUMNS,
    management_server_names,
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
    "nodes",
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
    per_pool = np.flatnonzero(pools_table["level"].to_numpy() == "pool")
    read = ("pool", "accelerator", "gpus_per_server", "partition", "total_servers")
    for values in zip(*(pools_table[c].to_numpy()[per_pool].tolist() for c in read), strict=True):
        rec = dict(zip(read, values, strict=True))
        kind = str(rec["pool"])
        spec = getattr(pools, kind)
        chosen = resolve_server(spec, catalog)
        acc = catalog.accelerator(str(rec["accelerator"]))
        gpus = int(rec["gpus_per_server"])
        row_kind, units, weight = "server", math.nan, math.nan
        if chosen is not None:
            row_kind, units, weight = chosen.kind, chosen.rack_units, chosen.weight_kg
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
        size_source = "scenario" if chosen is not None and chosen.custom else "catalog"
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
                "nodes": chosen.nodes if chosen is not None else 1,
                "compute_nics": chosen.compute_nics if chosen is not None else math.nan,
                "compute_nic_gbps": chosen.compute_nic_gbps if chosen is not None else math.nan,
            }
        )
    if not rows:
        return pd.DataFrame(rows)
    return pd.DataFrame({c: [r[c] for r in rows] for c in rows[0]})  # by column: quicker


#: Text columns of the device table (the rest are numbers, and ``rack_scale``).
_TEXT_COLUMNS = (
    "device_type",
    "model",
    "kind",
    "group",
    "pool",
    "power_source",
    "size_source",
    "typical_source",
)
#: Number columns of the device table [U, kW, kW, kg, USD].
_NUMBER_COLUMNS = ("u_height", "max_power_kw", "typical_power_kw", "weight_kg", "price_usd")


def numbered(prefix: np.ndarray, first: np.ndarray, count: np.ndarray, width: np.ndarray):
    """Device names ``<prefix><n>``: for each row, ``count`` names numbered from
    ``first + 1``, zero-padded to the row's ``width``; one object array, row after row.

    The same names as the network stage's ``server_names``, ``storage_node_names`` and
    switch names, made with NumPy's string functions (no pandas string ops on a handful of
    names).

    >>> numbered(np.array(["train-", "stor-hot-oss-"]), np.array([0, 0]), np.array([2, 1]),
    ...          np.array([4, 2])).tolist()
    ['train-0001', 'train-0002', 'stor-hot-oss-01']
    """
    count = np.asarray(count, dtype=np.int64)
    if not count.sum():
        return np.empty(0, dtype=object)
    starts = np.repeat(np.cumsum(count) - count, count)
    number = np.repeat(np.asarray(first, dtype=np.int64), count) + np.arange(len(starts))
    number = (number - starts + 1).astype(str)
    width = np.repeat(np.asarray(width, dtype=np.int64), count)
    padded = np.empty(len(number), dtype=object)
    for w in np.unique(width):
        at = width == w
        padded[at] = np.char.zfill(number[at], int(w)).astype(object)
    return np.repeat(np.asarray(prefix, dtype=object), count) + padded


def _text(v: object) -> object:
    """``str(v)`` as ``Series.astype(str)`` gives it: missing stays missing."""
    return v if isinstance(v, float) and math.isnan(v) else str(v)


@dataclass
class _SourceRows:
    """The device table's source rows before they are repeated to one row per device.

    ``columns`` holds one list per device-table column, one entry per source row (a server
    type, storage node type, switch type, or the management servers); ``counts`` how many
    devices each stands for; ``prefix``, ``first`` and ``width`` how the named rows (all
    but the management servers') number their devices (:func:`numbered`).
    """

    columns: dict[str, list] = field(
        default_factory=lambda: {
            c: [] for c in (*_TEXT_COLUMNS, *_NUMBER_COLUMNS, "rack_scale", "nodes")
        }
    )
    prefix: list[str] = field(default_factory=list)
    first: list[int] = field(default_factory=list)
    width: list[int] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)

    def add(
        self,
        n: int,
        device_type: str,
        kind: str,
        group: str,
        pool: object,
        scale: bool,
        numbers: Sequence[object],
        sources: Sequence[object],
        nodes: int = 1,
    ) -> None:
        """One source row standing for ``n`` devices."""
        rows = self.columns
        self.counts.append(n)
        rows["nodes"].append(int(nodes))
        rows["device_type"].append(device_type)
        rows["kind"].append(kind)
        rows["group"].append(group)
        rows["pool"].append(pool)
        rows["rack_scale"].append(scale)
        for col, v in zip(_NUMBER_COLUMNS, numbers, strict=True):
            rows[col].append(v)
        for col, v in zip(
            ("model", "power_source", "size_source", "typical_source"), sources, strict=True
        ):
            rows[col].append(v)


def device_table(
    servers: pd.DataFrame, storage_nodes: pd.DataFrame, switches: pd.DataFrame, facility: Facility
) -> pd.DataFrame:
    """Every device, one row each, in rack-filling order.

    ``nodes`` is the compute nodes a device holds (the 18 compute trays of a GB200 NVL72
    rack; 1 otherwise): they power on one after another
    (:func:`hubplan.facility.power.device_inrush_factor`).

    GPU servers are named ``<partition>-<nnnn>`` from 1 over the pool's total servers,
    storage nodes ``stor-<tier>-<role>-<nn>``, switches ``<plane>-<role>-<nn>`` from 01 per
    plane and role, management servers ``mgmt-<nn>``.

    The few source rows (server types, storage node types, switch types, the management
    servers) are read once into plain lists, completed (:func:`estimate_missing`) and
    repeated to one row per device with NumPy; the table is built once.

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
    source = _SourceRows()
    if not servers.empty:
        _add_servers(source, servers)
    if not storage_nodes.empty:
        _add_storage_nodes(source, storage_nodes)
    if not switches.empty:
        _add_switches(source, switches, facility)
    mgmt = facility.management_servers
    if mgmt:
        _add_management_servers(source, facility)
    if not source.counts:
        return pd.DataFrame(columns=DEVICE_COLUMNS)
    estimate_missing(source.columns, facility)
    return _one_row_per_device(source, mgmt)


def _add_servers(source: _SourceRows, servers: pd.DataFrame) -> None:
    """One source row per GPU server type, named as the network stage names them."""
    size = servers["size_source"] if "size_source" in servers.columns else None
    read = (
        "pool",
        "partition",
        "servers",
        "rack_scale",
        *_NUMBER_COLUMNS,
        "model",
        "power_source",
    )
    columns = zip(*(servers[c].to_numpy() for c in read), strict=True)
    per_system = servers["nodes"].tolist() if "nodes" in servers.columns else [1] * len(servers)
    for i, (pool, part, count, scale, *numbers, model, power) in enumerate(columns):
        n = int(count)
        # named as the network stage cables and addresses them (server_names)
        source.prefix.append(f"{part}-")
        source.first.append(0)
        source.width.append(max(4, len(str(n))))
        source.add(
            n,
            "gpu_server",
            "compute",
            "compute:" + part,
            pool,
            bool(scale),
            numbers,
            (model, power, "catalog" if size is None else size.iloc[i], "ratio"),
            per_system[i],
        )


def _add_storage_nodes(source: _SourceRows, storage_nodes: pd.DataFrame) -> None:
    """One source row per storage node type, in tier order."""
    rank: dict[object, int] = {t: i for i, t in enumerate(TIERS)}
    tiers = storage_nodes["tier"].to_numpy()
    # tier order, stable; tiers outside TIERS last (as sort_values puts NaN)
    order = sorted(range(len(tiers)), key=lambda i: (tiers[i] not in rank, rank.get(tiers[i], 0)))
    cols = {
        c: storage_nodes[c].to_numpy()[order]
        for c in (
            "tier",
            "role",
            "nodes",
            "model",
            "rack_units",
            "max_power_kw",
            "typical_power_kw",
            "price_usd",
        )
    }
    nodes = cols["nodes"].astype(int)
    # named as the network stage's storage_node_names: one width over all rows
    w = max(2, len(str(int(nodes.max()))))
    for j in range(len(order)):
        source.prefix.append(f"stor-{_text(cols['tier'][j])}-{_text(cols['role'][j])}-")
        source.first.append(0)
        source.width.append(w)
        source.add(
            int(nodes[j]),
            "storage_node",
            "storage",
            "storage",
            "",
            False,
            (
                float(cols["rack_units"][j]),
                cols["max_power_kw"][j],
                cols["typical_power_kw"][j],
                math.nan,
                cols["price_usd"][j],
            ),
            (cols["model"][j], "storage_nodes", math.nan, "storage_nodes"),
        )


def _add_switches(source: _SourceRows, switches: pd.DataFrame, facility: Facility) -> None:
    """One source row per switch type (and UFM appliance), numbered per plane and role."""
    cols = {
        c: switches[c].to_numpy()
        for c in (
            "plane",
            "role",
            "count",
            "unit",
            "model",
            "rack_units",
            "max_power_kw",
            "typical_power_kw",
            "price_usd",
        )
    }
    # Number per plane and role in table order; rack by unit (shared last). Zero-padded
    # as the network stage names them in the port map and IP plan (compute-leaf-01 …
    # compute-leaf-99, compute-leaf-001 … from 100 switches on).
    keys = [(_text(p), _text(r)) for p, r in zip(cols["plane"], cols["role"], strict=True)]
    total: dict[tuple, int] = {}
    for k, n in zip(keys, cols["count"], strict=True):
        total[k] = total.get(k, 0) + int(n)
    seen: dict[tuple, int] = {}
    for j, (plane, role) in enumerate(keys):
        n = int(cols["count"][j])
        unit = str(cols["unit"][j])
        unit = "" if unit == "nan" else unit
        source.prefix.append(f"{plane}-{role}-")
        source.first.append(seen.get((plane, role), 0))
        seen[(plane, role)] = source.first[-1] + n
        source.width.append(switch_number_width(total[(plane, role)]))
        group = "network:" + (unit if unit != "" else "shared")
        units, kw = float(cols["rack_units"][j]), cols["max_power_kw"][j]
        sources: tuple[object, ...] = (cols["model"][j], "switches", math.nan, "switches")
        # A UFM appliance is a server running the subnet manager, not a switch: its
        # own device type (equipment list, rack layout, power, NetBox role).
        kind = "ufm" if role == "ufm" else "switch"
        if role == "ufm" and _missing(units) and _missing(kw):
            # unrated, it takes the management server's height and power, marked as
            # estimates
            units, kw = float(facility.management_server_units), facility.management_server_kw
            sources = (cols["model"][j], "estimate", "estimate", "switches")
        source.add(
            n,
            kind,
            "network",
            group,
            "",
            False,
            (units, kw, cols["typical_power_kw"][j], math.nan, cols["price_usd"][j]),
            sources,
        )


def _add_management_servers(source: _SourceRows, facility: Facility) -> None:
    """The management servers' one source row (named apart: ``mgmt-<nn>``)."""
    f = facility
    price, kg = f.management_server_price_usd, f.management_server_weight_kg
    source.add(
        f.management_servers,
        "management_server",
        "network",
        "network:shared",
        "",
        False,
        (
            float(f.management_server_units),
            f.management_server_kw,
            f.management_server_typical_kw,
            math.nan if kg is None else kg,
            math.nan if price is None else price,
        ),
        (f.management_server_model, "scenario", "scenario", "scenario"),
    )


def _one_row_per_device(source: _SourceRows, mgmt: int) -> pd.DataFrame:
    """The device table: each source row repeated once per device, each device named."""
    rows = source.columns
    n_named = len(source.prefix)  # every row but the management servers'
    names = numbered(
        np.array(source.prefix, dtype=object),
        np.array(source.first),
        np.array(source.counts[:n_named]),
        np.array(source.width),
    )
    repeat = np.array(source.counts, dtype=np.int64)
    out: dict[str, object] = {}
    if mgmt:
        # management_server_names is an object Series: the column stays object
        out["device"] = pd.Series(
            np.concatenate([names, management_server_names(mgmt).to_numpy()]), dtype=object
        )
    else:
        out["device"] = names
    for col in DEVICE_COLUMNS[1:]:
        if col == "rack_scale":
            out[col] = np.repeat(np.array(rows[col], dtype=bool), repeat)
        elif col == "nodes":
            out[col] = np.repeat(np.array(rows[col], dtype=np.int64), repeat)
        elif col in _NUMBER_COLUMNS:
            out[col] = np.repeat(np.array(rows[col], dtype=float), repeat)
        else:
            out[col] = np.repeat(np.array(rows[col], dtype=object), repeat)
    return pd.DataFrame(out)


#: Columns of ``data/weights.csv``: sourced weights of devices whose catalogue has no weight
#: column (switches, storage nodes, appliances), by device kind and model.
WEIGHT_COLUMNS = ["kind", "model", "weight_kg", "source", "as_of", "confidence", "notes"]


def sheet_weights() -> pd.DataFrame:
    """Device weights from their sheets (``data/weights.csv``): kind, model, kg, source.

    >>> w = sheet_weights().set_index("model")
    >>> float(w.loc["SN2201", "weight_kg"])
    7.41
    """
    table = pd.read_csv(data_dir() / "weights.csv", dtype={"as_of": str}, keep_default_na=False)
    return table.astype({"weight_kg": float})[WEIGHT_COLUMNS]


def with_sheet_weights(devices: pd.DataFrame) -> pd.DataFrame:
    """The device table with each switch's and storage node's weight from
    :func:`sheet_weights` (matched by model, case-insensitive); GPU servers carry theirs
    from the server catalogue. A device no sheet weighs stays NaN: the facility stage
    names it (``weights_unknown``) and the floor check leaves it out."""
    table = sheet_weights()
    kinds = {"switch": "switch", "storage_node": "storage"}
    rows = zip(table["kind"], table["model"], table["weight_kg"], strict=True)
    known = {(k, str(m).lower()): w for k, m, w in rows}
    kg = devices["weight_kg"].to_numpy(float).copy()
    types, models = devices["device_type"].to_numpy(), devices["model"].to_numpy()
    for i in np.flatnonzero(np.isnan(kg) & np.isin(types, list(kinds))):
        kg[i] = known.get((kinds[types[i]], str(models[i]).lower()), math.nan)
    out = devices.copy()
    out["weight_kg"] = kg
    return out


def estimate_missing(rows: dict[str, list], facility: Facility) -> None:
    """Storage nodes and switches whose size or power the catalogue does not source get the
    section's stated stand-ins, marked ``estimate`` in ``power_source`` / ``size_source``
    (the stage names each such model in a warning); nothing is left at zero.

    ``rows`` holds one list per device-table column, one entry per device type (completed
    in place). Maximum from typical where only the typical draw is sourced
    (÷ server_typical_ratio), typical from maximum the other way round.
    """
    ratio = facility.server_typical_ratio
    stand_in = {
        "switch": (float(facility.unknown_switch_units), facility.unknown_switch_kw),
        "ufm": (float(facility.management_server_units), facility.management_server_kw),
        "storage_node": (float(facility.unknown_storage_units), facility.unknown_storage_kw),
    }
    for i, device_type in enumerate(rows["device_type"]):
        units = rows["u_height"][i]
        # GPU and management servers say where their size comes from; storage nodes and
        # switches are sized by the catalogue unless their height is missing.
        if _missing(rows["size_source"][i]):
            rows["size_source"][i] = "estimate" if _missing(units) else "catalog"
        if device_type not in stand_in:
            continue
        if _missing(units):
            rows["u_height"][i] = stand_in[device_type][0]
        if _missing(rows["max_power_kw"][i]):
            typical = rows["typical_power_kw"][i]
            rows["max_power_kw"][i] = (
                stand_in[device_type][1] if _missing(typical) else typical / ratio
            )
            rows["power_source"][i] = "estimate"
        if _missing(rows["typical_power_kw"][i]):
            rows["typical_power_kw"][i] = rows["max_power_kw"][i] * ratio
            rows["typical_source"][i] = "ratio"


def _missing(v: object) -> bool:
    """True for None and NaN (what ``isna`` finds in a float or text column)."""
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))
