"""The cost stage entry: capex by line, opex by line, the summary with the cost of a useful
GPU-hour, own-versus-cloud curves, phasing, the tornado, the Monte Carlo and carbon.

``run_cost`` calls one calculator per step, in order, each on the results of the ones
before: :func:`capex_calculator`, :func:`opex_calculator` (with :func:`unpriced_findings`),
:func:`cashflow_calculator`, :func:`cloud_calculator` and :func:`uncertainty_calculator`
(the tornado and the Monte Carlo on the :func:`cost_base` totals).

Energy needs the facility stage's ``facility_power`` table (IT typical kW) and the
facility section's PUE and tariff. Until that stage is in the plan, energy is an
unpriced opex line with a finding, and every total says it excludes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import CatalogError
from ..core.findings import Finding
from ..core.stage import Stage, StageResult
from .capex import (
    CAPEX_COLUMNS,
    capex_range,
    device_lines,
    fitout_line,
    management_line,
    optics_lines,
    priced_totals,
    server_lines,
    share_line,
    shares_of,
)
from .carbon import emissions_t_per_year
from .cashflow import IT_CLASSES, asset_class, capital_charge_usd, cashflow_table
from .cloud import (
    breakeven_month,
    cheapest_offer,
    cloud_offer,
    cloud_usd_per_year,
    compare_with_cloud,
    cumulative_curves,
    npv_usd,
)
from .currency import (
    IMPORTED_CATEGORIES,
    TAXED_OPEX_CATEGORIES,
    import_duty_usd,
    vat_usd,
    with_cny,
)
from .equipment import priced_equipment
from .model import (
    CostBase,
    headline,
    headline_range,
    monte_carlo,
    tornado,
    with_cloud_assumptions,
)
from .opex import (
    colocation_usd_per_year,
    energy_mwh_per_year,
    energy_usd_per_year,
    maintenance_usd_per_year,
    staff_usd_per_year,
    useful_gpu_hours,
)
from .phasing import phasing_table
from .section import Cost, StaffRole

OPEX_COLUMNS = [
    "category",
    "item",
    "line_quantity",
    "line_unit",
    "unit_cost_usd",
    "usd_per_year",
    "cost_basis",
    "priced",
]
SUMMARY_COLUMNS = [
    "gpus",
    "capex_usd",
    "capex_unpriced_lines",
    "opex_usd_per_year",
    "opex_unpriced_lines",
    "depreciation_years",
    "residual_share",
    "depreciation_usd_per_year",
    "own_usd_per_year",
    "utilisation",
    "goodput",
    "useful_gpu_hours",
    "cost_per_useful_gpu_hour_usd",
    "cloud_offer",
    "cloud_pricing",
    "cloud_usd_per_gpu_hour",
    "cloud_usd_per_year",
    "breakeven_month",
    "breakeven_utilisation",
    "horizon_years",
    "discount_rate",
    "npv_own_usd",
    "npv_cloud_usd",
    "npv_hybrid_usd",
    "it_kw",
    "energy_mwh_per_year",
    "grid_kg_per_kwh",
    "green_share",
    "co2_t_per_year",
    "capital_charge_usd_per_year",
    "residual_usd",
    "currency",
    "cny_per_usd",
    "cny_per_usd_date",
    # prices: the capex as low / point / high; point and high withheld (NaN) while a line
    # is unpriced, the low then a floor
    "capex_low_usd",
    "capex_point_usd",
    "capex_high_usd",
    # cloud: like-for-like comparison and the Monte Carlo headline
    "cloud_basis",
    "cloud_usd_per_useful_gpu_hour",
    "cloud_term_years",
    "own_term_usd",
    "cloud_term_usd",
    "cost_per_useful_gpu_hour_p10_usd",
    "cost_per_useful_gpu_hour_p50_usd",
    "cost_per_useful_gpu_hour_p90_usd",
    "own_beats_cloud_probability",
]


def _opex(category, item, quantity, unit, unit_cost, amount, basis) -> dict:
    amount = math.nan if amount is None else float(amount)
    ok = not math.isnan(amount)
    return {
        "category": category,
        "item": item,
        "line_quantity": float(quantity),
        "line_unit": unit,
        "unit_cost_usd": math.nan if unit_cost is None else float(unit_cost),
        "usd_per_year": amount,
        "cost_basis": basis if ok else "none",
        "priced": ok,
    }


def _col(df: pd.DataFrame, name: str) -> np.ndarray:
    """One column as a NumPy array: the stage reads tables of a few rows on every control
    change of the dashboard, where a pandas filter costs far more than a NumPy mask."""
    return df[name].to_numpy()


def _nansum(values: np.ndarray):
    """Sum skipping NaN, as pandas sums a column (the same bits: NaN set to 0, then one
    NumPy sum in row order)."""
    return np.nansum(values) if values.dtype.kind == "f" else values.sum()


def _nanmax(values: np.ndarray):
    """Largest value skipping NaN (NaN when there is none), as pandas takes a column's."""
    if values.dtype.kind == "f":
        values = values[~np.isnan(values)]
        return values.max() if values.size else math.nan
    return values.max()


def _price_sources(pools: pd.DataFrame, catalog: Catalog) -> dict[str, str]:
    """Price source by server name and by accelerator name (for card-price servers)."""
    out = {}
    level = _col(pools, "level") == "pool"
    for acc, server in zip(
        _col(pools, "accelerator")[level].tolist(),
        _col(pools, "server")[level].tolist(),
        strict=True,
    ):
        out[str(acc)] = str(catalog.accelerator(acc)["price_source"])
        if server:
            try:
                out[str(server)] = str(catalog.server(server)["price_source"])
            except CatalogError:  # a custom server: its price is the user's
                out[str(server)] = "custom server (pools)"
    return out


