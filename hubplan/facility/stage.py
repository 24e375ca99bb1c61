"""The facility stage entry: every device in a rack, power and cooling per rack with their
headroom, the power-on sequence, facility power and energy, the compute inventory and the
equipment list."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding
from ..core.stage import Stage, StageResult
from ..pools import Pools
from .cooling import cooling_table
from .devices import device_table, server_types
from .equipment import compute_inventory, equipment_list
from .power import facility_power, power_allocation, power_on_sequence
from .racks import RACK_COLUMNS, place_devices
from .section import Facility

LAYOUT_COLUMNS = [
    "device",
    "device_type",
    "model",
    "rack",
    "u_position",
    "u_height",
    "max_power_kw",
    "typical_power_kw",
    "feed",
    "power_on_step",
    "power_source",
    "size_source",
    "typical_source",
    "weight_kg",
    "price_usd",
    "pool",
]


def facility_tables(
    servers: pd.DataFrame,
    storage_nodes: pd.DataFrame,
    switches: pd.DataFrame,
    catalog: Catalog,
    facility: Facility,
) -> dict[str, pd.DataFrame]:
    """Every facility table from the server types, storage nodes and switches."""
    devices = device_table(servers, storage_nodes, switches, facility)
    racks, layout = place_devices(devices, facility)
    allocation = power_allocation(racks, layout, facility)
    steps, sequence = power_on_sequence(layout, allocation, facility)
    layout["power_on_step"] = steps
    layout["feed"] = "A+B" if facility.ab_feeds else "A"
    return {
        "racks": racks[RACK_COLUMNS],
        "rack_layout": layout[LAYOUT_COLUMNS],
        "power_allocation": allocation,
        "power_on_sequence": sequence,
        "cooling": cooling_table(racks, allocation, facility),
        "facility_power": facility_power(layout, facility),
        "compute_inventory": compute_inventory(servers, catalog, facility),
        "equipment_list": equipment_list(layout, servers, storage_nodes, switches, facility),
    }


def facility_findings(
    servers: pd.DataFrame, t: dict[str, pd.DataFrame], facility: Facility
) -> list[Finding]:
    """Findings from the facility tables: power, inrush, cooling, weight, height, estimates
    and unpinned versions."""
    found: list[Finding] = []

    def add(severity, subject, code, **params):
        found.append(Finding(severity, "facility", subject, code, params))

    for s in servers.to_dict(orient="records"):
        if s["power_source"] == "unknown":
            add("error", s["pool"], "server_power_unknown", server=s["model"])
        if s["power_source"] == "estimate":
            add(
                "warning",
                s["pool"],
                "server_power_estimated",
                server=s["model"],
                kw=round(float(s["max_power_kw"]), 2),
            )
        if s["size_source"] == "estimate":
            add(
                "warning",
                s["pool"],
                "server_size_estimated",
                server=s["model"],
                units=int(s["u_height"]),
            )
    layout = t["rack_layout"]
    est = layout[
        layout["device_type"].isin(["switch", "storage_node"])
        & ((layout["power_source"] == "estimate") | (layout["size_source"] == "estimate"))
    ]
    for (_, model), grp in est.groupby(["device_type", "model"], sort=False):
        add("warning", str(model), "device_figures_estimated", model=str(model),
            count=len(grp), kw=round(float(grp["max_power_kw"].iloc[0]), 2),
            units=int(grp["u_height"].iloc[0]))  # fmt: skip
    alloc = t["power_allocation"]
    for status, sev, code in (
        ("over", "error", "rack_power_over"),
        ("low_headroom", "warning", "rack_power_headroom"),
    ):
        bad = alloc[alloc["status"] == status]
        if not bad.empty:
            worst = bad.loc[bad["headroom_pct"].idxmin()]
            add(
                sev,
                str(worst["rack"]),
                code,
                racks=len(bad),
                rack=str(worst["rack"]),
                allocated=float(worst["allocated_kw"]),
                supply=float(worst["supply_kw"]),
                headroom=float(worst["headroom_pct"]),
                required=facility.power_headroom,
            )
    seq = t["power_on_sequence"]
    over = seq[seq["status"] == "over"]
    if not over.empty:
        worst = over.loc[(over["peak_kw"] - over["feed_kw"]).idxmax()]
        add(
            "error",
            str(worst["rack"]),
            "inrush_over_feed",
            racks=over["rack"].nunique(),
            rack=str(worst["rack"]),
            peak=float(worst["peak_kw"]),
            feed=float(worst["feed_kw"]),
            factor=facility.inrush_factor,
        )
    cool = t["cooling"]
    rack_cool = cool[cool["level"] == "rack"]
    for mode, part in rack_cool[rack_cool["status"] == "missing"].groupby("cooling_mode"):
        add(
            "error",
            str(mode),
            "cooling_missing",
            mode=str(mode),
            racks=len(part),
            heat=float(part["heat_kw"].max()),
            have=", ".join(facility.cooling_modes),
        )
    beyond = rack_cool[rack_cool["status"] == "over"]
    if not beyond.empty:
        add(
            "error",
            str(beyond["rack"].iloc[0]),
            "cooling_over",
            racks=len(beyond),
            heat=float(beyond["heat_kw"].max()),
            capacity=facility.liquid_max_kw,
        )
    racks = t["racks"]
    heavy = racks[racks["weight_kg"] > racks["max_kg"] + 1e-9]
    if not heavy.empty:
        worst = heavy.loc[heavy["weight_kg"].idxmax()]
        add(
            "warning",
            str(worst["rack"]),
            "rack_over_weight",
            racks=len(heavy),
            rack=str(worst["rack"]),
            weight=float(worst["weight_kg"]),
            limit=float(worst["max_kg"]),
        )
    tall = racks[racks["u_used"] > racks["u_usable"]]
    if not tall.empty:
        worst = tall.loc[tall["u_used"].idxmax()]
        add(
            "error",
            str(worst["rack"]),
            "rack_over_height",
            racks=len(tall),
            rack=str(worst["rack"]),
            used=float(worst["u_used"]),
            usable=float(worst["u_usable"]),
        )
    eq = t["equipment_list"]
    blank = eq[(eq["firmware_version"] == "") | (eq["driver_version"] == "")]
    if not blank.empty:
        add(
            "warning",
            "equipment_list",
            "versions_unpinned",
            count=len(blank),
            models=", ".join(blank["model"]),
        )
    return found


def run_facility(
    *, catalog: Catalog, tables: dict[str, pd.DataFrame], facility: Facility, pools: Pools
) -> StageResult:
    """Racks, power, cooling and the equipment list from the server stage's ``pools``
    table (and, when present, the storage stage's ``storage_nodes`` and the network
    stage's ``switches``)."""
    storage_nodes = tables["storage_nodes"]
    switches = tables["switches"]
    servers = server_types(tables["pools"], pools, catalog, facility)
    t = facility_tables(servers, storage_nodes, switches, catalog, facility)
    return StageResult(t, tuple(facility_findings(servers, t, facility)))


STAGE = Stage(
    name="facility",
    sections=("facility", "pools"),
    # At merge, with the storage and network stages: ("pools", "storage_nodes", "switches").
    needs=("pools", "storage_nodes", "switches"),
    provides=(
        "racks",
        "rack_layout",
        "power_allocation",
        "power_on_sequence",
        "cooling",
        "facility_power",
        "compute_inventory",
        "equipment_list",
    ),
    run=run_facility,
)
