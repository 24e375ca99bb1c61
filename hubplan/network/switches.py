"""The switch catalogue (``data/switches.csv``): ports, speeds, rack units, power, price.

Loaded with the catalogue's own reader and rules (``hubplan.core.catalog.read_table``):
one row per switch model, every row with ``source``, ``as_of`` and ``confidence``; an
empty figure is unknown, never a guess.
"""

from __future__ import annotations

import difflib
import math
import os
from functools import cache
from pathlib import Path

import pandas as pd

from ..core.catalog import read_table
from ..core.errors import CatalogError
from ..core.paths import data_dir

_STR, _NUM, _INT = "str", "num", "int"

SWITCH_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True), "aliases": (_STR, False), "vendor": (_STR, True),
    "technology": (_STR, True), "ports": (_INT, True), "port_gbps": (_NUM, True),
    "cages": (_INT, False), "max_breakout": (_INT, False),
    "uplink_ports": (_INT, False), "uplink_gbps": (_NUM, False),
    "rack_units": (_NUM, False), "max_power_kw": (_NUM, False),
    "typical_power_kw": (_NUM, False), "price_usd": (_NUM, False),
    "price_source": (_STR, False), "price_as_of": (_STR, False),
    "source": (_STR, True), "as_of": (_STR, True), "confidence": (_STR, True),
    "notes": (_STR, False),
}  # fmt: skip

TECHNOLOGIES = ("infiniband", "ethernet")


def _check(df: pd.DataFrame, path: Path) -> pd.DataFrame:
    for line, tech in enumerate(df["technology"], start=2):
        if tech not in TECHNOLOGIES:
            raise CatalogError(
                f"{path}, line {line}, column technology: {tech!r} is not one of "
                f"{', '.join(TECHNOLOGIES)}"
            )
    return df


@cache
def _shipped() -> pd.DataFrame:
    path = data_dir() / "switches.csv"
    return _check(read_table(path, SWITCH_SCHEMA), path)


def load_switches(path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """The shipped switch catalogue, with rows from a user CSV added or overriding.

    >>> sw = load_switches()
    >>> int(sw.set_index("name").loc["QM9700", "ports"])
    64
    """
    base = _shipped()
    if path is None:
        return base.copy()
    extra = _check(read_table(path, SWITCH_SCHEMA), Path(path))
    keep = ~base["name"].str.lower().isin(extra["name"].str.lower())
    return pd.concat([base[keep], extra], ignore_index=True)


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
    split = max(1, min(int(max_breakout) if not math.isnan(max_breakout) else 1,
                       int(port_gbps // speed_gbps)))  # fmt: skip
    return int(ports) * split
