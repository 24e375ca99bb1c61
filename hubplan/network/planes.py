"""Storage, in-band and out-of-band planes: their endpoints and their switches.

Each plane has its own switches and speed (DGX SuperPOD RA-11333-001: a storage fabric,
an in-band Ethernet network and an out-of-band 1 GbE network, apart from the compute
fabric). A plane is one switch while its endpoints fit one, else leaves and spines at the
plane's oversubscription: the storage plane as the compute fabric is built
(:func:`size_plane`), the in-band plane from the ports it needs at every scale, two tiers
or three (:func:`management_plane`), the out-of-band plane leaves only, uplinked to the
in-band plane (:func:`oob_leaves`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.errors import HubplanError
from .fabric import Fabric, size_fabric
from .ports import as_column, numbered


def size_plane(
    name: str,
    endpoints: int,
    radix: int,
    oversubscription: float,
    *,
    uplink_ports: int = 0,
    spine_radix: int | None = None,
) -> Fabric:
    """Leaves, spines (and cores) for ``endpoints`` ports on ``radix``-port switches.

    Parameters
    ----------
    uplink_ports : int
        Dedicated uplink ports (a 48 × 1 GbE BMC switch has 4 × 100 GbE): all ``radix``
        ports serve endpoints and these go up.
    spine_radix : int, optional
        Spine ports at the uplink speed (default ``radix``).

    Notes
    -----
    One switch while endpoints ≤ radix (no uplinks). Else the fabric of
    :func:`~hubplan.network.fabric.size_fabric` with one "rail" and one leaf per unit.

    Examples
    --------
    64 storage ports on QM9700: one switch. 260 at 1:1: 9 leaves of 32 down, 32 up; 9 × 32
    uplinks need ⌈288 / 64⌉ = 5 spines, rounded to a divisor of 32: 8. 100 BMC ports on
    48-port switches with 4 uplinks: 3 leaves, 1 spine:

    >>> p = size_plane("storage", 260, 64, 1.0)
    >>> p.leaves, p.leaf_down, p.spines, size_plane("storage", 64, 64, 1.0).leaves
    (9, 32, 8, 1)
    >>> b = size_plane("bmc", 100, 48, 1.0, uplink_ports=4, spine_radix=64)
    >>> b.leaves, b.leaf_down, b.leaf_up, b.spines
    (3, 48, 4, 1)
    """
    if endpoints <= 0:
        return Fabric(0, 1, 0, 0, 0, radix, 0, 0, 0, 0, (0,), 0, 0, 0, 0)
    if endpoints <= radix:
        return Fabric(endpoints, 1, radix, 1, 1, radix, radix, 0, 1, 1, (0,), 0, 0, 0, 0)
    leaf = (radix, uplink_ports) if uplink_ports else None
    try:
        return size_fabric(
            endpoints, 1, radix, oversubscription, leaf=leaf, spine_radix=spine_radix
        )
    except HubplanError:
        raise HubplanError(
            f"network: the {name} plane's {endpoints:,} ports need more than three tiers of "
            f"{radix}-port switches; choose a switch with more ports for network.{name}_switch"
        ) from None


def storage_node_names(storage_nodes: pd.DataFrame) -> pd.DataFrame:
    """One row per storage node, named ``stor-<tier>-<role>-<nn>``, with its NIC ports.

    >>> nodes = pd.DataFrame({"tier": ["hot"], "role": ["data"], "nodes": [2],
    ...                       "nic_ports": [2], "nic_gbps": [400.0]})
    >>> storage_node_names(nodes)["device"].tolist()
    ['stor-hot-data-01', 'stor-hot-data-02']
    """
    missing = [
        c
        for c in ("tier", "role", "nodes", "nic_ports", "nic_gbps")
        if c not in storage_nodes.columns
    ]
    if missing:
        raise HubplanError(f"table storage_nodes: missing column(s) {missing}")
    if storage_nodes.empty:
        return pd.DataFrame(columns=["device", "nic_ports", "nic_gbps"])
    counts = storage_nodes["nodes"].astype(int).to_numpy()
    width = max(2, len(str(int(counts.max())))) if len(counts) else 2
    tiers = storage_nodes["tier"].astype(str).tolist()
    roles = storage_nodes["role"].astype(str).tolist()
    device = [
        numbered(f"stor-{t}-{r}-", np.arange(1, n + 1), width)
        for t, r, n in zip(tiers, roles, counts.tolist(), strict=True)
    ]
    rows = storage_nodes[["nic_ports", "nic_gbps"]].take(np.repeat(np.arange(len(counts)), counts))
    rows = rows.reset_index(drop=True)
    rows.insert(0, "device", pd.Series(np.concatenate(device).astype(object), dtype="str"))
    return rows


def management_server_names(count: int) -> pd.Series:
    """Management server names ``mgmt-<nn>`` (scheduler heads, monitoring), from 1.

    The facility stage racks them under the same names; the network stage cables one
    in-band and one BMC port of each.

    >>> management_server_names(2).tolist()
    ['mgmt-01', 'mgmt-02']
    """
    return pd.Series([f"mgmt-{i:02d}" for i in range(1, int(count) + 1)], dtype=object)


def endpoint_columns(
    devices: np.ndarray, ports: np.ndarray, prefix: str, role: str
) -> dict[str, np.ndarray]:
    """Interfaces ``<prefix><k>`` (k from 1) of each device, device-major, as columns
    ``device``, ``device_role`` and ``interface`` (object arrays, one row per interface;
    each device name and interface name is one string object however often it repeats).

    >>> cols = endpoint_columns(np.array(["a", "b"]), np.array([2, 1]), "stor", "gpu_server")
    >>> cols["device"].tolist(), cols["interface"].tolist()
    (['a', 'a', 'b'], ['stor1', 'stor2', 'stor1'])
    """
    ports = np.asarray(ports, dtype=np.int64)
    starts = np.repeat(np.cumsum(ports) - ports, ports)
    k = np.arange(int(ports.sum())) - starts
    interfaces = [f"{prefix}{i}" for i in range(1, int(ports.max(initial=0)) + 1)]
    return {
        "device": np.repeat(np.asarray(devices, dtype=object), ports),
        "device_role": as_column(role, len(k)),
        "interface": np.array(interfaces, dtype=object)[k],
    }


#: Spines of a management plane past one switch: a pair, so one can fail or be upgraded
#: while every leaf keeps a path (RA-11333-001 Table 8: the 4-SU in-band network's 24
#: leaf-to-core cables land on two SN4600C cores; 6 leaves + 2 = its 8 in-band switches).
MANAGEMENT_SPINES = 2


def _round_robin(links: int, radix: int, least: int) -> int:
    """Switches for ``links`` spread round-robin: at least ``least``, and enough that the
    busiest takes ⌈links / n⌉ ≤ ``radix`` (so n = max(least, ⌈links / radix⌉))."""
    return max(least, -(-links // radix))


def management_plane(endpoints: int, radix: int, oversubscription: float) -> Fabric:
    """In-band management plane: leaves, spines and cores from the ports actually needed.

    Parameters
    ----------
    endpoints : int
        Ports to cable: servers' bonded in-band ports, storage nodes, management servers,
        UFM appliances, and the out-of-band leaves' uplinks (RA-11333-001: "the OOB
        network is connected to the in-band network").
    radix : int
        Switch ports at the plane's speed (SN4600C: 64 × 100 GbE); leaf, spine and core
        are one model (``network.inband_switch``).
    oversubscription : float
        Leaf downlink : uplink (``network.management_oversubscription``); the tiers above
        the leaves are 1:1, so the plane's end-to-end ratio stays the leaf's.

    Notes
    -----
    A leaf has u = ⌈k / (1 + o)⌉ uplinks and d = k − u downlinks (k = radix); leaves
    L = ⌈E / d⌉. Uplinks go round-robin over the switches above, so a count need not
    divide u (the divisor rule this replaces turned a prime u = 13 into 13 spines where
    the ports need 2). Every tier has at least a pair (:data:`MANAGEMENT_SPINES`).

    - **One switch** while E ≤ k.
    - **Two tiers** while S = max(2, ⌈L·u / k⌉) ≤ u: the spines take the L·u uplinks
      and every leaf reaches every spine.
    - **Three tiers** past that (the fat-tree arithmetic of Al-Fares, Loukissas &
      Vahdat, SIGCOMM 2008, §3.1, with the counts taken from the ports in use). A spine
      gives h = k/2 ports down and as many up. A pod is at most h leaves (u spines, each
      taking one link from each of h leaves); pods P = ⌈L / h⌉, filled in order. A pod
      of n leaves has s = max(2, ⌈n·u / h⌉) spines; each spine sends up as many links as
      the busiest spine of any pod takes down, su = max ⌈n·u / s⌉ (1:1). Cores:

      - *mesh* while C = max(2, ⌈S·su / k⌉) ≤ su: every spine reaches every core;
      - else *groups*: spine j of every pod feeds core group j of c = max(2, ⌈P·su / k⌉)
        cores (the compute fabric's layout), cores = (spines of a full pod) × c, while
        c ≤ su, i.e. up to P = k pods: k · h · d endpoints (104 448 at 4:1 on 64 ports).
    - Beyond: an error naming the reach, not a silently wrong plan.

    A higher-radix spine is the other way past two tiers and is not modelled here: an
    SN5600 broken out to 256 × 100 GbE would keep the 16 K plan's in-band plane at two
    tiers with ⌈1 196 / 256⌉ = 5 spines.

    References
    ----------
    NVIDIA DGX SuperPOD H100 RA, RA-11333-001 V11, Tables 7 and 8 (in-band SN4600C
    leaves and two cores); M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity
    Data Center Network Architecture", SIGCOMM 2008, §3.1.

    Examples
    --------
    RA-11333-001 Table 8, 4 SUs: 127 DGX × 2 bonded ports + 4 management servers × 2 + 8
    NFS ports + 4 UFM + 8 OOB switches × 2 uplinks = 290 ports. At 4:1 on SN4600C:
    u = ⌈64 / 5⌉ = 13, d = 51, L = ⌈290 / 51⌉ = 6, S = max(2, ⌈78 / 64⌉) = 2: 8
    switches, the RA's Table 7 count.

    >>> f = management_plane(290, 64, 4.0)
    >>> f.leaves, f.leaf_down, f.leaf_up, f.spines
    (6, 51, 13, 2)
    >>> management_plane(64, 64, 4.0).leaves, management_plane(64, 64, 4.0).spines
    (1, 0)

    16 384 GPUs (templates/scenarios/pretrain-16k.yaml): 2 151 DGX × 2 + 91 storage
    nodes + 3 management servers + 4 UFM + 123 OOB leaves × 2 = 4 646 ports →
    L = ⌈4 646 / 51⌉ = 92 leaves, whose 1 196 uplinks need ⌈1 196 / 64⌉ = 19 spines
    > u = 13: three tiers. P = ⌈92 / 32⌉ = 3 pods of 32, 32, 28 leaves; s = 13, 13,
    ⌈364 / 32⌉ = 12 spines (38); su = 32; C = ⌈38 × 32 / 64⌉ = 19 ≤ 32 cores, a mesh:
    149 switches (the fabric rule this replaces: 92 + 39 + 26 = 157).

    >>> f = management_plane(4646, 64, 4.0)
    >>> f.tiers, f.leaves, f.pod_spines, f.spine_up, f.cores, f.core_mesh
    (3, 92, (13, 13, 12), 32, 19, True)
    """
    if endpoints <= radix:
        return size_plane("inband", endpoints, radix, oversubscription)
    up = math.ceil(round(radix / (1 + oversubscription), 9))
    down = radix - up
    pair = min(MANAGEMENT_SPINES, up)
    if down < 1 or pair < 1:
        raise HubplanError(
            f"network.management_oversubscription = {oversubscription:g}: a {radix}-port "
            "in-band leaf keeps no port for endpoints or none for uplinks; use a ratio of at "
            "least 1 (downlinks : uplinks)"
        )
    leaves = math.ceil(endpoints / down)
    spines = _round_robin(leaves * up, radix, pair)
    if spines <= up:
        return Fabric(
            endpoints,
            1,
            down,
            leaves,
            2,
            radix,
            down,
            up,
            leaves,
            leaves,
            (spines,),
            radix,
            0,
            0,
            0,
        )
    return _management_three_tiers(endpoints, radix, oversubscription, up, leaves, pair)


def _management_three_tiers(
    endpoints: int, radix: int, oversubscription: float, up: int, leaves: int, pair: int
) -> Fabric:
    """The in-band plane past two tiers: pods of at most radix/2 leaves, their spines,
    and a core mesh, else core groups (:func:`management_plane`, Notes); an error past
    three tiers."""
    down = radix - up
    half = radix // 2
    pods = math.ceil(leaves / half)
    sizes = [half] * (pods - 1) + [leaves - half * (pods - 1)]
    pod_spines = tuple(_round_robin(n * up, half, pair) for n in sizes)
    spine_up = max(-(-n * up // s) for n, s in zip(sizes, pod_spines, strict=True))
    mesh = _round_robin(sum(pod_spines) * spine_up, radix, MANAGEMENT_SPINES)
    if mesh <= spine_up:
        return Fabric(
            endpoints,
            1,
            down,
            leaves,
            3,
            radix,
            down,
            up,
            leaves,
            half,
            pod_spines,
            half,
            spine_up,
            mesh,
            mesh,
            core_mesh=True,
        )
    group = _round_robin(pods * spine_up, radix, MANAGEMENT_SPINES)
    if group > spine_up:
        reach = radix * half * down
        raise HubplanError(
            f"network: the in-band plane's {endpoints:,} ports need more than three tiers "
            f"of {radix}-port switches (three tiers reach {radix} pods × {half} leaves × "
            f"{down} ports = {reach:,} at {oversubscription:g}:1); choose a switch with "
            "more ports for network.inband_switch or raise "
            "network.management_oversubscription"
        )
    return Fabric(
        endpoints,
        1,
        down,
        leaves,
        3,
        radix,
        down,
        up,
        leaves,
        half,
        pod_spines,
        half,
        spine_up,
        group,
        pod_spines[0] * group,
    )


def oob_leaves(endpoints: int, radix: int, uplinks: int, dedicated_uplinks: int) -> Fabric:
    """Out-of-band (BMC) plane: leaves only, each with ``uplinks`` links to the in-band
    plane's spines (RA-11333-001 Table 8: "Two uplinks per OOB to in-band", 16 × 100 Gb/s
    for 8 SN2201; no OOB spines).

    Notes
    -----
    A switch with dedicated uplink ports (SN2201: 48 × 1 GbE + 4 × 100 GbE) gives all
    ``radix`` ports to endpoints; one without gives radix − uplinks. Leaves =
    ⌈endpoints / down⌉.

    Examples
    --------
    RA-11333-001 Table 8, 4 SUs: 127 DGX + 64 InfiniBand switches + 8 management / UFM
    nodes + 8 in-band switches + 108 rack PDUs = 315 ports; ⌈315 / 48⌉ = 7 SN2201
    (the RA lists 8).

    >>> f = oob_leaves(315, 48, 2, 4)
    >>> f.leaves, f.leaf_down, f.leaf_up, f.spines
    (7, 48, 2, 0)
    """
    if endpoints <= 0:
        return Fabric(0, 1, 0, 0, 0, radix, 0, 0, 0, 0, (0,), 0, 0, 0, 0)
    up = min(uplinks, dedicated_uplinks) if dedicated_uplinks else uplinks
    down = radix if dedicated_uplinks else radix - up
    if down < 1:
        raise HubplanError(
            f"network.oob_uplinks = {uplinks}: a {radix}-port out-of-band switch keeps no "
            "port for endpoints; use fewer uplinks"
        )
    leaves = math.ceil(endpoints / down)
    return Fabric(endpoints, 1, down, leaves, 1, radix, down, up, leaves, leaves, (0,), 0, 0, 0, 0)
