"""Cloud offers (``data/cloud.csv``) and build-versus-rent arithmetic: cumulative cost
curves, the break-even month and utilisation, and net present value."""

from __future__ import annotations

import difflib
import math
from functools import cache

import numpy as np
import pandas as pd

from ..core.catalog import read_table
from ..core.errors import CatalogError
from ..core.paths import data_dir
from .opex import HOURS_PER_YEAR

_STR, _NUM = "str", "num"
CLOUD_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True), "provider": (_STR, True), "accelerator": (_STR, True),
    "pricing": (_STR, True), "region": (_STR, False), "usd_per_gpu_hour": (_NUM, True),
    "price_date": (_STR, True), "source": (_STR, True), "as_of": (_STR, True),
    "confidence": (_STR, True), "notes": (_STR, False),
}  # fmt: skip
KINDS = ("on_demand", "reserved", "capacity_block")


@cache
def cloud_offers() -> pd.DataFrame:
    """The shipped cloud offers, validated (kind from a fixed list).

    >>> offers = cloud_offers()
    >>> float(offers.set_index("name").loc["AWS p5 capacity block", "usd_per_gpu_hour"])
    4.916
    """
    path = data_dir() / "cloud.csv"
    df = read_table(path, CLOUD_SCHEMA)
    for line, kind in enumerate(df["pricing"], start=2):
        if kind not in KINDS:
            raise CatalogError(f"{path}, line {line}, column pricing: {kind!r} is not one of "
                               f"{', '.join(KINDS)}")  # fmt: skip
    return df


@cache
def _offer_positions() -> dict[str, int]:
    """Row of each shipped offer by lower-case name (the last of equal names)."""
    return {n.lower(): i for i, n in enumerate(cloud_offers()["name"])}


@cache
def _cheapest_positions() -> dict[str, int]:
    """Row of the cheapest shipped offer by lower-case accelerator name: the lowest price,
    the first of equal prices, an offer without a price only when none has one (the
    order of a stable sort by price, NaN last)."""
    df = cloud_offers()
    best: dict[str, tuple[bool, float, int]] = {}
    for i, (acc, price) in enumerate(zip(df["accelerator"].str.lower(),
                                         df["usd_per_gpu_hour"], strict=True)):  # fmt: skip
        key = (math.isnan(price), 0.0 if math.isnan(price) else price, i)
        if acc not in best or key < best[acc]:
            best[acc] = key
    return {acc: key[2] for acc, key in best.items()}


def cloud_offer(name: str, field: str = "cost.cloud_offer") -> pd.Series:
    """One offer by name (case-insensitive); an unknown name lists the closest."""
    df = cloud_offers()
    keys = _offer_positions()
    idx = keys.get(str(name).strip().lower())
    if idx is None:
        close = difflib.get_close_matches(str(name).lower(), keys, n=3, cutoff=0.3)
        hint = f"; closest: {', '.join(df['name'].iloc[keys[c]] for c in close)}" if close else ""
        raise CatalogError(f"{field} = {name!r}: not in data/cloud.csv{hint}")
    return df.iloc[idx]


def cheapest_offer(accelerator: str) -> pd.Series | None:
    """The cheapest offer for an accelerator (by catalogue name), or None.

    >>> cheapest_offer("H100 SXM5 80GB")["name"]
    'Lambda H100 SXM on-demand'
    """
    idx = _cheapest_positions().get(str(accelerator).lower())
    return None if idx is None else cloud_offers().iloc[idx]


def cloud_usd_per_year(gpus, usd_per_gpu_hour, utilisation, kind: str = "on_demand"):
    """Renting the same fleet for a year [USD].

    Notes
    -----
    On demand one pays for the hours used: GPUs × 8 760 × utilisation × price. A
    reservation or capacity block is paid whether used or not: GPUs × 8 760 × price.

    Examples
    --------
    1 000 GPUs at $2.00 on demand, 70 % used: 6.132 M h × $2 = $12.264 M.

    >>> float(cloud_usd_per_year(1000, 2.0, 0.7))
    12264000.0
    >>> float(cloud_usd_per_year(1000, 2.0, 0.7, "reserved"))
    17520000.0
    """
    used = np.asarray(utilisation) if kind == "on_demand" else 1.0
    return np.multiply(gpus, HOURS_PER_YEAR) * used * usd_per_gpu_hour


