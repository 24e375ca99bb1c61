"""The port map: every link with both ends, speed, media, VLAN and purpose; the bill of
optics and cables; the port use of every switch.

Built as numpy arrays per link group (server–leaf, leaf–spine, spine–core, plane
endpoint–leaf), never a Python loop per port.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import HubplanError
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
    "purpose",
    "plane",
]
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

#: Media by reach, shortest first: (max reach m, media). Passive DAC to 3 m (NVIDIA
#: MCP7Y00 / MCP4Y10 product specifications: 0.5-3 m); multimode SR4 to 50 m (NVIDIA
#: MMA4Z00-NS400, 50 m); single-mode DR4 to 100 m (MMS4X00-NS400) and 500 m (MMS4X00-NM);
#: FR4 to 2 km (MMS4X50-NM); LR4 to 10 km (400GBASE-LR4). NVIDIA's parts are specified
#: shorter than the IEEE reaches, so the parts' reaches are used.
MEDIA_BY_REACH = (
    (3.0, "DAC"),
    (50.0, "transceiver-SR4"),
    (100.0, "transceiver-DR4"),
    (500.0, "transceiver-DR4-500m"),
    (2000.0, "transceiver-FR4"),
    (10000.0, "transceiver-LR4"),
)


def link_media(speed_gbps: float, reach_m: float) -> str:
    """Cable or optic for a link of this speed and reach.

    1 GbE runs on RJ45 copper (Cat 6, 100 m); faster links by :data:`MEDIA_BY_REACH`.

    >>> link_media(400, 2), link_media(400, 30), link_media(400, 100), link_media(1, 3)
    ('DAC', 'transceiver-SR4', 'transceiver-DR4', 'RJ45')
    """
    if speed_gbps <= 1:
        if reach_m > 100:
            raise HubplanError(f"a 1 GbE copper link of {reach_m:g} m exceeds 100 m")
        return "RJ45"
    for reach, media in MEDIA_BY_REACH:
        if reach_m <= reach:
            return media
    raise HubplanError(f"no cable or optic in the plan reaches {reach_m:g} m (10 km at most)")


def names(prefix: str, index0: np.ndarray, width: int) -> pd.Series:
    """Device names ``<prefix><n>`` with n = index + 1 zero-padded to ``width``.

    >>> names("compute-leaf-", np.array([0, 9]), 2).tolist()
    ['compute-leaf-01', 'compute-leaf-10']
    """
    return prefix + pd.Series(np.asarray(index0) + 1).astype(str).str.zfill(width)


def server_names(partition: str, count: int) -> pd.Series:
    """GPU server names ``<partition>-<nnnn>``, numbered from 1 (five digits and more
    from 10 000 servers on); the facility stage racks them under the same names.

    >>> server_names("train", 2).tolist()
    ['train-0001', 'train-0002']
    """
    return names(f"{partition}-", np.arange(count), max(4, len(str(count))))


def width(n: int) -> int:
    """Digits for numbering ``n`` switches: at least two (``compute-leaf-01``)."""
    return max(2, len(str(int(n))))


def _group(plane, segment, reach, speed, a, pa, b, pb, vlan, purpose) -> pd.DataFrame:
    df = pd.DataFrame({"device_a": a, "port_a": pa, "device_b": b, "port_b": pb})
    df["speed_gbps"] = float(speed)
    df["media"] = link_media(speed, reach)
    df["vlan"] = vlan
    df["purpose"] = purpose
    df["plane"] = plane
    df.attrs.update(segment=segment, reach_m=float(reach))
    return df


def _ports(n: np.ndarray) -> pd.Series:
    return "p" + pd.Series(np.asarray(n)).astype(str)


def tree_links(
    fabric: Fabric,
    plane: str,
    ends: tuple[np.ndarray, pd.Series, np.ndarray, np.ndarray],
    purpose,
    speed_gbps: float,
    vlan,
    reach: tuple[float, float, float],
    *,
    uplink_gbps: float | None = None,
    segment: str = "server-leaf",
) -> list[pd.DataFrame]:
    """Endpoint–leaf, leaf–spine and spine–core links of one leaf/spine(/core) tree.

    ``ends`` = (device names, device ports, leaf index, leaf port) per endpoint link.
    Leaf uplink j goes to spine j mod S of its pod (each spine gets up / S links from
    every leaf of the pod); spine uplink m goes to core m mod c of the spine's group.
    """
    dev, dport, leaf, lport = ends
    lw, sw = width(fabric.leaves), width(max(fabric.spines, 1))
    uplink = uplink_gbps or speed_gbps
    groups = [
        _group(
            plane,
            segment,
            reach[0],
            speed_gbps,
            dev,
            dport,
            names(f"{plane}-leaf-", leaf, lw),
            _ports(lport),
            vlan,
            purpose,
        )
    ]
    if fabric.spines == 0:
        return groups
    up, down, L = fabric.leaf_up, fabric.leaf_down, fabric.leaves
    lf = np.repeat(np.arange(L), up)
    j = np.tile(np.arange(up), L)
    pod_leaves = fabric.units_per_pod * (L // fabric.units) if fabric.tiers == 3 else L
    pod = lf // pod_leaves
    sp = np.asarray(fabric.pod_spines)
    offset = np.concatenate([[0], np.cumsum(sp)[:-1]])
    S_p = sp[pod]
    spine = offset[pod] + j % S_p
    sport = (lf % pod_leaves) * (up // S_p) + j // S_p + 1
    vlan0 = vlan if np.isscalar(vlan) else int(np.min(vlan))
    groups.append(
        _group(
            plane,
            "leaf-spine",
            reach[1],
            uplink,
            names(f"{plane}-leaf-", lf, lw),
            _ports(down + j + 1),
            names(f"{plane}-spine-", spine, sw),
            _ports(sport),
            vlan0,
            "leaf-spine",
        )
    )
    if fabric.tiers == 3:
        g = np.arange(fabric.spines)
        pod_of = np.repeat(np.arange(len(sp)), sp)
        local = g - offset[pod_of]
        su, c = fabric.spine_up, fabric.cores_per_group
        gg = np.repeat(g, su)
        m = np.tile(np.arange(su), len(g))
        core = np.repeat(local, su) * c + m % c
        cport = np.repeat(pod_of, su) * (su // c) + m // c + 1
        groups.append(
            _group(
                plane,
                "spine-core",
                reach[2],
                uplink,
                names(f"{plane}-spine-", gg, sw),
                _ports(fabric.spine_down + m + 1),
                names(f"{plane}-core-", core, width(fabric.cores)),
                _ports(cport),
                vlan0,
                "spine-core",
            )
        )
    return groups


def compute_links(
    fabric: Fabric,
    servers: pd.Series,
    speed_gbps: float,
    vlan_base: int | None,
    reach: tuple[float, float, float],
) -> list[pd.DataFrame]:
    """Server–leaf, leaf–spine and spine–core links of the compute fabric.

    Rail k of server s lands on leaf k of its unit, port (s mod SU) + 1.
    """
    R, spu = fabric.rails, fabric.servers_per_unit
    n = len(servers)
    s = np.repeat(np.arange(n), R)
    r = np.tile(np.arange(R), n)
    vlan = (vlan_base + r) if vlan_base is not None else 0
    rail = pd.Series(r + 1).astype(str)
    ends = (servers.to_numpy()[s], "rail" + rail, (s // spu) * R + r, s % spu + 1)
    return tree_links(fabric, "compute", ends, "compute rail " + rail, speed_gbps, vlan, reach)


def plane_links(
    plane: str,
    fabric: Fabric,
    ends: pd.DataFrame,
    speed_gbps: float,
    vlan: int,
    reach: tuple[float, float, float],
    *,
    uplink_gbps: float | None = None,
) -> list[pd.DataFrame]:
    """Endpoint–leaf and uplinks of a storage, in-band or BMC plane.

    Endpoint i lands on leaf ⌊i / down⌋, port (i mod down) + 1.
    """
    if fabric.servers == 0:
        return []
    i = np.arange(len(ends))
    e = (
        ends["device"].to_numpy(),
        ends["interface"].to_numpy(),
        i // fabric.leaf_down,
        i % fabric.leaf_down + 1,
    )
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
    )


def port_map(groups: list[pd.DataFrame]) -> pd.DataFrame:
    """All link groups as one table with a link id from 1."""
    if not groups:
        return pd.DataFrame(columns=PORT_MAP_COLUMNS)
    df = pd.concat(groups, ignore_index=True)
    df.insert(0, "link_id", np.arange(1, len(df) + 1))
    return df[PORT_MAP_COLUMNS]


def transceivers(groups: list[pd.DataFrame], ports_per_cage: dict[str, int]) -> pd.DataFrame:
    """The bill of cables and optics by plane, segment, media and speed.

    One cable per link. An optical link has a module at each end; on a switch whose cages
    carry two ports (QM9700 OSFP: twin-port modules) one module serves two links.

    Notes
    -----
    modules = links × (ends on devices) + ⌈links / ports per cage⌉ × (ends on switches).
    """
    rows = []
    for g in groups:
        if g.empty:
            continue
        media = g["media"].iloc[0]
        links = len(g)
        modules = 0
        if media.startswith("transceiver"):
            for col in ("device_a", "device_b"):
                ppc = ports_per_cage.get(str(g[col].iloc[0]).rsplit("-", 2)[0], 0)
                modules += -(-links // ppc) if ppc else links
        rows.append(
            {
                "plane": g["plane"].iloc[0],
                "link_segment": g.attrs["segment"],
                "media": media,
                "speed_gbps": g["speed_gbps"].iloc[0],
                "reach_m": g.attrs["reach_m"],
                "links": links,
                "cables": links,
                "modules": modules,
            }
        )
    df = pd.DataFrame(rows, columns=TRANSCEIVER_COLUMNS)
    if df.empty:
        return df
    return df.groupby(
        ["plane", "link_segment", "media", "speed_gbps", "reach_m"], sort=False, as_index=False
    )[["links", "cables", "modules"]].sum()


def port_use(pm: pd.DataFrame) -> pd.DataFrame:
    """Data ports used on every switch: (device, ports used), from both ends of every link."""
    a = pm[["device_a", "port_a"]].set_axis(["device", "port"], axis=1)
    b = pm[["device_b", "port_b"]].set_axis(["device", "port"], axis=1)
    ends = pd.concat([a, b], ignore_index=True)
    ends = ends[ends["port"].str.match(r"^p\d+$")]  # data ports, not mgmt0
    return ends.groupby("device", sort=False).size().rename("used").reset_index()
