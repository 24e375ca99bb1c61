"""The market across vendors: what a dense PFLOP, a GB of accelerator memory and a kW of
accelerator power cost, per catalogue server with a price (issue 23's market view).

Each row is one priced server: its price in USD (the server catalogue's own, else the price
catalogue's point, a CNY row at the given rate), divided by what its accelerators deliver.
The price is the whole server's (CPUs, memory, NICs and chassis included), so vendors
compare like for like; a card price alone would flatter the cards sold without a host.
"""

from __future__ import annotations

import math

import pandas as pd

from ..core.catalog import Catalog
from ..core.prices import DEFAULT_CNY_PER_USD, server_price_usd

MARKET_COLUMNS = [
    "server",
    "vendor",
    "accelerator",
    "gpus",
    "server_price_usd",
    "price_basis",
    "price_confidence",
    "bf16_dense_pflops",
    "hbm_gb",
    "accelerator_kw",
    "usd_per_dense_pflop",
    "usd_per_hbm_gb",
    "usd_per_accelerator_kw",
]


def per_unit_usd(price_usd: float, amount: float) -> float:
    """A price over what it buys [USD per unit]; NaN when either is unknown or zero.

    Examples
    --------
    A DGX H100 at $270 000 holds 8 × 989.5 dense BF16 TFLOPS = 7.916 PFLOPS:
    270 000 ÷ 7.916 = $34 108 per dense PFLOP.

    >>> round(per_unit_usd(270_000.0, 8 * 989.5 / 1000))
    34108
    >>> math.isnan(per_unit_usd(270_000.0, float("nan")))
    True
    """
    if math.isnan(price_usd) or math.isnan(amount) or amount <= 0:
        return math.nan
    return price_usd / amount


def market_view(catalog: Catalog, cny_per_usd: float = DEFAULT_CNY_PER_USD) -> pd.DataFrame:
    """One row per catalogue server that has a price: USD per dense BF16 PFLOP, per GB of
    accelerator memory and per kW of accelerator TDP, cheapest per PFLOP first.

    Notes
    -----
    dense PFLOPS = GPUs × ``bf16_dense_tflops`` ÷ 1 000 (the dense figure, never the 2:4
    sparse one); HBM = GPUs × ``vram_gb``; accelerator kW = GPUs × ``tdp_w`` ÷ 1 000 (the
    cards' TDP, so servers of different hosts compare on what the accelerators draw). A
    server without a price, or an accelerator without the figure, has no row or an empty
    cell: nothing is estimated here.
    """
    acc = catalog.accelerators.set_index("name")
    rows = []
    for s in catalog.servers.to_dict(orient="records"):
        if s["accelerator"] not in acc.index or not s["gpus"] == s["gpus"]:
            continue
        a = acc.loc[s["accelerator"]]
        price, source, row = server_price_usd(str(s["name"]), float(s["price_usd"]), cny_per_usd)
        if source == "none":
            continue
        basis = "server_catalogue" if source == "server" else source
        # the price's own confidence: the price catalogue's row for it, else "low" (the
        # server catalogue's prices are indicative; its confidence column rates the specs)
        confidence = row.confidence if row is not None and row.point_usd == price else "low"
        n = float(s["gpus"])
        pflops = n * float(a["bf16_dense_tflops"]) / 1000.0
        hbm = n * float(a["vram_gb"])
        kw = n * float(a["tdp_w"]) / 1000.0
        rows.append(
            {
                "server": s["name"],
                "vendor": s["vendor"],
                "accelerator": s["accelerator"],
                "gpus": n,
                "server_price_usd": price,
                "price_basis": basis,
                "price_confidence": confidence,
                "bf16_dense_pflops": pflops,
                "hbm_gb": hbm,
                "accelerator_kw": kw,
                "usd_per_dense_pflop": per_unit_usd(price, pflops),
                "usd_per_hbm_gb": per_unit_usd(price, hbm),
                "usd_per_accelerator_kw": per_unit_usd(price, kw),
            }
        )
    out = pd.DataFrame(rows, columns=MARKET_COLUMNS)
    return out.sort_values("usd_per_dense_pflop", kind="stable").reset_index(drop=True)
