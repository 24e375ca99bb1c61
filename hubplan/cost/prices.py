"""The price catalogue (``data/prices.csv``): a planning point, a low and a high price per
unit, each with its source and date, for the capex lines the other catalogues leave
unpriced (switches, optics, storage nodes) and the ranges of those they price (servers,
fit-out).

Each row says where its figures come from; a derived figure says how it was derived
(``notes``). A point price outside its own range, a missing source or date, or an unknown
kind stops the load naming the file, line and column.

References
----------
.. [c&w] Cushman & Wakefield, Data Center Development Cost Guide 2025 (fit-out per MW).
.. [epoch] Epoch AI, training-cost-trends notebook (SemiAnalysis DGX H100 estimate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import pandas as pd

from ..core.catalog import read_table
from ..core.errors import CatalogError
from ..core.paths import data_dir

_STR, _NUM = "str", "num"
PRICE_SCHEMA: dict[str, tuple[str, bool]] = {
    "item_kind": (_STR, True), "name": (_STR, True), "unit": (_STR, True),
    "price_usd": (_NUM, True), "price_low_usd": (_NUM, True), "price_high_usd": (_NUM, True),
    "price_source": (_STR, True), "price_as_of": (_STR, True), "confidence": (_STR, True),
    "notes": (_STR, False),
}  # fmt: skip
#: What a row can price: a catalogue server, a switch or appliance (switches.csv / the
#: network stage's ``model``), a storage building block (storage.csv), an optical module
#: or a cable by medium and speed (``"<media> <speed_gbps> module"`` / ``… cable``), the
#: fit-out per kW.
KINDS = ("server", "switch", "storage", "optics_module", "optics_cable", "fitout_per_kw")


@dataclass(frozen=True)
class Price:
    """One unit price with its range, source and date [USD]."""

    point_usd: float
    low_usd: float
    high_usd: float
    source: str
    as_of: str


def check_prices(df: pd.DataFrame, path: str = "data/prices.csv") -> pd.DataFrame:
    """Validate a price table: a known ``item_kind``, one row per (kind, name), and
    ``0 <= price_low_usd <= price_usd <= price_high_usd``.

    >>> row = {"item_kind": "switch", "name": "X", "unit": "switch", "price_usd": 5.0,
    ...        "price_low_usd": 6.0, "price_high_usd": 7.0, "price_source": "s",
    ...        "price_as_of": "2024", "confidence": "low", "notes": ""}
    >>> try:
    ...     check_prices(pd.DataFrame([row]))
    ... except CatalogError as exc:
    ...     print(str(exc)[:70])
    data/prices.csv, line 2, column price_low_usd: 6 is above price_usd (5
    """
    seen: set[tuple[str, str]] = set()
    for line, r in enumerate(df.to_dict(orient="records"), start=2):
        if r["item_kind"] not in KINDS:
            raise CatalogError(f"{path}, line {line}, column item_kind: {r['item_kind']!r} is "
                               f"not one of {', '.join(KINDS)}")  # fmt: skip
        key = (str(r["item_kind"]), str(r["name"]).lower())
        if key in seen:
            raise CatalogError(f"{path}, line {line}, column name: {r['name']!r} is priced "
                               f"twice as {r['item_kind']}; keep one row")  # fmt: skip
        seen.add(key)
        low, point, high = r["price_low_usd"], r["price_usd"], r["price_high_usd"]
        if low < 0:
            raise CatalogError(f"{path}, line {line}, column price_low_usd: {low:g} is "
                               "negative; prices are >= 0")  # fmt: skip
        if low > point:
            raise CatalogError(f"{path}, line {line}, column price_low_usd: {low:g} is above "
                               f"price_usd ({point:g}); a range must hold its point: "
                               "0 <= low <= point <= high")  # fmt: skip
        if high < point:
            raise CatalogError(f"{path}, line {line}, column price_high_usd: {high:g} is "
                               f"below price_usd ({point:g}); a range must hold its point: "
                               "0 <= low <= point <= high")  # fmt: skip
    return df


@cache
def price_table() -> pd.DataFrame:
    """The shipped price catalogue, validated.

    >>> t = price_table().set_index(["item_kind", "name"])
    >>> float(t.loc[("switch", "QM9700"), "price_usd"])
    36000.0
    """
    path = data_dir() / "prices.csv"
    return check_prices(read_table(path, PRICE_SCHEMA), str(path))


@cache
def _index() -> dict[tuple[str, str], Price]:
    return {
        (str(r["item_kind"]), str(r["name"]).lower()): Price(
            float(r["price_usd"]), float(r["price_low_usd"]), float(r["price_high_usd"]),
            str(r["price_source"]), str(r["price_as_of"]),
        )
        for r in price_table().to_dict(orient="records")
    }  # fmt: skip


def catalogue_price(kind: str, name: str, quotes: tuple = ()) -> Price | None:
    """The price of one item: the client's quote (the cost section's ``quotes``) if one
    names it, else the price catalogue's, else None (names compare case-insensitively).

    >>> catalogue_price("switch", "qm9700").high_usd
    50000.0
    >>> catalogue_price("switch", "no such switch") is None
    True
    """
    key = str(name).lower()
    for q in quotes:
        if q.kind == kind and q.name.lower() == key:
            low = q.price_usd if q.low_usd is None else q.low_usd
            high = q.price_usd if q.high_usd is None else q.high_usd
            return Price(q.price_usd, low, high, f"quote: {q.source}", q.as_of)
    return _index().get((kind, key))


def optics_key(media: str, speed_gbps: float, part: str) -> str:
    """The catalogue name of a module or a cable of a medium at a speed.

    >>> optics_key("transceiver-SR4", 400.0, "module")
    'transceiver-SR4 400 module'
    """
    return f"{media} {float(speed_gbps):g} {part}"


def scaled_range(point_usd: float, low_factor: float, high_factor: float) -> tuple[float, float]:
    """A range for a point price no source brackets: the point × the cost section's
    ``gpu_price`` assumption factors (low, high).

    Notes
    -----
    The ``gpu_price`` assumption (0.74-1.17) is DGX H100 $199 k (supercluster.blog) and
    an 8 × H100 HGX quote of $317 k (Thinkmate, Aug 2024) against $270 k (SemiAnalysis
    via Epoch AI): the spread of street prices of one GPU server.

    >>> scaled_range(100_000.0, 0.74, 1.17)
    (74000.0, 117000.0)
    """
    if math.isnan(point_usd):
        return math.nan, math.nan
    return point_usd * low_factor, point_usd * high_factor
