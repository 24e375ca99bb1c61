"""A rack-scale system (GB200 NVL72) as the devices an operations team racks and names.

The packer places a rack-scale system as one unit in a rack of its own. The rack layout
the plan publishes (and the NetBox devices, the xlsx elevation) lists what is in that
rack instead, each in its own unit, bottom up, in the order of ``data/rack_systems.csv``:

- its compute trays, named as the network stage cables and addresses them
  (``<system>-tNN``, :func:`hubplan.network.steps.rack_node_names`), with the power of the
  catalogue's compute tray row (``kind`` = ``tray``, same accelerator);
- its NVLink switch trays (``<system>-nvswNN``) and power shelves (``<system>-psNN``);
- the system itself (``<system>``), a 0 U row without a unit position, carrying what is
  not in a tray: the rack's power less its compute trays' (NVLink switch trays, power
  conversion, fans), its weight (it includes its own rack) and its price.

So every figure of the rack (power, weight, price) is counted once, the power per rack
is the same sum as before, and every name the port map and IP plan use is a device.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import CatalogError
from ..core.paths import data_dir

#: Columns of ``data/rack_systems.csv``: the parts of a rack-scale system, bottom up
#: (``model`` is blank for compute trays: theirs is the catalogue's tray row).
PART_COLUMNS = [
    "system",
    "part",
    "model",
    "count",
    "u_height",
    "source",
    "as_of",
    "confidence",
    "notes",
]

#: Device type (``rack_layout.device_type``) and name suffix of each part.
PART_TYPES = {
    "compute_tray": ("gpu_server", "t"),
    "nvlink_switch_tray": ("nvlink_switch", "nvsw"),
    "power_shelf": ("power_shelf", "ps"),
}

#: Device type of the rack-scale system's own (0 U) row.
SYSTEM_TYPE = "rack_system"


def rack_system_parts() -> pd.DataFrame:
    """The parts of each rack-scale system, bottom up (``data/rack_systems.csv``).

    >>> parts = rack_system_parts()
    >>> nvl = parts[parts["system"] == "GB200 NVL72 rack"]
    >>> nvl.groupby("part")["count"].sum().to_dict()  # DGX GB200 user guide; BCM docs
    {'compute_tray': 18, 'nvlink_switch_tray': 9, 'power_shelf': 8}
    """
    table = pd.read_csv(
        data_dir() / "rack_systems.csv", dtype={"as_of": str}, keep_default_na=False
    )
    return table.astype({"count": int, "u_height": float})[PART_COLUMNS]


def compute_tray(system: str, catalog: Catalog) -> pd.Series:
    """The catalogue's compute tray (``kind`` = ``tray``) of the rack-scale system
    ``system``: the tray row with the same accelerator.

    >>> from hubplan.core.catalog import load_catalog
    >>> tray = compute_tray("GB200 NVL72 rack", load_catalog())
    >>> tray["name"], float(tray["max_power_kw"]), float(tray["rack_units"])
    ('DGX GB200 compute tray', 6.667, 1.0)
    """
    servers = catalog.servers
    acc = catalog.accelerator(catalog.server(system)["accelerator"])["name"]
    same = servers["accelerator"].map(lambda a: catalog.accelerator(a)["name"]) == acc
    trays = servers[(servers["kind"] == "tray") & same]
    if len(trays) != 1:
        raise CatalogError(
            f"data/servers.csv: rack-scale system {system!r} needs one compute "
            f"tray row (kind 'tray') with accelerator {acc!r}; found "
            f"{len(trays)}"
        )
    return trays.iloc[0]


def _parts_of(system: str, nodes: int, parts: pd.DataFrame, tray_u: float) -> pd.DataFrame:
    """The parts of ``system`` bottom up; a system the file does not list (a user's own
    catalogue row) gets its compute trays only, and the facility stage says so
    (``rack_parts_unlisted``)."""
    mine = parts[parts["system"] == system]
    if mine.empty:
        return pd.DataFrame(
            {
                "system": [system],
                "part": ["compute_tray"],
                "model": [""],
                "count": [nodes],
                "u_height": [tray_u],
            }
        )
    trays = int(mine.loc[mine["part"] == "compute_tray", "count"].sum())
    if trays != nodes:
        raise CatalogError(
            f"data/rack_systems.csv: {system!r} lists {trays} compute trays, "
            f"but data/servers.csv gives it {nodes} (its GPUs over its "
            f"tray's); the counts must agree"
        )
    unknown = sorted(set(mine["part"]) - set(PART_TYPES))
    if unknown:
        raise CatalogError(
            f"data/rack_systems.csv: part = {unknown[0]!r} for {system!r}; "
            f"allowed: {', '.join(PART_TYPES)}"
        )
    return mine


def expand_rack_scale(layout: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """The rack layout with each rack-scale system (``size_source`` = ``rack``) replaced by
    its parts (module docstring); other rows unchanged, in the same order.

    Each compute tray draws the catalogue tray's power; the system's own row carries the
    rest of the rack's: P_system − n × P_tray (GB200 NVL72: 132 − 18 × 6.667 = 11.994 kW,
    the NVLink switch trays and the power shelves' conversion losses, data/servers.csv).
    Switch trays and power shelves draw 0 kW in the table (their draw is in that rest).
    Typical power keeps the system's typical / maximum ratio. Every part takes the
    system's rack, feed, power-on step and pool; the parts' ``size_source`` is ``rack``.

    A system ``data/rack_systems.csv`` does not list is laid out as its compute trays
    alone (1 U each, bottom up), the rest in its own row.

    Raises
    ------
    CatalogError
        The trays' power exceeds the system's, or ``data/rack_systems.csv`` lists
        another number of compute trays than it has.
    """
    scale = (layout["size_source"] == "rack").to_numpy()
    if not scale.any():
        return layout
    parts = rack_system_parts()
    pieces: list[dict] = []
    columns = list(layout.columns)
    for i, row in enumerate(layout.to_dict("records")):
        if not scale[i]:
            pieces.append(row)
            continue
        pieces.extend(_system_rows(row, catalog, parts))
    out = pd.DataFrame(pieces, columns=columns)
    out["u_position"] = out["u_position"].astype("Int64")
    for col in columns:
        if col != "u_position" and layout[col].dtype != object:
            out[col] = out[col].astype(layout[col].dtype)
    return out


def _system_rows(row: dict, catalog: Catalog, parts: pd.DataFrame) -> list[dict]:
    """A rack-scale system's layout row as its parts' rows, bottom up, then its own 0 U
    row carrying the rest of the rack's power [kW]."""
    system = str(row["model"])
    tray = compute_tray(system, catalog)
    gpus = int(catalog.server(system)["gpus"])
    nodes = gpus // int(tray["gpus"])
    tray_kw = float(tray["max_power_kw"])
    # a tray row without a height: 1 U, the compute tray of the MGX rack (DGX GB200
    # user guide: '18x 1RU compute trays')
    tray_u = float(tray["rack_units"]) if tray["rack_units"] == tray["rack_units"] else 1.0
    rest_kw = float(row["max_power_kw"]) - nodes * tray_kw
    if rest_kw < -1e-9:
        raise CatalogError(
            f"data/servers.csv: {nodes} × {tray['name']!r} draw "
            f"{nodes * tray_kw:g} kW, more than max_power_kw = "
            f"{float(row['max_power_kw']):g} of {system!r}; the rack's "
            f"figure must include its trays"
        )
    ratio = (
        float(row["typical_power_kw"]) / float(row["max_power_kw"])
        if float(row["max_power_kw"]) > 0
        else 1.0
    )
    pieces = _part_rows(row, tray, _parts_of(system, nodes, parts, tray_u), tray_kw, ratio)
    pieces.append(
        row
        | {
            "device_type": SYSTEM_TYPE,
            "u_position": pd.NA,
            "u_height": 0.0,
            "max_power_kw": max(rest_kw, 0.0),
            "typical_power_kw": max(rest_kw, 0.0) * ratio,
            "power_source": "rack",
        }
    )
    return pieces


