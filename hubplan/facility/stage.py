"""The facility stage entry: every device in a rack, power and cooling per rack with their
headroom, the power-on sequence, facility power and energy, the compute inventory and the
equipment list."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding, Severity
from ..core.stage import Stage, StageResult
from ..pools import Pools
from .cooling import cooling_table
from .devices import device_table, server_types, with_sheet_weights
from .equipment import compute_inventory, equipment_list, group_codes
from .power import facility_power, power_allocation, power_on_sequence
from .rack_scale import SYSTEM_TYPE, expand_rack_scale, rack_system_parts
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

#: Equipment types whose pin needs a driver as well as firmware: hosts (GPU, storage and
#: management servers) and their NICs. Switches and appliances (UFM) need firmware only.
DRIVER_TYPES = ("gpu_server", "storage_node", "management_server", "nic")


def facility_tables(
    servers: pd.DataFrame,
    storage_nodes: pd.DataFrame,
    switches: pd.DataFrame,
    catalog: Catalog,
    facility: Facility,
    server_nics: pd.DataFrame | None = None,
) -> dict[str, pd.DataFrame]:
    """Every facility table from the server types, storage nodes, switches and the
    network stage's cabled server NIC ports (``server_nics``)."""
    devices = with_sheet_weights(device_table(servers, storage_nodes, switches, facility))
    racks, layout = place_devices(devices, facility)
    allocation = power_allocation(racks, layout, facility)
    steps, sequence = power_on_sequence(layout, allocation, facility)
    layout["power_on_step"] = steps
    layout["feed"] = "A+B" if facility.ab_feeds else "A"
    # a rack-scale system is published as its trays, switch trays and power shelves, each
    # in its unit (the names the port map cables); per rack the power is the same sum
    published = expand_rack_scale(layout, catalog)
    if published is not layout:
        racks, allocation = racks.copy(), allocation.copy()
        count = published.groupby("rack", sort=False).size()
        units = published.groupby("rack", sort=False)["u_height"].sum()
        racks["devices"] = racks["rack"].map(count).fillna(0).astype(racks["devices"].dtype)
        racks["u_used"] = racks["rack"].map(units).fillna(0.0)
        allocation["devices"] = (
            allocation["rack"].map(count).fillna(0).astype(allocation["devices"].dtype)
        )
    return {
        "racks": racks[RACK_COLUMNS],
        "rack_layout": published[LAYOUT_COLUMNS],
        "power_allocation": allocation,
        "power_on_sequence": sequence,
        "cooling": cooling_table(racks, allocation, facility),
        "facility_power": facility_power(layout, facility),
        "compute_inventory": compute_inventory(servers, catalog, facility),
        "equipment_list": equipment_list(
            layout, servers, storage_nodes, switches, facility, server_nics
        ),
    }


def facility_findings(
    servers: pd.DataFrame, t: dict[str, pd.DataFrame], facility: Facility
) -> list[Finding]:
    """Findings from the facility tables: power, inrush, cooling, weight, height, estimates
    and unpinned versions."""
    layout, racks = t["rack_layout"], t["racks"]
    return [
        *_server_findings(servers),
        *_estimated_device_findings(layout),
        *_rack_power_findings(t["power_allocation"], facility),
        *_inrush_findings(t["power_on_sequence"], facility),
        *_cooling_findings(t["cooling"], facility),
        *_rack_weight_findings(racks, facility),
        *_rack_height_findings(racks),
        *_unlisted_parts_findings(layout),
        *_unknown_weight_findings(layout),
        *_unpinned_version_findings(t["equipment_list"]),
    ]


def _finding(severity: Severity, subject: str, code: str, **params: object) -> Finding:
    """A facility-stage finding."""
    return Finding(severity, "facility", subject, code, params)


def _server_findings(servers: pd.DataFrame) -> list[Finding]:
    """GPU server types whose power is unknown or estimated, or whose size is estimated."""
    found: list[Finding] = []
    read = ("pool", "model", "power_source", "size_source", "max_power_kw", "u_height")
    for pool, model, power, size, kw, units in zip(
        *(servers[c].tolist() for c in read), strict=True
    ):
        if power == "unknown":
            found.append(_finding("error", pool, "server_power_unknown", server=model))
        if power == "estimate":
            found.append(
                _finding(
                    "warning", pool, "server_power_estimated", server=model, kw=round(float(kw), 2)
                )
            )
        if size == "estimate":
            found.append(
                _finding("warning", pool, "server_size_estimated", server=model, units=int(units))
            )
    return found


