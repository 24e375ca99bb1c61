"""The network stage entry: compute fabric, storage / in-band / BMC planes, switches,
port map, IP plan, optics, RDMA settings and the latency budget."""

from __future__ import annotations

import ipaddress
import math

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import HubplanError
from ..core.findings import Finding
from ..core.stage import Stage, StageResult
from ..pools import Pools
from .addressing import (
    IP_COLUMNS,
    check_no_overlap,
    dotted_array,
    fit_supernet,
    interface_addresses,
    subnet_prefix,
)
from .fabric import Fabric, max_two_tier_servers, size_fabric
from .latency import latency_budget
from .planes import endpoint_columns, management_server_names, size_plane, storage_node_names
from .ports import (
    LinkGroup,
    as_column,
    compute_links,
    frame,
    name_table,
    plane_links,
    port_map,
    port_use,
    rail_interfaces,
    server_name_array,
    transceivers,
    width,
)
from .rdma import fabric_family_findings, rdma_settings
from .section import Network
from .switches import ports_at

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


def _num(v) -> float:
    return math.nan if v is None or v == "" else float(v)


def _server_nics(spec, catalog: Catalog) -> dict[str, float]:
    fields = (
        "compute_nics",
        "compute_nic_gbps",
        "storage_nics",
        "storage_nic_gbps",
        "inband_nics",
        "bmc_nics",
    )
    if spec.custom_server is not None:
        return {f: _num(getattr(spec.custom_server, f)) for f in fields}
    if spec.server is not None:
        row = catalog.server(spec.server)
        return {f: _num(row[f]) for f in fields}
    return dict.fromkeys(fields, math.nan)


def _count(v: float, default: int = 0) -> int:
    return default if math.isnan(v) else int(v)