def _part_rows(
    row: dict, tray: pd.Series, mine: pd.DataFrame, tray_kw: float, ratio: float
) -> list[dict]:
    """One layout row per part of a rack-scale system (``mine``, bottom up), each in its
    unit from the system's, a compute tray drawing ``tray_kw`` [kW], the others 0 kW."""
    pieces: list[dict] = []
    unit = str(row["device"])
    position = int(row["u_position"])
    numbers = dict.fromkeys(PART_TYPES, 0)
    for part, model, count, height in zip(
        *(mine[c] for c in ("part", "model", "count", "u_height")), strict=True
    ):
        device_type, suffix = PART_TYPES[part]
        for _ in range(int(count)):
            numbers[part] += 1
            tray_part = part == "compute_tray"
            kw = tray_kw if tray_part else 0.0
            pieces.append(
                row
                | {
                    "device": f"{unit}-{suffix}{numbers[part]:02d}",
                    "device_type": device_type,
                    "model": str(tray["name"]) if tray_part else str(model),
                    "u_position": position,
                    "u_height": float(height),
                    "max_power_kw": kw,
                    "typical_power_kw": kw * ratio,
                    "power_source": "catalog" if tray_part else "rack",
                    "size_source": "rack",
                    "weight_kg": np.nan,
                    "price_usd": np.nan,
                }
            )
            position += int(height)
    return pieces
