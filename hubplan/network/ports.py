"""The port map: every link with both ends, speed, media, VLAN and purpose; the bill of
optics and cables; the port use of every switch.

Built as numpy arrays per link group (server–leaf, leaf–spine, spine–core, plane
endpoint–leaf), never a Python loop per port.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .fabric import Fabric

PORT_MAP_COLUMNS = [
    "link_id",
    "device_a",
    "port_a",
    "device_b",
    "port_b",
    "speed_gbps",
    "media",
    "vlan",
    "pkey",
    "purpose",
    "plane",
]
PORT_USE_COLUMNS = ["device", "plane", "role", "ports", "used"]
TRANSCEIVER_COLUMNS = [
    "plane",
    "link_segment",
    "media",
    "speed_gbps",
    "reach_m",
    "links",
    "cables",
    "modules",
]


def numbered(prefix: str, numbers: np.ndarray, width: int) -> np.ndarray:
    """Strings ``<prefix><n>`` with each n zero-padded to ``width`` digits, as a numpy
    unicode array built without a Python loop per name.

    Notes
    -----
    The names are written as UCS-4 code points into an (n, len(prefix) + width) matrix and
    viewed as fixed-width strings; numbers wider than ``width`` keep all their digits
    (as :meth:`str.zfill`).

    >>> numbered("compute-leaf-", np.array([1, 10]), 2).tolist()
    ['compute-leaf-01', 'compute-leaf-10']
    >>> numbered("p", np.array([7, 123]), 1).tolist()
    ['p7', 'p123']
    """
    n = np.asarray(numbers, dtype=np.int64)
    if n.size and int(n.max()) >= 10**width:
        digits = np.char.zfill(n.astype(str), width)
        return np.char.add(prefix, digits) if prefix else digits
    pre = np.array([ord(c) for c in prefix], dtype=np.uint32)
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    codes = np.empty((n.size, pre.size + width), dtype=np.uint32)
    codes[:, : pre.size] = pre
    codes[:, pre.size :] = (n[:, None] // powers) % 10 + ord("0")
    return codes.view(f"=U{pre.size + width}").ravel()


def server_names(partition: str, count: int) -> pd.Series:
    """GPU server names ``<partition>-<nnnn>``, numbered from 1 (five digits and more
    from 10 000 servers on); the facility stage racks them under the same names.

    >>> server_names("train", 2).tolist()
    ['train-0001', 'train-0002']
    """
    return pd.Series(server_name_array(partition, count), dtype="str")


def server_name_array(partition: str, count: int) -> np.ndarray:
    """:func:`server_names` as an object array of Python strings."""
    return name_table(f"{partition}-", count, max(4, len(str(count))))


def width(n: int) -> int:
    """Digits for numbering ``n`` switches: at least two (``compute-leaf-01``)."""
    return max(2, len(str(int(n))))


def name_table(prefix: str, count: int, width: int) -> np.ndarray:
    """Names ``<prefix>1`` … ``<prefix><count>`` (zero-padded to ``width``) as Python
    strings in an object array.

    Indexed with 0-based device numbers it names every link of a device with the same
    string object, so a 131 072-GPU port map holds one string per device, not per link.

    >>> name_table("compute-spine-", 3, 2)[np.array([0, 2, 2])].tolist()
    ['compute-spine-01', 'compute-spine-03', 'compute-spine-03']
    """
    return numbered(prefix, np.arange(1, count + 1), width).astype(object)


def as_column(value, n: int) -> np.ndarray:
    """A scalar repeated ``n`` times (one shared object for a string), or an array of
    length ``n`` as it is."""
    if np.ndim(value):
        return np.asarray(value)
    if not isinstance(value, str):
        return np.full(n, value)
    out = np.empty(n, dtype=object)
    out.fill(value)  # np.full would make a new string object per row
    return out


def frame(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """One table from numpy columns; unicode columns become pandas strings.

    Tables are assembled as arrays and turned into a DataFrame once, so a small plan pays
    pandas' construction cost once per table rather than once per link group.
    """
    return pd.DataFrame(
        {k: v.astype(object) if v.dtype.kind == "U" else v for k, v in columns.items()}
    )


@dataclass(frozen=True)
class LinkGroup:
    """One segment of one plane's links as columns (one row per link).

    ``vlan``, ``pkey`` and ``purpose`` are one value for the whole group or one per
    link; ``media`` follows from the speed and the cable length ``reach_m``
    (:func:`hubplan.network.media.choose_media`). ``cage_a`` is the number of ports that
    share one transceiver cage at end A when end A is an endpoint (2 on a DGX H100's
    compute side: four twin-port OSFP cages for eight rails).
    """

    plane: str
    segment: str
    reach_m: float
    speed_gbps: float
    media: str
    device_a: np.ndarray
    port_a: np.ndarray
    device_b: np.ndarray
    port_b: np.ndarray
    vlan: int | np.ndarray
    purpose: str | np.ndarray
    pkey: int = 0
    cage_a: int = 1

    def __len__(self) -> int:
        return len(self.device_a)

    @property
    def a_is_switch(self) -> bool:
        """Whether end A is a switch data port (uplinks), not an endpoint interface."""
        return self.segment in ("leaf-spine", "spine-core")


#: A medium chooser: (speed Gb/s, cable length m) → media name.
MediaOf = Callable[[float, float], str]


def _group(
    plane,
    segment,
    reach,
    speed,
    a,
    pa,
    b,
    pb,
    vlan,
    purpose,
    media_of: MediaOf,
    pkey: int = 0,
    cage_a: int = 1,
) -> LinkGroup:
    return LinkGroup(
        plane,
        segment,
        float(reach),
        float(speed),
        media_of(speed, reach),
        np.asarray(a),
        np.asarray(pa),
        np.asarray(b),
        np.asarray(pb),
        vlan,
        purpose,
        pkey,
        cage_a,
    )


def _ports(n: np.ndarray) -> np.ndarray:
    """Switch data ports ``p<n>``, one string object per port number."""
    n = np.asarray(n)
    return name_table("p", int(n.max()) if n.size else 0, 1)[n - 1]


def tree_links(
    fabric: Fabric,
    plane: str,
    ends: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    purpose,
    speed_gbps: float,
    vlan,
    reach: tuple[float, float, float],
    *,
    uplink_gbps: float | None = None,
    segment: str = "server-leaf",
    media_of: MediaOf,
    endpoint_gbps: np.ndarray | None = None,
    pkey: int = 0,
    cage: int = 1,
) -> list[LinkGroup]:
    """Endpoint–leaf, leaf–spine and spine–core links of one leaf/spine(/core) tree.

    ``ends`` = (device names, device ports, leaf index, leaf port) per endpoint link.
    Leaf uplink j of the pod's leaf l goes to spine (l·up + j) mod S of its pod (up / S
    links from every leaf when S divides up, round-robin otherwise); spine uplink m of
    pod p goes to core (p·up + m) mod c of the spine's group (round-robin likewise), or,
    when ``fabric.core_mesh``, uplink m of spine g to core (g·up + m) mod c of one group.

    A link runs at the slower end's speed: an endpoint link at min(endpoint port,
    ``speed_gbps``) when ``endpoint_gbps`` gives each endpoint port's speed (a 2 × 100G
    HDD node on a 400G storage leaf is cabled at 100G); one group per speed.
    """
    leaves = name_table(f"{plane}-leaf-", fabric.leaves, width(fabric.leaves))
    groups = _endpoint_groups(
        plane,
        ends,
        leaves,
        purpose,
        speed_gbps,
        vlan,
        reach[0],
        segment=segment,
        media_of=media_of,
        endpoint_gbps=endpoint_gbps,
        pkey=pkey,
        cage=cage,
    )
    if fabric.spines == 0:
        return groups
    spines = name_table(f"{plane}-spine-", fabric.spines, width(max(fabric.spines, 1)))
    uplink = uplink_gbps or speed_gbps
    vlan0 = vlan if np.isscalar(vlan) else int(np.min(vlan))
    groups.append(
        _leaf_spine_group(fabric, plane, leaves, spines, reach[1], uplink, vlan0, media_of, pkey)
    )
    if fabric.tiers == 3:
        groups.append(
            _spine_core_group(fabric, plane, spines, reach[2], uplink, vlan0, media_of, pkey)
        )
    return groups


def _endpoint_groups(
    plane: str,
    ends: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    leaves: np.ndarray,
    purpose,
    speed_gbps: float,
    vlan,
    reach_m: float,
    *,
    segment: str,
    media_of: MediaOf,
    endpoint_gbps: np.ndarray | None,
    pkey: int,
    cage: int,
) -> list[LinkGroup]:
    """The endpoint–leaf links, one group per link speed: min(endpoint port,
    ``speed_gbps``) where ``endpoint_gbps`` is known, ``speed_gbps`` elsewhere."""
    dev, dport, leaf, lport = ends
    groups = []
    link_gbps = np.full(len(dev), float(speed_gbps))
    if endpoint_gbps is not None:
        known = ~np.isnan(np.asarray(endpoint_gbps, dtype=float))
        link_gbps[known] = np.minimum(np.asarray(endpoint_gbps, dtype=float)[known], speed_gbps)
    for g in dict.fromkeys(link_gbps.tolist()):
        at = link_gbps == g if len(link_gbps) and not np.all(link_gbps == g) else slice(None)
        groups.append(
            _group(
                plane,
                segment,
                reach_m,
                g,
                np.asarray(dev)[at],
                np.asarray(dport)[at],
                leaves[np.asarray(leaf)[at]],
                _ports(np.asarray(lport)[at]),
                vlan if np.isscalar(vlan) else np.asarray(vlan)[at],
                purpose if isinstance(purpose, str) else np.asarray(purpose)[at],
                media_of,
                pkey,
                cage,
            )
        )
    return groups


def _leaf_spine_group(
    fabric: Fabric,
    plane: str,
    leaves: np.ndarray,
    spines: np.ndarray,
    reach_m: float,
    uplink_gbps: float,
    vlan0,
    media_of: MediaOf,
    pkey: int,
) -> LinkGroup:
    """The leaf–spine links: uplink j of the pod's leaf l to spine (l·up + j) mod S of
    its pod, on the leaf's data ports after its downlinks."""
    up, down, L = fabric.leaf_up, fabric.leaf_down, fabric.leaves
    lf = np.repeat(np.arange(L), up)
    j = np.tile(np.arange(up), L)
    pod_leaves = fabric.units_per_pod * (L // fabric.units) if fabric.tiers == 3 else L
    pod = lf // pod_leaves
    sp = np.asarray(fabric.pod_spines)
    offset = np.concatenate([[0], np.cumsum(sp)[:-1]])
    S_p = sp[pod]
    t = (lf % pod_leaves) * up + j  # the pod's uplinks, leaf by leaf, round-robin
    spine = offset[pod] + t % S_p
    sport = t // S_p + 1
    return _group(
        plane,
        "leaf-spine",
        reach_m,
        uplink_gbps,
        leaves[lf],
        _ports(down + j + 1),
        spines[spine],
        _ports(sport),
        vlan0,
        "leaf-spine",
        media_of,
        pkey,
    )


def _spine_core_group(
    fabric: Fabric,
    plane: str,
    spines: np.ndarray,
    reach_m: float,
    uplink_gbps: float,
    vlan0,
    media_of: MediaOf,
    pkey: int,
) -> LinkGroup:
    """The spine–core links of a three-tier tree: spine uplink m of pod p to core
    (p·up + m) mod c of the spine's group, or over every core with ``fabric.core_mesh``."""
    sp = np.asarray(fabric.pod_spines)
    offset = np.concatenate([[0], np.cumsum(sp)[:-1]])
    g = np.arange(fabric.spines)
    pod_of = np.repeat(np.arange(len(sp)), sp)
    local = g - offset[pod_of]
    su, c = fabric.spine_up, fabric.cores_per_group
    gg = np.repeat(g, su)
    m = np.tile(np.arange(su), len(g))
    if fabric.core_mesh:  # every spine over every core, spine by spine, round-robin
        t = gg * su + m
        core = t % c
    else:
        t = np.repeat(pod_of, su) * su + m  # the group's links, pod by pod, round-robin
        core = np.repeat(local, su) * c + t % c
    cport = t // c + 1
    return _group(
        plane,
        "spine-core",
        reach_m,
        uplink_gbps,
        spines[gg],
        _ports(fabric.spine_down + m + 1),
        name_table(f"{plane}-core-", fabric.cores, width(fabric.cores))[core],
        _ports(cport),
        vlan0,
        "spine-core",
        media_of,
        pkey,
    )


def compute_links(
    fabric: Fabric,
    servers: np.ndarray,
    speed_gbps: float,
    vlan_base: int | None,
    reach: tuple[float, float, float],
    *,
    media_of: MediaOf,
    pkey: int = 0,
    ports_per_cage: int = 1,
) -> list[LinkGroup]:
    """Server–leaf, leaf–spine and spine–core links of the compute fabric.

    Rail k of server s lands on leaf k of its unit, port (s mod SU) + 1. An InfiniBand
    fabric (``vlan_base`` None) carries ``pkey``; ``ports_per_cage`` is the servers'
    compute ports per transceiver cage (for the optics bill).
    """
    R, spu = fabric.rails, fabric.servers_per_unit
    n = len(servers)
    s = np.repeat(np.arange(n), R)
    r = np.tile(np.arange(R), n)
    vlan = (vlan_base + r) if vlan_base is not None else 0
    interface = rail_interfaces(R)[r]
    purpose = np.array([f"compute rail {k}" for k in range(1, R + 1)], dtype=object)[r]
    ends = (np.asarray(servers, dtype=object)[s], interface, (s // spu) * R + r, s % spu + 1)
    return tree_links(
        fabric,
        "compute",
        ends,
        purpose,
        speed_gbps,
        vlan,
        reach,
        media_of=media_of,
        pkey=pkey,
        cage=ports_per_cage,
    )


def rail_interfaces(rails: int) -> np.ndarray:
    """A GPU server's compute interfaces ``rail1`` … ``rail<rails>`` (object array).

    >>> rail_interfaces(2).tolist()
    ['rail1', 'rail2']
    """
    return np.array([f"rail{k}" for k in range(1, rails + 1)], dtype=object)


def plane_links(
    plane: str,
    fabric: Fabric,
    ends: dict[str, np.ndarray],
    speed_gbps: float,
    vlan: int,
    reach: tuple[float, float, float],
    *,
    uplink_gbps: float | None = None,
    media_of: MediaOf,
    pkey: int = 0,
) -> list[LinkGroup]:
    """Endpoint–leaf and uplinks of a storage, in-band or BMC plane.

    ``ends`` holds the plane's ``device`` and ``interface`` columns (one row per
    endpoint) and, optionally, each endpoint port's ``gbps`` (the link runs at the
    slower end). Endpoint i lands on leaf ⌊i / down⌋, port (i mod down) + 1.
    """
    if fabric.servers == 0:
        return []
    i = np.arange(len(ends["device"]))
    e = (ends["device"], ends["interface"], i // fabric.leaf_down, i % fabric.leaf_down + 1)
    return tree_links(
        fabric,
        plane,
        e,
        plane,
        speed_gbps,
        vlan,
        reach,
        uplink_gbps=uplink_gbps,
        segment="node-leaf",
        media_of=media_of,
        endpoint_gbps=ends.get("gbps"),
        pkey=pkey,
    )


def port_map(groups: list[LinkGroup]) -> pd.DataFrame:
    """All link groups as one table with a link id from 1."""
    if not groups:
        return pd.DataFrame(columns=PORT_MAP_COLUMNS)
    cols = {
        c: np.concatenate([as_column(getattr(g, c), len(g)) for g in groups])
        for c in PORT_MAP_COLUMNS[1:]
    }
    return frame({"link_id": np.arange(1, len(cols["plane"]) + 1), **cols})


def modules_at(devices: np.ndarray, ports_per_cage: int) -> int:
    """Transceiver modules at one end of a group of links: per device, ⌈its links ÷
    ports per cage⌉ (a twin-port OSFP module serves two links of one device).

    >>> modules_at(np.array(["a", "a", "a", "b"], dtype=object), 2)
    3
    >>> modules_at(np.array(["a", "a"], dtype=object), 1)
    2
    """
    if ports_per_cage <= 1:
        return len(devices)
    counts = np.bincount(pd.factorize(devices)[0])
    return int((-(-counts // ports_per_cage)).sum())


def transceivers(groups: list[LinkGroup], ports_per_cage: dict[str, int]) -> pd.DataFrame:
    """The bill of cables and optics by plane, segment, media and speed.

    One cable per link. An optical link has a module in a cage at each end, and one module
    serves every port of its cage: a twin-port OSFP (two 400G ports: the QM9700's 32
    cages for 64 ports, a DGX H100's four compute cages for eight rails) is one module.

    Parameters
    ----------
    groups : list of LinkGroup
        The plan's links.
    ports_per_cage : dict
        Ports per cage of each plane's switches (``ports ÷ cages``); an endpoint's come
        with its links (``LinkGroup.cage_a``).

    Notes
    -----
    modules = Σ over the devices at each end ⌈links at the device ÷ ports per cage⌉.
    Groups with the same plane, segment, media, speed and reach add up, in the order they
    first appear; a group whose speed or reach is unknown (NaN) has no row.

    References
    ----------
    NVIDIA MMA4Z00-NS / MMS4X00-NS product specifications: one twin-port OSFP carries two
    400G transceiver engines and two MPO fibre cables. NVIDIA DGX SuperPOD RA-11333-001,
    "Compute fabric component count": cables counted per link (node–leaf, leaf–spine).

    Examples
    --------
    One SU of 32 DGX H100 on QM9700 leaves: 256 server–leaf links, 32 × 4 = 128 modules
    in the DGX cages and 8 leaves × 16 = 128 in the leaf cages.
    """
    rows: dict[tuple, list[int]] = {}
    # a switch's cages are shared by every group that lands on it (a UFM link takes the
    # free half of the twin-port cage whose other half holds a server's link)
    switch_ends: dict[tuple, list[np.ndarray]] = {}
    for g in groups:
        links = len(g)
        if not links or g.speed_gbps != g.speed_gbps or g.reach_m != g.reach_m:
            continue
        modules = 0
        key = (g.plane, g.segment, g.media, g.speed_gbps, g.reach_m)
        if g.media.startswith("transceiver"):
            ends = switch_ends.setdefault(key, [])
            ends.append(np.asarray(g.device_b, dtype=object))
            if g.a_is_switch:
                ends.append(np.asarray(g.device_a, dtype=object))
            else:
                modules += modules_at(g.device_a, g.cage_a)
        total = rows.setdefault(key, [0, 0, 0])
        total[0] += links
        total[1] += links
        total[2] += modules
    for key, ends in switch_ends.items():
        # a device at both ends of one key (never in a tree) would share its cages too
        rows[key][2] += modules_at(np.concatenate(ends), ports_per_cage.get(key[0], 1))
    if not rows:
        return pd.DataFrame(columns=TRANSCEIVER_COLUMNS)
    return pd.DataFrame([(*k, *v) for k, v in rows.items()], columns=TRANSCEIVER_COLUMNS)


def port_use(groups: list[LinkGroup], capacity: dict[tuple[str, str], int]) -> pd.DataFrame:
    """Data ports used on every switch, from both ends of every link, and its capacity.

    Parameters
    ----------
    groups : list of LinkGroup
        The plan's links.
    capacity : dict
        Data ports of a switch by (plane, role); 0 when missing.

    Returns
    -------
    pandas.DataFrame
        One row per switch (``device``, ``plane``, ``role``, ``ports``, ``used``), in the
        order the switches first appear: ends A, then ends B.

    Notes
    -----
    A switch's data ports are ``p<n>``; end A of an endpoint link is a server, storage
    node or switch management interface (``rail1``, ``stor1``, ``mgmt0``...), never a data
    port, so only the uplinks' ends A count. The switches are counted with one
    factorisation of the names; the name split runs once per switch, not per port.
    """
    ends = [g.device_a for g in groups if g.a_is_switch] + [g.device_b for g in groups]
    if not ends:  # no links: the empty table with the dtypes it has always had
        return pd.DataFrame(
            {
                "device": pd.Series(dtype=object),
                "plane": pd.Series(dtype="str"),
                "role": pd.Series(dtype="str"),
                "ports": pd.Series(dtype=float),
                "used": pd.Series(dtype=object),
            }
        )
    codes, devices = pd.factorize(np.concatenate(ends).astype(object))
    used = np.bincount(codes, minlength=len(devices))
    keep = [i for i, d in enumerate(devices) if _SWITCH_NAME.match(d)]
    plane, role = zip(*(devices[i].split("-", 2)[:2] for i in keep), strict=True)
    return pd.DataFrame(
        {
            "device": devices[keep],
            "plane": np.array(plane, dtype=object),
            "role": np.array(role, dtype=object),
            "ports": np.array(
                [capacity.get(k, 0) for k in zip(plane, role, strict=True)], dtype=np.int64
            ),
            "used": used[keep],
        }
    )


#: A switch of the plan: ``<plane>-<role>-<n>``.
_SWITCH_NAME = re.compile(r"^(compute|storage|inband|bmc)-(leaf|spine|core)-")
