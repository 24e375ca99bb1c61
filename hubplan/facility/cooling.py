"""Cooling: heat per rack in kW and BTU/h, the cooling mode its density needs, and the
capacity and headroom per rack and per row.

References
----------
.. [NIST811] NIST SP 811 (2008), Appendix B.8: 1 BTU_IT/h = 0.293 071 1 W, so
   1 kW = 3 412.14 BTU/h. NVIDIA's DGX H100 user guide lists 38 557 BTU/h of heat beside
   its 10.2 kW maximum (11.3 kW worth); hubplan converts the nameplate kW it plans with.
.. [density] Rack density by cooling method, one sourced range per mode and variant in
   ``data/cooling.csv`` (:func:`cooling_ranges`): air 10-20 kW a rack; rear-door heat
   exchangers 14-35 kW passive and 35-75 kW fan-assisted (HPE/Motivair ChilledDoor
   QuickSpecs; IBM's passive door removes 55-85 % of a 20-32 kW cabinet); direct liquid
   cooling 80-150 kW (NVIDIA's DGX SuperPOD GB200 RA budgets 150 kW a rack).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.paths import data_dir
from .power import group_sums
from .section import COOLING_MODES, Facility

#: BTU/h per kW: 1 BTU_IT/h = 0.29307107 W (NIST SP 811, Appendix B).
BTU_H_PER_KW = 1000 / 0.29307107
COOLING_COLUMNS = [
    "level",
    "rack",
    "row",
    "kind",
    "heat_kw",
    "heat_btu_h",
    "cooling_mode",
    "cooling_kw",
    "cooling_headroom_kw",
    "cooling_headroom_pct",
    "available",
    "status",
]


def heat_btu_h(heat_kw: np.ndarray | float) -> np.ndarray | float:
    """Heat in BTU per hour from kW (one figure or an array of them).

    Examples
    --------
    A 40 kW rack: 40 × 3 412.14 = 136 486 BTU/h.

    >>> round(heat_btu_h(40))
    136486
    """
    return heat_kw * BTU_H_PER_KW


#: Columns of ``data/cooling.csv``: one sourced per-rack range per cooling mode and variant.
RANGE_COLUMNS = ["mode", "variant", "low_kw", "high_kw", "source", "as_of", "confidence", "notes"]


def cooling_ranges() -> pd.DataFrame:
    """Heat per rack each cooling mode removes, from vendor sheets and surveys: one row per
    mode and variant with ``low_kw`` … ``high_kw`` and its source (``data/cooling.csv``).

    The section's ``air_max_kw``, ``rear_door_max_kw`` and ``liquid_max_kw`` defaults lie
    inside their mode's ranges (tests/test_facility_cooling.py).

    >>> r = cooling_ranges().set_index(["mode", "variant"])
    >>> float(r.loc[("rear_door", "passive"), "high_kw"]), float(r.loc[("liquid",
    ...     "direct to chip"), "high_kw"])
    (35.0, 150.0)
    """
    table = pd.read_csv(data_dir() / "cooling.csv", dtype={"as_of": str}, keep_default_na=False)
    return table.astype({"low_kw": float, "high_kw": float})[RANGE_COLUMNS]


def mode_capacities(facility: Facility) -> dict[str, float]:
    """Heat each cooling mode removes per rack [kW], least capable first."""
    return {
        "air": facility.air_max_kw,
        "rear_door": facility.rear_door_max_kw,
        "liquid": facility.liquid_max_kw,
    }


def cooling_mode(heat_kw: pd.Series, facility: Facility) -> pd.Series:
    """The least capable mode that removes a rack's heat and keeps the cooling headroom;
    when none keeps it, the least that removes the heat at all (its status then says
    ``low_headroom``, as the power allocation does); ``beyond`` when even liquid cooling
    does not.

    Notes
    -----
    mode = first m in (air, rear_door, liquid) with heat ≤ capacity_m × (1 − headroom),
    else first m with heat ≤ capacity_m.

    Examples
    --------
    With 15 / 40 / 150 kW and 15 % headroom the limits are 12.75 / 34 / 127.5 kW: 12 kW is
    air, 30.6 kW (three DGX H100) a rear door, 100 kW liquid, 132 kW (a GB200 NVL72 rack)
    liquid with 12 % headroom, 160 kW beyond.

    >>> import pandas as pd
    >>> from hubplan.facility.section import Facility
    >>> cooling_mode(pd.Series([12, 30.6, 100, 132, 160]), Facility()).tolist()
    ['air', 'rear_door', 'liquid', 'liquid', 'beyond']
    """
    heat = pd.Series(heat_kw)
    return pd.Series(_modes(heat.to_numpy(float), facility), index=heat.index, dtype=object)


def _modes(heat_kw: np.ndarray, facility: Facility) -> np.ndarray:
    """:func:`cooling_mode` on an array: an object array of mode names."""
    caps = mode_capacities(facility)
    out = np.full(len(heat_kw), "beyond", dtype=object)
    for mode in reversed(COOLING_MODES):  # removes the heat at all
        out[heat_kw <= caps[mode] + 1e-9] = mode
    for mode in reversed(COOLING_MODES):  # ... and keeps the headroom: preferred
        out[heat_kw <= caps[mode] * (1 - facility.cooling_headroom) + 1e-9] = mode
    return out


def cooling_table(
    racks: pd.DataFrame, allocation: pd.DataFrame, facility: Facility
) -> pd.DataFrame:
    """Heat, cooling mode, capacity and headroom per rack, and per row (``level``).

    A rack's heat is its devices' nameplate power: all the electrical power a rack draws
    ends as heat in the room. A rack whose mode the room lacks has status ``missing``;
    one whose mode removes its heat with less than the cooling headroom ``low_headroom``
    (a warning, as for power); one beyond every mode ``over``.
    """
    caps = mode_capacities(facility)
    rack = racks["rack"].to_numpy()
    row = racks["row"].to_numpy()
    n = len(rack)
    # a rack's heat is its devices' nameplate power (the allocation's device power)
    at = pd.Index(allocation["rack"].to_numpy()).get_indexer(rack)
    power = allocation["device_power_kw"].to_numpy(float)
    heat = np.where(at >= 0, power[at], np.nan)
    mode = _modes(heat, facility)
    cooling = np.array([caps.get(m, facility.liquid_max_kw) for m in mode.tolist()], dtype=float)
    available = np.isin(mode, list(facility.cooling_modes))
    # per row, in order of appearance: heat and capacity summed, available if every rack is
    codes, rows = pd.factorize(row)
    n_rows = len(rows)
    sums = group_sums(codes, np.column_stack([heat, cooling]), n_rows)
    all_available = np.bincount(codes[~available & (codes >= 0)], minlength=n_rows) == 0
    heat = np.concatenate([heat, sums[:, 0]])
    cooling = np.concatenate([cooling, sums[:, 1]])
    mode = np.concatenate([mode, np.full(n_rows, "", dtype=object)])
    available = np.concatenate([available, all_available])
    headroom = cooling - heat
    share = headroom / cooling
    ok = share + 1e-12 >= facility.cooling_headroom
    over = (headroom < -1e-9) | (mode == "beyond")
    status = np.where(
        over, "over", np.where(~available, "missing", np.where(ok, "ok", "low_headroom"))
    )
    return pd.DataFrame(
        {
            "level": np.array(["rack"] * n + ["row"] * n_rows, dtype=object),
            "rack": np.concatenate([rack, np.full(n_rows, "", dtype=object)]),
            "row": np.concatenate([row, np.asarray(rows, dtype=object)]),
            "kind": np.concatenate(
                [racks["kind"].to_numpy(), np.full(n_rows, "row", dtype=object)]
            ),
            "heat_kw": heat,
            "heat_btu_h": heat_btu_h(heat),
            "cooling_mode": pd.Series(mode, dtype=object),
            "cooling_kw": cooling,
            "cooling_headroom_kw": headroom,
            "cooling_headroom_pct": share,
            "available": available,
            "status": status.astype(object),
        }
    )
