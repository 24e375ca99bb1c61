"""Pools and the fleet: concepts the workload, accelerator and server stages share.

The ``pools`` scenario section (one pool per workload kind: its accelerator, server,
spares and scheduling policy) and the one function that totals pools into the fleet.
"""

from .fleet import FLEET_KEY, POOL_KINDS, fleet_rows, fleet_shares, peak_servers, whole_servers
from .section import ExistingServers, Pools, PoolSpec, ServerSpec, server_name

__all__ = [
    "FLEET_KEY",
    "POOL_KINDS",
    "ExistingServers",
    "PoolSpec",
    "Pools",
    "ServerSpec",
    "fleet_rows",
    "fleet_shares",
    "peak_servers",
    "server_name",
    "whole_servers",
]
