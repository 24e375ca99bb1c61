"""Cloud offers (``data/cloud.csv``) and build-versus-rent arithmetic: cumulative cost
curves, the break-even month and utilisation, and net present value."""

from __future__ import annotations

import difflib
import math
from functools import cache

import numpy as np
import pandas as pd

from ..core.catalog import CLOUD_PRICING, load_catalog
from ..core.catalog import CLOUD_SCHEMA as CLOUD_SCHEMA  # re-exported by hubplan.cost
from ..core.errors import CatalogError
from .opex import HOURS_PER_YEAR

#: The kinds of cloud pricing (``pricing`` in data/cloud.csv).
KINDS = CLOUD_PRICING


@cache
def cloud_offers() -> pd.DataFrame:
    """The shipped cloud offers, validated as every catalogue table
    (:attr:`hubplan.core.catalog.Catalog.cloud_offers`; a user's offers come with
    ``load_catalog(cloud=...)``).

    >>> offers = cloud_offers()
    >>> float(offers.set_index("name").loc["AWS p5 capacity block", "usd_per_gpu_hour"])
    4.91625
    """
    return load_catalog().cloud_offers


def cloud_offer(
    name: str, field: str = "cost.cloud_offer", offers: pd.DataFrame | None = None
) -> pd.Series:
    """One offer by name (case-insensitive); an unknown name lists the closest.

    ``offers``: the catalogue's offers (default the shipped ones).
    """
    df = cloud_offers() if offers is None else offers
    keys = {n.lower(): i for i, n in enumerate(df["name"])}
    idx = keys.get(str(name).strip().lower())
    if idx is None:
        close = difflib.get_close_matches(str(name).lower(), keys, n=3, cutoff=0.3)
        hint = f"; closest: {', '.join(df['name'].iloc[keys[c]] for c in close)}" if close else ""
        raise CatalogError(f"{field} = {name!r}: not in data/cloud.csv{hint}")
    return df.iloc[idx]


def cheapest_offer(accelerator: str, offers: pd.DataFrame | None = None) -> pd.Series | None:
    """The offer an own build is compared against by default: the cheapest on-demand
    offer for the accelerator (catalogue name), or when it has none on demand, the
    cheapest of any kind; None when it has no offer at all.

    On demand is the like-for-like default: it is paid per hour used, as the own fleet's
    useful hours are counted; a reservation is paid for its whole term and is compared
    by total cost when named (``cost.cloud_offer``). The first of equal prices wins.

    >>> cheapest_offer("H100 SXM5 80GB")["name"]
    'Hyperstack H100 SXM on-demand'
    >>> offers = cloud_offers()
    >>> cheapest_offer("H200 SXM 141GB", offers[offers["pricing"] != "on_demand"])["name"]
    'Hyperstack H200 SXM reserved'
    >>> cheapest_offer("L4 24GB") is None
    True
    """
    df = cloud_offers() if offers is None else offers
    mine = (df["accelerator"].str.lower() == str(accelerator).lower()).to_numpy()
    if not mine.any():
        return None
    on_demand = mine & (df["pricing"] == "on_demand").to_numpy()
    rows = np.flatnonzero(on_demand if on_demand.any() else mine)
    prices = df["usd_per_gpu_hour"].to_numpy()[rows]
    return df.iloc[int(rows[int(np.argmin(prices))])]


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


def cumulative_curves(
    capex_usd: float,
    opex_usd_per_year: float,
    cloud_per_year: float,
    own_share: float,
    horizon_years: int,
) -> pd.DataFrame:
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
    return pd.DataFrame(
        {
            "month": m,
            "own_usd": own,
            "cloud_usd": cloud,
            "hybrid_usd": own_share * own + (1 - own_share) * cloud,
        }
    )


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


def npv_usd(
    upfront_usd: float, per_year_usd, rate: float, years: int, end_value_usd: float = 0.0
) -> float:
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


#: How owning is set against renting (``cloud_basis`` in the cost summary): on demand by
#: utilisation (the break-even utilisation), a reservation or a capacity block by its
#: total cost over the term (it is paid whether used or not), no offer: nothing to compare.
CLOUD_BASES = ("utilisation", "term_total", "no_offer")


