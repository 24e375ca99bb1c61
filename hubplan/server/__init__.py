"""Server stage: is each pool's server balanced, and how many servers each pool needs.

Balance checks follow the ``server`` section (host RAM against GPU memory, CPU cores and
clock, one compute NIC per GPU at the fabric speed, separate storage and management
networks, PCIe generation against NIC speed). Each check is pass / warn / fail, or
``unknown`` when the catalogue row does not source the figure; views render its reason
and fix. Then the pools: servers from GPU counts, spares, partitions and quotas.
"""

from .balance import (
    CHECK_COLUMNS,
    PCIE_X16_GB_S,
    STATUSES,
    balance_checks,
    pcie_supports_nic,
    ram_check,
    spare_servers,
)
from .resolve import Server, catalog_server, pool_server, resolve_server
from .section import ServerPolicy

__all__ = [
    "CHECK_COLUMNS",
    "PCIE_X16_GB_S",
    "STATUSES",
    "Server",
    "ServerPolicy",
    "balance_checks",
    "catalog_server",
    "pcie_supports_nic",
    "pool_server",
    "ram_check",
    "resolve_server",
    "spare_servers",
]
