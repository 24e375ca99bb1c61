"""What the Summary sheet and the CLI show first: headline figures picked from the Plan's
tables (never recomputed) and the assumption register of the Scenario."""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd
from pydantic import BaseModel

HEADLINE_COLUMNS = ["figure", "subject", "value"]


def _rows_of(plan, table: str, mask_col: str | None = None, mask_val: str | None = None):
    if table not in plan.tables:
        return pd.DataFrame()
    df = plan.tables[table]
    if mask_col is not None and mask_col in df.columns:
        df = df[df[mask_col] == mask_val]
    return df


def headline_figures(plan) -> pd.DataFrame:
    """The plan's headline figures: one row per figure, ``figure`` a label key (its unit
    and number format come from the label catalogue), ``subject`` what it is about.

    Every value is a cell of a plan table or a row count; nothing is recomputed.

    >>> import hubplan
    >>> h = headline_figures(hubplan.build_plan(hubplan.default_scenario()))
    >>> h[h["figure"] == "total_gpus"][["subject", "value"]].values.tolist()
    [['H100 SXM5 80GB / DGX H100', 160], ['L40S 48GB / Supermicro SYS-521GE-TNRT L40S', 8]]
    """
    rows: list[dict[str, Any]] = []

    def add(figure: str, subject: str, value: Any) -> None:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return
        rows.append({"figure": figure, "subject": subject, "value": value})

    fleet = _rows_of(plan, "pools", "level", "fleet")
    for r in fleet.to_dict(orient="records"):
        subject = f"{r['accelerator']} / {r['server']}"
        for key in ("total_gpus", "total_servers", "capex_usd", "max_power_kw"):
            add(key, subject, r.get(key))
    for r in _rows_of(plan, "training").to_dict(orient="records"):
        add("gpus", r["job"], r.get("gpus"))
        add("days_to_finish", r["job"], r.get("days_to_finish"))
    for r in _rows_of(plan, "inference").to_dict(orient="records"):
        if "service" in r:
            add("gpus", r["service"], r.get("gpus"))
    for r in _rows_of(plan, "storage_tiers").to_dict(orient="records"):
        add("usable_tb", r["tier"], r.get("usable_tb"))
    for r in _rows_of(plan, "compute_inventory", "level", "total").to_dict(orient="records"):
        add("total_pflops", r.get("precision", ""), r.get("total_pflops"))
    for r in _rows_of(plan, "facility_power", "scope", "total").to_dict(orient="records"):
        for key in ("it_nameplate_kw", "facility_kw", "annual_mwh"):
            add(key, "", r.get(key))  # the whole facility
    for r in _rows_of(plan, "cost_summary").to_dict(orient="records"):
        add("xlsx.capex_total", "", r.get("capex_usd"))  # every priced capex line
        for key in (
            "opex_usd_per_year",
            "cost_per_useful_gpu_hour_usd",
            "breakeven_month",
            "co2_t_per_year",
        ):
            add(key, "", r.get(key))
        # how owning is set against the cloud: "no_offer" says there is nothing to compare
        # (not a break-even that never comes)
        if r.get("cloud_basis"):
            add("cloud_basis", str(r.get("cloud_offer") or ""), r["cloud_basis"])
    for table, key in (
        ("racks", "xlsx.racks"),
        ("port_map", "xlsx.links"),
        ("ip_plan", "xlsx.addresses"),
    ):
        if table in plan.tables:
            add(key, "", len(plan.tables[table]))
    sev = plan.findings["severity"] if "severity" in plan.findings else pd.Series([], dtype=str)
    add("xlsx.errors", "", int((sev == "error").sum()))
    add("xlsx.warnings", "", int((sev == "warning").sum()))
    values = [r["value"].item() if hasattr(r["value"], "item") else r["value"] for r in rows]
    return pd.DataFrame(
        {
            "figure": [r["figure"] for r in rows],
            "subject": [r["subject"] for r in rows],
            "value": pd.Series(values, dtype=object),
        },
        columns=HEADLINE_COLUMNS,
    )


def _text(value: Any) -> Any:
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, tuple | list | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def assumption_register(scenario: BaseModel) -> pd.DataFrame:
    """Every scenario field as a row: its path, its value, and its description (which
    says why the default is what it is and cites the source).

    >>> import hubplan
    >>> reg = assumption_register(hubplan.default_scenario())
    >>> row = reg[reg["field"] == "workload.training[0].mfu"].iloc[0]
    >>> row["value"], row["description"][:25]
    (0.45, 'Model FLOPs utilisation: ')
    """
    rows: list[dict[str, Any]] = []

    def walk(model: BaseModel, prefix: str) -> None:
        for name, info in type(model).model_fields.items():
            value = getattr(model, name)
            path = f"{prefix}{name}"
            if isinstance(value, BaseModel):
                walk(value, f"{path}.")
            elif (
                isinstance(value, tuple | list)
                and value
                and all(isinstance(v, BaseModel) for v in value)
            ):
                for i, item in enumerate(value):
                    walk(item, f"{path}[{i}].")
            else:
                rows.append(
                    {"field": path, "value": _text(value), "description": info.description or ""}
                )

    walk(scenario, "")
    return pd.DataFrame(rows, columns=["field", "value", "description"])
