"""Racks: pack devices into racks within power, height and weight limits; rows and names.

Each group of devices (one pool's GPU servers, the storage nodes, each scalable unit's
switches) fills its own racks, in order, next-fit: a rack takes devices until the next
would break its power cap, its usable height or its weight limit. A rack-scale system
(GB200 NVL72) is a rack of its own. Compute and storage racks then stand in rows; each
scalable unit's network racks stand at the end or the middle of a row. Racks are named
``<row><nn>`` (``A01``), rows ``A`` … ``Z``, ``AA`` ….
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .section import Facility

RACK_COLUMNS = [
    "rack",
    "row",
    "position",
    "kind",
    "group",
    "budget_kw",
    "power_cap_kw",
    "u_total",
    "u_usable",
    "u_used",
    "max_kg",
    "weight_kg",
    "devices",
]


def rack_power_cap_kw(supply_kw: float, headroom: float, inrush_factor: float = 1.0) -> float:
    """Nameplate power a rack may carry and keep its headroom [kW].

    Parameters
    ----------
    supply_kw : float
        The rack's supply (each feed's rating under A/B) [kW].
    headroom : float
        Least share of the supply left free.
    inrush_factor : float
        1 when power-on is staggered; the inrush multiple when every device may start at
        once and distribution is sized for it.

    Notes
    -----
    cap = supply × (1 − headroom) ÷ inrush_factor.

    References
    ----------
    Planning guide "智算技术与算力规划设计及部署实施方案" v2.0, §5.2 (≥ 15 % headroom) and §6.1
    (1.5 × nameplate).

    Examples
    --------
    A 40 kW rack at 15 %: 34 kW, so three 10.2 kW DGX H100 (30.6 kW) fit and four
    (40.8 kW) do not; sized for 1.5 × inrush, 22.67 kW: two.

    >>> rack_power_cap_kw(40, 0.15), round(rack_power_cap_kw(40, 0.15, 1.5), 2)
    (34.0, 22.67)
    """
    return supply_kw * (1 - headroom) / inrush_factor


def next_fit(
    kw: np.ndarray,
    units: np.ndarray,
    kg: np.ndarray,
    cap_kw: float,
    cap_units: float,
    cap_kg: float,
    max_devices: int | None = None,
) -> np.ndarray:
    """Rack number (from 0) of each device, filling racks in order (next-fit).

    A rack takes devices while its nameplate power, height and weight stay within the
    caps; a device that alone breaks a cap gets a rack to itself. The loop runs once per
    rack (a binary search on running sums), not once per device.

    Examples
    --------
    Four 10.2 kW, 8U servers under a 34 kW cap in 40 usable units: three, then one.

    >>> import numpy as np
    >>> next_fit(np.full(4, 10.2), np.full(4, 8.0), np.zeros(4), 34, 40, 880).tolist()
    [0, 0, 0, 1]
    >>> next_fit(np.full(4, 10.2), np.full(4, 8.0), np.zeros(4), 34, 40, 880, 2).tolist()
    [0, 0, 1, 1]
    """
    n = len(kw)
    out = np.empty(n, dtype=np.int64)
    sums = [np.concatenate([[0.0], np.cumsum(a)]) for a in (kw, units, kg)]
    caps = (cap_kw, cap_units, cap_kg)
    start, rack = 0, 0
    while start < n:
        end = n
        for cs, cap in zip(sums, caps, strict=True):
            # largest e with cs[e] - cs[start] <= cap (a small tolerance for float sums)
            end = min(end, int(np.searchsorted(cs, cs[start] + cap + 1e-9, side="right")) - 1)
        if max_devices is not None:
            end = min(end, start + max_devices)
        end = max(end, start + 1)
        out[start:end] = rack
        start, rack = end, rack + 1
    return out


def row_name(i: int) -> str:
    """Row letters from a 0-based index: A … Z, AA, AB ….

    >>> [row_name(i) for i in (0, 25, 26, 27)]
    ['A', 'Z', 'AA', 'AB']
    """
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        name = chr(65 + r) + name
    return name


def _group_order(group: str) -> tuple:
    kind, _, key = group.partition(":")
    rank = {"compute": 0, "storage": 1, "network": 2}[kind]
    if kind == "network":
        return (rank, 1, 0, "") if key == "shared" else (rank, 0, _as_number(key), key)
    return (rank, 0, 0, "")


def _as_number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("inf")


def place_devices(devices: pd.DataFrame, facility: Facility) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Put every device in exactly one rack and position.

    Returns ``(racks, layout)``: one row per rack (name, row, kind, budget, height and
    weight used) and one row per device (its rack, lowest unit ``u_position``, counted
    from the bottom, NetBox's convention).
    """
    f = facility
    usable = f.rack_units - f.reserved_units
    inrush = f.inrush_factor if f.inrush_policy == "sized" else 1.0
    rack_of = np.zeros(len(devices), dtype=np.int64)
    # Row positions of each group, found in one pass (a mask per group would compare every
    # device once per scalable unit: quadratic in GPUs).
    where = devices.groupby("group", sort=False).indices if len(devices) else {}
    groups = sorted(where, key=_group_order)
    parts = []
    next_rack = 0
    for group in groups:
        rows = where[group]
        d = devices.iloc[rows]
        kind = group.partition(":")[0]
        scale = d["rack_scale"].to_numpy(bool)
        budget = f.rack_budget_kw if kind == "compute" else f.support_rack_budget_kw
        if scale.any():  # rack-scale systems: one rack each
            local = np.arange(len(d))
            budget = f.rack_scale_budget_kw
        else:
            local = next_fit(
                d["max_power_kw"].to_numpy(float),
                d["u_height"].to_numpy(float),
                d["weight_kg"].fillna(0).to_numpy(float),
                rack_power_cap_kw(budget, f.power_headroom, inrush),
                usable,
                f.rack_max_kg,
                f.max_servers_per_rack if kind == "compute" else None,
            )
        rack_of[rows] = local + next_rack
        count = int(local.max()) + 1 if len(local) else 0
        parts.append(
            pd.DataFrame(
                {
                    "rack_id": np.arange(next_rack, next_rack + count),
                    "kind": kind,
                    "group": group,
                    "budget_kw": budget,
                    "power_cap_kw": rack_power_cap_kw(budget, f.power_headroom, inrush),
                    "u_total": f.rack_units,
                    "u_usable": f.rack_units if scale.any() else usable,
                }
            )
        )
        next_rack += count
    columns = ["rack_id", "kind", "group", "budget_kw", "power_cap_kw", "u_total", "u_usable"]
    racks = pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)
    racks = _name_racks(racks, f)
    layout = devices.assign(rack_id=rack_of)
    # lowest unit of each device: 1 + the height of the devices below it in its rack
    below = layout.groupby("rack_id", sort=False)["u_height"].cumsum() - layout["u_height"]
    layout["u_position"] = (below + 1).astype(int)
    names = racks.set_index("rack_id")["rack"]
    layout["rack"] = layout["rack_id"].map(names)
    used = layout.groupby("rack_id").agg(
        u_used=("u_height", "sum"), weight_kg=("weight_kg", "sum"), devices=("device", "size")
    )
    racks = racks.join(used, on="rack_id")
    racks["max_kg"] = f.rack_max_kg
    order = racks.sort_values(["row_index", "position"])["rack_id"]
    rank = pd.Series(np.arange(len(order)), index=order.to_numpy())
    racks = racks.sort_values(["row_index", "position"]).reset_index(drop=True)
    layout = (
        layout.assign(_r=layout["rack_id"].map(rank))
        .sort_values(["_r", "u_position"], kind="stable")
        .drop(columns=["_r"])
        .reset_index(drop=True)
    )
    return racks, layout