def _in_service_gpus(pools: pd.DataFrame) -> float:
    """GPUs that do work: every fleet row's servers (spares excluded) × GPUs per server."""
    fleet = _col(pools, "level") == "fleet"
    return float(_nansum(_col(pools, "servers")[fleet] * _col(pools, "gpus_per_server")[fleet]))


def _goodput(cost: Cost, training: pd.DataFrame) -> float:
    if cost.goodput is not None:
        return cost.goodput
    gpus = _col(training, "gpus") if len(training) else None
    if gpus is None or _nansum(gpus) == 0:
        return 1.0
    return float(_nansum(_col(training, "goodput") * gpus) / _nansum(gpus))


def _it_kw(tables: dict[str, pd.DataFrame], column: str) -> float:
    """The facility stage's total IT power: ``it_typical_kw`` (energy) or
    ``it_nameplate_kw`` (the critical load a fit-out or a colocation contract is sized
    for); NaN before the facility stage is in the plan."""
    power = tables.get("facility_power")
    if power is None or power.empty:
        return math.nan
    total = np.flatnonzero(_col(power, "scope") == "total")
    return float(_col(power, column)[total[0]]) if total.size else math.nan


def _offer(cost: Cost, pools: pd.DataFrame, offers: pd.DataFrame) -> tuple[str, str, float, float]:
    """(offer name, kind, USD per GPU-hour, term in months) from the catalogue's offers;
    NaN price when no offer matches, NaN term when the offer states none."""
    if cost.cloud_offer is not None:
        row = cloud_offer(cost.cloud_offer, offers=offers)
    else:
        level = _col(pools, "level") == "pool"
        names, accs = _col(pools, "pool")[level], _col(pools, "accelerator")[level]
        train = accs[names == "training"]
        acc = str((train if len(train) else accs)[0]) if len(accs) else ""
        row = cheapest_offer(acc, offers)
    if row is None:
        price = cost.cloud_usd_per_gpu_hour or math.nan
        return ("custom" if cost.cloud_usd_per_gpu_hour else "", "on_demand", price, math.nan)
    price = cost.cloud_usd_per_gpu_hour or float(row["usd_per_gpu_hour"])
    return str(row["name"]), str(row["pricing"]), price, float(row["term_months"])


@dataclass(frozen=True)
class CapexResult:
    """What the capex calculator gives the later ones.

    Attributes
    ----------
    lines : the ``cost_capex`` table, one row per line
    rows : the same lines as dicts (the findings read them)
    capex_usd : the priced lines' sum [USD]; unpriced : how many lines have no price
    server_capex_usd : the priced GPU-server lines' sum [USD] (the tornado's ``gpu_price``)
    install : the installation line (its ``priced`` decides the share on servers)
    """

    lines: pd.DataFrame
    rows: list[dict]
    capex_usd: float
    unpriced: int
    server_capex_usd: float
    install: dict


@dataclass(frozen=True)
class OpexResult:
    """What the opex calculator gives the later ones.

    Attributes
    ----------
    table : the ``cost_opex`` table; rows : its lines as dicts
    opex_usd_per_year : the priced lines' sum [USD a year]; unpriced : unpriced lines
    fixed_usd_per_year : staff, space and licences [USD a year]
    maintenance_usd_per_year : None when it is not priced
    gpus : GPUs in service; goodput : share of allocated hours that does useful work
    """

    table: pd.DataFrame
    rows: list[dict]
    opex_usd_per_year: float
    unpriced: int
    fixed_usd_per_year: float
    maintenance_usd_per_year: float | None
    gpus: float
    goodput: float


@dataclass(frozen=True)
class CashflowResult:
    """Depreciation, the capital charge, the yearly cost of owning, the cost of a useful
    GPU-hour, the cash flow by year and the NPV of owning over the horizon.

    Attributes
    ----------
    depreciation_usd_per_year : straight line, each asset class over its own life
    own_usd_per_year : capital charge + priced opex [USD a year]
    cost_per_useful_gpu_hour_usd : own a year over the useful GPU-hours
    residual_usd : what the assets are worth at the end of the horizon [USD]
    npv_own_usd : the discounted sum of ``table`` [USD]
    capital_charge_usd_per_year : each class's capex annuitised over its life [USD a year]
    table : the ``cost_cashflow`` table (year × category)
    """

    depreciation_usd_per_year: float
    own_usd_per_year: float
    cost_per_useful_gpu_hour_usd: float
    residual_usd: float
    npv_own_usd: float
    capital_charge_usd_per_year: float = 0.0
    table: pd.DataFrame | None = None


@dataclass(frozen=True)
class CloudResult:
    """Own versus cloud: the offer's yearly bill, the curves, break-even and NPVs."""

    offer: str
    kind: str
    price: float
    cloud_usd_per_year: float
    curve: pd.DataFrame
    breakeven_month: float
    breakeven_utilisation: float
    npv_cloud_usd: float
    npv_hybrid_usd: float
    findings: list[Finding]
    #: cloud: the like-for-like comparison (:func:`~hubplan.cost.cloud.compare_with_cloud`)
    comparison: dict = field(default_factory=dict)


