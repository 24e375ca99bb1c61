"""The RDMA settings a plan must carry: InfiniBand subnet manager or RoCEv2 lossless
Ethernet (PFC, ECN, DCQCN), and the collective library's environment for the plan's
accelerator family (NCCL for NVIDIA, RCCL for AMD, HCCL for Huawei Ascend and for Intel
Gaudi, MCCL for MetaX...; ``data/families.csv``).

A table of (transport, layer, setting, value): data a delivery team turns into switch
and host configuration. A setting the family's sources do not give is written
``unknown: ...``, never another family's value.
"""

from __future__ import annotations

import math

import pandas as pd

from ..core.findings import Finding

RDMA_COLUMNS = ["transport", "layer", "setting", "value"]


def ib_timeout_s(t: int) -> float:
    """The InfiniBand verbs timeout for NCCL_IB_TIMEOUT = t. [s]

    Notes
    -----
    4.096 µs × 2^t.

    References
    ----------
    NCCL User Guide, "Environment Variables" (NCCL_IB_TIMEOUT).

    Examples
    --------
    >>> round(ib_timeout_s(20), 2), round(ib_timeout_s(22), 1)
    (4.29, 17.2)
    """
    return 4.096e-6 * 2**t


#: HCCL_CONNECT_TIMEOUT: HCCL's socket link-setup wait [s]. 120 is CANN's default and the
#: lowest value allowed (integer seconds in [120, 7200]; CANN environment variable
#: reference, envref_07_0077); raise it when many ranks start unevenly.
HCCL_CONNECT_TIMEOUT_S = 120

#: The RoCE DSCP of the compute traffic and of its congestion notifications (CNP), as
#: set on the switches below (NVIDIA Cumulus Linux, "RDMA over Converged Ethernet - RoCE",
#: lossless mode: RoCE on DSCP 26, CNP on DSCP 48).
ROCE_DSCP, CNP_DSCP = 26, 48


def traffic_class(dscp: int) -> int:
    """The verbs traffic class (the IP ToS byte) that puts RoCE packets on ``dscp``.

    Notes
    -----
    The DSCP is the upper six bits of the ToS byte, so TC = DSCP × 4. NCCL_IB_TC and
    HCCL_RDMA_TC both take this byte (NCCL User Guide, "NCCL_IB_TC"; CANN environment
    variable reference, "HCCL_RDMA_TC": "DSCP × 4, default 132 = DSCP 33").

    Examples
    --------
    DSCP 26 → 104; CANN's default 132 is DSCP 33, which a switch set for DSCP 26 would
    not treat as RoCE.

    >>> traffic_class(26), traffic_class(33)
    (104, 132)
    """
    return dscp * 4