def breakeven_utilisation(own_usd_per_year, gpus, usd_per_gpu_hour):
    """Utilisation above which owning costs less than renting on demand.

    Notes
    -----
    Owning costs A a year whatever the use; renting on demand costs
    GPUs × 8 760 × u × p. They are equal at u* = A ÷ (GPUs × 8 760 × p); goodput is
    lost alike in both, so it cancels. u* > 1: renting is cheaper at any use.

    Examples
    --------
    $6.132 M a year for 1 000 GPUs against $2 an hour: u* = 6.132 / 17.52 = 0.35.

    >>> round(float(breakeven_utilisation(6_132_000.0, 1000, 2.0)), 2)
    0.35
    """
    return np.divide(own_usd_per_year, np.multiply(gpus, HOURS_PER_YEAR) * usd_per_gpu_hour)


def cumulative_curves(capex_usd: float, opex_usd_per_year: float, cloud_per_year: float,
                      own_share: float, horizon_years: int) -> pd.DataFrame:  # fmt: skip
    """Cumulative cash out by month for owning, renting and a hybrid.

    Notes
    -----
    own(m) = capex + opex × m / 12; cloud(m) = cloud a year × m / 12;
    hybrid(m) = s × own(m) + (1 − s) × cloud(m), with s the owned share of the fleet
    (capex and opex scale with the fleet; the rest is rented at the same use).

    >>> c = cumulative_curves(1200.0, 120.0, 600.0, 0.5, 1)
    >>> c.loc[12, ["own_usd", "cloud_usd", "hybrid_usd"]].tolist()
    [1320.0, 600.0, 960.0]
    """
    m = np.arange(horizon_years * 12 + 1)
    own = capex_usd + opex_usd_per_year * m / 12
    cloud = cloud_per_year * m / 12
    return pd.DataFrame({"month": m, "own_usd": own, "cloud_usd": cloud,
                         "hybrid_usd": own_share * own + (1 - own_share) * cloud})  # fmt: skip


def breakeven_month(capex_usd: float, opex_usd_per_year: float, cloud_per_year: float) -> float:
    """Month in which owning has cost no more than renting [months]; NaN when renting
    stays cheaper (the cloud costs no more a month than running one's own).

    Notes
    -----
    capex + opex × m / 12 = cloud × m / 12  ⇒  m = 12 × capex ÷ (cloud − opex).

    Examples
    --------
    $1.2 M capex, $120 k opex and $600 k cloud a year: 12 × 1.2 / 0.48 = 30 months.

    >>> breakeven_month(1_200_000.0, 120_000.0, 600_000.0)
    30.0
    """
    gap = cloud_per_year - opex_usd_per_year
    if not gap > 0:
        return math.nan
    return 12.0 * capex_usd / gap


def npv_usd(upfront_usd: float, per_year_usd, rate: float, years: int,
            end_value_usd: float = 0.0) -> float:  # fmt: skip
    """Net present cost of a cash-flow stream [USD].

    Notes
    -----
    NPV = upfront + Σ_{t=1..T} C_t ÷ (1 + r)^t − end value ÷ (1 + r)^T; yearly costs are
    paid at the end of each year.

    Examples
    --------
    $100 a year for 2 years at 10 %: 100/1.1 + 100/1.21 = 173.55.

    >>> round(npv_usd(0.0, 100.0, 0.10, 2), 2)
    173.55
    """
    t = np.arange(1, years + 1)
    flows = np.broadcast_to(np.asarray(per_year_usd, dtype=float), t.shape)
    disc = (1 + rate) ** t
    return float(upfront_usd + (flows / disc).sum() - end_value_usd / (1 + rate) ** years)
