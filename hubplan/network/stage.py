"""The network stage entry: compute fabric, storage / in-band / BMC planes, switches,
port map, IP plan, optics, RDMA settings and the latency budget.

The work is done in named steps (:mod:`hubplan.network.steps`): servers, compute fabric,
planes, addresses, ports; this module runs them in order and assembles the tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.stage import Stage, StageResult
from ..pools import Pools
from .addressing import check_no_overlap
from .latency import latency_budget
from .nics import nic_findings, server_nic_table
from .ports import port_map, transceivers
from .rdma import fabric_family_findings, rdma_settings
from .section import Network
from .steps import (
    ComputeFabric,
    compute_fabric,
    ip_plan,
    management_planes,
    pool_servers,
    switch_port_use,
)

SWITCH_COLUMNS = [
    "plane",
    "role",
    "model",
    "count",
    "ports",
    "port_gbps",
    "rack_units",
    "max_power_kw",
    "typical_power_kw",
    "price_usd",
    "unit",
]
FABRIC_COLUMNS = [
    "plane",
    "model",
    "tiers",
    "endpoints",
    "servers_per_unit",
    "units",
    "leaves",
    "spines",
    "cores",
    "oversubscription",
    "port_gbps",
]


def run_network(
    *,
    catalog: Catalog,
    tables: dict[str, pd.DataFrame],
    network: Network,
    pools: Pools,
    facility_management_servers: int = 0,
) -> StageResult:
    """Size the planes and build the switch list, port map, IP plan and optics bill.

    Reads the server stage's ``pools`` table (per-pool rows) and the storage stage's
    ``storage_nodes``; the management servers the facility section asks for
    (``facility.management_servers``, racked by the facility stage) get one in-band and
    one BMC port and address each.

    Steps (:mod:`hubplan.network.steps`): :func:`~hubplan.network.steps.pool_servers`,
    :func:`~hubplan.network.steps.compute_fabric`,
    :func:`~hubplan.network.steps.management_planes`,
    :func:`~hubplan.network.steps.ip_plan`, :func:`~hubplan.network.steps.switch_port_use`.
    """
    pool_rows = tables["pools"]
    pool_rows = pool_rows[pool_rows["level"] == "pool"]
    check_no_overlap(
        {
            f"network.{p}_cidr": getattr(network, f"{p}_cidr")
            for p in ("compute", "storage", "inband", "bmc", "loopback")
        }
    )
    servers = pool_servers(pool_rows, pools, catalog)
    compute = compute_fabric(servers, network, catalog)
    planes = management_planes(
        servers,
        tables["storage_nodes"],
        network,
        catalog,
        compute,
        facility_management_servers,
    )
    findings = [*compute.findings, *planes.findings]
    groups = [*compute.groups, *planes.groups]
    switches = pd.DataFrame([*compute.switch_rows, *planes.switch_rows], columns=SWITCH_COLUMNS)
    pm = port_map(groups)
    ppc = {
        p: int(sw["ports"] // sw["cages"]) if sw["cages"] == sw["cages"] else 1
        for p, sw in {"compute": compute.switch, **planes.switches}.items()
    }
    optics = transceivers(groups, ppc)
    ips = ip_plan(network, compute, planes, findings)
    use = switch_port_use(groups, compute, planes)
    cabled = compute.names if compute.fabric is not None else np.array([], dtype=object)
    nic_table = server_nic_table(servers, cabled, compute.rails, planes.ends)
    findings += nic_findings(servers, nic_table)
    # The compute fabric's accelerator family (its pools' accelerator vendor) chooses the
    # collective library's settings; a switch its scale-out cannot use is a finding.
    family = _fabric_family(servers, network, pools, catalog)
    if compute.fabric is not None:
        findings += fabric_family_findings(family, compute.transport, str(compute.switch["name"]))
    rdma = _rdma_table(compute, network, family)
    latency = latency_budget(
        network.latency_target_ms, network.serving_time_ms, network.wan_hops, network.hop_latency_us
    )
    return StageResult(
        {
            "switches": switches,
            "port_map": pm,
            "ip_plan": ips,
            "transceivers": optics,
            "server_nics": nic_table,
            "fabric": pd.DataFrame(
                [*compute.fabric_rows, *planes.fabric_rows], columns=FABRIC_COLUMNS
            ),
            "port_use": use,
            "rdma_settings": rdma,
            "latency_budget": latency,
        },
        tuple(findings),
    )


def _fabric_family(
    servers: list[dict], network: Network, pools: Pools, catalog: Catalog
) -> pd.Series:
    """The accelerator family of the compute fabric's first pool (of the first pool when
    no pool is on the fabric; the unknown family without pools)."""
    fab = [s["pool"] for s in servers if s["pool"] in network.compute_pools]
    named = fab or [s["pool"] for s in servers]
    return (
        catalog.accelerator_family(getattr(pools, named[0]).accelerator)
        if named
        else catalog.family("")
    )


def _rdma_table(compute: ComputeFabric, network: Network, family: pd.Series) -> pd.DataFrame:
    """The RDMA settings table of the compute fabric (InfiniBand, else RoCE) and family."""
    transport = compute.transport
    return rdma_settings(
        transport if transport == "infiniband" else "roce",
        family=family,
        pfc=network.pfc,
        ecn=network.ecn,
        priority=network.roce_priority,
        nccl_ib_timeout=network.nccl_ib_timeout,
        nccl_ib_sl=network.nccl_ib_sl,
        socket_ifname=network.nccl_socket_ifname,
        rails=max(compute.rails, 1),
    )


STAGE = Stage(
    name="network",
    sections=("network", "pools", "facility.management_servers"),
    needs=("pools", "storage_nodes"),
    provides=(
        "switches",
        "port_map",
        "ip_plan",
        "transceivers",
        "server_nics",
        "fabric",
        "port_use",
        "rdma_settings",
        "latency_budget",
    ),
    run=run_network,
)
