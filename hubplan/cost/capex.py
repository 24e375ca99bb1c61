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
from .prices import DEFAULT_CNY_PER_USD, Price, catalogue_price, optics_key, scaled_range

CAPEX_COLUMNS = [
    "category",
    "item",
    "line_quantity",
    "line_unit",
    "line_unit_usd",
    "capex_usd",
    "price_basis",
    "price_source",
    "priced",
    # prices: each line's unit price range and date, and its extended range
    "price_low_usd",
    "price_high_usd",
    "price_as_of",
    "capex_low_usd",
    "capex_high_usd",
    # prices: how far the line's price can be trusted (data/prices.csv's
    # confidence; "quote" for a client's quote, "section" for a section figure)
    "price_confidence",
]


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


def capex_range(lines: list[dict]) -> tuple[float, float, float, int]:
    """(low, point, high, unpriced lines) of a bill [USD]: each the sum of its priced
    lines' extended prices, in line order.

    A bill with unpriced lines has no point and no high (NaN): its priced lines give only
    a floor, since an unpriced line costs something not yet known. The low is that floor.

    >>> capex_range([{"capex_low_usd": 1.0, "capex_usd": 2.0, "capex_high_usd": 3.0,
    ...               "priced": True}])
    (1.0, 2.0, 3.0, 0)
    >>> capex_range([{"capex_low_usd": 1.0, "capex_usd": 2.0, "capex_high_usd": 3.0,
    ...               "priced": True}, {"capex_low_usd": float("nan"),
    ...               "capex_usd": float("nan"), "capex_high_usd": float("nan"),
    ...               "priced": False}])
    (1.0, nan, nan, 1)
    """
    priced = [bool(r["priced"]) for r in lines]
    low, gaps = priced_totals([r["capex_low_usd"] for r in lines], priced)
    point, _ = priced_totals([r["capex_usd"] for r in lines], priced)
    high, _ = priced_totals([r["capex_high_usd"] for r in lines], priced)
    if gaps:
        return low, math.nan, math.nan, gaps
    return low, point, high, 0


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


def _line(
    category,
    item,
    quantity,
    unit,
    price,
    basis,
    source,
    low=None,
    high=None,
    as_of="",
    confidence="section",
) -> dict:
    """One capex line. A priced line without a stated range (a quote, a user's figure)
    carries its point as both ends: the range is as narrow as what is known."""
    price = math.nan if price is None else float(price)
    amount = float(line_usd(quantity, price))
    ok = not math.isnan(amount)
    low = price if low is None or not ok else float(low)
    high = price if high is None or not ok else float(high)
    return {
        "category": category,
        "item": item,
        "line_quantity": float(quantity),
        "line_unit": unit,
        "line_unit_usd": price,
        "capex_usd": amount if ok else math.nan,
        "price_basis": basis if ok else "none",
        "price_source": source if ok else "",
        "priced": ok,
        "price_low_usd": low if ok else math.nan,
        "price_high_usd": high if ok else math.nan,
        "price_as_of": as_of if ok else "",
        "capex_low_usd": float(line_usd(quantity, low)) if ok else math.nan,
        "capex_high_usd": float(line_usd(quantity, high)) if ok else math.nan,
        "price_confidence": confidence if ok else "",
    }


def _catalogue_or(
    kind: str,
    name: str,
    price,
    basis: str,
    source: str,
    quotes: tuple = (),
    fx: float = DEFAULT_CNY_PER_USD,
) -> tuple[object, str, str, Price | None]:
    """(unit price, basis, source, catalogue row): a client's quote when one names the
    item, else the table's own price when it has one, else the price catalogue's
    (``data/prices.csv``) point (a CNY row at ``fx`` CNY per USD)."""
    row = catalogue_price(kind, name, quotes, fx)
    if row is not None and row.source.startswith("quote: "):
        return row.point_usd, "section_quotes", row.source, row
    own = price is not None and not (isinstance(price, float) and math.isnan(price))
    if own:
        return price, basis, source, row if row is not None and row.point_usd == price else None
    if row is None:
        return None, basis, source, None
    return row.point_usd, "catalogue_prices", row.source, row


