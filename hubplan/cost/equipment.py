"""The priced equipment list: every row of the facility stage's ``equipment_list`` with its
unit and extended price from the capex lines, then the lines only the bill has (optics and
cables, spares, installation, fit-out, taxes).

The facility stage builds the equipment list below the cost stage and cannot read prices;
the cost stage runs after it, so it is here that each equipment row meets its capex lines.
The extended prices of the priced rows sum to the priced capex, to the cent: each capex
line is counted once, either in the equipment row it buys or as a bill-only row. A row
whose lines are unpriced (or that no capex line buys) is marked ``priced = False`` with
an empty price, never 0.

A NIC inside a server (``type = nic``) is part of that server's price: it is shown with
``price_basis = included_in_server`` and an extended price of 0, since the server line
already carries it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.findings import Finding

#: Capex categories whose lines buy a row of the equipment list, by equipment ``type``.
#: The other categories (optics, network spares, installation, fit-out, taxes) exist only
#: in the bill and become rows of their own.
EQUIPMENT_CATEGORIES = {
    "gpu_server": ("gpu_servers",),
    "storage_node": ("storage",),
    "switch": ("network",),
    # UFM appliances: their own device type (servers, not switches), bought on the
    # network lines of the fabric they manage
    "ufm": ("network",),
    "management_server": ("management", "management_servers"),
}
#: Equipment types that are part of another row's price (a NIC inside a server).
INCLUDED_TYPES = ("nic",)
#: Columns the cost stage adds after the equipment list's own.
PRICE_COLUMNS = [
    "category",
    "price_basis",
    "price_source",
    "price_as_of",
    "price_confidence",
    "priced",
]


def _model_of(item: str, models: list[str]) -> str | None:
    """The longest equipment model named in a capex line's item (None when none is).

    >>> _model_of("training: DGX H100", ["DGX H100", "DGX H100 X", "QM9700"])
    'DGX H100'
    >>> _model_of("compute leaf QM9700 1", ["DGX H100", "QM9700"])
    'QM9700'
    """
    hits = [m for m in models if m and m in item]
    return max(hits, key=len) if hits else None


def priced_equipment(
    equipment: pd.DataFrame, capex: pd.DataFrame
) -> tuple[pd.DataFrame, list[Finding]]:
    """The ``cost_equipment`` table and its findings.

    Parameters
    ----------
    equipment : the facility stage's ``equipment_list`` (``type``, ``model``,
        ``quantity``, …; its own ``unit_price_usd`` / ``extended_price_usd`` are replaced)
    capex : the ``cost_capex`` lines (``category``, ``item``, ``line_quantity``,
        ``line_unit_usd``, ``capex_usd``, ``price_basis``, ``price_source``, ``priced``;
        ``price_as_of`` when the table has it)

    Notes
    -----
    extended price of a row = Σ capex of the lines that buy it; unit price = that sum ÷
    the lines' quantity (the quantity × unit price of the bill, so it equals the line's
    unit price when one line buys the row). A share line (spares, installation, taxes)
    shows as one lot at its amount. Σ extended over priced rows = priced capex.

    Examples
    --------
    Twenty DGX H100 bought on two lines (18 for training, 2 for inference) at
    US$270 000: extended 20 × 270 000 = US$5.4 M; the fit-out is a row of its own.

    >>> eq = pd.DataFrame({"type": ["gpu_server"], "model": ["DGX H100"],
    ...                    "quantity": [20]})
    >>> cx = pd.DataFrame({"category": ["gpu_servers", "gpu_servers", "facility_fitout"],
    ...     "item": ["training: DGX H100", "inference: DGX H100", "facility_fitout"],
    ...     "line_quantity": [18.0, 2.0, 100.0], "line_unit": ["server", "server", "kw"],
    ...     "line_unit_usd": [270e3, 270e3, 11700.0],
    ...     "capex_usd": [4.86e6, 0.54e6, 1.17e6], "price_basis": ["catalogue_server"] * 3,
    ...     "price_source": ["a", "a", "b"], "priced": [True, True, True]})
    >>> t, _ = priced_equipment(eq, cx)
    >>> t[["model", "quantity", "unit_price_usd", "extended_price_usd"]].values.tolist()
    [['DGX H100', 20.0, 270000.0, 5400000.0], ['facility_fitout', 100.0, 11700.0, 1170000.0]]
    """
    findings: list[Finding] = []
    eq = equipment.reset_index(drop=True)
    cols = list(eq.columns)
    for c in ("unit_price_usd", "extended_price_usd"):
        if c not in cols:
            cols.append(c)
    has_date = "price_as_of" in capex.columns
    has_conf = "price_confidence" in capex.columns
    models = [str(m) for m in eq["model"]] if "model" in eq.columns else []
    types = [str(t) for t in eq["type"]] if "type" in eq.columns else []
    lines = capex.reset_index(drop=True)
    owner: list[int | None] = []  # the equipment row each capex line buys (None: bill only)
    for cat, item in zip(lines["category"].astype(str), lines["item"].astype(str), strict=True):
        rows = [i for i, t in enumerate(types) if cat in EQUIPMENT_CATEGORIES.get(t, ())]
        model = _model_of(item, [models[i] for i in rows])
        owner.append(next((i for i in rows if models[i] == model), None) if model else None)

    out: list[dict] = []
    for i, row in eq.iterrows():
        rec = {c: row.get(c) for c in cols}
        mine = [k for k, o in enumerate(owner) if o == i]
        typ = types[i] if types else ""
        if typ in INCLUDED_TYPES:
            rec.update(
                unit_price_usd=math.nan,
                extended_price_usd=0.0,
                category="",
                price_basis="included_in_server",
                price_source="",
                price_as_of="",
                price_confidence="",
                priced=True,
            )
        elif not mine:
            rec.update(
                unit_price_usd=math.nan,
                extended_price_usd=math.nan,
                category="",
                price_basis="no_capex_line",
                price_source="",
                price_as_of="",
                price_confidence="",
                priced=False,
            )
        else:
            part = lines.iloc[mine]
            ok = bool(part["priced"].all())
            qty = float(part["line_quantity"].sum())
            ext = float(part["capex_usd"].sum()) if ok else math.nan
            if not math.isclose(qty, float(row.get("quantity", qty)), abs_tol=1e-9):
                findings.append(
                    Finding(
                        "warning",
                        "cost",
                        str(row.get("model")),
                        "equipment_quantity_mismatch",
                        {
                            "model": str(row.get("model")),
                            "equipment": float(row.get("quantity")),
                            "capex": qty,
                        },
                    )
                )
            rec.update(
                unit_price_usd=ext / qty if ok and qty else math.nan,
                extended_price_usd=ext,
                category=str(part["category"].iloc[0]),
                price_basis="; ".join(dict.fromkeys(part["price_basis"].astype(str)))
                if ok
                else "none",
                price_source="; ".join(
                    dict.fromkeys(s for s in part["price_source"].astype(str) if s)
                ),
                price_as_of="; ".join(
                    dict.fromkeys(s for s in part["price_as_of"].astype(str) if s)
                )
                if has_date
                else "",
                price_confidence="; ".join(
                    dict.fromkeys(s for s in part["price_confidence"].astype(str) if s)
                )
                if has_conf
                else "",
                priced=ok,
            )
        out.append(rec)
    for k, o in enumerate(owner):
        if o is not None:
            continue
        r = lines.iloc[k]
        ok = bool(r["priced"])
        share = str(r.get("line_unit", "")) == "share"
        rec = {c: None for c in cols}
        rec.update(
            type="bill_only",
            model=str(r["item"]),
            configuration="",
            quantity=1.0 if share else float(r["line_quantity"]),
            unit_price_usd=(float(r["capex_usd"]) if share else float(r["line_unit_usd"]))
            if ok
            else math.nan,
            extended_price_usd=float(r["capex_usd"]) if ok else math.nan,
            category=str(r["category"]),
            price_basis=str(r["price_basis"]),
            price_source=str(r["price_source"]),
            price_as_of=str(r["price_as_of"]) if has_date and ok else "",
            price_confidence=str(r["price_confidence"]) if has_conf and ok else "",
            priced=ok,
        )
        out.append(rec)
    table = pd.DataFrame(out, columns=[*cols, *PRICE_COLUMNS])
    for c in ("unit_price_usd", "extended_price_usd", "quantity"):
        table[c] = table[c].astype(float)
    table["priced"] = table["priced"].astype(bool)
    return table, findings


def priced_equipment_total(table: pd.DataFrame) -> tuple[float, int]:
    """(Σ extended price of the priced rows [USD], number of unpriced rows).

    >>> priced_equipment_total(pd.DataFrame({"extended_price_usd": [2.0, np.nan, 0.0],
    ...                                      "priced": [True, False, True]}))
    (2.0, 1)
    """
    priced = table["priced"].to_numpy(dtype=bool)
    amounts = table["extended_price_usd"].to_numpy(dtype=float)[priced]
    return float(np.nansum(amounts)), int(priced.size - np.count_nonzero(priced))
