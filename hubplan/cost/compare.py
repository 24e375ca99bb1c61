"""Named scenarios side by side: the cost summaries of several plans in one table."""

from __future__ import annotations

import pandas as pd

#: The figures a side-by-side comparison shows, in order.
COMPARE_COLUMNS = [
    "scenario",
    "gpus",
    "capex_usd",
    "capex_unpriced_lines",
    "opex_usd_per_year",
    "own_usd_per_year",
    "cost_per_useful_gpu_hour_usd",
    "cloud_usd_per_gpu_hour",
    "breakeven_month",
    "breakeven_utilisation",
    "npv_own_usd",
    "npv_cloud_usd",
    "co2_t_per_year",
]


def side_by_side(summaries: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per named scenario from each plan's ``cost_summary`` table.

    >>> a = pd.DataFrame({"gpus": [8.0], "capex_usd": [1.0]})
    >>> side_by_side({"base": a})[["scenario", "gpus"]].values.tolist()
    [['base', 8.0]]
    """
    rows = [s.iloc[[0]].assign(scenario=name) for name, s in summaries.items()]
    df = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    return df.reindex(columns=COMPARE_COLUMNS)