def server_lines(
    pools: pd.DataFrame,
    price_sources: dict[str, str],
    gpu_factors: tuple[float, float] = (0.74, 1.17),
    quotes: tuple = (),
    fx: float = DEFAULT_CNY_PER_USD,
) -> list[dict]:
    """One line per pool's new GPU servers (spares included: the pools table counts them).

    A server whose price ``data/prices.csv`` brackets carries that range and date; any
    other carries its point × ``gpu_factors`` (the cost section's ``gpu_price``
    assumption, 0.74-1.17: the spread of sourced street prices of an 8-GPU server). A
    server the server catalogue leaves unpriced takes the price catalogue's point and
    range (a CNY row, e.g. a tender award, at ``fx`` CNY per USD). A client's quote for
    the server (the cost section's ``quotes``) replaces all of these."""
    rows = []
    columns = [
        "pool",
        "accelerator",
        "server",
        "gpus_per_server",
        "new_servers",
        "price_basis",
        "server_price_usd",
    ]
    for p in _records(pools, columns, pools["level"].to_numpy() == "pool"):
        if int(p["new_servers"]) == 0:
            continue
        basis = str(p["price_basis"]) if isinstance(p["price_basis"], str) else "none"
        basis = {"server": "catalogue_server", "card_overhead": "card_overhead"}.get(basis, basis)
        key = str(p["accelerator"]) if basis == "card_overhead" else str(p["server"])
        source = price_sources.get(key, "")
        item = p["server"] or f"{p['gpus_per_server']} × {p['accelerator']}"
        point = float(p["server_price_usd"])
        row = catalogue_price("server", str(p["server"]), quotes, fx) if p["server"] else None
        if row is not None and row.source.startswith("quote: "):
            point, basis = row.point_usd, "section_quotes"
        elif row is not None and (
            math.isnan(point) or basis in ("card_overhead", "price_catalogue")
        ):
            # a sourced whole-server price before a card-price estimate, at the plan's rate
            point, basis = row.point_usd, "catalogue_prices"
        if row is not None and row.point_usd == point:
            low, high, as_of = row.low_usd, row.high_usd, row.as_of
            source, confidence = row.source, row.confidence
        else:  # no sourced range: the gpu_price assumption's spread around the point
            low, high = scaled_range(point, *gpu_factors)
            as_of = ""
            # cards × (1 + platform overhead) is a rule, not a price of the server
            confidence = "estimate" if basis == "card_overhead" else "low"
        rows.append(
            _line(
                "gpu_servers",
                f"{p['pool']}: {item}",
                p["new_servers"],
                "server",
                point,
                basis,
                source,
                low,
                high,
                as_of,
                confidence,
            )
        )
    return rows


def device_lines(
    df: pd.DataFrame,
    category: str,
    count_col: str,
    label_cols: list[str],
    basis: str,
    source: str,
    kind: str = "",
    quotes: tuple = (),
    fx: float = DEFAULT_CNY_PER_USD,
) -> list[dict]:
    """One line per row of a device table (storage nodes, switches) at its unit price: the
    table's own, else the price catalogue's for the row's ``model`` as ``kind``."""
    rows = []
    for r in _records(df, [*label_cols, count_col, "price_usd"]):
        if int(r[count_col]) == 0:
            continue
        item = " ".join(str(r[c]) for c in label_cols if str(r[c]))
        price, how, src, row = _catalogue_or(
            kind, str(r.get("model", "")), r["price_usd"], basis, source, quotes, fx
        )
        rows.append(
            _line(
                category,
                item,
                r[count_col],
                "unit",
                price,
                how,
                src,
                row.low_usd if row else None,
                row.high_usd if row else None,
                row.as_of if row else "",
                row.confidence if row else "low",
            )
        )
    return rows


def optics_lines(
    transceivers: pd.DataFrame,
    prices: dict[tuple[str, float], object],
    quotes: tuple = (),
    fx: float = DEFAULT_CNY_PER_USD,
) -> list[dict]:
    """Modules and cables per plane, segment and medium: at the section's prices (a quote)
    where it gives one, else at the price catalogue's (``optics_module`` /
    ``optics_cable`` rows named ``"<media> <speed> module"`` / ``… cable``; a client's
    quote of that name first), with its range."""
    rows = []
    columns = ["plane", "link_segment", "media", "speed_gbps", "modules", "cables"]
    for r in _records(transceivers, columns):
        price = prices.get((str(r["media"]), float(r["speed_gbps"])))
        item = f"{r['plane']} {r['link_segment']} {r['media']} {r['speed_gbps']:g}G"
        for part, count, unit in (
            ("module", r["modules"], "module"),
            ("cable", r["cables"], "cable"),
        ):
            if int(count) <= 0:
                continue
            own = getattr(price, f"{part}_usd") if price is not None else None
            if own is not None:
                rows.append(
                    _line(
                        "optics",
                        f"{item} {part}",
                        count,
                        unit,
                        own,
                        "section_optics_prices",
                        price.source,
                        confidence="quote",
                    )
                )
                continue
            name = optics_key(str(r["media"]), float(r["speed_gbps"]), part)
            row = catalogue_price(f"optics_{part}", name, quotes, fx)
            how = (
                "section_quotes"
                if row and row.source.startswith("quote: ")
                else ("catalogue_prices")
            )
            rows.append(
                _line(
                    "optics",
                    f"{item} {part}",
                    count,
                    unit,
                    row.point_usd if row else None,
                    how,
                    row.source if row else "",
                    row.low_usd if row else None,
                    row.high_usd if row else None,
                    row.as_of if row else "",
                    row.confidence if row else "",
                )
            )
    return rows


