"""The closed-form cost model behind the headline, the tornado and the Monte Carlo.

The stage prices the bill of materials once; :class:`CostBase` keeps the few totals the
headline depends on, and :func:`headline` recomputes it with any assumption changed,
vectorised over numpy arrays (one call evaluates 10 000 samples). Unpriced lines are
excluded from the totals here as in the tables (and counted there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .cashflow import capital_charge_usd
from .cloud import breakeven_utilisation, cloud_usd_per_year
from .opex import (
    HOURS_PER_YEAR,
    cost_per_useful_gpu_hour,
    energy_usd_per_year,
)


def _known(x: float) -> float:
    return 0.0 if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


@dataclass(frozen=True)
class CostBase:
    """The plan's cost figures the headline is built from (priced parts only).

    Attributes
    ----------
    capex_usd : priced capex, all lines [USD]
    server_capex_usd : the GPU-server part of it, which ``gpu_price`` scales [USD]
    share_on_servers : lines priced as a share of hardware (installation) [–]
    it_kw : IT typical draw [kW]; NaN when the facility stage has not planned it
    duty_cycle, pue, usd_per_kwh : energy inputs
    fixed_opex_usd : staff, space and licences a year [USD]
    share_opex_usd : the yearly lines priced as shares of capex (hardware maintenance,
        insurance) at the plan's prices, the priced ones [USD a year]
    gpus : GPUs in service; utilisation, goodput : as in the section
    depreciation_years, residual_share : straight-line life and end value
    cloud_usd_per_gpu_hour, cloud_pricing : the offer compared against
    job_gpu_hours : GPU-hours the training jobs take at the plan's MFU (goodput included)
    job_days : the longest training job's days to finish; mfu : the plan's MFU
    discount_rate : the cost of capital the capex is annuitised at (0 = straight line)
    other_capex_usd : capex on lives of its own (network, storage, fit-out) [USD]
    other_capital_usd_per_year : its equivalent annual cost, fixed [USD a year]
    """

    capex_usd: float
    server_capex_usd: float
    share_on_servers: float
    it_kw: float
    duty_cycle: float
    pue: float
    usd_per_kwh: float
    fixed_opex_usd: float
    share_opex_usd: float
    gpus: float
    utilisation: float
    goodput: float
    depreciation_years: float
    residual_share: float
    cloud_usd_per_gpu_hour: float
    cloud_pricing: str
    job_gpu_hours: float
    job_days: float
    mfu: float
    discount_rate: float = 0.0
    other_capex_usd: float = 0.0
    other_capital_usd_per_year: float = 0.0
    # -- cloud: the assumptions the tornado added for fit-out, staff, cost of capital --
    #: The fit-out line's price per kW of critical load (NaN: not priced or colocation)
    #: and the critical kW it is multiplied by.
    fitout_usd_per_kw: float = math.nan
    critical_kw: float = 0.0
    #: The priced staff bill a year [USD] (part of ``fixed_opex_usd``).
    staff_usd_per_year: float = 0.0
    #: The classes not on the server life, each (name, capex [USD], life [years], residual
    #: share): the cost-of-capital and fit-out ranges re-annuitise them
    #: (``other_capital_usd_per_year`` holds their charge at the plan's rate).
    other_classes: tuple[tuple[str, float, float, float], ...] = ()
    #: How those share lines move when a price is varied [USD a year per USD]: per dollar
    #: more of GPU servers, insurance on them and on the installation share on them (the
    #: maintenance share below adds its own); per dollar more of fit-out, insurance.
    server_share_rate: float = 0.0
    fitout_share_rate: float = 0.0
    #: The hardware maintenance line a year [USD] (part of ``share_opex_usd``) and its
    #: share of the hardware capex (0 when unpriced), which the ``maintenance`` range scales.
    maintenance_usd_per_year: float = 0.0
    maintenance_share: float = 0.0


def capital_charge_usd_per_year(capex_usd, life_years, residual_share, rate):
    """Yearly charge that repays capex less its end value over the life at a cost of
    capital [USD/yr] (an annuity); at a rate of 0, straight-line depreciation.

    The cash flow's :func:`~hubplan.cost.cashflow.capital_charge_usd` with the rate as an
    array too (the Monte Carlo samples the cost of capital).

    Notes
    -----
    charge = (capex − residual × capex ÷ (1 + r)^n) × r ÷ (1 − (1 + r)^−n), the capital
    recovery factor (Brealey, Myers & Allen, *Principles of Corporate Finance*, ch. 2,
    the annuity formula); r → 0 gives capex × (1 − residual) ÷ n.

    Examples
    --------
    $1 000 over 5 years at 8 %: 1 000 × 0.08 / (1 − 1.08^−5) = 250.46 (against 200
    straight-line, a quarter more).

    >>> round(float(capital_charge_usd_per_year(1000.0, 5, 0.0, 0.08)), 2)
    250.46
    >>> float(capital_charge_usd_per_year(1000.0, 5, 0.0, 0.0))
    200.0
    """
    r = np.asarray(rate, dtype=float)
    n = np.asarray(life_years, dtype=float)
    safe = np.where(r > 0, r, 1.0)
    crf = np.where(r > 0, safe / (1 - (1 + safe) ** -n), 1.0 / n)
    present = capex_usd - capex_usd * residual_share * np.where(r > 0, (1 + safe) ** -n, 1.0)
    return present * crf


def headline(
    base: CostBase,
    *,
    mfu=None,
    utilisation=None,
    gpu_price=1.0,
    electricity_price=1.0,
    pue=None,
    cloud_price=1.0,
    depreciation_years=None,
    fitout_usd_per_kw=None,
    staff_cost=1.0,
    discount_rate=None,
    maintenance=1.0,
) -> dict[str, np.ndarray]:
    """The headline figures with assumptions changed (arrays broadcast).

    ``gpu_price``, ``electricity_price``, ``cloud_price``, ``staff_cost`` and
    ``maintenance`` (the hardware maintenance share) are factors on the plan's prices; the
    others replace the plan's values.

    Notes
    -----
    capex' = capex + server capex × (f_gpu − 1) × (1 + installation share)
    + (fit-out per kW' − fit-out per kW) × critical kW;
    annual = capital charge + energy + share lines + fixed + staff × (f_staff − 1),
    the share lines (maintenance, insurance) moving with the server capex and the
    fit-out at their rates per dollar, where the capital charge annuitises the server class
    (capex' less the other classes' capex) over the server life at the discount rate r
    (:func:`capital_charge_usd_per_year`, straight-line depreciation at r = 0) and adds
    the other classes' charge (network, storage, fit-out, each over its own life; the
    plan's figure unless r or the fit-out price is varied, then re-annuitised);
    cost per useful GPU-hour = annual ÷ (GPUs × 8 760 × u × goodput);
    training cost = job GPU-hours × MFU₀ ÷ MFU × annual ÷ (GPUs × 8 760 × u);
    days = job days × MFU₀ ÷ MFU (same GPUs); own/cloud = annual ÷ cloud a year.
    """
    u = base.utilisation if utilisation is None else np.asarray(utilisation, dtype=float)
    life = (
        base.depreciation_years
        if depreciation_years is None
        else np.asarray(depreciation_years, dtype=float)
    )
    p = base.pue if pue is None else np.asarray(pue, dtype=float)
    m = base.mfu if mfu is None else np.asarray(mfu, dtype=float)
    f = np.asarray(gpu_price, dtype=float)
    capex = base.capex_usd + base.server_capex_usd * (f - 1.0) * (1.0 + base.share_on_servers)
    delta_fit = None  # the change in fit-out capex when its price per kW is varied
    if fitout_usd_per_kw is not None and base.fitout_usd_per_kw == base.fitout_usd_per_kw:
        delta_fit = (np.asarray(fitout_usd_per_kw, dtype=float) - base.fitout_usd_per_kw) * _known(
            base.critical_kw
        )
        capex = capex + delta_fit
    rate = base.discount_rate if discount_rate is None else np.asarray(discount_rate, float)
    fixed = base.fixed_opex_usd + base.staff_usd_per_year * (np.asarray(staff_cost, float) - 1)
    energy = energy_usd_per_year(
        _known(base.it_kw),
        p,
        base.usd_per_kwh * np.asarray(electricity_price, dtype=float),
        base.duty_cycle,
    )
    if (discount_rate is None and delta_fit is None) or not base.other_classes:
        # the plan's rate: the cash flow's own figure, bit for bit (without classes to
        # re-annuitise, the other classes' charge stays the plan's)
        capital = (
            capital_charge_usd_per_year(
                capex - base.other_capex_usd, life, base.residual_share, rate
            )
            if discount_rate is not None
            else capital_charge_usd(
                capex - base.other_capex_usd, base.discount_rate, life, base.residual_share
            )
        ) + base.other_capital_usd_per_year
    else:  # cloud: every class re-annuitised at the varied rate, the fit-out re-priced
        others = base.other_capex_usd + (0.0 if delta_fit is None else delta_fit)
        capital = capital_charge_usd_per_year(capex - others, life, base.residual_share, rate)
        for name, amount, years, residual in base.other_classes:
            extra = delta_fit if name == "fitout" and delta_fit is not None else 0.0
            capital = capital + capital_charge_usd_per_year(amount + extra, years, residual, rate)
    f_m = np.asarray(maintenance, dtype=float)
    shares = (
        base.share_opex_usd
        + base.maintenance_usd_per_year * (f_m - 1.0)
        + (base.maintenance_share * f_m + base.server_share_rate)
        * base.server_capex_usd
        * (f - 1.0)
    )
    if delta_fit is not None:
        shares = shares + base.fitout_share_rate * delta_fit
    annual = capital + energy + shares + fixed
    per_hour = cost_per_useful_gpu_hour(annual, base.gpus, u, base.goodput)
    per_used_hour = annual / (base.gpus * HOURS_PER_YEAR * u)
    ratio = base.mfu / m
    cloud = cloud_usd_per_year(
        base.gpus,
        base.cloud_usd_per_gpu_hour * np.asarray(cloud_price, dtype=float),
        u,
        base.cloud_pricing,
    )
    return {
        "cost_per_useful_gpu_hour_usd": per_hour,
        "own_usd_per_year": annual,
        "capex_usd": capex,
        "training_cost_usd": base.job_gpu_hours * ratio * per_used_hour,
        "training_days": base.job_days * ratio,
        "own_to_cloud": annual / cloud,
        "breakeven_utilisation": breakeven_utilisation(
            annual, base.gpus, base.cloud_usd_per_gpu_hour * np.asarray(cloud_price, float)
        ),
    }


#: The tornado's and the Monte Carlo's outcome figures.
METRICS = ("cost_per_useful_gpu_hour_usd", "training_cost_usd", "own_to_cloud")
TORNADO_COLUMNS = [
    "assumption",
    "metric",
    "base_value",
    "low_value",
    "high_value",
    "base",
    "at_low",
    "at_high",
    "swing",
]


def base_value(base: CostBase, name: str) -> float:
    """The plan's own value of an assumption (1.0 for a price factor)."""
    return {
        "mfu": base.mfu,
        "utilisation": base.utilisation,
        "pue": base.pue,
        "depreciation_years": base.depreciation_years,
        "fitout_usd_per_kw": base.fitout_usd_per_kw,
        "discount_rate": base.discount_rate,
    }.get(name, 1.0)


def tornado(base: CostBase, ranges) -> pd.DataFrame:
    """Each assumption at its low and high end, the others at the plan's values: the
    swing of each metric (closed form, no plan rebuilt).

    Rows come sorted by swing of cost per useful GPU-hour within each metric, widest
    first (the order a tornado chart draws).
    """
    ref = headline(base)
    rows = []
    for r in ranges:
        lo, hi = headline(base, **{r.name: r.low}), headline(base, **{r.name: r.high})
        for metric in METRICS:
            a, b = float(lo[metric]), float(hi[metric])
            rows.append(
                {
                    "assumption": r.name,
                    "metric": metric,
                    "base_value": base_value(base, r.name),
                    "low_value": r.low,
                    "high_value": r.high,
                    "base": float(ref[metric]),
                    "at_low": a,
                    "at_high": b,
                    "swing": abs(b - a),
                }
            )
    # metric A→Z, then swing widest first, NaN last; ties keep their order (a stable sort,
    # as pandas' sort_values(kind="stable") orders it, without a frame to sort)
    rows.sort(
        key=lambda r: (
            r["metric"],
            math.isnan(r["swing"]),
            0.0 if math.isnan(r["swing"]) else -r["swing"],
        )
    )
    return (
        pd.DataFrame({c: [r[c] for r in rows] for c in TORNADO_COLUMNS})
        if rows
        else pd.DataFrame(rows, columns=TORNADO_COLUMNS)
    )


MC_COLUMNS = ["metric", "p10", "p50", "p90", "mean", "samples"]
MC_METRICS = (
    "cost_per_useful_gpu_hour_usd",
    "capex_usd",
    "own_usd_per_year",
    "training_days",
    "training_cost_usd",
    "own_to_cloud",
)


def sample_assumptions(base: CostBase, ranges, samples: int, seed: int) -> dict[str, np.ndarray]:
    """Triangular samples of every ranged assumption: low, the plan's value, high.

    A plan value outside its range is clipped into it as the mode.
    """
    rng = np.random.default_rng(seed)
    out = {}
    for r in ranges:
        if r.low == r.high:
            out[r.name] = np.full(samples, r.low)
            continue
        mode = min(max(base_value(base, r.name), r.low), r.high)
        out[r.name] = rng.triangular(r.low, mode, r.high, samples)
    return out


def monte_carlo(base: CostBase, ranges, samples: int, seed: int) -> pd.DataFrame:
    """P10 / P50 / P90 of the headline figures over triangular samples of the ranges."""
    draws = sample_assumptions(base, ranges, samples, seed)
    out = headline(base, **draws)
    rows = []
    for metric in MC_METRICS:
        v = np.broadcast_to(out[metric], (samples,))
        # Percentiles depend only on the sorted values; NumPy's SIMD sort and a selection
        # in sorted data take a third of the time of selecting in the raw samples.
        p10, p50, p90 = np.percentile(np.sort(v), [10, 50, 90])
        rows.append(
            {
                "metric": metric,
                "p10": p10,
                "p50": p50,
                "p90": p90,
                "mean": float(v.mean()),
                "samples": samples,
            }
        )
    return pd.DataFrame(rows, columns=MC_COLUMNS)


def own_beats_cloud_probability(base: CostBase, ranges, samples: int, seed: int) -> float:
    """Share of the Monte Carlo samples (the same draws as :func:`monte_carlo`) in which
    owning costs less than renting the offer, like for like (``own_to_cloud`` < 1: per
    useful GPU-hour on both sides; a reservation over its whole term). NaN without an
    offer to compare.

    >>> import math
    >>> b = CostBase(capex_usd=0.0, server_capex_usd=0.0, share_on_servers=0.0,
    ...              it_kw=math.nan, duty_cycle=1.0, pue=1.0, usd_per_kwh=0.0,
    ...              fixed_opex_usd=8760.0, share_opex_usd=0.0, gpus=1.0,
    ...              utilisation=0.5, goodput=1.0, depreciation_years=5.0,
    ...              residual_share=0.0, cloud_usd_per_gpu_hour=2.0,
    ...              cloud_pricing="on_demand", job_gpu_hours=0.0, job_days=0.0, mfu=0.4)
    >>> own_beats_cloud_probability(b, [], 1000, 1)  # $8 760 a year against 4 380 h × $2
    0.0
    """
    if not base.cloud_usd_per_gpu_hour == base.cloud_usd_per_gpu_hour:
        return math.nan
    ratio = np.broadcast_to(
        headline(base, **sample_assumptions(base, ranges, samples, seed))["own_to_cloud"],
        (samples,),
    )
    return float(np.mean(ratio < 1.0))


def with_cloud_assumptions(
    base: CostBase,
    cost,
    opex_rows: list[dict],
    critical_kw: float,
    classes: dict[str, tuple[float, float, float]],
) -> CostBase:
    """``base`` with what the fit-out, staff and cost-of-capital ranges act on: the
    fit-out price per kW and the critical kW it is charged on (own building only), the
    priced staff lines' yearly sum, and each asset class other than the servers as
    (name, capex, life, residual share) from ``classes``. ``cost`` is the cost section."""
    fit = cost.fitout_usd_per_kw
    staff = [r["usd_per_year"] for r in opex_rows if r["priced"] and r["category"] == "staff"]
    others = tuple(
        (name, float(a), float(life), float(res))
        for name, (a, life, res) in classes.items()
        if name != "servers"
    )
    return replace(
        base,
        fitout_usd_per_kw=float(fit)
        if cost.site == "own_building" and fit is not None
        else math.nan,
        critical_kw=critical_kw,
        staff_usd_per_year=float(sum(staff)),
        other_classes=others,
    )


def headline_range(
    mc: pd.DataFrame, base: CostBase, ranges, samples: int, seed: int
) -> dict[str, float]:
    """The headline as a range: P10 / P50 / P90 of the cost per useful GPU-hour from the
    Monte Carlo table ``mc``, and the chance that owning beats renting
    (:func:`own_beats_cloud_probability`, NaN without an offer or GPUs)."""
    row = mc.set_index("metric").loc["cost_per_useful_gpu_hour_usd"]
    chance = own_beats_cloud_probability(base, ranges, samples, seed) if base.gpus else math.nan
    return {
        "cost_per_useful_gpu_hour_p10_usd": float(row["p10"]),
        "cost_per_useful_gpu_hour_p50_usd": float(row["p50"]),
        "cost_per_useful_gpu_hour_p90_usd": float(row["p90"]),
        "own_beats_cloud_probability": chance,
    }
