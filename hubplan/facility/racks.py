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

from ..core.errors import HubplanError
from .section import STANDARD_GRAVITY_M_S2, Facility

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
    "floor_load_kpa",
    "devices",
]


def floor_load_kpa(weight_kg: np.ndarray | float, footprint_m2: float) -> np.ndarray | float:
    """Load a rack puts on the floor under it [kPa = kN/m²]: its weight × g over its
    footprint.

    Notes
    -----
    q = m × g_n / A, g_n = 9.806 65 m/s². Compared with the room's rated live load
    (TIA-942 Rated-3: 12 kPa). A caster carries about a third of a rack's weight (IBM site
    planning): the tile's point load is a separate check for the structural engineer.

    Examples
    --------
    A GB200 NVL72 rack, 1 360 kg (NVIDIA DGX GB200 user guide) on 0.6 × 1.2 m:
    1 360 × 9.806 65 / 0.72 / 1 000 = 18.52 kPa, over a 12 kPa floor; three DGX H100
    (3 × 130.45 kg) load 5.33 kPa.

    >>> round(floor_load_kpa(1360, 0.72), 2), round(floor_load_kpa(3 * 130.45, 0.72), 2)
    (18.52, 5.33)
    """
    load = np.asarray(weight_kg, dtype=float) * STANDARD_GRAVITY_M_S2 / footprint_m2 / 1000
    return load if load.ndim else float(load)


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

    Works on NumPy arrays: one pass to find each group's devices, :func:`next_fit` per
    group, and each table built once.
    """
    f = facility
    units = devices["u_height"].to_numpy(float)
    rack_of, per_group = _fill_racks(devices, f)
    if not per_group:
        raise HubplanError(
            "facility: no devices to rack (no servers, storage nodes, switches "
            "or management servers in the plan)"
        )
    n_racks = sum(g[0] for g in per_group)
    per_rack = _per_rack(per_group)
    row_index, position = rack_rows(per_rack["kind"], per_rack["group"], f)
    row_names = {i: row_name(i) for i in np.unique(row_index).tolist()}
    row = np.array([row_names[i] for i in row_index.tolist()], dtype=object)
    rack = row + np.array([f"{p:02d}" for p in position.tolist()], dtype=object)
    # lowest unit of each device: 1 + the height of the devices below it in its rack
    u_position = (_below_in_rack(rack_of, units, n_racks) + 1).astype(int)
    rank = np.empty(n_racks, dtype=np.int64)
    rank[np.lexsort((position, row_index))] = np.arange(n_racks)
    by_place = np.argsort(rank)
    racks = pd.DataFrame(
        {
            "rack_id": by_place,
            "kind": per_rack["kind"][by_place],
            "group": per_rack["group"][by_place],
            "budget_kw": per_rack["budget_kw"][by_place],
            "power_cap_kw": per_rack["power_cap_kw"][by_place],
            "u_total": np.full(n_racks, f.rack_units, dtype=np.int64),
            "u_usable": per_rack["u_usable"][by_place],
            "row_index": row_index[by_place],
            "position": position[by_place],
            "row": row[by_place],
            "rack": rack[by_place],
            **_rack_loads(rack_of, units, devices, per_rack["own_rack"], f, by_place),
        }
    )
    # devices rack by rack in row order, bottom up
    order = np.lexsort((u_position, rank[rack_of]))
    layout = devices.take(order).reset_index(drop=True)
    layout["rack_id"] = rack_of[order]
    layout["u_position"] = u_position[order]
    layout["rack"] = rack[rack_of[order]]
    return racks, layout


#: One group's racks: (count, kind, group, budget [kW], power cap [kW], usable units,
#: rack-scale).
_GroupRacks = tuple[int, str, str, float, float, int, bool]


def _fill_racks(devices: pd.DataFrame, f: Facility) -> tuple[np.ndarray, list[_GroupRacks]]:
    """Rack number (from 0) of each device, each group filling racks of its own (groups
    in :func:`_group_order`), and each group's racks."""
    usable = f.rack_units - f.reserved_units
    inrush = f.inrush_factor if f.inrush_policy == "sized" else 1.0
    rack_of = np.zeros(len(devices), dtype=np.int64)
    kw = devices["max_power_kw"].to_numpy(float)
    units = devices["u_height"].to_numpy(float)
    raw_kg = devices["weight_kg"].to_numpy(float)
    kg = np.where(np.isnan(raw_kg), 0.0, raw_kg)
    scale = devices["rack_scale"].to_numpy(bool)
    # Row positions of each group, found in one pass (a mask per group would compare every
    # device once per scalable unit: quadratic in GPUs); groups in order of appearance.
    codes, uniques = pd.factorize(devices["group"].to_numpy())
    found = uniques.tolist()
    valid = np.flatnonzero(codes >= 0)
    by_group = valid[np.argsort(codes[valid], kind="stable")]
    ends = np.cumsum(np.bincount(codes[valid], minlength=len(found)))
    per_group: list[_GroupRacks] = []
    next_rack = 0
    for g in sorted(range(len(found)), key=lambda g: _group_order(found[g])):
        group = found[g]
        rows = by_group[(ends[g - 1] if g else 0) : ends[g]]
        kind = group.partition(":")[0]
        budget = f.rack_budget_kw if kind == "compute" else f.support_rack_budget_kw
        rack_scale = bool(scale[rows].any())
        if rack_scale:  # rack-scale systems: one rack each
            local = np.arange(len(rows))
            budget = f.rack_scale_budget_kw
        else:
            local = next_fit(
                kw[rows],
                units[rows],
                kg[rows],
                rack_power_cap_kw(budget, f.power_headroom, inrush),
                usable,
                f.rack_weight_limit_kg,
                f.max_servers_per_rack if kind == "compute" else None,
            )
        rack_of[rows] = local + next_rack
        count = int(local.max()) + 1 if len(local) else 0
        cap = rack_power_cap_kw(budget, f.power_headroom, inrush)
        per_group.append(
            (count, kind, group, budget, cap, f.rack_units if rack_scale else usable, rack_scale)
        )
        next_rack += count
    return rack_of, per_group