def capex_calculator(
    *,
    catalog: Catalog,
    tables: dict[str, pd.DataFrame],
    cost: Cost,
    critical_kw: float,
    management: tuple[str, int] = ("", 0),
) -> CapexResult:
    """Capex by line: GPU servers, storage nodes, switches, optics, management servers
    (``management``: the facility section's model and count), network spares,
    installation and (own building) the fit-out on the critical IT load."""
    pools, storage, switches = tables["pools"], tables["storage_nodes"], tables["switches"]
    optics = tables["transceivers"]
    gpu = {r.name: (r.low, r.high) for r in cost.ranges}.get("gpu_price", (0.74, 1.17))
    fx = cost.cny_per_usd  # a CNY-listed price in USD at the plan's rate
    rows = server_lines(pools, _price_sources(pools, catalog), gpu, cost.quotes, fx)
    rows += device_lines(
        storage,
        "storage",
        "nodes",
        ["tier", "role", "model"],
        "catalogue_storage",
        "data/storage.csv",
        "storage",
        cost.quotes,
        fx,
    )
    rows += device_lines(
        switches,
        "network",
        "count",
        ["plane", "role", "model", "unit"],
        "catalogue_switches",
        "data/switches.csv",
        "switch",
        cost.quotes,
        fx,
    )
    prices = {(p.media, p.speed_gbps): p for p in cost.optics_prices}
    rows += optics_lines(optics, prices, cost.quotes, fx)
    rows += management_line(*management, cost.quotes, fx)
    total, gaps, low, high = shares_of(rows, ("network", "optics"))
    spares = share_line(
        "network_spares",
        total,
        gaps,
        cost.network_spares_share,
        "section_network_spares_share",
        low,
        high,
    )
    total, gaps, low, high = shares_of(rows)
    install = share_line(
        "installation",
        total,
        gaps,
        cost.installation_share,
        "section_installation_share",
        low,
        high,
    )
    extra = [spares, install]
    if cost.site == "own_building":
        extra.append(fitout_line(critical_kw, cost.fitout_usd_per_kw))
    if rows:  # one frame, column by column
        lines = pd.DataFrame({c: [r[c] for r in rows + extra] for c in CAPEX_COLUMNS})
    else:  # nothing to buy: the derived lines after an empty table (object columns)
        lines = pd.concat(
            [pd.DataFrame(rows, columns=CAPEX_COLUMNS), pd.DataFrame(extra, columns=CAPEX_COLUMNS)],
            ignore_index=True,
        )
        lines["priced"] = lines["priced"].astype(bool)
    rows += extra
    capex, capex_gaps = priced_totals([r["capex_usd"] for r in rows], [r["priced"] for r in rows])
    server_capex = float(
        _nansum(
            np.array(
                [r["capex_usd"] for r in rows if r["category"] == "gpu_servers" and r["priced"]],
                dtype=float,
            )
        )
    )
    return CapexResult(lines, rows, capex, capex_gaps, server_capex, install)


def staff_roles(
    *, cost: Cost, tables: dict[str, pd.DataFrame], critical_kw: float
) -> tuple[StaffRole, ...]:
    """The operations team: the section's ``staff`` when given, else each of
    ``staff_ratios`` sized from the plan.

    Notes
    -----
    FTE = max(minimum, units ÷ units per FTE), units = GPU servers in service (spares
    out), racks (the facility stage's ``racks`` table), or MW of critical (nameplate) IT
    load; ``site``: the minimum. A role for an own building only has none in colocation.
    Pay is the role's USD figure, or with ``currency = CNY`` its CNY figure ÷ the rate
    (so the CNY column shows the Chinese salary itself).

    Examples
    --------
    The default plan: 19 GPU servers ÷ 125 = 0.15 → the 1-FTE minimum of systems
    operations; the facility shift 2 posts × 8 760 ÷ 2 080 = 8.42 FTE.
    """
    if cost.staff:
        return cost.staff
    pools = tables["pools"]
    fleet = _col(pools, "level") == "fleet"
    racks = tables.get("racks")
    units = {
        "servers": float(_nansum(_col(pools, "servers")[fleet])),
        "racks": float(len(racks)) if racks is not None else math.nan,
        "mw": critical_kw / 1000.0,
        "site": 0.0,
    }
    out = []
    for r in cost.staff_ratios:
        if r.own_building_only and cost.site != "own_building":
            continue
        fte = (
            max(r.minimum_fte, units[r.basis] / r.units_per_fte)
            if not math.isnan(units[r.basis])
            else math.nan
        )
        pay = r.usd_per_year
        if cost.currency == "CNY" and r.cny_per_year is not None:
            pay = r.cny_per_year / cost.cny_per_usd
        out.append(
            StaffRole(
                role=r.role,
                headcount=fte if not math.isnan(fte) else 0.0,
                usd_per_year=pay if not math.isnan(fte) else None,
            )
        )
    return tuple(out)


#: Capex categories a hardware maintenance and support contract covers: the systems
#: (servers, storage, switches and appliances, management servers); optics and cables are
#: replaced from the spares bought with them.
MAINTAINED_CATEGORIES = ("gpu_servers", "storage", "network", "management_servers")


def maintenance_bases(rows: list[dict]) -> dict[str, tuple[float, int]]:
    """(priced sum [USD], unpriced lines) of the capex each yearly share rests on:
    ``hardware`` (:data:`MAINTAINED_CATEGORIES`) for maintenance and support,
    ``insured`` (every line but taxes) for insurance.

    >>> maintenance_bases([{"category": "gpu_servers", "capex_usd": 100.0, "priced": True},
    ...                    {"category": "facility_fitout", "capex_usd": 50.0, "priced": True},
    ...                    {"category": "optics", "capex_usd": 9.0, "priced": False}])
    {'hardware': (100.0, 0), 'insured': (150.0, 1)}
    """
    picks = {"hardware": lambda c: c in MAINTAINED_CATEGORIES, "insured": lambda c: c != "taxes"}
    out = {}
    for name, keep in picks.items():
        mine = [r for r in rows if keep(r["category"])]
        out[name] = priced_totals([r["capex_usd"] for r in mine], [r["priced"] for r in mine])
    return out


