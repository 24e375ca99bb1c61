"""Network stage: compute fabric, storage and management planes, IP plan and port map.

A rail-optimised leaf/spine(/core) compute fabric sized in scalable units from a switch
catalogue (``data/switches.csv``), separate storage, in-band and BMC planes, an IP plan
per interface, a port map per link, the optics bill, the RDMA / NCCL settings and a
latency budget for real-time users.
"""

from .addressing import check_no_overlap, dotted, fit_supernet, interface_addresses, subnet_prefix
from .fabric import (
    Fabric,
    divisor_at_least,
    leaf_ports,
    max_two_tier_servers,
    size_fabric,
    two_tier_spines,
)
from .latency import FIBRE_MS_PER_KM, latency_budget, service_radius_km
from .media import PLACEMENTS, choose_media, placement_lengths_m, segment_reach_m
from .nics import DEFAULT_PKEY, NIC_COLUMNS, server_nic_table
from .planes import management_server_names, size_plane, storage_node_names
from .ports import modules_at, server_names
from .ports import width as switch_number_width
from .rdma import ib_timeout_s, rdma_settings
from .reference import superpod_comparison, superpod_counts, superpod_reference
from .section import Network
from .stage import SWITCH_COLUMNS
from .switches import SWITCH_SCHEMA, find_switch, load_switches, ports_at

__all__ = [
    "DEFAULT_PKEY",
    "FIBRE_MS_PER_KM",
    "NIC_COLUMNS",
    "PLACEMENTS",
    "SWITCH_COLUMNS",
    "SWITCH_SCHEMA",
    "Fabric",
    "Network",
    "check_no_overlap",
    "choose_media",
    "divisor_at_least",
    "dotted",
    "find_switch",
    "fit_supernet",
    "ib_timeout_s",
    "interface_addresses",
    "latency_budget",
    "leaf_ports",
    "load_switches",
    "management_server_names",
    "max_two_tier_servers",
    "modules_at",
    "placement_lengths_m",
    "ports_at",
    "rdma_settings",
    "segment_reach_m",
    "server_names",
    "server_nic_table",
    "service_radius_km",
    "size_fabric",
    "size_plane",
    "storage_node_names",
    "subnet_prefix",
    "superpod_comparison",
    "superpod_counts",
    "superpod_reference",
    "switch_number_width",
    "two_tier_spines",
]
