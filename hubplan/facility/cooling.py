"""Cooling: heat per rack in kW and BTU/h, the cooling mode its density needs, and the
capacity and headroom per rack and per row.

References
----------
.. [NIST811] NIST SP 811 (2008), Appendix B.8: 1 BTU_IT/h = 0.293 071 1 W, so
   1 kW = 3 412.14 BTU/h. NVIDIA's DGX H100 user guide lists 38 557 BTU/h of heat beside
   its 10.2 kW maximum (11.3 kW worth); hubplan converts the nameplate kW it plans with.
.. [density] Rack density by cooling method: mainstream air-cooled rooms 10-15 kW a rack;
   rear-door heat exchangers up to ~80 kW; direct liquid cooling 120-150 kW and beyond.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

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


def heat_btu_h(heat_kw: float) -> float:
    """Heat in BTU per hour from kW.

    Examples
    --------
    A 40 kW rack: 40 × 3 412.14 = 136 486 BTU/h.

    >>> round(heat_btu_h(40))
    136486
    """
    return heat_kw * BTU_H_PER_KW


def mode_capacities(facility: Facility) -> dict[str, float]:
    """Heat each cooling mode removes per rack [kW], least capable first."""
    return {
        "air": facility.air_max_kw,
        "rear_door": facility.rear_door_max_kw,
        "liquid": facility.liquid_max_kw,
    }


def cooling_mode(heat_kw: pd.Series, facility: Facility) -> pd.Series:
    """The least capable mode that removes a rack's heat and keeps the cooling headroom;
    ``beyond`` when even liquid cooling does not.

    Notes
    -----
    mode = first m in (air, rear_door, liquid) with heat ≤ capacity_m × (1 − headroom).

    Examples
    --------
    With 15 / 80 / 150 kW and 15 % headroom the limits are 12.75 / 68 / 127.5 kW: 12 kW is
    air, 30.6 kW (three DGX H100) a rear door, 100 kW liquid, 132 kW (GB200 NVL72) beyond.

    >>> import pandas as pd
    >>> from hubplan.facility.section import Facility
    >>> cooling_mode(pd.Series([12, 30.6, 100, 132]), Facility()).tolist()
    ['air', 'rear_door', 'liquid', 'beyond']
    """
    caps = mode_capacities(facility)
    out = pd.Series("beyond", index=heat_kw.index, dtype=object)
    for mode in reversed(COOLING_MODES):
        out[heat_kw <= caps[mode] * (1 - facility.cooling_headroom) + 1e-9] = mode
    return out


def cooling_table(
    racks: pd.DataFrame, allocation: pd.DataFrame, facility: Facility
) -> pd.DataFrame:
    """Heat, cooling mode, capacity and headroom per rack, and per row (``level``).

    A rack's heat is its devices' nameplate power: all the electrical power a rack draws
    ends as heat in the room. A rack whose mode the room lacks has status ``missing``;
    one beyond every mode ``over``.
    """
    caps = mode_capacities(facility)
    heat = (
        racks[["rack", "row", "kind"]]
        .merge(allocation[["rack", "device_power_kw"]], on="rack", how="left")
        .rename(columns={"device_power_kw": "heat_kw"})
    )
    heat["heat_btu_h"] = heat_btu_h(heat["heat_kw"])
    heat["cooling_mode"] = cooling_mode(heat["heat_kw"], facility)
    heat["cooling_kw"] = heat["cooling_mode"].map(caps).fillna(facility.liquid_max_kw)
    heat["available"] = heat["cooling_mode"].isin(facility.cooling_modes)
    heat["level"] = "rack"
    rows = (
        heat.groupby("row", sort=False)
        .agg(
            heat_kw=("heat_kw", "sum"),
            cooling_kw=("cooling_kw", "sum"),
            available=("available", "all"),
            kind=("kind", "first"),
        )
        .reset_index()
    )
    rows["kind"] = "row"
    rows["rack"] = ""
    rows["level"] = "row"
    rows["heat_btu_h"] = heat_btu_h(rows["heat_kw"])
    rows["cooling_mode"] = ""
    out = pd.concat([heat, rows], ignore_index=True)
    out["cooling_headroom_kw"] = out["cooling_kw"] - out["heat_kw"]
    out["cooling_headroom_pct"] = out["cooling_headroom_kw"] / out["cooling_kw"]
    ok = out["cooling_headroom_pct"] + 1e-12 >= facility.cooling_headroom
    out["status"] = np.where(
        ~ok | (out["cooling_mode"] == "beyond"), "over", np.where(out["available"], "ok", "missing")
    )
    return out[COOLING_COLUMNS]