def _estimated_device_findings(layout: pd.DataFrame) -> list[Finding]:
    """One warning per switch, UFM or storage node model with estimated power or size."""
    device_type = layout["device_type"].to_numpy()
    est = np.flatnonzero(
        np.isin(device_type, ("switch", "ufm", "storage_node"))
        & (
            (layout["power_source"].to_numpy() == "estimate")
            | (layout["size_source"].to_numpy() == "estimate")
        )
    )
    if not len(est):
        return []
    code, first = group_codes(device_type[est], layout["model"].to_numpy()[est])
    count = np.bincount(code[code >= 0], minlength=len(first))
    at = est[first]
    return [
        _finding(
            "warning",
            str(model),
            "device_figures_estimated",
            model=str(model),
            count=n,
            kw=round(float(kw), 2),
            units=int(units),
        )
        for model, n, kw, units in zip(
            layout["model"].to_numpy()[at].tolist(),
            count.tolist(),
            layout["max_power_kw"].to_numpy()[at].tolist(),
            layout["u_height"].to_numpy()[at].tolist(),
            strict=True,
        )
    ]


#: Rack power states that are findings: (status, severity, code).
_RACK_POWER_STATES: tuple[tuple[str, Severity, str], ...] = (
    ("over", "error", "rack_power_over"),
    ("low_headroom", "warning", "rack_power_headroom"),
)


def _rack_power_findings(alloc: pd.DataFrame, facility: Facility) -> list[Finding]:
    """Racks over their supply or short of headroom, each naming the worst rack."""
    found: list[Finding] = []
    status = alloc["status"].to_numpy()
    for state, sev, code in _RACK_POWER_STATES:
        bad = np.flatnonzero(status == state)
        if len(bad):
            worst = bad[np.nanargmin(alloc["headroom_pct"].to_numpy(float)[bad])]
            rack = str(alloc["rack"].iloc[worst])
            found.append(
                _finding(
                    sev,
                    rack,
                    code,
                    racks=len(bad),
                    rack=rack,
                    allocated=float(alloc["allocated_kw"].iloc[worst]),
                    supply=float(alloc["supply_kw"].iloc[worst]),
                    headroom=float(alloc["headroom_pct"].iloc[worst]),
                    required=facility.power_headroom,
                )
            )
    return found


def _inrush_findings(seq: pd.DataFrame, facility: Facility) -> list[Finding]:
    """Racks whose power-on peak exceeds the feed, naming the worst."""
    over = np.flatnonzero(seq["status"].to_numpy() == "over")
    if not len(over):
        return []
    peak, feed = seq["peak_kw"].to_numpy(float), seq["feed_kw"].to_numpy(float)
    worst = over[np.nanargmax((peak - feed)[over])]
    rack = str(seq["rack"].iloc[worst])
    return [
        _finding(
            "error",
            rack,
            "inrush_over_feed",
            racks=len(set(seq["rack"].to_numpy()[over].tolist())),
            rack=rack,
            peak=float(peak[worst]),
            feed=float(feed[worst]),
            factor=facility.inrush_factor,
        )
    ]


def _cooling_findings(cool: pd.DataFrame, facility: Facility) -> list[Finding]:
    """Racks whose cooling mode is missing, whose heat is beyond liquid cooling, or whose
    cooling is short of headroom."""
    found: list[Finding] = []
    at_rack = cool["level"].to_numpy() == "rack"
    cool_status = cool["status"].to_numpy()
    cool_mode = cool["cooling_mode"].to_numpy()
    heat = cool["heat_kw"].to_numpy(float)
    missing = at_rack & (cool_status == "missing")
    for mode in sorted(set(cool_mode[missing].tolist())):
        part = missing & (cool_mode == mode)
        found.append(
            _finding(
                "error",
                str(mode),
                "cooling_missing",
                mode=str(mode),
                racks=int(part.sum()),
                heat=float(np.nanmax(heat[part])),
                have=", ".join(facility.cooling_modes),
            )
        )
    beyond = np.flatnonzero(at_rack & (cool_status == "over"))
    if len(beyond):
        found.append(
            _finding(
                "error",
                str(cool["rack"].iloc[beyond[0]]),
                "cooling_over",
                racks=len(beyond),
                heat=float(np.nanmax(heat[beyond])),
                capacity=facility.liquid_max_kw,
            )
        )
    thin = np.flatnonzero(at_rack & (cool_status == "low_headroom"))
    if len(thin):
        share = cool["cooling_headroom_pct"].to_numpy(float)
        worst = thin[np.nanargmin(share[thin])]
        found.append(
            _finding(
                "warning",
                str(cool["rack"].iloc[worst]),
                "cooling_headroom",
                racks=len(thin),
                rack=str(cool["rack"].iloc[worst]),
                mode=str(cool_mode[worst]),
                heat=float(heat[worst]),
                capacity=float(cool["cooling_kw"].iloc[worst]),
                headroom=float(share[worst]),
                required=facility.cooling_headroom,
            )
        )
    return found


