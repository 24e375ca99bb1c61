"""Currency and taxes: import duty on imported IT hardware, VAT on purchases when it cannot
be recovered, and the CNY twin of every USD column.

Every price in the catalogues is in USD, so the stage prices in USD and converts at the
end: with ``cost.currency = "CNY"`` each cost table gains, beside each ``*usd*`` column, a
``*cny*`` column (the same name with ``usd`` replaced by ``cny``) at the section's dated
rate; the USD columns stay, so a table always says its unit in its column names.

References
----------
.. [CFETS] China Foreign Exchange Trade System: the RMB central parity against the USD,
   authorised by the People's Bank of China each business day (7.1884 on 31 Dec 2024).
.. [VAT] MOF, STA and GACC Announcement No. 39 of 2019: VAT on goods 13 % from 1 April
   2019; input VAT on equipment is deductible for a general taxpayer (PRC Provisional
   Regulations on Value-Added Tax, revised 2008, in force 2009).
.. [ITA] WTO Information Technology Agreement: China's MFN duty on computers (HS 8471)
   and network equipment (HS 8517) is 0.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: Capex categories that are imported IT hardware (import duty applies to them).
IMPORTED_CATEGORIES = ("gpu_servers", "network", "optics", "network_spares", "storage")
#: Opex categories bought from suppliers (VAT applies to them; staff is payroll).
TAXED_OPEX_CATEGORIES = ("energy", "maintenance", "space", "licences")
#: Metrics of the tornado and the Monte Carlo that are money (their values convert).
MONEY_METRICS = (
    "cost_per_useful_gpu_hour_usd",
    "training_cost_usd",
    "capex_usd",
    "own_usd_per_year",
)
#: Unit-price columns: a rate, not money, on lines priced as a share.
UNIT_PRICE_COLUMNS = ("line_unit_usd", "unit_cost_usd")
#: Value columns of the tornado and the Monte Carlo.
METRIC_VALUE_COLUMNS = ("base", "at_low", "at_high", "swing", "p10", "p50", "p90", "mean")


def import_duty_usd(hardware_usd: float, duty_rate: float) -> float:
    """Import duty on imported hardware [USD].

    Notes
    -----
    D = customs value × duty rate; the customs value is taken as the catalogue price.
    China's MFN rate on computers and switches is 0 under the Information Technology
    Agreement [ITA]; a positive rate is the user's (an additional tariff on the origin).

    >>> import_duty_usd(1_000_000.0, 0.25)
    250000.0
    """
    return float(hardware_usd) * float(duty_rate)


def vat_usd(base_usd: float, vat_rate: float, recoverable: bool) -> float:
    """VAT a buyer bears on purchases [USD]: none when it is recovered as input VAT.

    Notes
    -----
    V = (price + import duty) × rate when VAT cannot be deducted; 0 when it can [VAT]
    (import VAT is levied on the customs value plus duty, so duty is in the base).

    >>> vat_usd(1_000_000.0, 0.13, recoverable=False)
    130000.0
    >>> vat_usd(1_000_000.0, 0.13, recoverable=True)
    0.0
    """
    return 0.0 if recoverable else float(base_usd) * float(vat_rate)


def cny_column(name: str) -> str:
    """The CNY twin of a USD column's name.

    >>> cny_column("capex_usd"), cny_column("usd_per_year"), cny_column("usd")
    ('capex_cny', 'cny_per_year', 'cny')
    """
    return name.replace("usd", "cny")


def with_cny(df: pd.DataFrame, cny_per_usd: float) -> pd.DataFrame:
    """The table with a CNY twin after each USD money column (amount × rate).

    The tornado's and the Monte Carlo's value columns hold several metrics, money and
    not; their twins (``base_cny`` …) carry the money metrics' rows converted and NaN on
    the others (MFU, days, a ratio have no currency). The rate columns (``cny_per_usd``)
    are not money and get no twin; a line's unit price that is a share stays a share.

    >>> t = pd.DataFrame({"item": ["a"], "capex_usd": [10.0]})
    >>> with_cny(t, 7.0).columns.tolist(), float(with_cny(t, 7.0)["capex_cny"].iloc[0])
    (['item', 'capex_usd', 'capex_cny'], 70.0)
    """
    out = df.copy()
    if "metric" in df.columns:
        money = df["metric"].isin(MONEY_METRICS).to_numpy()
        for col in METRIC_VALUE_COLUMNS:
            if col in df.columns:
                values = df[col].to_numpy(dtype=float)
                twin = np.where(money, values * cny_per_usd, math.nan)
                out.insert(out.columns.get_loc(col) + 1, f"{col}_cny", twin)
        return out
    # a unit price on a line priced as a share (unit "share", or "usd": a share of an
    # amount) is a rate, the same in any currency
    rate_rows = (
        df["line_unit"].isin(("share", "usd")).to_numpy() if "line_unit" in df.columns else None
    )
    for col in df.columns:
        if "usd" in col.split("_") and not col.startswith("cny_"):
            values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
            twin = values * cny_per_usd
            if rate_rows is not None and col in UNIT_PRICE_COLUMNS:
                twin = np.where(rate_rows, values, twin)
            out.insert(out.columns.get_loc(col) + 1, cny_column(col), twin)
    return out