def _share_of(base: tuple[float, int], share: float | None) -> float | None:
    """A yearly share of a capex base [USD]; None (unpriced) when the share is unknown or
    a line of the base is unpriced."""
    total, gaps = base
    return None if share is None or gaps else float(maintenance_usd_per_year(total, share))


def opex_calculator(
    *,
    tables: dict[str, pd.DataFrame],
    cost: Cost,
    capex: CapexResult,
    it_kw: float,
    critical_kw: float,
    pue: float,
    tariff: float,
) -> OpexResult:
    """Opex by line a year: energy, hardware maintenance, insurance, staff by role,
    colocation rent and licences.

    Maintenance and insurance are shares of the capex they rest on
    (:func:`maintenance_bases`); a share of a base with an unpriced line is unpriced, as
    a share of an unknown is unknown."""
    pools, training = tables["pools"], tables["training"]
    capex_result = capex
    gpus = _in_service_gpus(pools)
    goodput = _goodput(cost, training)
    opex = [
        _opex(
            "energy",
            "energy",
            it_kw,
            "kw",
            tariff,
            energy_usd_per_year(it_kw, pue, tariff, cost.duty_cycle),
            "facility_power",
        )
    ]
    bases = maintenance_bases(capex_result.rows)
    maint = _share_of(bases["hardware"], cost.maintenance_share)
    opex.append(
        _opex(
            "maintenance",
            "maintenance",
            bases["hardware"][0],
            "usd",
            cost.maintenance_share,
            maint,
            "section_maintenance_share",
        )
    )
    opex.append(
        _opex(
            "insurance",
            "insurance",
            bases["insured"][0],
            "usd",
            cost.insurance_share,
            _share_of(bases["insured"], cost.insurance_share),
            "section_insurance_share",
        )
    )
    for role in staff_roles(cost=cost, tables=tables, critical_kw=critical_kw):
        amount = (
            staff_usd_per_year(role.headcount, role.usd_per_year)
            if role.usd_per_year is not None
            else None
        )
        opex.append(
            _opex(
                "staff",
                role.role,
                role.headcount,
                "fte",
                role.usd_per_year,
                amount,
                "section_staff",
            )
        )
    if cost.site == "colocation":
        monthly, basis = cost.colocation_usd_per_kw_month, "section_colocation_usd_per_kw_month"
        if cost.currency == "CNY" and cost.colocation_cny_per_kw_month is not None:
            # the Chinese rent itself, so the CNY column shows it unchanged
            monthly = cost.colocation_cny_per_kw_month / cost.cny_per_usd
            basis = "section_colocation_cny_per_kw_month"
        rent = colocation_usd_per_year(critical_kw, monthly) if monthly is not None else None
        opex.append(_opex("space", "colocation", critical_kw, "kw", monthly, rent, basis))
    opex.append(
        _opex(
            "licences",
            "licences",
            gpus,
            "gpu",
            cost.licences_usd_per_gpu_year,
            gpus * cost.licences_usd_per_gpu_year,
            "section_licences_usd_per_gpu_year",
        )
    )
    opex_df = pd.DataFrame({c: [r[c] for r in opex] for c in OPEX_COLUMNS})
    opex_total, opex_gaps = priced_totals(
        [r["usd_per_year"] for r in opex], [r["priced"] for r in opex]
    )
    fixed = float(
        _nansum(
            np.array(
                [
                    r["usd_per_year"]
                    for r in opex
                    if r["priced"] and r["category"] in ("staff", "space", "licences")
                ],
                dtype=float,
            )
        )
    )
    return OpexResult(opex_df, opex, opex_total, opex_gaps, fixed, maint, gpus, goodput)


def capex_taxes(*, cost: Cost, capex: CapexResult) -> CapexResult:
    """Import duty on the imported IT hardware and the VAT the buyer cannot recover, each
    a capex line of its own (category ``taxes``), added only when it is not zero.

    Notes
    -----
    duty = imported hardware (servers, switches, optics, spares, storage) × duty rate;
    VAT = (capex + duty) × VAT rate when ``vat_recoverable`` is false, else none
    (:func:`~hubplan.cost.currency.vat_usd`). Both rest on the priced lines only; the
    unpriced ones are counted and named as before.
    """

    def taxed(col: str) -> dict[str, float]:
        """Duty and VAT at one end of the range (prices: low / point / high)."""
        bought = [r for r in capex.rows if r["priced"]]
        hardware = float(sum(r[col] for r in bought if r["category"] in IMPORTED_CATEGORIES))
        duty = import_duty_usd(hardware, cost.import_duty_rate)
        base = float(sum(r[col] for r in bought)) + duty
        return {
            "import_duty_base": hardware,
            "import_duty": duty,
            "vat_base": base,
            "vat": vat_usd(base, cost.vat_rate, cost.vat_recoverable),
        }

    low, point, high = taxed("capex_low_usd"), taxed("capex_usd"), taxed("capex_high_usd")
    extra = []
    for item, rate, basis in (
        ("import_duty", cost.import_duty_rate, "section_import_duty_rate"),
        ("vat", cost.vat_rate, "section_vat_rate"),
    ):
        if point[item]:
            extra.append(
                {
                    "category": "taxes",
                    "item": item,
                    "line_quantity": point[f"{item}_base"],
                    "line_unit": "share",
                    "line_unit_usd": rate,
                    "capex_usd": point[item],
                    "price_low_usd": rate,
                    "price_high_usd": rate,
                    "price_as_of": "",
                    "capex_low_usd": low[item],
                    "capex_high_usd": high[item],
                    "price_basis": basis,
                    "price_source": "cost section",
                    "priced": True,
                    "price_confidence": "section",
                }
            )
    if not extra:
        return capex
    lines = pd.concat([capex.lines, pd.DataFrame(extra, columns=CAPEX_COLUMNS)], ignore_index=True)
    return CapexResult(
        lines,
        capex.rows + extra,
        capex.capex_usd + point["import_duty"] + point["vat"],
        capex.unpriced,
        capex.server_capex_usd,
        capex.install,
    )