def _per_rack(per_group: list[_GroupRacks]) -> dict[str, np.ndarray]:
    """Each group's kind, group, budget and cap [kW], usable units and whether it is a
    rack-scale system's own rack, repeated to one entry per rack (rack number order)."""
    count, kind, group, budget, cap, u_usable, own_rack = (
        np.array(c) for c in zip(*per_group, strict=True)
    )
    return {
        "kind": np.repeat(kind.astype(object), count),
        "group": np.repeat(group.astype(object), count),
        "budget_kw": np.repeat(budget.astype(float), count),
        "power_cap_kw": np.repeat(cap.astype(float), count),
        "u_usable": np.repeat(u_usable.astype(np.int64), count),
        "own_rack": np.repeat(own_rack.astype(bool), count),
    }


def _rack_loads(
    rack_of: np.ndarray,
    units: np.ndarray,
    devices: pd.DataFrame,
    own_rack: np.ndarray,
    f: Facility,
    by_place: np.ndarray,
) -> dict[str, np.ndarray]:
    """Per rack, in place order: units used, device weight [kg], devices, weight limit
    [kg] and floor load [kPa]."""
    n_racks = len(own_rack)
    raw_kg = devices["weight_kg"].to_numpy(float)
    used = np.bincount(rack_of, weights=units, minlength=n_racks)
    if not _whole(units):  # fractional heights: pandas' own (compensated) sums
        used = pd.Series(units).groupby(rack_of).sum().to_numpy()
    weight = pd.Series(raw_kg).groupby(rack_of).sum().to_numpy()  # compensated, as pandas
    # a rack-scale system's weight includes its own rack; other racks add the empty cabinet
    cabinet = np.where(own_rack, 0.0, f.rack_cabinet_kg)
    return {
        "u_used": used[by_place],
        "weight_kg": weight[by_place],
        "devices": np.bincount(rack_of, minlength=n_racks)[by_place],
        "max_kg": np.where(own_rack, f.floor_limit_kg, f.rack_weight_limit_kg)[by_place],
        "floor_load_kpa": floor_load_kpa((weight + cabinet)[by_place], f.rack_footprint_m2),
    }


