"""Phasing: buy need + headroom now and the rest later at the price then, or all now.

References
----------
Planning guide §7: plan need + 30 % rather than doubling; expand when demand arrives,
since hardware prices keep falling. Epoch AI, "Trends in GPU price-performance" (2022):
FLOP/s per dollar of ML GPUs doubles every 2.07 years.
"""

from __future__ import annotations

import pandas as pd

PHASING_COLUMNS = [
    "strategy",
    "year",
    "gpus_added",
    "gpus_total",
    "price_factor",
    "capex_usd",
    "discounted_capex_usd",
]


def price_factor(years: float, annual_decline: float) -> float:
    """Price of the same compute after some years, relative to today.

    Notes
    -----
    f = (1 − d)^t. With d = 1 − 2^(−1/2.07) (price-performance doubling every 2.07
    years) f = 2^(−t/2.07): half after 2.07 years.

    >>> round(price_factor(2.07, 1 - 2 ** (-1 / 2.07)), 3)
    0.5
    """
    return (1.0 - annual_decline) ** years


def phasing_table(
    need_gpus: float,
    capex_per_gpu_usd: float,
    headroom: float,
    full_factor: float,
    expand_year: int,
    annual_decline: float,
    rate: float,
    fixed_price_per_gpu_usd: float = 0.0,
) -> pd.DataFrame:
    """Capex by year of the phased build and of buying everything now.

    Both end with need × full factor GPUs. Capex per GPU is the plan's priced IT capex
    (servers, network, storage) over its GPUs, whose price falls by ``annual_decline`` a
    year; ``fixed_price_per_gpu_usd`` is the part whose price does not (the fit-out: the
    price-performance trend is the GPUs', not the building's).

    Examples
    --------
    100 GPUs at $1 per GPU, +30 % now, ×2 in all, the rest in year 2 at −50 %/year:
    phased 130 + 70 × 0.25 = 147.5 against 200 now (undiscounted). With $1 of fit-out a
    GPU beside it, the fit-out bought later costs the same: 147.5 + 200 = 347.5 against 400.

    >>> t = phasing_table(100, 1.0, 0.3, 2.0, 2, 0.5, 0.0)
    >>> t.groupby("strategy", sort=False)["capex_usd"].sum().round(2).tolist()
    [147.5, 200.0]
    >>> t = phasing_table(100, 1.0, 0.3, 2.0, 2, 0.5, 0.0, 1.0)
    >>> t.groupby("strategy", sort=False)["capex_usd"].sum().round(2).tolist()
    [347.5, 400.0]
    """
    first = need_gpus * (1 + headroom)
    final = need_gpus * max(full_factor, 1 + headroom)
    rows = []
    f = price_factor(expand_year, annual_decline)
    for strategy, plan in (
        ("phased", [(0, first), (expand_year, final - first)]),
        ("all_now", [(0, final)]),
    ):
        total = 0.0
        for year, gpus in plan:
            factor = f if year else 1.0
            capex = gpus * capex_per_gpu_usd * factor + gpus * fixed_price_per_gpu_usd
            total += gpus
            rows.append(
                {
                    "strategy": strategy,
                    "year": year,
                    "gpus_added": gpus,
                    "gpus_total": total,
                    "price_factor": factor,
                    "capex_usd": capex,
                    "discounted_capex_usd": capex / (1 + rate) ** year,
                }
            )
    return pd.DataFrame(rows, columns=PHASING_COLUMNS)