def opex_taxes(*, cost: Cost, opex: OpexResult) -> OpexResult:
    """VAT on the opex bought from suppliers (energy, maintenance, space, licences) when
    the buyer cannot recover it: one opex line (category ``taxes``), counted with the
    fixed yearly costs of the closed-form headline."""
    base = float(
        sum(
            r["usd_per_year"]
            for r in opex.rows
            if r["priced"] and r["category"] in TAXED_OPEX_CATEGORIES
        )
    )
    vat = vat_usd(base, cost.vat_rate, cost.vat_recoverable)
    if not vat:
        return opex
    row = _opex("taxes", "vat", base, "usd", cost.vat_rate, vat, "section_vat_rate")
    table = pd.concat([opex.table, pd.DataFrame([row], columns=OPEX_COLUMNS)], ignore_index=True)
    return OpexResult(
        table,
        [*opex.rows, row],
        opex.opex_usd_per_year + vat,
        opex.unpriced,
        opex.fixed_usd_per_year + vat,
        opex.maintenance_usd_per_year,
        opex.gpus,
        opex.goodput,
    )


def unpriced_findings(capex: CapexResult, opex: OpexResult) -> list[Finding]:
    """One finding per category naming its unpriced lines, and one per total that
    excludes some."""
    findings: list[Finding] = []
    rows, opex_rows = capex.rows, opex.rows
    capex_gaps, opex_gaps = capex.unpriced, opex.unpriced
    opex_total = opex.opex_usd_per_year
    capex = capex.capex_usd
    opex = opex_rows
    # One finding per category, naming its unpriced lines (a 16k-GPU plan has hundreds).
    for table, code in ((rows, "capex_unpriced"), (opex, "opex_unpriced")):
        gaps: dict[str, list[str]] = {}  # category -> its unpriced items, in line order
        for r in table:
            if not r["priced"]:
                gaps.setdefault(r["category"], []).append(r["item"])
        for category, items in gaps.items():
            shown = list(dict.fromkeys(items))[:5]  # a 16k plan has one line per unit
            findings.append(
                Finding(
                    "warning",
                    "cost",
                    str(category),
                    code,
                    {
                        "category": category,
                        "lines": len(items),
                        "items": "; ".join(shown) + (" …" if len(items) > len(shown) else ""),
                    },
                )
            )
    if capex_gaps:
        findings.append(
            Finding(
                "warning",
                "cost",
                "capex",
                "capex_excludes_unpriced",
                {"lines": capex_gaps, "capex_usd": capex},
            )
        )
    if opex_gaps:
        findings.append(
            Finding(
                "warning",
                "cost",
                "opex",
                "opex_excludes_unpriced",
                {"lines": opex_gaps, "opex_usd": opex_total},
            )
        )
    return findings


def estimate_findings(rows: list[dict]) -> list[Finding]:
    """One warning when priced lines rest on estimates (``price_confidence`` estimate: a
    price derived by a stated rule, no source giving it): how many, their capex and its
    share of the priced capex, and the first few, so a reviewer knows which figures to
    replace with quotes first.

    >>> f = estimate_findings([{"priced": True, "capex_usd": 30.0, "item": "a",
    ...                         "price_confidence": "estimate"},
    ...                        {"priced": True, "capex_usd": 70.0, "item": "b",
    ...                         "price_confidence": "low"}])
    >>> f[0].code, f[0].params["lines"], f[0].params["share"]
    ('capex_estimated_lines', 1, 0.3)
    """
    priced = [r for r in rows if r["priced"]]
    mine = [r for r in priced if r.get("price_confidence") == "estimate"]
    if not mine:
        return []
    amount = float(sum(r["capex_usd"] for r in mine))
    total = float(sum(r["capex_usd"] for r in priced))
    items = list(dict.fromkeys(str(r["item"]) for r in mine))
    return [
        Finding(
            "warning",
            "cost",
            "capex",
            "capex_estimated_lines",
            {
                "lines": len(mine),
                "capex_usd": amount,
                "share": amount / total if total else math.nan,
                "items": "; ".join(items[:5]) + (f" (+{len(items) - 5})" if len(items) > 5 else ""),
            },
        )
    ]


def capex_by_class(capex: CapexResult) -> dict[str, float]:
    """Priced capex [USD] by asset class (servers, network, storage, fitout), in the
    order the classes first appear among the lines; unpriced lines are left out, as from
    every total (their count is in the summary)."""
    out: dict[str, float] = {}
    for r in capex.rows:
        if r["priced"]:
            cls = asset_class(r["category"])
            out[cls] = out.get(cls, 0.0) + float(r["capex_usd"])
    return out