def _whole(values: np.ndarray) -> bool:
    """True when every value is a whole number (sums of them are exact in floats)."""
    return bool(np.all(np.mod(values, 1) == 0))


def _below_in_rack(rack_of: np.ndarray, units: np.ndarray, n_racks: int) -> np.ndarray:
    """Height [U] of the devices before each device in its rack (devices in table order)."""
    if not _whole(units):  # fractional heights: pandas' own running sums
        s = pd.Series(units)
        return (s.groupby(rack_of, sort=False).cumsum() - s).to_numpy()
    order = np.argsort(rack_of, kind="stable")
    running = np.cumsum(units[order])
    before_rack = np.concatenate([[0.0], running])[
        np.cumsum(np.bincount(rack_of, minlength=n_racks)) - np.bincount(rack_of, minlength=n_racks)
    ]
    out = np.empty(len(units))
    out[order] = running - units[order] - before_rack[rack_of[order]]
    return out


def rack_rows(kind: np.ndarray, group: np.ndarray, f: Facility) -> tuple[np.ndarray, np.ndarray]:
    """Row (from 0) and position in the row (from 1) of each rack, racks in filling order.

    Compute then storage racks fill rows of ``racks_per_row``; unit ``k``'s network racks
    join row ``k``, at its end or middle; shared network racks join the first row, or,
    when there are more than half a row of them, rows of their own.

    >>> import numpy as np
    >>> from hubplan.facility.section import Facility
    >>> kind = np.array(["compute"] * 3 + ["network"] * 2, dtype=object)
    >>> group = np.array(["compute:train"] * 3 + ["network:1", "network:shared"], dtype=object)
    >>> [a.tolist() for a in rack_rows(kind, group, Facility(racks_per_row=2))]
    [[0, 0, 1, 0, 0], [1, 2, 1, 3, 4]]
    """
    n = len(kind)
    rpr = f.racks_per_row
    is_net = kind == "network"
    n_floor = int((~is_net).sum())
    row_index = np.zeros(n, dtype=np.int64)
    row_index[~is_net] = np.arange(n_floor) // rpr
    if is_net.any():
        net_groups = list(dict.fromkeys(group[is_net].tolist()))
        target = {g: i for i, g in enumerate(x for x in net_groups if x != "network:shared")}
        target["network:shared"] = 0
        row_index[is_net] = [target[g] for g in group[is_net].tolist()]
        shared = np.flatnonzero(is_net & (group == "network:shared"))
        if len(shared) > rpr // 2:
            # A large plan's spines, cores and management planes fill a network room of
            # rows of their own, after the compute and storage rows: no row grows past what
            # its power and cooling were laid out for.
            floor_rows = max(-(-n_floor // rpr), 1)
            row_index[shared] = floor_rows + np.arange(len(shared)) // rpr
    # order in row: floor racks by id; network racks at the end or after the middle one
    in_row = _cumcount(row_index)
    if f.network_rack_position == "middle_of_row":
        floor_in_row = np.bincount(row_index[~is_net], minlength=int(row_index.max()) + 1)
        split = ((floor_in_row + 1) // 2)[row_index]
        key = np.zeros(n)
        floor_pos = _cumcount(row_index[~is_net])
        key[~is_net] = np.where(floor_pos < split[~is_net], floor_pos, floor_pos + 1000)
        key[is_net] = split[is_net] - 0.5 + _cumcount(row_index[is_net]) / 1000
        order = np.lexsort((np.arange(n), key, row_index))
        in_row = np.empty(n, dtype=np.int64)
        in_row[order] = _cumcount(row_index[order])
    return row_index, in_row + 1


def _cumcount(keys: np.ndarray) -> np.ndarray:
    """How many earlier entries share each entry's key (``groupby(keys).cumcount()``)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    start = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[start, len(keys)])
    out = np.empty(len(keys), dtype=np.int64)
    out[order] = np.arange(len(keys)) - np.repeat(start, sizes)
    return out
