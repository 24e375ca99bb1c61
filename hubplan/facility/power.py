"""Power: per-rack allocation against supply with headroom, the power-on sequence, and the
facility's power, energy and electricity cost.

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

from .section import Facility

HOURS_PER_YEAR = 8760
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


def power_allocation(racks: pd.DataFrame, layout: pd.DataFrame, facility: Facility) -> pd.DataFrame:
    """The power allocation table: per rack, its devices, their nameplate power, the power
    allocated, the supply, the headroom and a status.

    Allocated power is the nameplate sum, × ``inrush_factor`` when distribution is sized for
    simultaneous power-on (``inrush_policy = 'sized'``).
    """
    per = layout.groupby("rack", sort=False).agg(
        devices=("device", "size"), device_power_kw=("max_power_kw", "sum")
    )
    out = racks[["rack", "row", "kind", "budget_kw"]].join(per, on="rack")
    factor = facility.inrush_factor if facility.inrush_policy == "sized" else 1.0
    out["allocated_kw"] = out["device_power_kw"] * factor
    out["supply_kw"] = out["budget_kw"]
    out["headroom_kw"] = out["supply_kw"] - out["allocated_kw"]
    out["headroom_pct"] = out["headroom_kw"] / out["supply_kw"]
    out["required_headroom_pct"] = facility.power_headroom
    out["status"] = power_status(out["headroom_pct"], facility.power_headroom)
    return out[ALLOCATION_COLUMNS].reset_index(drop=True)


def power_on_steps(
    rack: np.ndarray, kw: np.ndarray, feed_kw: np.ndarray, inrush_factor: float
) -> np.ndarray:
    """Power-on step (from 1) of each device: groups per rack, started in order, such that
    the devices already running plus the starting group at ``inrush_factor`` × nameplate
    stay under the feed rating. All racks start their step k together.

    Devices must be sorted by rack. The loop runs once per step, over all racks at once.

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
    frame = pd.DataFrame({"rack": rack, "kw": kw})
    running = frame.groupby("rack", sort=False)["kw"].cumsum().to_numpy()  # P(e)
    before = running - kw  # P(e − 1)
    step = 0
    while (steps == 0).any():
        step += 1
        todo = steps == 0
        # P(s − 1) of each rack's first device still off
        start_before = pd.Series(np.where(todo, before, np.nan)).groupby(rack).transform("min")
        start_before = start_before.to_numpy()
        limit = start_before + (feed_kw - start_before) / inrush_factor
        fits = todo & (running <= limit + 1e-9)
        # each rack's first device still off starts even when it alone breaks the limit
        lead = todo & (pd.Series(todo).groupby(rack).cumsum().to_numpy() == 1)
        take = fits | lead
        # only a contiguous run from the lead: stop at the first device that does not fit
        blocked = pd.Series(todo & ~take).groupby(rack).cummax().to_numpy()
        steps[take & ~blocked] = step
    return steps


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
    feed = layout["rack"].map(allocation.set_index("rack")["supply_kw"]).to_numpy(float)
    kw = layout["max_power_kw"].to_numpy(float)
    codes = pd.factorize(layout["rack"])[0]
    if f.inrush_policy == "sized":
        steps = np.ones(len(layout), dtype=np.int64)
    else:
        steps = power_on_steps(codes, kw, feed, f.inrush_factor)
    d = pd.DataFrame({"rack": layout["rack"].to_numpy(), "step": steps, "kw": kw, "feed": feed})
    seq = (
        d.groupby(["rack", "step"], sort=False)
        .agg(devices=("kw", "size"), starting_kw=("kw", "sum"), feed_kw=("feed", "first"))
        .reset_index()
    )
    seq["running_before_kw"] = (
        seq.groupby("rack", sort=False)["starting_kw"].cumsum() - seq["starting_kw"]
    )
    seq["peak_kw"] = seq["running_before_kw"] + f.inrush_factor * seq["starting_kw"]
    seq["status"] = np.where(seq["peak_kw"] <= seq["feed_kw"] + 1e-9, "ok", "over")
    seq = seq.sort_values(["step"], kind="stable")[SEQUENCE_COLUMNS].reset_index(drop=True)
    return pd.Series(steps, index=layout.index), seq


def annual_energy_mwh(it_kw: float, pue: float) -> float:
    """Facility energy in a year at a steady IT draw [MWh].

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
    energy (at the typical draw) and electricity cost, by device type and in total."""
    by = layout.groupby("device_type", sort=False).agg(
        devices=("device", "size"),
        it_nameplate_kw=("max_power_kw", "sum"),
        it_typical_kw=("typical_power_kw", "sum"),
    )
    by = by.reset_index().rename(columns={"device_type": "scope"})
    total = pd.DataFrame(
        [
            {
                "scope": "total",
                "devices": int(by["devices"].sum()),
                "it_nameplate_kw": by["it_nameplate_kw"].sum(),
                "it_typical_kw": by["it_typical_kw"].sum(),
            }
        ]
    )
    out = pd.concat([by, total], ignore_index=True)
    out["pue"] = facility.pue
    out["facility_kw"] = out["it_nameplate_kw"] * facility.pue
    out["facility_typical_kw"] = out["it_typical_kw"] * facility.pue
    out["annual_mwh"] = annual_energy_mwh(out["it_typical_kw"], facility.pue)
    out["electricity_usd_per_kwh"] = facility.electricity_usd_per_kwh
    out["annual_cost_usd"] = out["annual_mwh"] * 1000 * facility.electricity_usd_per_kwh
    return out
