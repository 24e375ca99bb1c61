"""Time value of money: the capital recovery factor, annuitised capex with residual values,
assets by class with their own lives, refresh at the end of a life and the year-by-year
cash flow whose discounted sum is the net present cost of owning.

Conventions (those of the references below): the purchase is paid at the start (year 0);
yearly costs at the end of each year 1 … T; an asset whose life ends before the horizon is
bought again in the year its life ends (a refresh), at the price of that year; at the end
of the horizon every asset still in service is worth its straight-line book value, a
receipt in year T.

References
----------
.. [BMA] Brealey, R. A., Myers, S. C. & Allen, F., *Principles of Corporate Finance*,
   ch. 2 (present value of an annuity: (1 − (1 + r)^−T) ÷ r) and ch. 6 (the equivalent
   annual cost of an asset: its present cost over the annuity factor of its life).
.. [GB] HM Treasury, *The Green Book* (2022), §6 and Annex 6: discounting with a discount
   factor 1 ÷ (1 + r)^t per year t, and residual values at the end of the appraisal
   period counted as a benefit in its last year.
.. [ASHRAE] ASHRAE Handbook — HVAC Applications (2011), ch. 19: datacom equipment
   product cycles are 1 to 5 years, facilities and infrastructure 10 to 25 years.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: The asset classes capex lines fall into, each with its own life.
ASSET_CLASSES = ("servers", "network", "storage", "fitout")
#: The asset class of each capex category. Installation and commissioning follow the
#: servers (it is a share of the hardware, most of it servers); a category not listed
#: here is IT hardware on the server life (the shortest, so never an understated charge).
CATEGORY_CLASS = {
    "gpu_servers": "servers",
    "installation": "servers",
    "network": "network",
    "optics": "network",
    "network_spares": "network",
    "storage": "storage",
    "facility_fitout": "fitout",
}
#: Classes whose price falls year on year (IT hardware); the fit-out's does not.
IT_CLASSES = ("servers", "network", "storage")
CASHFLOW_COLUMNS = ["year", "category", "flow", "usd", "discount_factor", "present_usd"]


def asset_class(category: str) -> str:
    """The asset class of a capex category (:data:`CATEGORY_CLASS`; IT hardware on the
    server life when not listed).

    >>> asset_class("facility_fitout"), asset_class("optics"), asset_class("racks")
    ('fitout', 'network', 'servers')
    """
    return CATEGORY_CLASS.get(str(category), "servers")


def discount_factor(rate: float, year):
    """Present value of one unit paid in a year [–].

    Notes
    -----
    DF_t = 1 ÷ (1 + r)^t ([GB] Annex 6; [BMA] ch. 2).

    Examples
    --------
    At 8 %, a payment in year 5 is worth 1 ÷ 1.08^5 = 0.68058 today.

    >>> round(float(discount_factor(0.08, 5)), 5)
    0.68058
    """
    return 1.0 / np.power(1.0 + rate, year)


def annuity_factor(rate: float, years: float):
    """Present value of one unit a year for ``years`` years, paid at each year's end [–].

    Notes
    -----
    AF = (1 − (1 + r)^−T) ÷ r; T when r = 0 ([BMA] ch. 2).

    Examples
    --------
    1 a year for 5 years at 8 %: (1 − 1.08^−5) ÷ 0.08 = 3.99271.

    >>> round(float(annuity_factor(0.08, 5)), 5)
    3.99271
    """
    if rate == 0:
        return np.asarray(years, dtype=float)
    return (1.0 - np.power(1.0 + rate, -np.asarray(years, dtype=float))) / rate


def capital_recovery_factor(rate: float, years: float):
    """The constant yearly payment that repays one unit over ``years`` years [1/year].

    Notes
    -----
    CRF = r (1 + r)^T ÷ ((1 + r)^T − 1) = 1 ÷ annuity factor; 1 ÷ T when r = 0
    ([BMA] ch. 6, the equivalent annual cost; the same factor as NREL's levelised cost
    of energy, CRF = i(1 + i)^n ÷ ((1 + i)^n − 1)).

    Examples
    --------
    At 8 % over 5 years, 0.08 × 1.08^5 ÷ (1.08^5 − 1) = 0.250456: a quarter of the price a
    year against a fifth for straight-line depreciation.

    >>> round(float(capital_recovery_factor(0.08, 5)), 6)
    0.250456
    >>> float(capital_recovery_factor(0.0, 5))
    0.2
    """
    return 1.0 / annuity_factor(rate, years)


def capital_charge_usd(capex_usd, rate: float, years, residual_share=0.0):
    """Equivalent annual cost of an asset: its price less the present value of what it is
    worth at the end of its life, spread as an annuity over the life [USD a year].

    Notes
    -----
    A = (C − R ÷ (1 + r)^L) × CRF(r, L), with R = residual share × C ([BMA] ch. 6).
    At r = 0 it is straight-line depreciation, C × (1 − residual share) ÷ L, computed as
    :func:`~hubplan.cost.opex.depreciation_usd_per_year` computes it.

    Examples
    --------
    $1 M over 5 years at 8 %, nothing left: 1 000 000 × 0.250456 = $250 456 a year;
    with a 10 % resale value: (1 000 000 − 100 000 ÷ 1.469328) × 0.250456 = $233 411.

    >>> round(float(capital_charge_usd(1_000_000.0, 0.08, 5)))
    250456
    >>> round(float(capital_charge_usd(1_000_000.0, 0.08, 5, 0.1)))
    233411
    """
    if rate == 0:
        return np.multiply(capex_usd, 1.0 - np.asarray(residual_share)) / years
    years = np.asarray(years, dtype=float)
    end = np.multiply(capex_usd, residual_share) * discount_factor(rate, years)
    return (np.asarray(capex_usd, dtype=float) - end) * capital_recovery_factor(rate, years)


def book_value_share(age_years: float, life_years: float, residual_share: float = 0.0) -> float:
    """Share of its price an asset is worth after some years of straight-line
    depreciation to its residual share [–].

    Notes
    -----
    v = 1 − (1 − residual share) × min(age, life) ÷ life ([GB] §6: residual value at the
    end of the appraisal period).

    Examples
    --------
    A 15-year fit-out after 5 years keeps 1 − 5/15 = 2/3 of its price.

    >>> round(book_value_share(5, 15), 4)
    0.6667
    """
    return 1.0 - (1.0 - residual_share) * min(age_years, life_years) / life_years


def purchase_years(life_years: float, horizon_years: int) -> list[int]:
    """Years an asset is bought in over the horizon: year 0, then each time its life ends
    before the horizon does (a fractional life is refreshed in the year it ends, rounded
    up).

    >>> purchase_years(5, 5), purchase_years(5, 12), purchase_years(4.5, 10)
    ([0], [0, 5, 10], [0, 5, 9])
    """
    years, k = [0], 1
    while math.ceil(k * life_years - 1e-9) < horizon_years:
        years.append(math.ceil(k * life_years - 1e-9))
        k += 1
    return years


def cashflow_table(
    capex_by_class: dict[str, float],
    lives: dict[str, float],
    residual_shares: dict[str, float],
    opex_by_category: dict[str, float],
    horizon_years: int,
    rate: float,
    annual_price_decline: float,
    declining: tuple[str, ...] = IT_CLASSES,
) -> pd.DataFrame:
    """Cash out by year and category over the horizon, each flow discounted.

    Rows: each asset class's purchase (year 0) and refreshes (``flow`` ``purchase`` /
    ``refresh``; IT hardware at (1 − decline)^t of today's price), each opex category
    every year 1 … T (``opex``) and each class's book value at the end (``residual``, a
    negative amount: money back). The NPV of owning is the sum of ``present_usd``.

    Examples
    --------
    A $1 000 server on a 2-year life and $100 a year over 3 years at 10 %, prices falling
    by half a year: 1 000 + 100/1.1 + (250 + 100)/1.21 + 100/1.331 − 250 × 0.5/1.331
    = 1 000 + 90.909 + 289.256 + 75.131 − 93.914 = 1 361.38.

    >>> t = cashflow_table({"servers": 1000.0}, {"servers": 2}, {"servers": 0.0},
    ...                    {"energy": 100.0}, 3, 0.10, 0.5)
    >>> round(float(t["present_usd"].sum()), 2)
    1361.38
    """
    rows = []
    for cls, capex in capex_by_class.items():
        life, rs = lives[cls], residual_shares.get(cls, 0.0)
        years = purchase_years(life, horizon_years)
        for y in years:
            factor = (1.0 - annual_price_decline) ** y if cls in declining else 1.0
            rows.append((y, cls, "purchase" if y == 0 else "refresh", capex * factor))
        last = years[-1]
        factor = (1.0 - annual_price_decline) ** last if cls in declining else 1.0
        value = capex * factor * book_value_share(horizon_years - last, life, rs)
        rows.append((horizon_years, cls, "residual", 0.0 - value))
    for year in range(1, horizon_years + 1):
        for category, amount in opex_by_category.items():
            rows.append((year, category, "opex", amount))
    df = pd.DataFrame(rows, columns=CASHFLOW_COLUMNS[:4])
    df["usd"] = df["usd"].astype(float)
    df["discount_factor"] = discount_factor(rate, df["year"].to_numpy())
    df["present_usd"] = df["usd"] * df["discount_factor"]
    return df.sort_values("year", kind="stable", ignore_index=True)[CASHFLOW_COLUMNS]