def _name_racks(racks: pd.DataFrame, f: Facility) -> pd.DataFrame:
    """Rows and names: compute then storage racks fill rows of ``racks_per_row``; unit
    ``k``'s network racks join row ``k``, at its end or middle; shared network racks join
    the first row, or, when there are more than half a row of them, rows of their own."""
    floor = racks[racks["kind"] != "network"]
    n_floor = len(floor)
    row_index = pd.Series(0, index=racks.index)
    row_index[floor.index] = np.arange(n_floor) // f.racks_per_row
    net = racks[racks["kind"] == "network"]
    net_groups = list(dict.fromkeys(net["group"]))
    units = [g for g in net_groups if g != "network:shared"]
    target = {g: i for i, g in enumerate(units)}
    target["network:shared"] = 0
    if not net.empty:
        row_index[net.index] = net["group"].map(target).to_numpy()
        shared = net[net["group"] == "network:shared"]
        if len(shared) > f.racks_per_row // 2:
            # A large plan's spines, cores and management planes fill a network room of
            # rows of their own, after the compute and storage rows: no row grows past what
            # its power and cooling were laid out for.
            floor_rows = max(-(-n_floor // f.racks_per_row), 1)
            row_index[shared.index] = floor_rows + np.arange(len(shared)) // f.racks_per_row
    racks = racks.assign(row_index=row_index.astype(int))
    # order in row: floor racks by id; network racks at the end or after the middle one
    in_row = racks.groupby("row_index").cumcount()
    floor_in_row = racks["kind"].ne("network").groupby(racks["row_index"]).transform("sum")
    if f.network_rack_position == "middle_of_row":
        split = (floor_in_row + 1) // 2
        is_net = racks["kind"] == "network"
        floor_pos = racks.loc[~is_net].groupby("row_index").cumcount()
        net_pos = racks.loc[is_net].groupby("row_index").cumcount()
        key = pd.Series(0.0, index=racks.index)
        key[~is_net] = np.where(floor_pos < split[~is_net], floor_pos, floor_pos + 1000)
        key[is_net] = split[is_net] - 0.5 + net_pos / 1000
        in_row = key.groupby(racks["row_index"]).rank(method="first").astype(int) - 1
    racks["position"] = in_row.to_numpy() + 1
    racks["row"] = racks["row_index"].map(row_name)
    racks["rack"] = racks["row"] + racks["position"].map("{:02d}".format)
    return racks
