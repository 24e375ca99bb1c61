"""Facility stage: every device in a rack, and power and cooling that close per rack.

GPU servers (the server stage's pools), storage nodes and switches are packed into racks
within the rack's power budget (with the planning guide's 15 % headroom), its height and
its weight limit; rows and rack names follow. Then per rack: the power allocation table,
the power-on sequence that keeps inrush under the feed rating, heat and cooling mode with
capacity headroom; and for the plan: facility power at the PUE, annual energy and cost,
the compute inventory and the equipment list with pinned firmware and driver versions.
"""

from .cooling import BTU_H_PER_KW, cooling_mode, cooling_table, heat_btu_h
from .devices import (
    STORAGE_NODE_COLUMNS,
    SWITCH_COLUMNS,
    device_table,
    empty_storage_nodes,
    empty_switches,
    estimated_server_kw,
    server_types,
)
from .equipment import compute_inventory, equipment_list, per_gpu_dense_tflops, total_pflops
from .power import (
    annual_energy_mwh,
    facility_power,
    headroom_pct,
    power_allocation,
    power_on_sequence,
    power_on_steps,
    power_status,
)
from .rack_scale import compute_tray, expand_rack_scale, rack_system_parts
from .racks import next_fit, place_devices, rack_power_cap_kw, row_name
from .section import COOLING_MODES, Facility, VersionPin

__all__ = [
    "BTU_H_PER_KW",
    "COOLING_MODES",
    "STORAGE_NODE_COLUMNS",
    "SWITCH_COLUMNS",
    "Facility",
    "VersionPin",
    "annual_energy_mwh",
    "compute_inventory",
    "compute_tray",
    "cooling_mode",
    "cooling_table",
    "device_table",
    "empty_storage_nodes",
    "empty_switches",
    "equipment_list",
    "estimated_server_kw",
    "expand_rack_scale",
    "facility_power",
    "headroom_pct",
    "heat_btu_h",
    "next_fit",
    "per_gpu_dense_tflops",
    "place_devices",
    "power_allocation",
    "power_on_sequence",
    "power_on_steps",
    "power_status",
    "rack_power_cap_kw",
    "rack_system_parts",
    "row_name",
    "server_types",
    "total_pflops",
]