def _switch_rows(plane, role, sw, count, port_gbps, units=None) -> list[dict]:
    base = {
        "plane": plane,
        "role": role,
        "model": sw["name"],
        "ports": int(sw["ports"]),
        "port_gbps": float(sw["port_gbps"]),
        "rack_units": sw["rack_units"],
        "max_power_kw": sw["max_power_kw"],
        "typical_power_kw": sw["typical_power_kw"],
        "price_usd": sw["price_usd"],
    }
    if count <= 0:
        return []
    if units:
        return [base | {"count": per, "unit": str(u)} for u, per in units]
    return [base | {"count": int(count), "unit": ""}]


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
    """
    switches_cat = catalog.switches
    findings: list[Finding] = []
    pool_rows = tables["pools"]
    pool_rows = pool_rows[pool_rows["level"] == "pool"]
    storage_nodes = tables["storage_nodes"]

    check_no_overlap(
        {
            f"network.{p}_cidr": getattr(network, f"{p}_cidr")
            for p in ("compute", "storage", "inband", "bmc", "loopback")
        }
    )

    # -- servers of every pool, named <partition>-<nnnn> ------------------------------
    servers = []
    columns = ("pool", "partition", "total_servers", "gpus_per_server")
    for pool, partition, total, gpus in zip(*(pool_rows[c].tolist() for c in columns), strict=True):
        spec = getattr(pools, pool)
        nics = _server_nics(spec, catalog)
        n = int(total)
        if n == 0:
            continue
        servers.append(
            {
                "pool": pool,
                "names": server_name_array(str(partition), n),
                "gpus_per_server": int(gpus),
                **nics,
            }
        )

    # -- compute fabric ------------------------------------------------------------------
    comp_sw = catalog.switch(network.compute_switch, "network.compute_switch")
    transport = comp_sw["technology"]
    fab_servers = [s for s in servers if s["pool"] in network.compute_pools]
    groups: list[LinkGroup] = []
    switch_rows: list[dict] = []
    fabric_rows: list[dict] = []
    fabric: Fabric | None = None
    compute_names = np.array([], dtype=object)
    nic_gbps = math.nan
    rails = 0
    for s in fab_servers:
        nics, gpus = s["compute_nics"], s["gpus_per_server"]
        if math.isnan(nics) or nics < gpus:
            findings.append(
                Finding(
                    "warning",
                    "network",
                    s["pool"],
                    "fewer_nics_than_gpus",
                    {"pool": s["pool"], "nics": 0 if math.isnan(nics) else nics, "gpus": gpus},
                )
            )
    fab_servers = [s for s in fab_servers if _count(s["compute_nics"]) > 0]
    if fab_servers:
        rails = _count(fab_servers[0]["compute_nics"])
        nic_gbps = fab_servers[0]["compute_nic_gbps"]
        for s in fab_servers[1:]:
            if _count(s["compute_nics"]) != rails or s["compute_nic_gbps"] != nic_gbps:
                raise HubplanError(
                    f"network.compute_pools = {list(network.compute_pools)}: pools "
                    f"{fab_servers[0]['pool']!r} and {s['pool']!r} have different compute NICs "
                    f"({rails} × {nic_gbps:g} and {_count(s['compute_nics'])} × "
                    f"{s['compute_nic_gbps']:g} Gb/s); give one fabric one kind of server"
                )
        compute_names = np.concatenate([s["names"] for s in fab_servers])
    if len(compute_names) == 1:
        findings.append(
            Finding(
                "info",
                "network",
                "compute",
                "single_server_no_fabric",
                {"gpus": fab_servers[0]["gpus_per_server"]},
            )
        )
    elif len(compute_names) > 1:
        if math.isnan(nic_gbps):
            raise HubplanError(
                f"pools.{fab_servers[0]['pool']}: the server's compute_nic_gbps is unknown; "
                "give the NIC speed in a custom server"
            )
        radix = ports_at(comp_sw["ports"], comp_sw["port_gbps"], comp_sw["max_breakout"], nic_gbps)
        if radix == 0:
            raise HubplanError(
                f"network.compute_switch = {network.compute_switch!r}: its ports run at "
                f"{comp_sw['port_gbps']:g} Gb/s, below the {nic_gbps:g} Gb/s compute NICs"
            )
        fabric = size_fabric(
            len(compute_names), rails, radix, network.oversubscription, network.servers_per_unit
        )
        if (
            fabric.oversubscription > network.max_training_oversubscription
            and "training" in network.compute_pools
        ):
            findings.append(
                Finding(
                    "warning",
                    "network",
                    "compute",
                    "oversubscription_above_policy",
                    {
                        "ratio": fabric.oversubscription,
                        "limit": network.max_training_oversubscription,
                    },
                )
            )
        if fabric.tiers == 3:
            same = switches_cat[switches_cat["technology"] == transport]
            for _, alt in same.iterrows():
                k = ports_at(alt["ports"], alt["port_gbps"], alt["max_breakout"], nic_gbps)
                if k > radix and max_two_tier_servers(k, rails, network.oversubscription) >= len(
                    compute_names
                ):
                    findings.append(
                        Finding(
                            "warning",
                            "network",
                            "compute",
                            "third_tier_early",
                            {
                                "switch": comp_sw["name"],
                                "radix": radix,
                                "other": alt["name"],
                                "other_radix": k,
                                "servers": len(compute_names),
                            },
                        )
                    )
                    break
        groups += compute_links(
            fabric,
            compute_names,
            nic_gbps,
            network.compute_vlan if transport == "ethernet" else None,
            (network.server_leaf_reach_m, network.leaf_spine_reach_m, network.spine_core_reach_m),
        )
        switch_rows += _switch_rows(
            "compute",
            "leaf",
            comp_sw,
            fabric.leaves,
            nic_gbps,
            [(u + 1, rails) for u in range(fabric.units)],
        )
        switch_rows += _switch_rows("compute", "spine", comp_sw, fabric.spines, nic_gbps)
        switch_rows += _switch_rows("compute", "core", comp_sw, fabric.cores, nic_gbps)
        fabric_rows.append(
            {
                "plane": "compute",
                "model": comp_sw["name"],
                "tiers": fabric.tiers,
                "endpoints": len(compute_names) * rails,
                "servers_per_unit": fabric.servers_per_unit,
                "units": fabric.units,
                "leaves": fabric.leaves,
                "spines": fabric.spines,
                "cores": fabric.cores,
                "oversubscription": fabric.oversubscription,
                "port_gbps": nic_gbps,
            }
        )
    if transport == "ethernet" and fabric is not None and not (network.pfc and network.ecn):
        findings.append(
            Finding(
                "error",
                "network",
                "compute",
                "roce_without_lossless",
                {"pfc": network.pfc, "ecn": network.ecn},
            )
        )

    # -- storage, in-band and BMC planes -------------------------------------------------
    nodes = storage_node_names(storage_nodes)
    plane_ends: dict[str, dict[str, np.ndarray]] = {}
    stor_parts, inb_parts, bmc_parts = [], [], []
    for s in servers:
        k_st = min(network.storage_ports_per_server, _count(s["storage_nics"]))
        if k_st == 0 and s["pool"] in ("training", "inference"):
            findings.append(
                Finding("warning", "network", s["pool"], "storage_on_compute", {"pool": s["pool"]})
            )
        n = len(s["names"])
        stor_parts.append(endpoint_columns(s["names"], np.full(n, k_st), "stor", "gpu_server"))
        k_in = min(network.inband_ports_per_server, _count(s["inband_nics"], 1))
        inb_parts.append(endpoint_columns(s["names"], np.full(n, k_in), "mgmt", "gpu_server"))
        bmc_parts.append(endpoint_columns(s["names"], np.full(n, 1), "bmc", "gpu_server"))
    if network.storage_plane == "compute":
        findings.append(
            Finding("warning", "network", "storage", "storage_on_compute", {"pool": "all"})
        )
        stor_parts = []
    if len(nodes):
        devices = nodes["device"].to_numpy(dtype=object)
        one = np.ones(len(nodes), int)
        ports = nodes["nic_ports"].astype(int).to_numpy()
        stor_parts.append(endpoint_columns(devices, ports, "data", "storage_node"))
        inb_parts.append(endpoint_columns(devices, one, "mgmt", "storage_node"))
        bmc_parts.append(endpoint_columns(devices, one, "bmc", "storage_node"))
    mgmt = management_server_names(facility_management_servers).to_numpy(dtype=object)
    if len(mgmt):
        one = np.ones(len(mgmt), int)
        inb_parts.append(endpoint_columns(mgmt, one, "mgmt", "management_server"))
        bmc_parts.append(endpoint_columns(mgmt, one, "bmc", "management_server"))
    plane_ends["storage"] = _stack(stor_parts)
    plane_ends["inband"] = _stack(inb_parts)

    stor_speeds = [s["storage_nic_gbps"] for s in servers if not math.isnan(s["storage_nic_gbps"])]
    stor_speeds += nodes["nic_gbps"].astype(float).tolist() if len(nodes) else []
    stor_gbps = max(stor_speeds) if stor_speeds else 400.0
    planes: dict[str, Fabric] = {}
    models = {
        "storage": network.storage_switch,
        "inband": network.inband_switch,
        "bmc": network.bmc_switch,
    }
    speeds = {"storage": stor_gbps, "inband": network.inband_gbps, "bmc": 1.0}
    oversub = {
        "storage": network.storage_oversubscription,
        "inband": network.management_oversubscription,
        "bmc": 1.0,
    }
    vlans = {
        "storage": network.storage_vlan,
        "inband": network.inband_vlan,
        "bmc": network.bmc_vlan,
    }
    sws = {p: catalog.switch(m, f"network.{p}_switch") for p, m in models.items()}
    radix = {}
    for p in ("storage", "inband", "bmc"):
        sw = sws[p]
        radix[p] = ports_at(sw["ports"], sw["port_gbps"], sw["max_breakout"], speeds[p])
        if radix[p] == 0:
            raise HubplanError(
                f"network.{p}_switch = {models[p]!r}: its ports run at {sw['port_gbps']:g} "
                f"Gb/s, below the plane's {speeds[p]:g} Gb/s links"
            )
    for p in ("storage", "inband"):
        planes[p] = size_plane(p, len(plane_ends[p]["device"]), radix[p], oversub[p])
    # Every switch's management port joins the BMC plane.
    mgmt_devices = _switch_names(fabric, planes)
    n = len(mgmt_devices)
    bmc_parts.append(
        {
            "device": mgmt_devices,
            "device_role": as_column("switch", n),
            "interface": as_column("mgmt0", n),
        }
    )
    plane_ends["bmc"] = _stack(bmc_parts)
    bsw = sws["bmc"]
    up_ports = _count(_num(bsw["uplink_ports"]))
    spine_radix = (
        ports_at(
            sws["inband"]["ports"],
            sws["inband"]["port_gbps"],
            sws["inband"]["max_breakout"],
            _num(bsw["uplink_gbps"]) or 1.0,
        )
        if up_ports
        else None
    )
    planes["bmc"] = size_plane(
        "bmc",
        len(plane_ends["bmc"]["device"]),
        radix["bmc"],
        1.0,
        uplink_ports=up_ports,
        spine_radix=spine_radix,
    )
    for p in ("storage", "inband", "bmc"):
        pl = planes[p]
        uplink = _num(bsw["uplink_gbps"]) if p == "bmc" and up_ports else None
        groups += plane_links(
            p,
            pl,
            plane_ends[p],
            speeds[p],
            vlans[p],
            (network.rack_reach_m, network.leaf_spine_reach_m, network.spine_core_reach_m),
            uplink_gbps=uplink,
        )
        switch_rows += _switch_rows(p, "leaf", sws[p], pl.leaves, speeds[p])
        spine_sw = sws["inband"] if p == "bmc" else sws[p]
        switch_rows += _switch_rows(p, "spine", spine_sw, pl.spines, speeds[p])
        switch_rows += _switch_rows(p, "core", spine_sw, pl.cores, speeds[p])
        if pl.servers:
            fabric_rows.append(
                {
                    "plane": p,
                    "model": sws[p]["name"],
                    "tiers": pl.tiers,
                    "endpoints": pl.servers,
                    "servers_per_unit": np.nan,
                    "units": np.nan,
                    "leaves": pl.leaves,
                    "spines": pl.spines,
                    "cores": pl.cores,
                    "oversubscription": pl.leaf_down / pl.leaf_up if pl.leaf_up else np.nan,
                    "port_gbps": speeds[p],
                }
            )

    pm = port_map(groups)
    switches = pd.DataFrame(switch_rows, columns=SWITCH_COLUMNS)
    ppc = {
        p: int(sw["ports"] // sw["cages"]) if sw["cages"] == sw["cages"] else 1
        for p, sw in {"compute": comp_sw, **sws}.items()
    }
    optics = transceivers(groups, ppc)

    # -- IP plan -------------------------------------------------------------------------
    ip_parts = []
    if fabric is not None:
        prefix = subnet_prefix(fabric.servers_per_unit)
        fit = fit_supernet(
            "network.compute_cidr",
            network.compute_cidr,
            fabric.leaves,
            prefix,
            network.growth_share,
        )
        _growth_finding(fit, fabric.units, rails, findings)
        s = np.repeat(np.arange(len(compute_names)), rails)
        r = np.tile(np.arange(rails), len(compute_names))
        subnet = (s // fabric.servers_per_unit) * rails + r
        addr, gw = interface_addresses(fit, subnet, s % fabric.servers_per_unit)
        ip_parts.append(
            _ip_columns(
                compute_names[s],
                "gpu_server",
                rail_interfaces(rails)[r],
                "compute",
                addr,
                prefix,
                gw if transport == "ethernet" else None,
                network.compute_vlan + r if transport == "ethernet" else 0,
            )
        )
    for p in ("storage", "inband", "bmc"):
        pl, ends = planes[p], plane_ends[p]
        if not pl.servers:
            continue
        prefix = subnet_prefix(pl.leaf_down)
        # The BMC plane's own switches get their management addresses after the leaves.
        own = _plane_switch_names(pl, "bmc") if p == "bmc" else np.array([], dtype=object)
        per = 2 ** (32 - prefix) - 3
        extra = -(-len(own) // per)
        fit = fit_supernet(
            f"network.{p}_cidr",
            getattr(network, f"{p}_cidr"),
            pl.leaves + (extra if p == "bmc" else 0),
            prefix,
            network.growth_share,
        )
        _growth_finding(fit, pl.leaves, 1, findings)
        i = np.arange(len(ends["device"]))
        addr, gw = interface_addresses(fit, i // pl.leaf_down, i % pl.leaf_down)
        ip_parts.append(
            _ip_columns(
                ends["device"],
                ends["device_role"],
                ends["interface"],
                p,
                addr,
                prefix,
                gw,
                vlans[p],
            )
        )
        if p == "bmc":
            k = np.arange(len(own))
            addr, gw = interface_addresses(fit, k // per, k % per, offset=pl.leaves)
            ip_parts.append(
                _ip_columns(
                    own,
                    "switch",
                    "mgmt0",
                    p,
                    addr,
                    prefix,
                    gw,
                    vlans[p],
                )
            )
    all_switches = np.concatenate([mgmt_devices, _plane_switch_names(planes["bmc"], "bmc")])
    if len(all_switches):
        fit = fit_supernet(
            "network.loopback_cidr",
            network.loopback_cidr,
            len(all_switches),
            32,
            network.growth_share,
        )
        base = int(ipaddress.ip_network(fit.cidr).network_address)
        addr = base + np.arange(len(all_switches), dtype=np.int64)
        ip_parts.append(
            _ip_columns(
                all_switches,
                "switch",
                "lo0",
                "loopback",
                addr,
                32,
                None,
                0,
            )
        )
    ip_plan = frame(_stack(ip_parts)) if ip_parts else pd.DataFrame(columns=IP_COLUMNS)

    # -- port use per switch -------------------------------------------------------------
    cap = (
        {
            ("compute", r): (radix_c if r != "leaf" else fabric.leaf_down + fabric.leaf_up)
            for r in ("leaf", "spine", "core")
            for radix_c in [fabric.radix if fabric else 0]
        }
        if fabric
        else {}
    )
    for p in ("storage", "inband", "bmc"):
        pl = planes[p]
        cap[(p, "leaf")] = pl.leaf_down + pl.leaf_up
        cap[(p, "spine")] = cap[(p, "core")] = (
            spine_radix if p == "bmc" and spine_radix else radix[p]
        )
    use = port_use(groups, cap)

    # The compute fabric's accelerator family (its pools' accelerator vendor) chooses the
    # collective library's settings; a switch its scale-out cannot use is a finding.
    named = [s["pool"] for s in fab_servers] or [s["pool"] for s in servers]
    family = (catalog.accelerator_family(getattr(pools, named[0]).accelerator) if named
              else catalog.family(""))  # fmt: skip
    if fabric is not None:
        findings += fabric_family_findings(family, transport, str(comp_sw["name"]))
    rdma = rdma_settings(
        transport if transport == "infiniband" else "roce",
        family=family,
        pfc=network.pfc,
        ecn=network.ecn,
        priority=network.roce_priority,
        nccl_ib_timeout=network.nccl_ib_timeout,
        nccl_ib_sl=network.nccl_ib_sl,
        socket_ifname=network.nccl_socket_ifname,
        rails=max(rails, 1),
    )
    latency = latency_budget(
        network.latency_target_ms, network.serving_time_ms, network.wan_hops, network.hop_latency_us
    )
    return StageResult(
        {
            "switches": switches,
            "port_map": pm,
            "ip_plan": ip_plan,
            "transceivers": optics,
            "fabric": pd.DataFrame(fabric_rows, columns=FABRIC_COLUMNS),
            "port_use": use,
            "rdma_settings": rdma,
            "latency_budget": latency,
        },
        tuple(findings),
    )


def _plane_switch_names(pl: Fabric, plane: str) -> np.ndarray:
    """A plane's leaf, spine and core names, in that order."""
    return np.concatenate(
        [
            name_table(f"{plane}-{role}-", k, width(k))
            for role, k in (("leaf", pl.leaves), ("spine", pl.spines), ("core", pl.cores))
            if k
        ]
        or [np.array([], dtype=object)]
    )