def _known(value: object) -> str:
    """A family fact as text: empty (unknown) stays empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def family_code(family: pd.Series) -> str:
    """The lower-case layer name of a family's collective library (``nccl``, ``rccl``,
    ``hccl``, ``mccl``, ``cncl``), or ``collective`` when the library is unknown.

    >>> family_code(pd.Series({"collective_library": "HCCL (Huawei CANN)"}))
    'hccl'
    >>> family_code(pd.Series({"collective_library": ""}))
    'collective'
    """
    lib = _known(family.get("collective_library"))
    return lib.split()[0].lower() if lib else "collective"


def rdma_settings(
    transport: str,
    *,
    pfc: bool,
    ecn: bool,
    priority: int,
    nccl_ib_timeout: int,
    nccl_ib_sl: int,
    socket_ifname: str,
    rails: int,
    family: pd.Series,
) -> pd.DataFrame:
    """The settings table for an InfiniBand or RoCEv2 compute fabric and the collective
    library of the accelerator ``family`` (a row of ``data/families.csv``).

    Notes
    -----
    - NVIDIA (NCCL) and AMD (RCCL, which reads the same ``NCCL_`` names: ROCm
      documentation, "RCCL environment variables"): HCA list, IB timeout and retries,
      bootstrap interface; on RoCE the GID index and the traffic class of the RoCE DSCP.
      The HCA names ``mlx5_k`` are ConnectX device names, written for NVIDIA servers
      only; elsewhere they are the NIC's own (``ibv_devinfo``).
    - Huawei Ascend (HCCL): HCCL_CONNECT_TIMEOUT, HCCL_SOCKET_IFNAME (bootstrap over the
      host's in-band interface), HCCL_RDMA_TC = the RoCE DSCP × 4, the rank table, and
      the NPU's integrated RoCE ports addressed with ``hccn_tool``.
    - Intel Gaudi (HCCL): HCCL_SOCKET_IFNAME; scale-out on the card's own RoCE ports.
    - MetaX (MCCL): MCCL_IB_HCA and MCCL_NET_GDR_LEVEL (MetaX MCCL guide).
    - Any other family: one row saying its settings (and library, if unknown) are not
      sourced. The layer names the library (``nccl``, ``rccl``, ``hccl``, ``cncl``...).

    ``mlnx_qos`` (the host QoS of ConnectX NICs) is written for NVIDIA servers only.

    References
    ----------
    NCCL User Guide, "Environment Variables" (NCCL 2.30); NVIDIA Cumulus Linux, "RDMA
    over Converged Ethernet - RoCE" (lossless mode: RoCE on priority 3 with PFC, ECN on
    TC 3 from 150 000 to 1 500 000 B, CNP on priority 6); UFM Enterprise User Manual
    (subnet manager, HA standby); ROCm "RCCL environment variables"; Huawei CANN
    environment variable reference (HCCL_CONNECT_TIMEOUT, HCCL_SOCKET_IFNAME, HCCL_IF_IP,
    HCCL_RDMA_TC); MetaX MCCL user guide, "环境变量".

    Examples
    --------
    >>> nv = pd.Series({"name": "NVIDIA", "collective_library": "NCCL"})
    >>> t = rdma_settings("roce", pfc=True, ecn=True, priority=3, nccl_ib_timeout=20,
    ...                   nccl_ib_sl=0, socket_ifname="bond0", rails=8, family=nv)
    >>> t.set_index("setting").loc["pfc_priority", "value"]
    '3'
    >>> asc = pd.Series({"name": "Huawei", "collective_library": "HCCL (Huawei CANN)"})
    >>> t = rdma_settings("roce", pfc=True, ecn=True, priority=3, nccl_ib_timeout=20,
    ...                   nccl_ib_sl=0, socket_ifname="bond0", rails=8, family=asc)
    >>> t.set_index("setting").loc["HCCL_RDMA_TC", "value"]
    '104'
    """
    name = _known(family.get("name"))
    code = family_code(family)
    library = _known(family.get("collective_library"))
    rows = _library_rows(
        name,
        code,
        library,
        transport,
        nccl_ib_timeout=nccl_ib_timeout,
        nccl_ib_sl=nccl_ib_sl,
        socket_ifname=socket_ifname,
        rails=rails,
    )
    rows += _fabric_setting_rows(transport, name, pfc=pfc, ecn=ecn, priority=priority)
    return pd.DataFrame([(transport, *r) for r in rows], columns=RDMA_COLUMNS)


def _library_rows(
    name: str,
    code: str,
    library: str,
    transport: str,
    *,
    nccl_ib_timeout: int,
    nccl_ib_sl: int,
    socket_ifname: str,
    rails: int,
) -> list[tuple[str, str, str]]:
    """The collective library's rows (layer, setting, value) for the family ``name``;
    one row saying they are not sourced for a family without settings here."""
    rows: list[tuple[str, str, str]] = []
    if name in ("NVIDIA", "AMD"):
        rows += _nccl_rows(name, code, transport, nccl_ib_timeout, nccl_ib_sl, socket_ifname, rails)
    elif name == "Huawei":
        rows += _ascend_hccl_rows(code, socket_ifname)
    elif name == "Intel":
        rows += [
            (code, "HCCL_SOCKET_IFNAME", socket_ifname),
            ("npu", "scaleout_ports", "on the Gaudi card (integrated RoCE): no host NIC"),
        ]
    elif name == "MetaX":
        rows += [
            (
                code,
                "MCCL_IB_HCA",
                "unknown: the compute NICs' RDMA device names "
                "(ibv_devinfo), storage ports excluded",
            ),
            (code, "MCCL_NET_GDR_LEVEL", "SYS"),
        ]
    else:
        what = f"{library} settings" if library else "collective library and settings"
        rows.append((code, "settings", f"unknown: no sourced {what} for {name or 'this family'}"))
    return rows


def _nccl_rows(
    name: str,
    code: str,
    transport: str,
    nccl_ib_timeout: int,
    nccl_ib_sl: int,
    socket_ifname: str,
    rails: int,
) -> list[tuple[str, str, str]]:
    """NCCL's (and RCCL's, same names) rows: HCA list, IB timeout and retries, bootstrap
    interface; the service level on InfiniBand, GID index and traffic class on RoCE."""
    hcas = ",".join(f"mlx5_{k}:1" for k in range(rails))
    rows: list[tuple[str, str, str]] = [
        (
            code,
            "NCCL_IB_HCA",
            f"={hcas}"
            if name == "NVIDIA"
            else "unknown: the compute NICs' RDMA device names (ibv_devinfo)",
        ),
        (code, "NCCL_IB_TIMEOUT", str(nccl_ib_timeout)),
        (code, "NCCL_IB_RETRY_CNT", "7"),
        (code, "NCCL_SOCKET_IFNAME", socket_ifname),
        (code, "NCCL_CROSS_NIC", "0"),
    ]
    if transport == "infiniband":
        rows.append((code, "NCCL_IB_SL", str(nccl_ib_sl)))
    else:
        rows += [
            (code, "NCCL_IB_GID_INDEX", "-1"),
            (code, "NCCL_IB_TC", str(traffic_class(ROCE_DSCP))),
        ]
    return rows


def _ascend_hccl_rows(code: str, socket_ifname: str) -> list[tuple[str, str, str]]:
    """Huawei Ascend HCCL's rows: timeout, bootstrap interface and address, RoCE traffic
    class, rank table, and the NPU ports' addresses (``hccn_tool``)."""
    return [
        (code, "HCCL_CONNECT_TIMEOUT", str(HCCL_CONNECT_TIMEOUT_S)),
        (code, "HCCL_SOCKET_IFNAME", socket_ifname),
        (
            code,
            "HCCL_IF_IP",
            "per host: its in-band address (ip_plan); unset, HCCL uses HCCL_SOCKET_IFNAME",
        ),
        (code, "HCCL_RDMA_TC", str(traffic_class(ROCE_DSCP))),
        (
            code,
            "RANK_TABLE_FILE",
            "per job: the rank table (server and NPU port "
            "addresses), written by the scheduler (Ascend MindCluster)",
        ),
        (
            "npu",
            "npu_port_address",
            "hccn_tool -i <npu> -ip -s address <ip> netmask "
            "<mask>: one compute-plane address per NPU port",
        ),
    ]