def asset_lives(cost: Cost) -> tuple[dict[str, float], dict[str, float]]:
    """(life [years], residual share at the end of it) by asset class, from the section:
    servers ``depreciation_years``, network ``network_life_years``, storage
    ``storage_life_years``, fit-out ``fitout_life_years``."""
    lives = {
        "servers": cost.depreciation_years,
        "network": cost.network_life_years,
        "storage": cost.storage_life_years,
        "fitout": cost.fitout_life_years,
    }
    shares = {
        "servers": cost.residual_share,
        "network": cost.residual_share,
        "storage": cost.residual_share,
        "fitout": cost.fitout_residual_share,
    }
    return lives, shares


def capital_charges(cost: Cost, capex: CapexResult) -> dict[str, float]:
    """Each asset class's capex annuitised over its own life at the discount rate, less
    the present value of its residual [USD a year] (:func:`capital_charge_usd`)."""
    lives, shares = asset_lives(cost)
    return {
        cls: float(capital_charge_usd(amount, cost.discount_rate, lives[cls], shares[cls]))
        for cls, amount in capex_by_class(capex).items()
    }


def cost_base(
    *,
    tables: dict[str, pd.DataFrame],
    cost: Cost,
    capex: CapexResult,
    opex: OpexResult,
    it_kw: float,
    pue: float,
    tariff: float,
    price: float,
    kind: str,
) -> CostBase:
    """The totals the closed-form headline, the tornado and the Monte Carlo rest on."""
    training = tables["training"]
    install, server_capex = capex.install, capex.server_capex_usd
    share_on = (cost.installation_share or 0.0) if install["priced"] else 0.0
    # the yearly lines priced as shares of capex, and their rates where priced
    rate = {
        r["item"]: float(r["unit_cost_usd"])
        for r in opex.rows
        if r["priced"] and r["category"] in ("maintenance", "insurance")
    }
    share_opex = float(
        sum(
            r["usd_per_year"]
            for r in opex.rows
            if r["priced"] and r["category"] in ("maintenance", "insurance")
        )
    )
    gpus, goodput, fixed = opex.gpus, opex.goodput, opex.fixed_usd_per_year
    # the classes not on the server life: their capex and their fixed yearly charge
    by_class, charges = capex_by_class(capex), capital_charges(cost, capex)
    other_capex = sum(v for c, v in by_class.items() if c != "servers")
    other_charge = sum(v for c, v in charges.items() if c != "servers")
    capex = capex.capex_usd
    job_hours = float(_nansum(_col(training, "gpu_days")) * 24) if len(training) else 0.0
    job_days = float(_nanmax(_col(training, "days_to_finish"))) if len(training) else 0.0
    job_gpus = _nansum(_col(training, "gpus")) if len(training) else 0
    mfu = (
        float(_nansum(_col(training, "mfu") * _col(training, "gpus")) / job_gpus)
        if len(training) and job_gpus
        else 0.45
    )
    base = CostBase(
        capex_usd=capex,
        server_capex_usd=server_capex,
        share_on_servers=share_on,
        it_kw=it_kw,
        duty_cycle=cost.duty_cycle,
        pue=pue if not math.isnan(pue) else 1.0,
        usd_per_kwh=tariff if not math.isnan(tariff) else 0.0,
        fixed_opex_usd=fixed,
        share_opex_usd=share_opex,
        gpus=gpus,
        utilisation=cost.utilisation,
        goodput=goodput,
        depreciation_years=cost.depreciation_years,
        residual_share=cost.residual_share,
        cloud_usd_per_gpu_hour=price,
        cloud_pricing=kind,
        job_gpu_hours=job_hours,
        job_days=job_days,
        mfu=mfu,
        discount_rate=cost.discount_rate,
        other_capex_usd=other_capex,
        other_capital_usd_per_year=other_charge,
        server_share_rate=rate.get("insurance", 0.0) * (1.0 + share_on),
        maintenance_share=rate.get("maintenance", 0.0),
        fitout_share_rate=rate.get("insurance", 0.0),
        maintenance_usd_per_year=float(
            sum(r["usd_per_year"] for r in opex.rows if r["priced"] and r["item"] == "maintenance")
        ),
    )
    return base


def cashflow_calculator(
    *, cost: Cost, capex: CapexResult, opex: OpexResult, base: CostBase
) -> CashflowResult:
    """The money over time: each asset class's capex annuitised over its own life (the
    capital charge), the yearly cost of owning and of a useful GPU-hour from it, and the
    cash flow by year over the horizon (purchases, refreshes at the end of a life at the
    price then, opex, residual values) whose discounted sum is the NPV of owning.

    Notes
    -----
    own a year = Σ_class (C − R ÷ (1 + r)^L) × CRF(r, L) + opex (Brealey, Myers & Allen,
    *Principles of Corporate Finance*, ch. 6: equivalent annual cost); NPV = Σ_t flow_t ÷
    (1 + r)^t (HM Treasury Green Book, Annex 6). The phasing's price decline applies to
    IT hardware refreshes, not to the fit-out. Straight-line depreciation, each class
    over its life, is kept beside it as the accounting figure.
    """
    gpus, opex_total = opex.gpus, opex.opex_usd_per_year
    by_class, charges = capex_by_class(capex), capital_charges(cost, capex)
    lives, shares = asset_lives(cost)
    dep = float(sum(c * (1 - shares[k]) / lives[k] for k, c in by_class.items()))
    charge = float(sum(charges.values()))
    annual = charge + opex_total
    head = headline(base)
    per_hour = float(head["cost_per_useful_gpu_hour_usd"]) if gpus else math.nan
    opex_by_category: dict[str, float] = {}
    for r in opex.rows:
        if r["priced"]:
            opex_by_category[r["category"]] = opex_by_category.get(r["category"], 0.0) + float(
                r["usd_per_year"]
            )
    table = cashflow_table(
        by_class,
        lives,
        shares,
        opex_by_category,
        cost.horizon_years,
        cost.discount_rate,
        cost.annual_price_decline,
        IT_CLASSES,
    )
    residual = -float(table.loc[table["flow"].to_numpy() == "residual", "usd"].sum())
    npv_own = float(table["present_usd"].sum())
    return CashflowResult(dep, annual, per_hour, residual, npv_own, charge, table)