def _rack_weight_findings(racks: pd.DataFrame, facility: Facility) -> list[Finding]:
    """Racks over their weight limit or the floor's rating, naming the heaviest."""
    weight, limit = racks["weight_kg"].to_numpy(float), racks["max_kg"].to_numpy(float)
    load = racks["floor_load_kpa"].to_numpy(float)
    heavy = np.flatnonzero((weight > limit + 1e-9) | (load > facility.floor_rating_kpa + 1e-9))
    if not len(heavy):
        return []
    worst = heavy[np.argmax(weight[heavy])]
    rack = str(racks["rack"].iloc[worst])
    return [
        _finding(
            "warning",
            rack,
            "rack_over_weight",
            racks=len(heavy),
            rack=rack,
            weight=float(weight[worst]),
            limit=float(limit[worst]),
            load=float(racks["floor_load_kpa"].iloc[worst]),
            rating=facility.floor_rating_kpa,
        )
    ]


def _rack_height_findings(racks: pd.DataFrame) -> list[Finding]:
    """Racks filled past their usable height, naming the fullest."""
    used, usable = racks["u_used"].to_numpy(float), racks["u_usable"].to_numpy(float)
    tall = np.flatnonzero(used > usable)
    if not len(tall):
        return []
    worst = tall[np.argmax(used[tall])]
    rack = str(racks["rack"].iloc[worst])
    return [
        _finding(
            "error",
            rack,
            "rack_over_height",
            racks=len(tall),
            rack=rack,
            used=float(used[worst]),
            usable=float(usable[worst]),
        )
    ]


def _unlisted_parts_findings(layout: pd.DataFrame) -> list[Finding]:
    """Rack-scale systems whose parts ``data/rack_systems.csv`` does not list."""
    systems = layout["model"].to_numpy()[layout["device_type"].to_numpy() == SYSTEM_TYPE]
    listed = set(rack_system_parts()["system"])
    return [
        _finding("warning", str(model), "rack_parts_unlisted", model=str(model))
        for model in dict.fromkeys(m for m in systems.tolist() if m not in listed)
    ]


def _unknown_weight_findings(layout: pd.DataFrame) -> list[Finding]:
    """Devices no sheet weighs, and their models."""
    # the parts of a rack-scale system (size_source 'rack') are weighed with the system
    unweighed = np.flatnonzero(
        np.isnan(layout["weight_kg"].to_numpy(float)) & (layout["size_source"].to_numpy() != "rack")
    )
    if not len(unweighed):
        return []
    models = dict.fromkeys(layout["model"].to_numpy()[unweighed].tolist())
    return [
        _finding(
            "info",
            "rack_layout",
            "weights_unknown",
            devices=len(unweighed),
            count=len(models),
            models=", ".join(str(m) for m in models),
        )
    ]


def _unpinned_version_findings(eq: pd.DataFrame) -> list[Finding]:
    """Equipment-list rows whose firmware (or, for hosts and NICs, driver) is not pinned."""
    # A switch or an appliance runs its own network OS: its firmware is all there is to
    # pin. Hosts and NICs need both, since the host driver must match the NIC firmware.
    needs_driver = np.isin(eq["type"].to_numpy(), DRIVER_TYPES)
    blank = (eq["firmware_version"].to_numpy() == "") | (
        needs_driver & (eq["driver_version"].to_numpy() == "")
    )
    if not blank.any():
        return []
    return [
        _finding(
            "warning",
            "equipment_list",
            "versions_unpinned",
            count=int(blank.sum()),
            models=", ".join(eq["model"].to_numpy()[blank].tolist()),
        )
    ]


def run_facility(
    *, catalog: Catalog, tables: dict[str, pd.DataFrame], facility: Facility, pools: Pools
) -> StageResult:
    """Racks, power, cooling and the equipment list from the server stage's ``pools``
    table (and, when present, the storage stage's ``storage_nodes`` and the network
    stage's ``switches``)."""
    storage_nodes = tables["storage_nodes"]
    switches = tables["switches"]
    servers = server_types(tables["pools"], pools, catalog, facility)
    t = facility_tables(
        servers, storage_nodes, switches, catalog, facility, tables.get("server_nics")
    )
    return StageResult(t, tuple(facility_findings(servers, t, facility)))


STAGE = Stage(
    name="facility",
    sections=("facility", "pools"),
    # At merge, with the storage and network stages: ("pools", "storage_nodes", "switches").
    needs=("pools", "storage_nodes", "switches", "server_nics"),
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
