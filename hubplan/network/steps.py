"""The network stage's steps, each a calculator of its own: the servers of every pool,
the compute fabric, the storage / in-band / BMC planes, the IP plan and the port use.

:func:`~hubplan.network.stage.run_network` runs them in this order; each step takes the
results of the ones before and returns its links, switch rows, fabric rows and findings.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import HubplanError
from ..core.findings import Finding
from ..pools import Pools
from ..server import resolve_server
from .addressing import (
    IP_COLUMNS,
    dotted_array,
    fit_supernet,
    interface_addresses,
    subnet_prefix,
)
from .fabric import Fabric, max_two_tier_servers, size_fabric
from .media import choose_media, segment_reach_m
from .nics import DEFAULT_PKEY, nic_extras
from .planes import (
    endpoint_columns,
    management_plane,
    management_server_names,
    oob_leaves,
    size_plane,
    storage_node_names,
)
from .ports import (
    LinkGroup,
    MediaOf,
    as_column,
    compute_links,
    frame,
    name_table,
    plane_links,
    port_use,
    rail_interfaces,
    server_name_array,
    width,
)
from .section import Network
from .switches import ports_at

PLANES = ("storage", "inband", "bmc")


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
    server = resolve_server(spec, catalog)  # the one resolver (hubplan.server)
    if server is None:
        return dict.fromkeys(fields, math.nan) | {"nodes": 1}
    return {f: getattr(server, f) for f in fields} | {"nodes": server.nodes}


def rack_node_names(racks: np.ndarray, nodes: int) -> np.ndarray:
    """The compute nodes of rack-scale systems, ``<rack>-t<nn>`` from 01, rack after rack.

    A GB200 NVL72 rack's 18 compute trays are its nodes: each has its own NICs, BMC and
    operating system (NVIDIA DGX GB200 user guide, 'Hardware').

    >>> rack_node_names(np.array(["train-0001", "train-0002"], dtype=object), 2).tolist()
    ['train-0001-t01', 'train-0001-t02', 'train-0002-t01', 'train-0002-t02']
    """
    trays = np.array([f"-t{t:02d}" for t in range(1, nodes + 1)], dtype=object)
    return np.repeat(racks.astype(object), nodes) + np.tile(trays, len(racks))


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


def pool_servers(pool_rows: pd.DataFrame, pools: Pools, catalog: Catalog) -> list[dict]:
    """Step 1, servers: the servers of every pool, named ``<partition>-<nnnn>``, with
    their NICs (one dict per pool with servers: ``pool``, ``names``, ``gpus_per_server``
    and the NIC counts and speeds of the pool's server).

    Reads the server stage's ``pools`` rows at level ``pool``; ``total_servers`` counts
    the spares, ``spare_servers`` (0 when the column is absent) says how many of them
    are spares: the last ``spares`` names of the pool (``spares`` in the dict).
    """
    servers = []
    columns = ("pool", "partition", "total_servers", "gpus_per_server")
    spare_counts = (
        pool_rows["spare_servers"].fillna(0).astype(int).tolist()
        if "spare_servers" in pool_rows.columns
        else [0] * len(pool_rows)
    )
    rows = zip(*(pool_rows[c].tolist() for c in columns), spare_counts, strict=True)
    for pool, partition, total, gpus, spares in rows:
        spec = getattr(pools, pool)
        nics = _server_nics(spec, catalog)
        extras = nic_extras(spec, catalog)
        n = int(total)
        if n == 0:
            continue
        names, per = server_name_array(str(partition), n), int(nics.pop("nodes"))
        if per > 1:  # a rack-scale system is cabled by its compute trays: <rack>-t01 …
            names, gpus = rack_node_names(names, per), int(gpus) // per
            nics |= {f: nics[f] / per for f in nics if not f.endswith("_gbps")}
        nics |= extras
        servers.append(
            {
                "pool": pool,
                "names": names,
                "gpus_per_server": int(gpus),
                "spares": min(int(spares), n) * per,
                "nodes_per_system": per,
                **nics,
            }
        )
    return servers


@dataclass
class ComputeFabric:
    """What the compute-fabric step returns: the fabric (None below two servers), the
    cabled servers' names, rails, NIC speed, the switch model and its radix, and the
    links, switch rows, fabric rows and findings of the step."""

    switch: pd.Series
    transport: str
    media_of: MediaOf
    fabric: Fabric | None = None
    names: np.ndarray = field(default_factory=lambda: np.array([], dtype=object))
    rails: int = 0
    nic_gbps: float = math.nan
    radix: int = 0
    pkey: int = 0
    ufm: np.ndarray = field(default_factory=lambda: np.array([], dtype=object))
    groups: list[LinkGroup] = field(default_factory=list)
    switch_rows: list[dict] = field(default_factory=list)
    fabric_rows: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


@dataclass
class Planes:
    """What the planes step returns: per plane (storage, inband, bmc) its fabric, its
    endpoint columns, switch model, link speed, VLAN and radix; the BMC spines' radix at
    the uplink speed; the names of the switches whose mgmt0 joins the BMC plane; and the
    step's links, switch rows, fabric rows and findings."""

    fabrics: dict[str, Fabric]
    ends: dict[str, dict[str, np.ndarray]]
    switches: dict[str, pd.Series]
    speeds: dict[str, float]
    vlans: dict[str, int]
    radix: dict[str, int]
    spine_radix: int | None
    mgmt_devices: np.ndarray
    pkeys: dict[str, int] = field(default_factory=dict)
    groups: list[LinkGroup] = field(default_factory=list)
    switch_rows: list[dict] = field(default_factory=list)
    fabric_rows: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def spare_placement(
    working: int, spares: int, rails: int, radix: int, network: Network, reserved: int = 0
) -> dict[str, int]:
    """Where a compute fabric's spare servers go, and what cabling all of them would cost.

    The fabric is sized for the ``working`` servers (:func:`size_fabric`); its last unit
    has ``units × SU − working`` free server slots; ``reserved`` of them go to the UFM
    appliances first (the RA's SU holds 31 DGX for that). Spares fill the others; the
    rest (``cold``)
    sit in a cold pool under ``network.spare_cabling = "free_slots"`` or get units of
    their own under ``"extra_units"``. ``extra_*`` are the leaves, spines and cores that
    cabling every spare adds to the fabric of the working servers (0 when they fit).

    Examples
    --------
    4 SUs of DGX H100 (128 working) with 5 % spares (7, :func:`hubplan.server.spare_servers`):
    the four SUs are full, so all 7 go to the cold pool; cabling them would add a fifth SU
    (8 leaves; 40 leaves need ⌈40 × 32 / 64⌉ = 20 → 32 spines, 16 more):

    >>> from hubplan.network import Network
    >>> p = spare_placement(128, 7, 8, 64, Network())
    >>> p["in_slots"], p["cold"], p["extra_units"], p["extra_leaves"], p["extra_spines"]
    (0, 7, 1, 8, 16)

    120 working servers leave 8 free slots in the fourth SU: 7 spares fit, nothing extra:

    >>> p = spare_placement(120, 7, 8, 64, Network())
    >>> p["in_slots"], p["cold"], p["extra_leaves"]
    (7, 0, 0)
    """
    o, spu = network.oversubscription, network.servers_per_unit
    base = size_fabric(max(working, 1), rails, radix, o, spu)
    free = base.units * base.servers_per_unit - working
    in_slots = min(spares, max(free - reserved, 0))
    every = size_fabric(max(working + spares, 1), rails, radix, o, spu)
    return {
        "working": working,
        "spares": spares,
        "free_slots": free,
        "in_slots": in_slots,
        "cold": spares - in_slots,
        "units": base.units,
        "extra_units": every.units - base.units,
        "extra_leaves": every.leaves - base.leaves,
        "extra_spines": every.spines - base.spines,
        "extra_cores": every.cores - base.cores,
    }


def _place_spares(fab_servers, network, comp_sw, rails, nic_gbps, findings) -> np.ndarray:
    """The compute fabric's cabled servers: every pool's working servers, then the spares
    :func:`spare_placement` cables (after the UFM appliances' slots on an InfiniBand
    fabric); a finding when spares pass the SU boundary."""
    radix = ports_at(comp_sw["ports"], comp_sw["port_gbps"], comp_sw["max_breakout"], nic_gbps)
    working = [s["names"][: len(s["names"]) - s["spares"]] for s in fab_servers]
    spares = [s["names"][len(s["names"]) - s["spares"] :] for s in fab_servers]
    n_work, n_spare = sum(map(len, working)), sum(map(len, spares))
    if radix == 0 or n_spare == 0 or n_work < 1:
        return np.concatenate([s["names"] for s in fab_servers])
    reserved = _ufm_slots(network, rails) if comp_sw["technology"] == "infiniband" else 0
    p = spare_placement(n_work, n_spare, rails, radix, network, reserved)
    # A rack-scale system (GB200 NVL72: 18 trays) is a spare whole or not at all: its
    # trays share one NVLink domain, so free slots take whole racks only.
    per = max(int(s.get("nodes_per_system", 1)) for s in fab_servers)
    if per > 1 and network.spare_cabling == "free_slots":
        p["in_slots"] = p["in_slots"] // per * per
        p["cold"] = n_spare - p["in_slots"]
    if p["cold"]:
        findings.append(
            Finding(
                "info" if network.spare_cabling == "free_slots" else "warning",
                "network",
                "compute",
                "spares_past_su" if network.spare_cabling == "free_slots" else "spares_cabled",
                dict(p),  # the finding's own dict[str, object] (a dict is invariant)
            )
        )
    cabled = n_spare if network.spare_cabling == "extra_units" else p["in_slots"]
    return np.concatenate([*working, np.concatenate(spares)[:cabled]])


def _ufm_slots(network: Network, rails: int) -> int:
    """Server slots the compute fabric's UFM appliances take (one port per rail leaf)."""
    return -(-network.ufm_per_fabric * network.ufm_fabric_ports // rails) if rails else 0


def ufm_names(plane: str, count: int) -> np.ndarray:
    """UFM appliance names ``<plane>-ufm-<nn>``, as the facility stage names the
    switches table's rows (plane, role ``ufm``).

    >>> ufm_names("compute", 2).tolist()
    ['compute-ufm-01', 'compute-ufm-02']
    """
    return name_table(f"{plane}-ufm-", count, width(count))


def _ufm_row(plane: str, network: Network, count: int, port_gbps: float) -> list[dict]:
    """The switches-table row of a fabric's UFM appliances (role ``ufm``); height, power
    and price unknown (the facility stage's stand-ins, with a warning)."""
    if count <= 0:
        return []
    return [
        {
            "plane": plane,
            "role": "ufm",
            "model": network.ufm_model,
            "count": count,
            "ports": network.ufm_fabric_ports,
            "port_gbps": float(port_gbps),
            "rack_units": math.nan,
            "max_power_kw": math.nan,
            "typical_power_kw": math.nan,
            "price_usd": math.nan,
            "unit": "",
        }
    ]


def _compute_ufm(out: ComputeFabric, network: Network) -> None:
    """Cable the compute fabric's UFM appliances into the free server slots after the
    cabled servers: port q of appliance i is the slot's rail-(k mod R) leaf port, k =
    i × ports + q (RA-11333-001 Table 4: 4 UFM cables on one SU's leaves)."""
    f, n = out.fabric, network.ufm_per_fabric
    if f is None or out.transport != "infiniband" or n == 0:
        return
    names = ufm_names("compute", n)
    out.ufm = names
    out.switch_rows += _ufm_row("compute", network, n, out.nic_gbps)
    per = network.ufm_fabric_ports
    free = f.units * f.servers_per_unit - len(out.names)
    need = _ufm_slots(network, out.rails)
    if free < need:
        out.findings.append(
            Finding(
                "warning",
                "network",
                "compute",
                "ufm_without_slot",
                {
                    "ufm": n,
                    "units": f.units,
                    "per_unit": f.servers_per_unit,
                    "servers": len(out.names),
                    "slots": need,
                },
            )
        )
        return
    k = np.arange(n * per)
    slot = len(out.names) + k // out.rails
    leaf = (slot // f.servers_per_unit) * out.rails + k % out.rails
    leaves = name_table("compute-leaf-", f.leaves, width(f.leaves))
    reach = segment_reach_m("compute", network)[0]
    out.groups.append(
        LinkGroup(
            "compute",
            "server-leaf",
            float(reach),
            float(out.nic_gbps),
            out.media_of(out.nic_gbps, reach),
            names[k // per],
            np.array([f"ib{q}" for q in range(1, per + 1)], dtype=object)[k % per],
            leaves[leaf],
            name_table("p", f.servers_per_unit, 1)[slot % f.servers_per_unit],
            0,
            "subnet manager (UFM)",
            out.pkey,
        )
    )


def compute_fabric(servers: list[dict], network: Network, catalog: Catalog) -> ComputeFabric:
    """Step 2, compute fabric: the rail-optimised fabric of the ``network.compute_pools``
    servers (:func:`~hubplan.network.fabric.size_fabric`), its links, switches and the
    fabric row, with the findings on NICs, oversubscription, an early third tier and
    RoCE without a lossless setup."""
    comp_sw = catalog.switch(network.compute_switch, "network.compute_switch")
    transport = comp_sw["technology"]
    out = ComputeFabric(
        switch=comp_sw,
        transport=transport,
        media_of=partial(choose_media, catalog.optics),
        pkey=DEFAULT_PKEY if transport == "infiniband" else 0,
    )
    findings = out.findings
    fab_servers = [s for s in servers if s["pool"] in network.compute_pools]
    findings += _fewer_nics_findings(fab_servers)
    fab_servers = [s for s in fab_servers if _count(s["compute_nics"]) > 0]
    rails, nic_gbps = _fabric_nics(fab_servers, network)
    compute_names = out.names
    if fab_servers:
        compute_names = np.concatenate([s["names"] for s in fab_servers])
    out.rails, out.nic_gbps = rails, nic_gbps
    if len(compute_names) > 1 and not math.isnan(nic_gbps):
        compute_names = _place_spares(fab_servers, network, comp_sw, rails, nic_gbps, findings)
    out.names = compute_names
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
        _size_compute(out, fab_servers, network, catalog.switches)
    _compute_ufm(out, network)
    if transport == "ethernet" and out.fabric is not None and not (network.pfc and network.ecn):
        findings.append(
            Finding(
                "error",
                "network",
                "compute",
                "roce_without_lossless",
                {"pfc": network.pfc, "ecn": network.ecn},
            )
        )
    return out


def _fewer_nics_findings(fab_servers: list[dict]) -> list[Finding]:
    """A warning for each compute pool whose servers have fewer compute NICs than GPUs."""
    findings = []
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
    return findings


def _fabric_nics(fab_servers: list[dict], network: Network) -> tuple[int, float]:
    """The compute fabric's rails and NIC speed in Gb/s (0 and NaN without servers); an
    error when its pools' servers have different compute NICs."""
    if not fab_servers:
        return 0, math.nan
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
    return rails, nic_gbps


def _size_compute(
    out: ComputeFabric, fab_servers: list[dict], network: Network, switches_cat: pd.DataFrame
) -> None:
    """Size the fabric of ``out.names`` (two servers or more) and add it, its findings,
    links, switch rows and fabric row to ``out``; an error when the NIC speed is unknown
    or the switch's ports are slower than the NICs."""
    comp_sw, nic_gbps, rails, compute_names = out.switch, out.nic_gbps, out.rails, out.names
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
    out.radix = radix
    fabric = size_fabric(
        len(compute_names), rails, radix, network.oversubscription, network.servers_per_unit
    )
    out.fabric = fabric
    if (
        fabric.oversubscription > network.max_training_oversubscription
        and "training" in network.compute_pools
    ):
        out.findings.append(
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
        out.findings += _third_tier_findings(out, switches_cat, network)
    out.groups += compute_links(
        fabric,
        compute_names,
        nic_gbps,
        network.compute_vlan if out.transport == "ethernet" else None,
        segment_reach_m("compute", network),
        media_of=out.media_of,
        pkey=out.pkey,
        ports_per_cage=fab_servers[0]["compute_ports_per_cage"],
    )
    out.switch_rows += _compute_switch_rows(fabric, comp_sw, rails, nic_gbps)
    out.fabric_rows.append(
        _compute_fabric_row(fabric, comp_sw, len(compute_names), rails, nic_gbps)
    )


def _compute_fabric_row(
    fabric: Fabric, comp_sw: pd.Series, servers: int, rails: int, nic_gbps: float
) -> dict[str, object]:
    """The compute fabric's row of the fabrics table (endpoints: servers × rails)."""
    return {
        "plane": "compute",
        "model": comp_sw["name"],
        "tiers": fabric.tiers,
        "endpoints": servers * rails,
        "servers_per_unit": fabric.servers_per_unit,
        "units": fabric.units,
        "leaves": fabric.leaves,
        "spines": fabric.spines,
        "cores": fabric.cores,
        "oversubscription": fabric.oversubscription,
        "port_gbps": nic_gbps,
    }


def _third_tier_findings(
    out: ComputeFabric, switches_cat: pd.DataFrame, network: Network
) -> list[Finding]:
    """A warning when the compute fabric (``out.fabric``, ``out.radix``) needs a third
    tier while the first catalogue switch of the same technology with a larger radix at
    the NIC speed would keep the servers in two tiers."""
    same = switches_cat[switches_cat["technology"] == out.transport]
    for _, alt in same.iterrows():
        k = ports_at(alt["ports"], alt["port_gbps"], alt["max_breakout"], out.nic_gbps)
        if k > out.radix and max_two_tier_servers(k, out.rails, network.oversubscription) >= len(
            out.names
        ):
            return [
                Finding(
                    "warning",
                    "network",
                    "compute",
                    "third_tier_early",
                    {
                        "switch": out.switch["name"],
                        "radix": out.radix,
                        "other": alt["name"],
                        "other_radix": k,
                        "servers": len(out.names),
                    },
                )
            ]
    return []


def _compute_switch_rows(
    fabric: Fabric, comp_sw: pd.Series, rails: int, nic_gbps: float
) -> list[dict]:
    """The compute fabric's switches-table rows: its leaves (``rails`` per unit), spines
    and cores."""
    return (
        _switch_rows(
            "compute",
            "leaf",
            comp_sw,
            fabric.leaves,
            nic_gbps,
            [(u + 1, rails) for u in range(fabric.units)],
        )
        + _switch_rows("compute", "spine", comp_sw, fabric.spines, nic_gbps)
        + _switch_rows("compute", "core", comp_sw, fabric.cores, nic_gbps)
    )


def management_planes(
    servers: list[dict],
    storage_nodes: pd.DataFrame,
    network: Network,
    catalog: Catalog,
    compute: ComputeFabric,
    facility_management_servers: int = 0,
) -> Planes:
    """Step 3, planes: the endpoints, switches and links of the storage, in-band and BMC
    planes. Every GPU server, storage node, management server and UFM appliance gets its
    ports; every switch's management port joins the out-of-band (BMC) plane.

    Notes
    -----
    - Storage: :func:`~hubplan.network.planes.size_plane` at
      ``network.storage_oversubscription``; an InfiniBand storage plane gets its own
      ``network.ufm_per_fabric`` UFM appliances (RA-11333-001 Table 7: 4 UFM for the
      compute and storage fabrics), ``ufm_fabric_ports`` ports each.
    - In-band: :func:`~hubplan.network.planes.management_plane` over the servers' bonded
      ports, storage nodes, management servers, UFM appliances and the out-of-band
      leaves' uplinks.
    - Out-of-band: :func:`~hubplan.network.planes.oob_leaves` over the BMC ports, the
      switches' mgmt0 ports (compute, storage, in-band), the UFM appliances and
      ⌈``pdu_oob_ports_per_server`` × GPU servers⌉ ports kept for rack PDUs; each leaf
      sends ``network.oob_uplinks`` links to the in-band plane. In-band and out-of-band
      depend on each other (mgmt0 of the in-band switches, uplinks of the OOB leaves):
      both are sized again until the counts hold still.
    """
    findings: list[Finding] = []
    nodes = storage_node_names(storage_nodes)
    stor_parts, inb_parts, bmc_parts = _host_ends(
        servers, nodes, facility_management_servers, network, findings
    )
    stor_gbps = _storage_gbps(servers, nodes)
    speeds = {"storage": stor_gbps, "inband": network.inband_gbps, "bmc": 1.0}
    sws, radix = _plane_switches(network, catalog, speeds)
    pkeys, vlans = _plane_pkeys_vlans(network, sws, compute.pkey)
    stor_ufm, ufm_rows = _storage_ufm(stor_parts, sws["storage"], network, stor_gbps)
    ufm = np.concatenate([compute.ufm, stor_ufm])
    _add_mgmt_and_bmc_ends(ufm, "ufm", inb_parts, bmc_parts)
    plane_ends = {"storage": _stack(stor_parts)}
    planes: dict[str, Fabric] = {
        "storage": size_plane(
            "storage",
            len(plane_ends["storage"]["device"]),
            radix["storage"],
            network.storage_oversubscription,
        )
    }

    # in-band and out-of-band, sized together until their counts hold still
    up_ports = _count(_num(sws["bmc"]["uplink_ports"]))
    mgmt_devices = _size_inband_and_oob(
        planes, compute.fabric, servers, inb_parts, bmc_parts, radix, up_ports, network
    )
    findings += _inband_radix_findings(
        planes["inband"], sws["inband"], catalog.switches, speeds["inband"], network
    )
    bmc = planes["bmc"]
    oob_names = name_table("bmc-leaf-", bmc.leaves, width(bmc.leaves))
    if bmc.leaves and planes["inband"].servers:
        inb_parts.append(_oob_uplink_ends(bmc, oob_names))
    plane_ends["inband"] = _stack(inb_parts)
    bmc_parts.append(_mgmt0_ends(mgmt_devices))
    plane_ends["bmc"] = _stack(bmc_parts)
    out = Planes(
        planes,
        plane_ends,
        sws,
        speeds,
        vlans,
        radix,
        None,
        mgmt_devices,
        pkeys=pkeys,
        findings=findings,
        switch_rows=ufm_rows,
    )
    uplink_gbps = _num(sws["bmc"]["uplink_gbps"]) if up_ports else speeds["bmc"]
    _add_plane_links_and_rows(out, network, compute.media_of, oob_names, uplink_gbps)
    return out


def _host_ends(
    servers: list[dict],
    nodes: pd.DataFrame,
    facility_management_servers: int,
    network: Network,
    findings: list[Finding],
) -> tuple[list[dict[str, np.ndarray]], list[dict[str, np.ndarray]], list[dict[str, np.ndarray]]]:
    """The storage, in-band and BMC ports of the GPU servers, storage nodes and
    management servers, as endpoint-column parts per plane; no GPU-server storage ports
    when the storage plane is the compute fabric (a finding in ``findings``)."""
    stor_parts, inb_parts, bmc_parts = _server_ends(servers, network, findings)
    if network.storage_plane == "compute":
        findings.append(
            Finding("warning", "network", "storage", "storage_on_compute", {"pool": "all"})
        )
        stor_parts = []
    if len(nodes):
        stor_parts.append(_storage_node_data_ends(nodes))
        _add_mgmt_and_bmc_ends(
            nodes["device"].to_numpy(dtype=object), "storage_node", inb_parts, bmc_parts
        )
    mgmt = management_server_names(facility_management_servers).to_numpy(dtype=object)
    _add_mgmt_and_bmc_ends(mgmt, "management_server", inb_parts, bmc_parts)
    return stor_parts, inb_parts, bmc_parts


def _server_ends(
    servers: list[dict], network: Network, findings: list[Finding]
) -> tuple[list[dict[str, np.ndarray]], list[dict[str, np.ndarray]], list[dict[str, np.ndarray]]]:
    """The GPU servers' storage, in-band and BMC ports as endpoint columns, one part per
    pool and plane; a finding in ``findings`` for a training or inference pool without
    storage ports."""
    stor_parts, inb_parts, bmc_parts = [], [], []
    for s in servers:
        k_st = min(network.storage_ports_per_server, _count(s["storage_nics"]))
        if k_st == 0 and s["pool"] in ("training", "inference"):
            findings.append(
                Finding("warning", "network", s["pool"], "storage_on_compute", {"pool": s["pool"]})
            )
        n = len(s["names"])
        stor_parts.append(
            endpoint_columns(s["names"], np.full(n, k_st), "stor", "gpu_server")
            | {"gbps": np.full(n * k_st, s["storage_nic_gbps"])}
        )
        k_in = min(network.inband_ports_per_server, _count(s["inband_nics"], 1))
        inb_parts.append(
            endpoint_columns(s["names"], np.full(n, k_in), "mgmt", "gpu_server")
            | {"gbps": np.full(n * k_in, s["inband_nic_gbps"])}
        )
        bmc_parts.append(endpoint_columns(s["names"], np.full(n, 1), "bmc", "gpu_server"))
    return stor_parts, inb_parts, bmc_parts


def _storage_node_data_ends(nodes: pd.DataFrame) -> dict[str, np.ndarray]:
    """The storage nodes' data ports (``data<k>``) on the storage plane, at their NIC speed."""
    devices = nodes["device"].to_numpy(dtype=object)
    ports = nodes["nic_ports"].astype(int).to_numpy()
    gbps = np.repeat(nodes["nic_gbps"].astype(float).to_numpy(), ports)
    return endpoint_columns(devices, ports, "data", "storage_node") | {"gbps": gbps}


def _add_mgmt_and_bmc_ends(
    devices: np.ndarray,
    role: str,
    inb_parts: list[dict[str, np.ndarray]],
    bmc_parts: list[dict[str, np.ndarray]],
) -> None:
    """Add one in-band (``mgmt1``) and one BMC (``bmc1``) port per device of ``role`` to
    the in-band and BMC parts (nothing when there are no devices)."""
    if len(devices):
        one = np.ones(len(devices), int)
        inb_parts.append(endpoint_columns(devices, one, "mgmt", role))
        bmc_parts.append(endpoint_columns(devices, one, "bmc", role))


def _storage_gbps(servers: list[dict], nodes: pd.DataFrame) -> float:
    """The storage plane's link speed in Gb/s: the fastest storage NIC of the GPU servers
    and storage nodes, 400 when none is known."""
    stor_speeds = [s["storage_nic_gbps"] for s in servers if not math.isnan(s["storage_nic_gbps"])]
    stor_speeds += nodes["nic_gbps"].astype(float).tolist() if len(nodes) else []
    return max(stor_speeds) if stor_speeds else 400.0


def _plane_switches(
    network: Network, catalog: Catalog, speeds: dict[str, float]
) -> tuple[dict[str, pd.Series], dict[str, int]]:
    """The storage, in-band and BMC planes' switch models and their radix at the plane's
    link speed (broken out); an error when a model's ports are slower than its links."""
    models = {
        "storage": network.storage_switch,
        "inband": network.inband_switch,
        "bmc": network.bmc_switch,
    }
    sws = {p: catalog.switch(m, f"network.{p}_switch") for p, m in models.items()}
    radix = {}
    for p in PLANES:
        sw = sws[p]
        radix[p] = ports_at(sw["ports"], sw["port_gbps"], sw["max_breakout"], speeds[p])
        if radix[p] == 0:
            raise HubplanError(
                f"network.{p}_switch = {models[p]!r}: its ports run at {sw['port_gbps']:g} "
                f"Gb/s, below the plane's {speeds[p]:g} Gb/s links"
            )
    return sws, radix


def _plane_pkeys_vlans(
    network: Network, sws: dict[str, pd.Series], compute_pkey: int
) -> tuple[dict[str, int], dict[str, int]]:
    """Each plane's P_Key (the compute fabric's too) and each plane's VLAN."""
    vlans = {
        "storage": network.storage_vlan,
        "inband": network.inband_vlan,
        "bmc": network.bmc_vlan,
    }
    # An InfiniBand plane has partitions (P_Keys), not VLANs; Ethernet planes have VLANs.
    pkeys = {"compute": compute_pkey}
    for p in PLANES:
        ib = sws[p]["technology"] == "infiniband"
        pkeys[p] = (network.storage_pkey if p == "storage" else DEFAULT_PKEY) if ib else 0
        vlans[p] = 0 if ib else vlans[p]
    return pkeys, vlans


def _storage_ufm(
    stor_parts: list[dict[str, np.ndarray]],
    switch: pd.Series,
    network: Network,
    stor_gbps: float,
) -> tuple[np.ndarray, list[dict]]:
    """The storage fabric's subnet managers, when it is InfiniBand and has endpoints:
    their names and switches-table row; their fabric ports join ``stor_parts``."""
    if not (
        stor_parts
        and sum(len(p["device"]) for p in stor_parts)
        and switch["technology"] == "infiniband"
        and network.ufm_per_fabric
    ):
        return np.array([], dtype=object), []
    stor_ufm = ufm_names("storage", network.ufm_per_fabric)
    ports = np.full(len(stor_ufm), network.ufm_fabric_ports)
    stor_parts.append(endpoint_columns(stor_ufm, ports, "ib", "ufm"))
    return stor_ufm, _ufm_row("storage", network, len(stor_ufm), stor_gbps)


def _size_inband_and_oob(
    planes: dict[str, Fabric],
    fabric: Fabric | None,
    servers: list[dict],
    inb_parts: list[dict[str, np.ndarray]],
    bmc_parts: list[dict[str, np.ndarray]],
    radix: dict[str, int],
    up_ports: int,
    network: Network,
) -> np.ndarray:
    """Size the in-band and out-of-band planes into ``planes`` again until the OOB leaf
    count holds still (the in-band plane carries the OOB leaves' uplinks, the OOB plane
    every switch's mgmt0 and the PDU ports); the names of the switches whose mgmt0 joins
    the BMC plane."""
    gpu_servers = sum(len(s["names"]) for s in servers)
    pdu_ports = math.ceil(round(network.pdu_oob_ports_per_server * gpu_servers, 9))
    n_inband = sum(len(p["device"]) for p in inb_parts)
    n_bmc = sum(len(p["device"]) for p in bmc_parts)
    oob_leaves_n, b = 0, network.oob_uplinks
    for _ in range(20):
        planes["inband"] = management_plane(
            n_inband + oob_leaves_n * b, radix["inband"], network.management_oversubscription
        )
        mgmt_devices = _switch_names(fabric, planes)
        planes["bmc"] = oob_leaves(n_bmc + len(mgmt_devices) + pdu_ports, radix["bmc"], b, up_ports)
        if planes["bmc"].leaves == oob_leaves_n:
            break
        oob_leaves_n = planes["bmc"].leaves
    return mgmt_devices


def _mgmt0_ends(devices: np.ndarray) -> dict[str, np.ndarray]:
    """The switches' management ports (``mgmt0``), as BMC plane endpoints."""
    n = len(devices)
    return {
        "device": devices,
        "device_role": as_column("switch", n),
        "interface": as_column("mgmt0", n),
    }


def _oob_uplink_ends(bmc: Fabric, oob_names: np.ndarray) -> dict[str, np.ndarray]:
    """The out-of-band leaves' uplink ports, as in-band plane endpoints."""
    # data ports p<down+1> … after the leaf's downlinks (SN2201: p49, p50 of its four
    # 100 GbE uplinks)
    up = np.arange(bmc.leaves * bmc.leaf_up)
    return {
        "device": oob_names[up // bmc.leaf_up],
        "device_role": as_column("switch", len(up)),
        "interface": name_table("p", bmc.leaf_down + bmc.leaf_up, 1)[
            bmc.leaf_down + up % bmc.leaf_up
        ],
    }


def _add_plane_links_and_rows(
    out: Planes,
    network: Network,
    media_of: MediaOf,
    oob_names: np.ndarray,
    uplink_gbps: float,
) -> None:
    """Add each plane's links, switch rows and fabric row to ``out``; the OOB leaves'
    uplinks leave the in-band plane's endpoint links for a switch-to-switch group."""
    for p in PLANES:
        pl, sw, gbps = out.fabrics[p], out.switches[p], out.speeds[p]
        groups = plane_links(
            p,
            pl,
            out.ends[p],
            gbps,
            out.vlans[p],
            segment_reach_m(p, network),
            media_of=media_of,
            pkey=out.pkeys[p],
        )
        out.groups += (
            _split_oob_uplinks(groups, oob_names, network, media_of) if p == "inband" else groups
        )
        out.switch_rows += _switch_rows(p, "leaf", sw, pl.leaves, gbps)
        out.switch_rows += _switch_rows(p, "spine", sw, pl.spines, gbps)
        out.switch_rows += _switch_rows(p, "core", sw, pl.cores, gbps)
        if pl.servers:
            out.fabric_rows.append(_plane_fabric_row(p, pl, sw, gbps, uplink_gbps))


def _plane_fabric_row(
    p: str, pl: Fabric, sw: pd.Series, gbps: float, uplink_gbps: float
) -> dict[str, object]:
    """A plane's fabric row; its oversubscription is the leaves' down:up port ratio."""
    if p == "bmc":  # 1 GbE down against 100 GbE up: the bandwidth ratio
        ratio = pl.leaf_down * gbps / (pl.leaf_up * uplink_gbps)
    else:
        ratio = pl.leaf_down / pl.leaf_up if pl.leaf_up else np.nan
    return {
        "plane": p,
        "model": sw["name"],
        "tiers": pl.tiers,
        "endpoints": pl.servers,
        "servers_per_unit": np.nan,
        "units": np.nan,
        "leaves": pl.leaves,
        "spines": pl.spines,
        "cores": pl.cores,
        "oversubscription": ratio,
        "port_gbps": gbps,
    }


def _inband_radix_findings(
    inband: Fabric, switch: pd.Series, switches: pd.DataFrame, gbps: float, network: Network
) -> list[Finding]:
    """An info finding when the in-band plane needs three tiers of its switch while a
    catalogue switch of the same technology with more ports at the plane's speed (broken
    out) keeps it at two: the alternative's leaves and spines from
    :func:`~hubplan.network.planes.management_plane` at its radix. Of several, the one
    with the fewest switches, then the slowest native ports (the least breakout)."""
    if inband.tiers != 3:
        return []
    o = network.management_oversubscription
    best = None
    same = switches[switches["technology"] == switch["technology"]]
    for _, alt in same.iterrows():
        k = ports_at(alt["ports"], alt["port_gbps"], alt["max_breakout"], gbps)
        if k <= inband.radix:
            continue
        try:
            f = management_plane(inband.servers, k, o)
        except HubplanError:
            continue
        key = (f.leaves + f.spines, float(alt["port_gbps"]))
        if f.tiers <= 2 and (best is None or key < best[0]):
            best = (key, alt["name"], k, f)
    if best is None:
        return []
    _, name, k, f = best
    return [
        Finding(
            "info",
            "network",
            "inband",
            "inband_three_tiers",
            {
                "ports": inband.servers,
                "switch": switch["name"],
                "radix": inband.radix,
                "gbps": gbps,
                "leaves": inband.leaves,
                "spines": inband.spines,
                "cores": inband.cores,
                "other": name,
                "other_radix": k,
                "other_leaves": f.leaves,
                "other_spines": f.spines,
            },
        )
    ]


def _split_oob_uplinks(
    groups: list[LinkGroup], oob_names: np.ndarray, network: Network, media_of: MediaOf
) -> list[LinkGroup]:
    """The in-band plane's links with the out-of-band leaves' uplinks moved out of the
    endpoint links into a switch-to-switch group (segment ``leaf-spine``, purpose
    ``oob uplink``), so both of their ends count as switch data ports."""
    if not len(oob_names) or not groups:
        return groups
    first, rest = groups[0], groups[1:]
    up = np.isin(first.device_a, oob_names)
    if not up.any():
        return groups

    def take(mask, segment, reach, purpose):
        return LinkGroup(
            first.plane,
            segment,
            float(reach),
            first.speed_gbps,
            media_of(first.speed_gbps, reach),
            first.device_a[mask],
            first.port_a[mask],
            first.device_b[mask],
            first.port_b[mask],
            first.vlan,
            purpose,
            first.pkey,
        )

    return [
        take(~up, first.segment, first.reach_m, first.purpose),
        take(up, "leaf-spine", network.leaf_spine_reach_m, "oob uplink"),
        *rest,
    ]


def ip_plan(
    network: Network, compute: ComputeFabric, planes: Planes, findings: list[Finding]
) -> pd.DataFrame:
    """Step 4, addresses: one row per interface (compute rails, plane ports, switch
    management ports, switch loopbacks), subnets per leaf, supernets with growth room;
    a supernet short of its growth share adds a finding to ``findings``."""
    ip_parts = []
    if compute.fabric is not None:
        ip_parts.append(_compute_ips(network, compute, compute.fabric, findings))
    for p in PLANES:
        pl = planes.fabrics[p]
        if pl.servers:
            ip_parts += _plane_ips(p, pl, planes.ends[p], planes.vlans[p], network, findings)
    all_switches = np.concatenate(
        [planes.mgmt_devices, _plane_switch_names(planes.fabrics["bmc"], "bmc")]
    )
    if len(all_switches):
        ip_parts.append(_loopback_ips(all_switches, network))
    ips = frame(_stack(ip_parts)) if ip_parts else pd.DataFrame(columns=IP_COLUMNS[:-1])
    ips["pkey"] = ips["plane"].map(planes.pkeys).fillna(0).astype(np.int64)
    return ips


def _compute_ips(
    network: Network, compute: ComputeFabric, fabric: Fabric, findings: list[Finding]
) -> dict[str, np.ndarray]:
    """The compute rails' addresses: one subnet per rail leaf in ``network.compute_cidr``
    (gateways and per-rail VLANs on Ethernet); a growth finding in ``findings``."""
    compute_names, rails = compute.names, compute.rails
    transport = compute.transport
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
    return _ip_columns(
        compute_names[s],
        "gpu_server",
        rail_interfaces(rails)[r],
        "compute",
        addr,
        prefix,
        gw if transport == "ethernet" else None,
        network.compute_vlan + r if transport == "ethernet" else 0,
    )


def _plane_ips(
    p: str,
    pl: Fabric,
    ends: dict[str, np.ndarray],
    vlan: int,
    network: Network,
    findings: list[Finding],
) -> list[dict[str, np.ndarray]]:
    """A plane's addresses: one subnet per leaf in ``network.<plane>_cidr`` for its
    endpoints, then (BMC plane) its own switches' mgmt0 after the leaves' subnets; a
    growth finding in ``findings``."""
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
    parts = [
        _ip_columns(
            ends["device"],
            ends["device_role"],
            ends["interface"],
            p,
            addr,
            prefix,
            gw,
            vlan,
        )
    ]
    if p == "bmc":
        k = np.arange(len(own))
        addr, gw = interface_addresses(fit, k // per, k % per, offset=pl.leaves)
        parts.append(_ip_columns(own, "switch", "mgmt0", p, addr, prefix, gw, vlan))
    return parts


def _loopback_ips(all_switches: np.ndarray, network: Network) -> dict[str, np.ndarray]:
    """Every switch's loopback (``lo0``), one /32 each from ``network.loopback_cidr``."""
    fit = fit_supernet(
        "network.loopback_cidr",
        network.loopback_cidr,
        len(all_switches),
        32,
        network.growth_share,
    )
    base = int(ipaddress.ip_network(fit.cidr).network_address)
    addr = base + np.arange(len(all_switches), dtype=np.int64)
    return _ip_columns(all_switches, "switch", "lo0", "loopback", addr, 32, None, 0)


def switch_port_use(
    groups: list[LinkGroup], compute: ComputeFabric, planes: Planes
) -> pd.DataFrame:
    """Step 5, ports: ports used and free per switch, against each role's capacity (a
    leaf's downlinks + uplinks, a spine's or core's radix at the link speed)."""
    fabric = compute.fabric
    cap = (
        {
            ("compute", r): (radix_c if r != "leaf" else fabric.leaf_down + fabric.leaf_up)
            for r in ("leaf", "spine", "core")
            for radix_c in [fabric.radix if fabric else 0]
        }
        if fabric
        else {}
    )
    spine_radix = planes.spine_radix
    for p in PLANES:
        pl = planes.fabrics[p]
        cap[(p, "leaf")] = pl.leaf_down + pl.leaf_up
        cap[(p, "spine")] = cap[(p, "core")] = (
            spine_radix if p == "bmc" and spine_radix else planes.radix[p]
        )
    return port_use(groups, cap)


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
    columns = dict.fromkeys(c for p in parts for c in p)

    def column(p: dict[str, np.ndarray], c: str) -> np.ndarray:
        # a part without an endpoint port speed (``gbps``) runs at the plane's speed: NaN
        return p[c] if c in p else np.full(len(p["device"]), np.nan)

    return {c: np.concatenate([column(p, c) for p in parts]) for c in columns}


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