def cloud_calculator(
    *,
    cost: Cost,
    capex: CapexResult,
    opex: OpexResult,
    flow: CashflowResult,
    offer: str,
    kind: str,
    price: float,
    term_months: float = math.nan,
) -> CloudResult:
    """Own versus the cloud offer: its yearly bill at the plan's utilisation, the
    cumulative curves, the break-even month and the NPVs; like for like
    (:func:`~hubplan.cost.cloud.compare_with_cloud`): on demand by the break-even
    utilisation, a reservation by its total cost over ``term_months``."""
    findings: list[Finding] = []
    gpus, opex_total = opex.gpus, opex.opex_usd_per_year
    annual, npv_own = flow.own_usd_per_year, flow.npv_own_usd
    capex = capex.capex_usd
    if math.isnan(price):
        findings.append(Finding("info", "cost", "cloud", "no_cloud_offer", {}))
    cloud_year = float(cloud_usd_per_year(gpus, price, cost.utilisation, kind))
    curve = cumulative_curves(
        capex, opex_total, cloud_year, cost.hybrid_own_share, cost.horizon_years
    )
    b_month = breakeven_month(capex, opex_total, cloud_year)
    versus = compare_with_cloud(
        annual, gpus, cost.utilisation, opex.goodput, price, kind, term_months, cost.horizon_years
    )
    b_util = versus["breakeven_utilisation"]
    npv_cloud = npv_usd(0.0, cloud_year, cost.discount_rate, cost.horizon_years)
    s = cost.hybrid_own_share
    npv_hybrid = s * npv_own + (1 - s) * npv_cloud
    if versus["cloud_basis"] == "term_total" and versus["cloud_term_usd"] < versus["own_term_usd"]:
        findings.append(
            Finding(
                "warning",
                "cost",
                "cloud",
                "cloud_cheaper_over_term",
                {
                    "offer": offer,
                    "price": price,
                    "term_years": versus["cloud_term_years"],
                    "cloud_usd": versus["cloud_term_usd"],
                    "own_usd": versus["own_term_usd"],
                },
            )
        )
    if versus["cloud_basis"] == "utilisation" and (
        math.isnan(b_month) or b_month > cost.horizon_years * 12
    ):
        findings.append(
            Finding(
                "warning",
                "cost",
                "cloud",
                "cloud_cheaper_over_horizon",
                {
                    "offer": offer,
                    "price": price,
                    "horizon_years": cost.horizon_years,
                    "breakeven_utilisation": b_util,
                    "utilisation": cost.utilisation,
                },
            )
        )
    if cost.utilisation < 0.5:
        findings.append(
            Finding(
                "warning",
                "cost",
                "utilisation",
                "manual_allocation_utilisation",
                {"utilisation": cost.utilisation},
            )
        )
    return CloudResult(
        offer,
        kind,
        price,
        cloud_year,
        curve,
        b_month,
        b_util,
        npv_cloud,
        npv_hybrid,
        findings,
        versus,
    )


def uncertainty_calculator(*, cost: Cost, base: CostBase) -> dict[str, pd.DataFrame]:
    """The tornado (each range at its ends) and the Monte Carlo (P10 / P50 / P90)."""
    return {
        "cost_tornado": tornado(base, cost.ranges),
        "cost_monte_carlo": monte_carlo(base, cost.ranges, cost.samples, cost.seed),
    }


