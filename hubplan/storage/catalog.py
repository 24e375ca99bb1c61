"""The storage catalogue, ``data/storage.csv``: building blocks for each tier.

One row per building block (a parallel-file-system server, an appliance, an object or
capacity node): usable read and write bandwidth and raw capacity per node, protection
scheme, storage-network ports, rack units, power, price and provenance. Empty means
unknown, as in every hubplan catalogue.
"""

from __future__ import annotations

import difflib
from functools import cache

import pandas as pd

from ..core.catalog import read_table
from ..core.errors import CatalogError
from ..core.paths import data_dir

_STR, _NUM, _INT = "str", "num", "int"

STORAGE_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True), "aliases": (_STR, False), "vendor": (_STR, True),
    "form": (_STR, True), "role": (_STR, True), "tiers": (_STR, True),
    "read_gb_s": (_NUM, False), "write_gb_s": (_NUM, False), "raw_tb": (_NUM, False),
    "protection": (_STR, False), "nic_ports": (_INT, False), "nic_gbps": (_NUM, False),
    "rack_units": (_NUM, False), "max_power_kw": (_NUM, False),
    "typical_power_kw": (_NUM, False), "price_usd": (_NUM, False),
    "price_source": (_STR, False), "source": (_STR, True), "as_of": (_STR, True),
    "confidence": (_STR, True), "notes": (_STR, False),
}  # fmt: skip

ROLES = ("oss", "mds", "appliance", "capacity", "object")
TIERS = ("hot", "warm", "cold")


@cache
def storage_catalog() -> pd.DataFrame:
    """The shipped storage catalogue, validated (roles and tiers from a fixed list).

    >>> cat = storage_catalog()
    >>> float(cat.set_index("name").loc["DDN AI400X2T", "read_gb_s"])
    99.018
    """
    path = data_dir() / "storage.csv"
    df = read_table(path, STORAGE_SCHEMA)
    for line, (role, tiers) in enumerate(zip(df["role"], df["tiers"], strict=True), start=2):
        if role not in ROLES:
            raise CatalogError(f"{path}, line {line}, column role: {role!r} is not one of "
                               f"{', '.join(ROLES)}")  # fmt: skip
        bad = [t for t in tiers.split(";") if t not in TIERS]
        if bad:
            raise CatalogError(f"{path}, line {line}, column tiers: {bad} not in "
                               f"{', '.join(TIERS)}")  # fmt: skip
    return df


def storage_model(name: str, field: str) -> pd.Series:
    """One storage building block by name or alias (case-insensitive).

    ``field`` names the scenario field that asked for it, for the error message.
    """
    df = storage_catalog()
    keys: dict[str, int] = {}
    for i, (n, aliases) in enumerate(zip(df["name"], df["aliases"], strict=True)):
        for key in [n, *str(aliases).split(";")]:
            if key.strip():
                keys.setdefault(key.strip().lower(), i)
    idx = keys.get(str(name).strip().lower())
    if idx is None:
        close = difflib.get_close_matches(str(name).lower(), keys, n=3, cutoff=0.3)
        names = list(dict.fromkeys(str(df["name"].iloc[keys[c]]) for c in close))
        hint = f"; closest: {', '.join(names)}" if names else ""
        raise CatalogError(f"{field} = {name!r}: not in data/storage.csv{hint}")
    return df.iloc[idx]
