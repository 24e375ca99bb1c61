"""The GPU servers' NIC ports the port map cables, per pool and plane.

The equipment list lists exactly these (``server_nics``), so every NIC port it counts is
cabled and every cabled server port is a listed NIC port. Ports a server has but the plan
does not cable (the compute NICs of a pool outside ``network.compute_pools``, the
third and fourth storage ports of a DGX H100 when two are cabled) are a finding, not a
line of the equipment list; a server whose catalogue row has no storage NIC is a finding
too (nothing is assumed for it).

The BMC port is the server's own management port, not a NIC: it is cabled (BMC plane)
and not listed.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.findings import Finding
from ..server import resolve_server

#: One row per pool and plane with cabled ports.
NIC_COLUMNS = ["pool", "server", "plane", "ports_per_server", "nic_gbps", "servers", "ports"]

#: The InfiniBand default partition key (15 bits): every port is a member of 0x7FFF
#: (full member: 0xFFFF). InfiniBand Architecture Specification vol. 1, §10.9.1.2.
DEFAULT_PKEY = 0x7FFF

#: A server's NIC planes and their catalogue columns (ports, speed).
_PLANES = {
    "compute": ("compute_nics", "compute_nic_gbps"),
    "storage": ("storage_nics", "storage_nic_gbps"),
    "inband": ("inband_nics", "inband_nic_gbps"),
}


def nic_extras(spec, catalog) -> dict:
    """What the port map and the optics bill read of a pool's server beyond its NIC
    counts: its catalogue name (None for a custom server), the in-band NIC speed and the
    compute ports per transceiver cage (:meth:`Catalog.ports_per_cage`), from the one
    pool → server resolver (:func:`hubplan.server.resolve_server`)."""
    server = resolve_server(spec, catalog)
    if server is None:
        return {"model": None, "compute_ports_per_cage": 1, "inband_nic_gbps": math.nan}
    if server.custom:
        return {
            "model": None,
            "compute_ports_per_cage": 1,
            "inband_nic_gbps": server.inband_nic_gbps,
        }
    return {
        "model": server.name,
        "compute_ports_per_cage": catalog.ports_per_cage(server.name, "compute"),
        "inband_nic_gbps": server.inband_nic_gbps,
    }


def server_nic_table(
    servers: list[dict],
    compute_names: np.ndarray,
    rails: int,
    plane_ends: dict[str, dict],
) -> pd.DataFrame:
    """Cabled NIC ports of each pool's servers, per plane.

    Parameters
    ----------
    servers : list of dict
        The stage's server groups (``pool``, ``model``, ``names`` and the catalogue NIC
        fields).
    compute_names : numpy.ndarray
        The servers the compute fabric cables, ``rails`` ports each (a spare in the
        cold pool is not cabled, so its compute ports are neither cabled nor listed).
    rails : int
        Compute ports per server.
    plane_ends : dict
        The storage and in-band planes' endpoints (``device`` per cabled port).

    Notes
    -----
    compute: ``rails`` ports on each of the pool's servers the fabric cables; storage and
    in-band: the plane's endpoint rows of the pool's first server, on every server.
    """
    rows: list[dict] = []
    counted = {
        p: pd.Series(plane_ends[p]["device"]).value_counts()
        if p in plane_ends
        else pd.Series(dtype=np.int64)
        for p in ("storage", "inband")
    }
    on_fabric = set(compute_names.tolist())
    for s in servers:
        names = s["names"]
        for plane, (_, gbps) in _PLANES.items():
            n = len(names)
            if plane == "compute":
                n = sum(1 for x in names.tolist() if x in on_fabric)
                per = rails
            else:
                per = int(counted[plane].reindex(names[:1]).fillna(0).iloc[0]) if n else 0
            if per == 0 or n == 0:
                continue
            rows.append(
                {
                    "pool": s["pool"],
                    "server": s["model"] or "",
                    "plane": plane,
                    "ports_per_server": per,
                    "nic_gbps": float(s[gbps]),
                    "servers": n,
                    "ports": per * n,
                }
            )
    if not rows:
        text = ("pool", "server", "plane")
        return pd.DataFrame(
            {c: pd.Series(dtype=object if c in text else float) for c in NIC_COLUMNS}
        )
    return pd.DataFrame(rows, columns=NIC_COLUMNS)


def nic_findings(servers: list[dict], table: pd.DataFrame) -> list[Finding]:
    """Ports a server has and the plan does not cable, servers with no storage NIC in
    the catalogue, and cabled ports whose speed the catalogue does not give."""
    out: list[Finding] = []
    keys = zip(table["pool"], table["plane"], table["ports_per_server"], strict=True)
    cabled = {(p, pl): int(k) for p, pl, k in keys}
    for s in servers:
        pool, server = s["pool"], s["model"] or "custom"
        for plane, (count, gbps) in _PLANES.items():
            have = s[count]
            have = 0 if have is None or math.isnan(have) else int(have)
            used = cabled.get((pool, plane), 0)
            if have > used:
                out.append(
                    Finding(
                        "info",
                        "network",
                        pool,
                        "uncabled_nics",
                        {
                            "pool": pool,
                            "server": server,
                            "plane": plane,
                            "nics": have,
                            "cabled": used,
                        },
                    )
                )
            if used and math.isnan(s[gbps]):
                out.append(
                    Finding(
                        "warning",
                        "network",
                        pool,
                        "nic_speed_unknown",
                        {"pool": pool, "server": server, "plane": plane},
                    )
                )
        if math.isnan(s["storage_nics"]) or s["storage_nics"] == 0:
            out.append(
                Finding(
                    "warning", "network", pool, "no_storage_nic", {"pool": pool, "server": server}
                )
            )
    return out