def run_cost(
    *, catalog: Catalog, tables: dict[str, pd.DataFrame], cost: Cost, facility: Any = None
) -> StageResult:
    """Capex and opex by line, the cost of a useful GPU-hour, own versus cloud, phasing,
    sensitivity, uncertainty and carbon.

    ``facility`` is the facility section (its ``pue``); with it, the ``facility_power``
    table and ``cost.electricity_usd_per_kwh``, energy is priced. The calculators run in
    order, each on the results of the ones before: capex, opex, cash flow, cloud
    comparison, uncertainty.
    """
    findings: list[Finding] = []
    pools = tables["pools"]
    pue = float(facility.pue) if facility is not None else math.nan
    tariff = float(cost.electricity_usd_per_kwh) if facility is not None else math.nan
    it_kw = _it_kw(tables, "it_typical_kw")
    critical_kw = _it_kw(tables, "it_nameplate_kw")

    capex = capex_calculator(
        catalog=catalog,
        tables=tables,
        cost=cost,
        critical_kw=critical_kw,
        management=(
            getattr(facility, "management_server_model", ""),
            getattr(facility, "management_servers", 0),
        ),
    )
    capex = capex_taxes(cost=cost, capex=capex)
    opex = opex_calculator(
        tables=tables,
        cost=cost,
        capex=capex,
        it_kw=it_kw,
        critical_kw=critical_kw,
        pue=pue,
        tariff=tariff,
    )
    opex = opex_taxes(cost=cost, opex=opex)
    findings += unpriced_findings(capex, opex)
    offer, kind, price, term_months = _offer(cost, pools, catalog.cloud_offers)
    base = cost_base(
        tables=tables,
        cost=cost,
        capex=capex,
        opex=opex,
        it_kw=it_kw,
        pue=pue,
        tariff=tariff,
        price=price,
        kind=kind,
    )
    lives, shares = asset_lives(cost)
    base = with_cloud_assumptions(
        base,
        cost,
        opex.rows,
        critical_kw,
        {c: (amount, lives[c], shares[c]) for c, amount in capex_by_class(capex).items()},
    )
    flow = cashflow_calculator(cost=cost, capex=capex, opex=opex, base=base)
    cloud = cloud_calculator(
        cost=cost,
        capex=capex,
        opex=opex,
        flow=flow,
        offer=offer,
        kind=kind,
        price=price,
        term_months=term_months,
    )
    findings += cloud.findings
    risk = uncertainty_calculator(cost=cost, base=base)

    # -- carbon --------------------------------------------------------------------------
    factor = catalog.grid_factor(cost.grid_region)
    mwh = float(energy_mwh_per_year(it_kw, pue, cost.duty_cycle))
    co2 = float(emissions_t_per_year(mwh, factor, cost.green_share))
    lines, opex_df, gpus, goodput = capex.lines, opex.table, opex.gpus, opex.goodput
    capex_gaps, opex_total, opex_gaps = capex.unpriced, opex.opex_usd_per_year, opex.unpriced
    dep, annual, per_hour = (
        flow.depreciation_usd_per_year,
        flow.own_usd_per_year,
        flow.cost_per_useful_gpu_hour_usd,
    )
    offer, kind, price, cloud_year, b_month, b_util = (
        cloud.offer,
        cloud.kind,
        cloud.price,
        cloud.cloud_usd_per_year,
        cloud.breakeven_month,
        cloud.breakeven_utilisation,
    )
    npv_own, npv_cloud, npv_hybrid = flow.npv_own_usd, cloud.npv_cloud_usd, cloud.npv_hybrid_usd
    curve = cloud.curve
    capex_low, capex_point, capex_high, withheld = capex_range(capex.rows)
    if withheld:  # prices: no point figure that leaves a line out
        findings.append(
            Finding(
                "warning",
                "cost",
                "capex",
                "capex_point_withheld",
                {"lines": withheld, "capex_low_usd": capex_low},
            )
        )
    findings += estimate_findings(capex.rows)
    capex_result, capex = capex, capex.capex_usd
    summary = pd.DataFrame(
        [
            {
                "gpus": gpus,
                "capex_usd": capex,
                "capex_unpriced_lines": capex_gaps,
                "opex_usd_per_year": opex_total,
                "opex_unpriced_lines": opex_gaps,
                "depreciation_years": cost.depreciation_years,
                "residual_share": cost.residual_share,
                "depreciation_usd_per_year": dep,
                "own_usd_per_year": annual,
                "utilisation": cost.utilisation,
                "goodput": goodput,
                "useful_gpu_hours": float(useful_gpu_hours(gpus, cost.utilisation, goodput)),
                "cost_per_useful_gpu_hour_usd": per_hour,
                "cloud_offer": offer,
                "cloud_pricing": kind,
                "cloud_usd_per_gpu_hour": price,
                "cloud_usd_per_year": cloud_year,
                "breakeven_month": b_month,
                "breakeven_utilisation": b_util,
                "horizon_years": cost.horizon_years,
                "discount_rate": cost.discount_rate,
                "npv_own_usd": npv_own,
                "npv_cloud_usd": npv_cloud,
                "npv_hybrid_usd": npv_hybrid,
                "it_kw": it_kw,
                "energy_mwh_per_year": mwh,
                "grid_kg_per_kwh": factor,
                "green_share": cost.green_share,
                "co2_t_per_year": co2,
                "capital_charge_usd_per_year": flow.capital_charge_usd_per_year,
                "residual_usd": flow.residual_usd,
                "currency": cost.currency,
                "cny_per_usd": cost.cny_per_usd,
                "cny_per_usd_date": cost.cny_per_usd_date,
                "capex_low_usd": capex_low,
                "capex_point_usd": capex_point,
                "capex_high_usd": capex_high,
                **{k: v for k, v in cloud.comparison.items() if k != "breakeven_utilisation"},
                **headline_range(
                    risk["cost_monte_carlo"], base, cost.ranges, cost.samples, cost.seed
                ),
            }
        ],
        columns=SUMMARY_COLUMNS,
    )
    fit = capex_by_class(capex_result).get("fitout", 0.0)
    phasing = phasing_table(
        gpus,
        (capex - fit) / gpus if gpus else math.nan,
        cost.phase_headroom,
        cost.full_build_factor,
        cost.expand_after_years,
        cost.annual_price_decline,
        cost.discount_rate,
        fit / gpus if gpus else math.nan,
    )
    out = {
        "cost_capex": lines,
        "cost_opex": opex_df,
        "cost_summary": summary,
        "cost_curve": curve,
        "cost_phasing": phasing,
        "cost_cashflow": flow.table,
        **risk,
    }
    if tables.get("equipment_list") is not None:  # costsheets: the priced equipment list
        out["cost_equipment"], more = priced_equipment(tables["equipment_list"], lines)
        findings += more
    if cost.currency == "CNY":  # every money column gains its CNY twin
        out = {name: with_cny(table, cost.cny_per_usd) for name, table in out.items()}
    return StageResult(out, tuple(findings))


STAGE = Stage(
    name="cost",
    sections=("cost", "facility"),
    needs=(
        "pools",
        "training",
        "storage_nodes",
        "switches",
        "transceivers",
        "facility_power",
        "racks",
        "equipment_list",
    ),
    provides=(
        "cost_capex",
        "cost_opex",
        "cost_summary",
        "cost_curve",
        "cost_phasing",
        "cost_tornado",
        "cost_monte_carlo",
        "cost_cashflow",
        "cost_equipment",
    ),
    run=run_cost,
)