def derived_line(category: str, base: pd.DataFrame, share: float | None, basis: str) -> dict:
    """A line priced as a share of other lines; unpriced when the share is unknown or any
    line it rests on is unpriced (a share of an unknown is unknown)."""
    total, unpriced = capex_totals(base) if len(base) else (0.0, 0)
    return share_line(category, total, unpriced, share, basis)


def share_line(
    category: str,
    total: float,
    unpriced: int,
    share: float | None,
    basis: str,
    low_total: float | None = None,
    high_total: float | None = None,
) -> dict:
    """:func:`derived_line` from the totals of the lines it rests on: their priced sum
    [USD] and how many of them are unpriced; its range is the share of their low and
    high totals (the share itself has no range: it is the section's figure).

    >>> row = share_line("installation", 2_000_000.0, 0, 0.05, "section_installation_share",
    ...                  1_500_000.0, 2_500_000.0)
    >>> row["capex_usd"], row["capex_low_usd"], row["capex_high_usd"]
    (100000.0, 75000.0, 125000.0)
    """
    if share is None or unpriced:
        row = _line(category, category, 1, "lot", None, basis, "")
    else:
        low = share_usd(total if low_total is None else low_total, share)
        high = share_usd(total if high_total is None else high_total, share)
        row = _line(category, category, 1, "lot", share_usd(total, share), basis, "", low, high)
    row["line_unit_usd"] = share if share is not None else math.nan
    row["line_unit"] = "share"
    row["line_quantity"] = total if row["priced"] else math.nan
    return row


def fitout_line(critical_kw: float, usd_per_kw: float | None) -> dict:
    """The facility fit-out line on the critical (nameplate) IT load.

    Its range is Cushman & Wakefield's spread by market ($9.3-15.0 M per MW,
    ``data/prices.csv``) when the section keeps the guide's $11 700 per kW average; a
    figure of the user's own has no range but itself.

    >>> row = fitout_line(100.0, 11_700.0)
    >>> row["capex_usd"], row["capex_low_usd"], row["capex_high_usd"]
    (1170000.0, 930000.0, 1500000.0)
    """
    ref = catalogue_price("fitout_per_kw", "own_building")
    price = math.nan if usd_per_kw is None else float(usd_per_kw)
    same = ref is not None and ref.point_usd == price
    row = _line(
        "facility_fitout",
        "facility_fitout",
        critical_kw,
        "kw",
        price,
        "section_fitout_usd_per_kw",
        ref.source if same else "cost section (fitout_usd_per_kw)",
        ref.low_usd if same else None,
        ref.high_usd if same else None,
        ref.as_of if same else "",
        ref.confidence if same else "section",
    )
    row["line_quantity"] = critical_kw
    return row


def shares_of(
    rows: list[dict],
    categories: tuple[str, ...] | None = None,
) -> tuple[float, int, float, float]:
    """(priced sum, unpriced lines, low sum, high sum) of the lines in ``categories``
    (all lines when None): the base a share line (spares, installation) rests on.

    >>> shares_of([{"category": "network", "capex_usd": 2.0, "priced": True,
    ...             "capex_low_usd": 1.0, "capex_high_usd": 3.0}], ("network",))
    (2.0, 0, 1.0, 3.0)
    """
    mine = [r for r in rows if categories is None or r["category"] in categories]
    priced = [r["priced"] for r in mine]
    total, gaps = priced_totals([r["capex_usd"] for r in mine], priced)
    low, _ = priced_totals([r["capex_low_usd"] for r in mine], priced)
    high, _ = priced_totals([r["capex_high_usd"] for r in mine], priced)
    return total, gaps, low, high


def management_line(
    model: str, count: int, quotes: tuple = (), fx: float = DEFAULT_CNY_PER_USD
) -> list[dict]:
    """The management servers (scheduler controllers, cluster manager, monitoring: the
    facility section's ``management_servers``) as a capex line: racked and powered by the
    facility stage, so bought too. Priced by a quote or ``data/prices.csv`` (kind
    ``server``, with the row's range, date and confidence); unpriced, never absent, when
    neither names the model.

    >>> row = management_line("1U management server", 3)[0]
    >>> row["line_quantity"], row["capex_usd"], row["price_confidence"]
    (3.0, 51000.0, 'medium')
    >>> management_line("a server no one prices", 1)[0]["priced"]
    False
    """
    if count <= 0:
        return []
    row = catalogue_price("server", model, quotes, fx)
    how = "section_quotes" if row and row.source.startswith("quote: ") else "catalogue_prices"
    return [
        _line(
            "management_servers",
            f"management: {model}",
            count,
            "server",
            row.point_usd if row else None,
            how,
            row.source if row else "",
            row.low_usd if row else None,
            row.high_usd if row else None,
            row.as_of if row else "",
            row.confidence if row else "",
        )
    ]