def _fabric_setting_rows(
    transport: str, name: str, *, pfc: bool, ecn: bool, priority: int
) -> list[tuple[str, str, str]]:
    """The fabric's rows: the subnet manager on InfiniBand; PFC, ECN, DSCP and the host
    QoS (``mlnx_qos`` on NVIDIA servers) on RoCE."""
    rows: list[tuple[str, str, str]] = []
    pfc_mask = ",".join("1" if k == priority and pfc else "0" for k in range(8))
    if transport == "infiniband":
        rows += [
            ("fabric", "subnet_manager", "UFM / OpenSM, active + standby"),
            ("fabric", "subnet_prefix", "0xfe80000000000000"),
            ("fabric", "adaptive_routing", "on"),
        ]
    else:
        rows += [
            ("switch", "pfc", "on" if pfc else "off"),
            ("switch", "pfc_priority", str(priority) if pfc else ""),
            ("switch", "ecn", "on" if ecn else "off"),
            ("switch", "ecn_min_bytes", "150000" if ecn else ""),
            ("switch", "ecn_max_bytes", "1500000" if ecn else ""),
            ("switch", "roce_dscp", str(ROCE_DSCP)),
            ("switch", "cnp_dscp", str(CNP_DSCP)),
            ("switch", "trust", "pcp,dscp"),
            ("host", "congestion_control", "DCQCN" if ecn else "none"),
        ]
        if name == "NVIDIA":
            rows.append(("host", "mlnx_qos", f"--trust=dscp --pfc {pfc_mask}"))
        else:
            rows.append(("host", "nic_qos", f"trust dscp; pfc {pfc_mask}"))
    return rows


def fabric_family_findings(family: pd.Series, technology: str, switch: str) -> list[Finding]:
    """A warning when the compute switch's technology is not one the family's scale-out
    runs on (``scaleout_fabric`` in ``data/families.csv``), and an info finding when the
    family's fabric is unknown.

    Huawei Ascend and Intel Gaudi scale out over RoCE on the accelerator's own Ethernet
    ports: an InfiniBand switch has nothing to connect to.

    >>> asc = pd.Series({"name": "Huawei", "scaleout_fabric": "ethernet"})
    >>> [f.code for f in fabric_family_findings(asc, "infiniband", "QM9700")]
    ['fabric_unsuited_to_family']
    >>> fabric_family_findings(asc, "ethernet", "SN5400")
    []
    """
    name = _known(family.get("name")) or "unknown"
    fabrics = [t for t in _known(family.get("scaleout_fabric")).split(";") if t]
    if not fabrics:
        return [
            Finding(
                "info",
                "network",
                "compute",
                "family_fabric_unknown",
                {"family": name, "switch": switch, "technology": technology},
            )
        ]
    if technology not in fabrics:
        return [
            Finding(
                "warning",
                "network",
                "compute",
                "fabric_unsuited_to_family",
                {"family": name, "switch": switch, "technology": technology, "fabrics": fabrics},
            )
        ]
    return []
