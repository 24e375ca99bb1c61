"""The switch catalogue (``data/switches.csv``): ports, speeds, rack units, power, price.

Part of the :class:`~hubplan.core.catalog.Catalog` (``catalog.switches``,
``catalog.switch(name)``), so users override rows with their own CSV
(``load_catalog(switches=...)``) and the stage cache sees every change. One row per
switch model, every row with ``source``, ``as_of`` and ``confidence``; an empty figure
is unknown, never a guess.
"""

from __future__ import annotations

import difflib
import math
import os

import pandas as pd

from ..core.catalog import SWITCH_SCHEMA, SWITCH_TECHNOLOGIES, load_catalog
from ..core.errors import CatalogError

TECHNOLOGIES = SWITCH_TECHNOLOGIES
__all__ = ["SWITCH_SCHEMA", "TECHNOLOGIES", "find_switch", "load_switches", "ports_at"]


def load_switches(path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """The switch catalogue, with rows from a user CSV added or overriding.

    The same table as ``load_catalog(switches=path).switches``; the stage reads it from the
    catalogue it is given.

    >>> sw = load_switches()
    >>> int(sw.set_index("name").loc["QM9700", "ports"])
    64
    """
    return load_catalog(switches=path).switches


def find_switch(switches: pd.DataFrame, name: str, field: str = "switch") -> pd.Series:
    """One switch row by name or alias (case-insensitive); unknown names list the closest."""
    key = str(name).strip().lower()
    for _, row in switches.iterrows():
        names = [row["name"], *str(row["aliases"]).split(";")]
        if key in (n.strip().lower() for n in names if n.strip()):
            return row
    close = difflib.get_close_matches(key, switches["name"].str.lower(), n=3, cutoff=0.3)
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise CatalogError(f"{field} = {name!r}: not in data/switches.csv{hint}")


def ports_at(ports: int, port_gbps: float, max_breakout: float, speed_gbps: float) -> int:
    """Logical switch ports available at a link speed, breaking out fast ports. [ports]

    A port runs one link at its own speed or slower, or splits into up to
    ``max_breakout`` links of ``port_gbps / k`` each.

    Notes
    -----
    ports × min(max_breakout, ⌊port_gbps / speed⌋); 0 when the speed exceeds the port.

    References
    ----------
    NVIDIA SN5000 user manual, "Data Interfaces": 64 × 800GbE break out to 128 × 400G or
    256 × 200G and slower.

    Examples
    --------
    SN5600 at 400 Gb/s and 100 Gb/s; QM9700 at 400 Gb/s; 400G NICs on a 100G switch:

    >>> ports_at(64, 800, 4, 400), ports_at(64, 800, 4, 100), ports_at(64, 400, 1, 400)
    (128, 256, 64)
    >>> ports_at(64, 100, 1, 400)
    0
    """
    if speed_gbps > port_gbps:
        return 0
    split = max(
        1,
        min(int(max_breakout) if not math.isnan(max_breakout) else 1, int(port_gbps // speed_gbps)),
    )
    return int(ports) * split