def cloud_usd_per_useful_gpu_hour(usd_per_gpu_hour, utilisation, goodput, kind: str = "on_demand"):
    """What renting costs per useful GPU-hour [USD], the basis the own fleet's cost per
    useful GPU-hour is on.

    Notes
    -----
    A useful GPU-hour is an hour allocated to a job that does useful work: goodput
    (restarts and lost work after failures) is lost on a rented GPU as on an own one,
    so both sides divide by it. On demand one pays for the hours used: p ÷ goodput. A
    reservation or a capacity block is paid for every hour of the term: p ÷ (u × goodput).

    Examples
    --------
    $3.99 on demand at 90 % goodput: 3.99 / 0.9 = 4.4333; reserved at $6.50, 70 % used:
    6.5 / (0.7 × 0.9) = 10.3175.

    >>> round(float(cloud_usd_per_useful_gpu_hour(3.99, 0.7, 0.9)), 4)
    4.4333
    >>> round(float(cloud_usd_per_useful_gpu_hour(6.5, 0.7, 0.9, "reserved")), 4)
    10.3175
    """
    used = 1.0 if kind == "on_demand" else np.asarray(utilisation, dtype=float)
    return np.asarray(usd_per_gpu_hour, dtype=float) / (used * np.asarray(goodput, dtype=float))


def compare_with_cloud(
    own_usd_per_year: float,
    gpus: float,
    utilisation: float,
    goodput: float,
    usd_per_gpu_hour: float,
    kind: str,
    term_months: float,
    horizon_years: float,
) -> dict[str, float | str]:
    """Owning against renting, like for like: both per useful GPU-hour; on demand by
    utilisation, a reservation or a capacity block by total cost over its term.

    Parameters
    ----------
    own_usd_per_year : the own fleet's yearly cost (capital charge and opex) [USD]
    gpus, utilisation, goodput : GPUs in service, share allocated, share useful
    usd_per_gpu_hour, kind : the offer (NaN price: no offer)
    term_months : the reservation's term; NaN = the plan's horizon
    horizon_years : the plan's horizon [years]

    Returns
    -------
    dict
        ``cloud_basis`` (one of :data:`CLOUD_BASES`), ``cloud_usd_per_useful_gpu_hour``,
        ``breakeven_utilisation`` (on demand only: NaN for a reservation, which is paid
        whatever the use, and without an offer), ``cloud_term_years``, and
        ``own_term_usd`` / ``cloud_term_usd`` (a reservation's term only).

    Notes
    -----
    On demand: owning costs A a year whatever the use, renting G × 8 760 × u × p; they
    are equal at u* = A ÷ (G × 8 760 × p) (goodput is lost alike and cancels).
    Reserved: over a term of T years owning costs A × T, renting G × 8 760 × T × p.

    Examples
    --------
    $1.891 M a year, 152 GPUs, 70 % used, 90 % goodput, against $6.50 reserved for 12
    months: renting costs 152 × 8 760 × 6.5 = $8.655 M over the year, owning $1.891 M.

    >>> r = compare_with_cloud(1_891_335.6, 152, 0.7, 0.9, 6.5, "reserved", 12, 5)
    >>> r["cloud_basis"], round(r["cloud_term_usd"]), math.isnan(r["breakeven_utilisation"])
    ('term_total', 8654880, True)
    >>> compare_with_cloud(1e6, 8, 0.7, 0.9, math.nan, "on_demand", math.nan, 5)["cloud_basis"]
    'no_offer'
    """
    nan = math.nan
    if not usd_per_gpu_hour == usd_per_gpu_hour:  # NaN: nothing to compare against
        return {
            "cloud_basis": "no_offer",
            "cloud_usd_per_useful_gpu_hour": nan,
            "breakeven_utilisation": nan,
            "cloud_term_years": nan,
            "own_term_usd": nan,
            "cloud_term_usd": nan,
        }
    per_useful = float(cloud_usd_per_useful_gpu_hour(usd_per_gpu_hour, utilisation, goodput, kind))
    if kind == "on_demand":
        b_util = (
            float(breakeven_utilisation(own_usd_per_year, gpus, usd_per_gpu_hour)) if gpus else nan
        )
        return {
            "cloud_basis": "utilisation",
            "cloud_usd_per_useful_gpu_hour": per_useful,
            "breakeven_utilisation": b_util,
            "cloud_term_years": nan,
            "own_term_usd": nan,
            "cloud_term_usd": nan,
        }
    years = horizon_years if term_months != term_months else term_months / 12
    return {
        "cloud_basis": "term_total",
        "cloud_usd_per_useful_gpu_hour": per_useful,
        "breakeven_utilisation": nan,
        "cloud_term_years": float(years),
        "own_term_usd": float(own_usd_per_year * years),
        "cloud_term_usd": float(
            cloud_usd_per_year(gpus, usd_per_gpu_hour, utilisation, kind) * years
        ),
    }
