"""Power: per-rack allocation against supply with headroom, the power-on sequence, and the
facility's power and energy (the cost stage prices it).

References
----------
.. [guide] "智算技术与算力规划设计及部署实施方案" v2.0 (practitioners' planning guide):
   §5.2 the power allocation table (rack, device power, total, supply headroom) with at
   least 15 % headroom; §6.1 distribution at 1.5 × nameplate and power-on in batches.
.. [NDRC2021] NDRC et al., implementation plan for the national computing hub nodes
   (Dec 2021): new large data centres PUE < 1.3, hub nodes < 1.25.
.. [tariff] China Briefing, "China's Industrial Power Rates: A Guide for Investors":
   average industrial rate US$0.088/kWh in 2024.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.units import HOURS_PER_YEAR
from .section import Facility

ALLOCATION_COLUMNS = [
    "rack",
    "row",
    "kind",
    "devices",
    "device_power_kw",
    "allocated_kw",
    "supply_kw",
    "headroom_kw",
    "headroom_pct",
    "required_headroom_pct",
    "status",
]
SEQUENCE_COLUMNS = [
    "step",
    "rack",
    "devices",
    "starting_kw",
    "running_before_kw",
    "peak_kw",
    "feed_kw",
    "status",
]


def headroom_pct(allocated_kw: float, supply_kw: float) -> float:
    """Share of the supply left free above the allocated power.

    Notes
    -----
    headroom = (supply − allocated) ÷ supply.

    Examples
    --------
    Four 10.2 kW servers in a 40 kW rack leave −2 % (none); three leave 23.5 %, more
    than the planning guide's 15 %:

    >>> round(headroom_pct(4 * 10.2, 40), 3), round(headroom_pct(3 * 10.2, 40), 3)
    (-0.02, 0.235)
    """
    return (supply_kw - allocated_kw) / supply_kw


def power_status(headroom: pd.Series, required: float) -> pd.Series:
    """``ok`` at or above the required headroom, ``low_headroom`` below it, ``over`` when
    the allocation exceeds the supply.

    >>> import pandas as pd
    >>> power_status(pd.Series([0.235, 0.05, -0.02]), 0.15).tolist()
    ['ok', 'low_headroom', 'over']
    """
    out = np.where(
        headroom < 0, "over", np.where(headroom + 1e-12 < required, "low_headroom", "ok")
    )
    return pd.Series(out, index=headroom.index)


def group_sums(codes: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """Sum of ``values`` per group ``0 … groups − 1`` (missing values skipped), with
    pandas' own compensated summation, so the figures are those ``groupby().sum()`` gives.

    ``values`` may be one column or a 2-D array of columns (one pandas call for all).

    >>> group_sums(np.array([0, 1, 0]), np.array([10.2, 1.0, 10.2]), 2).tolist()
    [20.4, 1.0]
    """
    out = pd.DataFrame(values).groupby(codes, sort=True).sum().to_numpy()
    if out.shape[0] != groups:  # groups with no rows sum to 0
        full = np.zeros((groups, out.shape[1]))
        full[np.unique(codes[codes >= 0])] = out
        out = full
    return out[:, 0] if np.ndim(values) == 1 else out


def power_allocation(racks: pd.DataFrame, layout: pd.DataFrame, facility: Facility) -> pd.DataFrame:
    """The power allocation table: per rack, its devices, their nameplate power, the power
    allocated, the supply, the headroom and a status.

    Allocated power is the nameplate sum, × ``inrush_factor`` when distribution is sized for
    simultaneous power-on (``inrush_policy = 'sized'``).
    """
    codes, names = pd.factorize(layout["rack"].to_numpy())
    at = pd.Index(names).get_indexer(racks["rack"].to_numpy())  # -1: a rack with no device
    count = np.bincount(codes[codes >= 0], minlength=len(names))
    power = group_sums(codes, layout["max_power_kw"].to_numpy(float), len(names))
    if (at >= 0).all():
        devices, device_power = count[at], power[at]
    else:  # as a join leaves them: missing
        devices = np.where(at >= 0, count[at], np.nan)
        device_power = np.where(at >= 0, power[at], np.nan)
    factor = facility.inrush_factor if facility.inrush_policy == "sized" else 1.0
    allocated = device_power * factor
    supply = racks["budget_kw"].to_numpy(float)
    headroom = supply - allocated
    share = headroom / supply
    out = pd.DataFrame(
        {
            "rack": racks["rack"],
            "row": racks["row"],
            "kind": racks["kind"],
            "devices": devices,
            "device_power_kw": device_power,
            "allocated_kw": allocated,
            "supply_kw": supply,
            "headroom_kw": headroom,
            "headroom_pct": share,
            "required_headroom_pct": facility.power_headroom,
            "status": power_status(pd.Series(share), facility.power_headroom).to_numpy(),
        },
        index=racks.index,
    )
    out.index = pd.RangeIndex(len(out))
    return out


def power_on_steps(
    rack: np.ndarray, kw: np.ndarray, feed_kw: np.ndarray, inrush_factor: float | np.ndarray
) -> np.ndarray:
    """Power-on step (from 1) of each device: groups per rack, started in order, such that
    the devices already running plus the starting group at ``inrush_factor`` × nameplate
    stay under the feed rating. All racks start their step k together. ``inrush_factor``
    is one figure or one per device (:func:`device_inrush_factor`).

    Devices are taken rack by rack in table order. The loop runs once per step, over all
    racks at once.

    Notes
    -----
    A group of devices s … e may start while P(s−1) + f × (P(e) − P(s−1)) ≤ feed, with P the
    running nameplate sum in the rack and f the inrush factor; a device that alone breaks
    it still starts alone (and its step is flagged).

    References
    ----------
    Planning guide v2.0 §6.1: power servers on in batches through the BMC or smart PDUs.

    Examples
    --------
    Three 10.2 kW servers on a 40 kW feed at 1.5 ×: the first two start together
    (15.3 + 15.3 = 30.6 ≤ 40), the third alone (20.4 running + 15.3 = 35.7 ≤ 40).

    >>> import numpy as np
    >>> power_on_steps(np.zeros(3, int), np.full(3, 10.2), np.full(3, 40.0), 1.5).tolist()
    [1, 1, 2]
    """
    n = len(kw)
    steps = np.zeros(n, dtype=np.int64)
    if n == 0:
        return steps
    rack = np.asarray(rack)
    # P(e): the running sum in the rack, as pandas computes it (compensated)
    running = pd.Series(kw).groupby(rack, sort=False).cumsum().to_numpy()
    before = running - kw  # P(e − 1)
    # rack by rack (stable), so each rack's devices are one run
    order = np.argsort(rack, kind="stable")
    r, run, bef, feed = rack[order], running[order], before[order], np.asarray(feed_kw)[order]
    inrush_factor = np.broadcast_to(np.asarray(inrush_factor, dtype=float), (n,))[order]
    first = np.r_[True, r[1:] != r[:-1]]
    segment = np.cumsum(first) - 1  # run number of each device
    seg_start = np.flatnonzero(first)
    index = np.arange(n)
    done = np.zeros(n, dtype=np.int64)
    step = 0
    while (done == 0).any():
        step += 1
        todo = done == 0
        # P(s − 1) of each rack's first device still off
        start_before = np.fmin.reduceat(np.where(todo, bef, np.nan), seg_start)
        start_before = start_before[segment]
        limit = start_before + (feed - start_before) / inrush_factor
        fits = todo & (run <= limit + 1e-9)
        # each rack's first device still off starts even when it alone breaks the limit
        first_todo = np.full(len(seg_start), n)
        np.minimum.at(first_todo, segment[todo], index[todo])
        lead = todo & (index == first_todo[segment])
        take = fits | lead
        # only a contiguous run from the lead: stop at the first device that does not fit
        stop = np.where(todo & ~take, index, -1)
        blocked = np.maximum.accumulate(stop) >= seg_start[segment]
        done[take & ~blocked] = step
    steps[order] = done
    return steps


def device_inrush_factor(factor: float, nodes: np.ndarray | int) -> np.ndarray:
    """Power-on draw of a device as a multiple of its nameplate, when its ``nodes`` compute
    nodes start one after another.

    Notes
    -----
    f_device = 1 + (f − 1) / nodes: while node k starts, k − 1 nodes run at nameplate and
    one draws f × its 1/nodes share, so the device's peak is P × (1 + (f − 1) / nodes). A
    rack-scale system's compute trays are started one by one through their BMCs, the
    batching the planning guide asks for (v2.0 §6.1), inside the rack.

    Examples
    --------
    A server (one node) keeps the 1.5 ×; a GB200 NVL72 rack of 18 trays peaks at
    132 kW × (1 + 0.5 / 18) = 135.7 kW, under its 150 kW feed (not 198 kW).

    >>> device_inrush_factor(1.5, np.array([1, 18])).round(4).tolist()
    [1.5, 1.0278]
    """
    at_least_one = np.maximum(np.asarray(nodes, dtype=float), 1.0)
    return 1.0 + (factor - 1.0) / at_least_one


def power_on_sequence(
    layout: pd.DataFrame, allocation: pd.DataFrame, facility: Facility
) -> tuple[pd.Series, pd.DataFrame]:
    """Each device's power-on step, and the sequence: per step and rack, the devices
    starting, their nameplate, what is already running, the peak (running + inrush ×
    starting) against the feed rating, and ``ok`` or ``over``.

    Under ``inrush_policy = 'sized'`` every device starts at step 1 (the distribution is
    sized for it).
    """
    f = facility
    rack = layout["rack"].to_numpy()
    factor = device_inrush_factor(
        f.inrush_factor, layout["nodes"].to_numpy() if "nodes" in layout.columns else 1
    )
    supply = allocation["supply_kw"].to_numpy(float)
    at = pd.Index(allocation["rack"].to_numpy()).get_indexer(rack)
    feed = np.where(at >= 0, supply[at], np.nan)
    kw = layout["max_power_kw"].to_numpy(float)
    codes = pd.factorize(rack)[0]
    if f.inrush_policy == "sized":
        steps = np.ones(len(layout), dtype=np.int64)
    else:
        steps = power_on_steps(codes, kw, feed, factor)
    # one row per rack and step, in order of appearance
    pair, starts = pd.factorize(codes * (int(steps.max(initial=0)) + 1) + steps)
    n = len(starts)
    rows = np.flatnonzero(codes >= 0)
    first_row = np.full(n, -1)
    first_row[pair[rows[::-1]]] = rows[::-1]
    starting = group_sums(pair, kw, n)
    surge = group_sums(pair, kw * factor, n)  # Σ inrush factor × nameplate of the starters
    # the feed: the first one known (groupby's "first" skips missing values)
    known = rows[~np.isnan(feed[rows])]
    feed_kw = np.full(n, np.nan)
    feed_kw[pair[known[::-1]]] = feed[known[::-1]]
    pair_rack = codes[first_row]
    running = pd.Series(starting).groupby(pair_rack, sort=False).cumsum().to_numpy()
    running_before = running - starting
    peak = running_before + surge
    step = steps[first_row]
    by_step = np.argsort(step, kind="stable")
    seq = pd.DataFrame(
        {
            "step": step[by_step],
            "rack": rack[first_row][by_step],
            "devices": np.bincount(pair[rows], minlength=n)[by_step],
            "starting_kw": starting[by_step],
            "running_before_kw": running_before[by_step],
            "peak_kw": peak[by_step],
            "feed_kw": feed_kw[by_step],
            "status": np.where(peak <= feed_kw + 1e-9, "ok", "over")[by_step].astype(object),
        }
    )
    return pd.Series(steps, index=layout.index), seq


def annual_energy_mwh(it_kw: np.ndarray | float, pue: float) -> np.ndarray | float:
    """Facility energy in a year at a steady IT draw [MWh] (one figure or an array).

    Notes
    -----
    E = P_IT × PUE × 8 760 h ÷ 1 000.

    Examples
    --------
    One DGX H100 drawing 8.16 kW at PUE 1.25: 8.16 × 1.25 × 8 760 / 1 000 = 89.35 MWh.

    >>> round(annual_energy_mwh(8.16, 1.25), 2)
    89.35
    """
    return it_kw * pue * HOURS_PER_YEAR / 1000


def facility_power(layout: pd.DataFrame, facility: Facility) -> pd.DataFrame:
    """Facility power: IT nameplate and typical draw, facility power at the PUE, annual
    energy (at the typical draw), by device type and in total. The cost stage prices the
    energy (``cost_opex``, line ``energy``) at ``cost.electricity_usd_per_kwh``."""
    codes, scopes = pd.factorize(layout["device_type"].to_numpy())
    n = len(scopes)
    devices = np.bincount(codes[codes >= 0], minlength=n)
    columns = ("max_power_kw", "typical_power_kw")
    sums = group_sums(codes, np.column_stack([layout[c].to_numpy(float) for c in columns]), n)
    # the total row: sums of the per-type sums, as pandas' Series.sum adds them
    nameplate = np.append(sums[:, 0], pd.Series(sums[:, 0]).sum())
    typical = np.append(sums[:, 1], pd.Series(sums[:, 1]).sum())
    pue = facility.pue
    annual_mwh = annual_energy_mwh(typical, pue)
    return pd.DataFrame(
        {
            "scope": np.append(np.asarray(scopes, dtype=object), "total"),
            "devices": np.append(devices, int(devices.sum())),
            "it_nameplate_kw": nameplate,
            "it_typical_kw": typical,
            "pue": pue,
            "facility_kw": nameplate * pue,
            "facility_typical_kw": typical * pue,
            "annual_mwh": annual_mwh,
        }
    )
