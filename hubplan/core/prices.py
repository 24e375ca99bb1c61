"""The price catalogue (``data/prices.csv``): a planning point, a low and a high price per
unit, each with its source and date, for the capex lines the other catalogues leave
unpriced (switches, optics, storage nodes) and the ranges of those they price (servers,
fit-out).

A row keeps the currency its source lists it in (``currency``: USD, or CNY where the
market is Chinese, e.g. a tender award for an Ascend server). The stage prices in USD: a
CNY row is divided by the plan's own dated rate (``cost.cny_per_usd``), so a plan budgeted
in CNY shows the Chinese price itself, unchanged by a round trip through the dollar.

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

from .catalog import check_one_of, read_table
from .errors import CatalogError
from .paths import data_dir

_STR, _NUM = "str", "num"
PRICE_SCHEMA: dict[str, tuple[str, bool]] = {
    "item_kind": (_STR, True),
    "name": (_STR, True),
    "unit": (_STR, True),
    "currency": (_STR, True),
    "price": (_NUM, True),
    "price_low": (_NUM, True),
    "price_high": (_NUM, True),
    "price_source": (_STR, True),
    "price_as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}
#: What a row can price: a catalogue server, a switch or appliance (switches.csv / the
#: network stage's ``model``), a storage building block (storage.csv), an optical module
#: or a cable by medium and speed (``"<media> <speed_gbps> module"`` / ``… cable``), the
#: fit-out per kW.
KINDS = ("server", "switch", "storage", "optics_module", "optics_cable", "fitout_per_kw")
#: The currencies a row can be listed in.
CURRENCIES = ("USD", "CNY")
#: The rate a CNY row is converted at when no plan gives one [CNY per USD]: the cost
#: section's default, the CFETS central parity of 31 December 2024.
DEFAULT_CNY_PER_USD = 7.1884


@dataclass(frozen=True)
class Price:
    """One unit price with its range, source and date [USD], and the currency its source
    lists it in (a CNY row converted at the plan's rate)."""

    point_usd: float
    low_usd: float
    high_usd: float
    source: str
    as_of: str
    currency: str = "USD"
    #: high / medium / low / estimate as the catalogue row says, "quote" for a quote
    confidence: str = ""


def check_prices(df: pd.DataFrame, path: str = "data/prices.csv") -> pd.DataFrame:
    """Validate a price table: a known ``item_kind`` and ``currency``, one row per (kind,
    name), and ``0 <= price_low <= price <= price_high``.

    >>> row = {"item_kind": "switch", "name": "X", "unit": "switch", "currency": "USD",
    ...        "price": 5.0, "price_low": 6.0, "price_high": 7.0, "price_source": "s",
    ...        "price_as_of": "2024", "confidence": "low", "notes": ""}
    >>> try:
    ...     check_prices(pd.DataFrame([row]))
    ... except CatalogError as exc:
    ...     print(str(exc)[:66])
    data/prices.csv, line 2, column price_low: 6 is above price (5); a
    """
    seen: set[tuple[str, str]] = set()
    for line, r in enumerate(df.to_dict(orient="records"), start=2):
        check_one_of(f"{path}, line {line}", "item_kind", r["item_kind"], KINDS)
        check_one_of(f"{path}, line {line}", "currency", r["currency"], CURRENCIES)
        key = (str(r["item_kind"]), str(r["name"]).lower())
        if key in seen:
            raise CatalogError(
                f"{path}, line {line}, column name: {r['name']!r} is priced "
                f"twice as {r['item_kind']}; keep one row"
            )
        seen.add(key)
        low, point, high = r["price_low"], r["price"], r["price_high"]
        if low < 0:
            raise CatalogError(
                f"{path}, line {line}, column price_low: {low:g} is negative; prices are >= 0"
            )
        if low > point:
            raise CatalogError(
                f"{path}, line {line}, column price_low: {low:g} is above "
                f"price ({point:g}); a range must hold its point: "
                "0 <= low <= point <= high"
            )
        if high < point:
            raise CatalogError(
                f"{path}, line {line}, column price_high: {high:g} is "
                f"below price ({point:g}); a range must hold its point: "
                "0 <= low <= point <= high"
            )
    return df


@cache
def price_table() -> pd.DataFrame:
    """The shipped price catalogue, validated.

    >>> t = price_table().set_index(["item_kind", "name"])
    >>> float(t.loc[("switch", "QM9700"), "price"])
    36000.0
    """
    path = data_dir() / "prices.csv"
    return check_prices(read_table(path, PRICE_SCHEMA), str(path))


@cache
def _index() -> dict[tuple[str, str], Price]:
    return {
        (str(r["item_kind"]), str(r["name"]).lower()): Price(
            float(r["price"]),
            float(r["price_low"]),
            float(r["price_high"]),
            str(r["price_source"]),
            str(r["price_as_of"]),
            str(r["currency"]),
            str(r["confidence"]),
        )
        for r in price_table().to_dict(orient="records")
    }


def in_usd(price: Price, cny_per_usd: float = DEFAULT_CNY_PER_USD) -> Price:
    """A catalogue price in USD: a CNY row divided by the rate [CNY per USD], a USD row
    as it is.

    >>> p = in_usd(Price(71_884.0, 50_000.0, 100_000.0, "s", "2025", "CNY"), 7.1884)
    >>> p.point_usd, p.currency
    (10000.0, 'CNY')
    """
    if price.currency == "USD":
        return price
    return Price(
        price.point_usd / cny_per_usd,
        price.low_usd / cny_per_usd,
        price.high_usd / cny_per_usd,
        price.source,
        price.as_of,
        price.currency,
        price.confidence,
    )


def catalogue_price(
    kind: str, name: str, quotes: tuple = (), cny_per_usd: float = DEFAULT_CNY_PER_USD
) -> Price | None:
    """The price of one item in USD: the client's quote (the cost section's ``quotes``) if
    one names it, else the price catalogue's (a CNY row at ``cny_per_usd``), else None
    (names compare case-insensitively).

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
            return Price(q.price_usd, low, high, f"quote: {q.source}", q.as_of, "USD", "quote")
    row = _index().get((kind, key))
    return None if row is None else in_usd(row, cny_per_usd)


def server_price_usd(
    name: str, own_usd: float, cny_per_usd: float = DEFAULT_CNY_PER_USD
) -> tuple[float, str, Price | None]:
    """A catalogue server's price [USD] and where it comes from: its own (the server
    catalogue's or a custom server's) price first ("server"), else the price catalogue's
    point ("price_catalogue", a CNY row at ``cny_per_usd``), else NaN ("none"); with the
    price catalogue's row for the server (None without one).

    >>> price, basis, _ = server_price_usd("Huawei Atlas 800T A2", float("nan"))
    >>> round(price, 2), basis  # 1 480 000 CNY ÷ 7.1884
    (205887.26, 'price_catalogue')
    >>> server_price_usd("DGX H100", 270_000.0)[:2]
    (270000.0, 'server')
    """
    row = catalogue_price("server", name, (), cny_per_usd)
    if not math.isnan(own_usd):
        return float(own_usd), "server", row
    if row is not None:
        return row.point_usd, "price_catalogue", row
    return math.nan, "none", None


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