def _switch_names(fabric: Fabric | None, planes: dict[str, Fabric]) -> np.ndarray:
    """Compute, storage and in-band switch names (their mgmt0 ports join the BMC plane)."""
    out = [np.array([], dtype=object)]
    if fabric is not None:
        out.append(name_table("compute-leaf-", fabric.leaves, width(fabric.leaves)))
        out.append(name_table("compute-spine-", fabric.spines, width(fabric.spines)))
        if fabric.cores:
            out.append(name_table("compute-core-", fabric.cores, width(fabric.cores)))
    for p in ("storage", "inband"):
        out.append(_plane_switch_names(planes[p], p))
    return np.concatenate(out)


def _stack(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Column-wise concatenation of tables held as dicts of equally long numpy columns."""
    if not parts:
        return {c: np.array([], dtype=object) for c in ("device", "device_role", "interface")}
    return {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}


def _growth_finding(fit, units: int, per_unit: int, findings: list[Finding]) -> None:
    if not fit.growth_ok:
        findings.append(
            Finding(
                "warning",
                "network",
                fit.field.split(".")[-1],
                "supernet_growth_short",
                {
                    "field": fit.field,
                    "cidr": fit.cidr,
                    "needed": fit.needed,
                    "needed_with_growth": fit.needed_with_growth,
                    "size": fit.size,
                },
            )
        )


def _ip_columns(device, role, interface, plane, addr, prefix, gw, vlan) -> dict[str, np.ndarray]:
    """One part of the IP plan as numpy columns; scalars repeat for every address.

    A subnet's gateway is written once and shared by every address of the subnet.
    """
    n = len(addr)
    if gw is not None:
        gateways, subnet = np.unique(gw, return_inverse=True)
        gateway = dotted_array(gateways).astype(object)[subnet]
    return {
        "device": np.asarray(device, dtype=object),
        "device_role": as_column(role, n),
        "interface": as_column(interface, n),
        "plane": as_column(plane, n),
        "address": dotted_array(addr),
        "prefix": np.full(n, prefix),
        "gateway": gateway if gw is not None else as_column("", n),
        "vlan": as_column(vlan, n),
    }


STAGE = Stage(
    name="network",
    sections=("network", "pools", "facility.management_servers"),
    needs=("pools", "storage_nodes"),
    provides=(
        "switches",
        "port_map",
        "ip_plan",
        "transceivers",
        "fabric",
        "port_use",
        "rdma_settings",
        "latency_budget",
    ),
    run=run_network,
)
