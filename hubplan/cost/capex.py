"""Capital cost by line from the bill of materials, each line with its price basis.

A line whose price is unknown stays in the table with ``priced = False`` and an empty
amount: it is never counted as 0 and never dropped, and the totals say how many lines
they exclude.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.frames import records as _records

CAPEX_COLUMNS = ["category", "item", "line_quantity", "unit", "line_unit_usd", "capex_usd",
                 "price_basis", "price_source", "priced"]  # fmt: skip


def line_usd(quantity, line_unit_usd):
    """Extended price of a line [USD]; NaN (unpriced) when the unit price is unknown.

    >>> float(line_usd(18, 270_000.0))
    4860000.0
    >>> import math; math.isnan(line_usd(4, float("nan")))
    True
    """
    return np.multiply(quantity, line_unit_usd)


def fitout_usd(it_kw, usd_per_kw):
    """Facility fit-out for an IT load [USD].

    Notes
    -----
    F = kW of critical IT load × cost per kW. Cushman & Wakefield's Data Center
    Development Cost Guide 2025 puts the US average at $11.7 M per MW.

    Examples
    --------
    1 MW at $11 700 per kW: $11.7 M.

    >>> float(fitout_usd(1000.0, 11_700.0))
    11700000.0
    """
    return np.multiply(it_kw, usd_per_kw)


def share_usd(base_usd, share):
    """A line priced as a share of other lines (installation, spares) [USD].

    >>> float(share_usd(2_000_000.0, 0.05))
    100000.0
    """
    return np.multiply(base_usd, share)


def capex_totals(lines: pd.DataFrame) -> tuple[float, int]:
    """(sum of the priced lines [USD], number of unpriced lines).

    >>> df = pd.DataFrame({"capex_usd": [1.0, float("nan"), 2.0],
    ...                    "priced": [True, False, True]})
    >>> capex_totals(df)
    (3.0, 1)
    """
    return priced_totals(lines["capex_usd"].to_numpy(), lines["priced"].to_numpy())


def priced_totals(capex_usd, priced) -> tuple[float, int]:
    """(sum of the priced amounts [USD], number of unpriced ones), from two sequences.

    The priced amounts are summed as one NumPy array in line order, skipping NaN, as
    pandas sums a column, so the total is the same to the last bit whichever way the
    lines are held.

    >>> priced_totals([1.0, float("nan"), 2.0], [True, False, True])
    (3.0, 1)
    """
    priced = np.asarray(priced).astype(bool)
    amounts = np.asarray(capex_usd, dtype=float)[priced]
    return float(np.nansum(amounts)), int(priced.size - np.count_nonzero(priced))


def _line(category, item, quantity, unit, price, basis, source) -> dict:
    price = math.nan if price is None else float(price)
    amount = float(line_usd(quantity, price))
    ok = not math.isnan(amount)
    return {"category": category, "item": item, "line_quantity": float(quantity), "unit": unit,
            "line_unit_usd": price, "capex_usd": amount if ok else math.nan,
            "price_basis": basis if ok else "none", "price_source": source if ok else "",
            "priced": ok}  # fmt: skip


def server_lines(pools: pd.DataFrame, price_sources: dict[str, str]) -> list[dict]:
    """One line per pool's new GPU servers (spares included: the pools table counts them)."""
    rows = []
    columns = ["pool", "accelerator", "server", "gpus_per_server", "new_servers",
               "price_basis", "server_price_usd"]  # fmt: skip
    for p in _records(pools, columns, pools["level"].to_numpy() == "pool"):
        if int(p["new_servers"]) == 0:
            continue
        basis = str(p["price_basis"]) if isinstance(p["price_basis"], str) else "none"
        basis = {"server": "catalogue_server", "card_overhead": "card_overhead"}.get(basis, basis)
        key = str(p["accelerator"]) if basis == "card_overhead" else str(p["server"])
        source = price_sources.get(key, "")
        item = p["server"] or f"{p['gpus_per_server']} × {p['accelerator']}"
        rows.append(_line("gpu_servers", f"{p['pool']}: {item}", p["new_servers"], "server",
                          p["server_price_usd"], basis, source))  # fmt: skip
    return rows


def device_lines(df: pd.DataFrame, category: str, count_col: str, label_cols: list[str],
                 basis: str, source: str) -> list[dict]:  # fmt: skip
    """One line per row of a device table (storage nodes, switches) at its unit price."""
    rows = []
    for r in _records(df, [*label_cols, count_col, "price_usd"]):
        if int(r[count_col]) == 0:
            continue
        item = " ".join(str(r[c]) for c in label_cols if str(r[c]))
        rows.append(_line(category, item, r[count_col], "unit", r["price_usd"], basis, source))
    return rows


def optics_lines(transceivers: pd.DataFrame, prices: dict[tuple[str, float], object]) -> list[dict]:
    """Modules and cables per plane, segment and medium at the section's prices."""
    rows = []
    columns = ["plane", "link_segment", "media", "speed_gbps", "modules", "cables"]
    for r in _records(transceivers, columns):
        price = prices.get((str(r["media"]), float(r["speed_gbps"])))
        item = f"{r['plane']} {r['link_segment']} {r['media']} {r['speed_gbps']:g}G"
        src = price.source if price is not None else ""
        if int(r["modules"]) > 0:
            rows.append(_line("optics", f"{item} module", r["modules"], "module",
                              price.module_usd if price is not None else None,
                              "section_optics_prices", src))  # fmt: skip
        if int(r["cables"]) > 0:
            rows.append(_line("optics", f"{item} cable", r["cables"], "cable",
                              price.cable_usd if price is not None else None,
                              "section_optics_prices", src))  # fmt: skip
    return rows


def derived_line(category: str, base: pd.DataFrame, share: float | None, basis: str) -> dict:
    """A line priced as a share of other lines; unpriced when the share is unknown or any
    line it rests on is unpriced (a share of an unknown is unknown)."""
    total, unpriced = capex_totals(base) if len(base) else (0.0, 0)
    return share_line(category, total, unpriced, share, basis)


def share_line(category: str, total: float, unpriced: int, share: float | None,
               basis: str) -> dict:  # fmt: skip
    """:func:`derived_line` from the totals of the lines it rests on: their priced sum
    [USD] and how many of them are unpriced.

    >>> share_line("installation", 2_000_000.0, 0, 0.05, "section_installation_share")[
    ...     "capex_usd"]
    100000.0
    """
    if share is None or unpriced:
        row = _line(category, category, 1, "lot", None, basis, "")
    else:
        row = _line(category, category, 1, "lot", share_usd(total, share), basis, "")
    row["line_unit_usd"] = share if share is not None else math.nan
    row["unit"] = "share"
    row["line_quantity"] = total if row["priced"] else math.nan
    return row
