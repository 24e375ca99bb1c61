"""The RDMA settings a plan must carry: InfiniBand subnet manager or RoCEv2 lossless
Ethernet (PFC, ECN, DCQCN), and the NCCL environment.

A table of (transport, layer, setting, value): data a delivery team turns into switch
and host configuration.
"""

from __future__ import annotations

import pandas as pd

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
) -> pd.DataFrame:
    """The settings table for an InfiniBand or RoCEv2 compute fabric.

    References
    ----------
    NCCL User Guide, "Environment Variables" (NCCL 2.30); NVIDIA Cumulus Linux, "RDMA
    over Converged Ethernet - RoCE" (lossless mode: RoCE on priority 3 with PFC, ECN on
    TC 3 from 150 000 to 1 500 000 B, CNP on priority 6); UFM Enterprise User Manual
    (subnet manager, HA standby).

    Examples
    --------
    >>> t = rdma_settings("roce", pfc=True, ecn=True, priority=3, nccl_ib_timeout=20,
    ...                   nccl_ib_sl=0, socket_ifname="bond0", rails=8)
    >>> t.set_index("setting").loc["pfc_priority", "value"]
    '3'
    """
    pfc_mask = ",".join("1" if k == priority and pfc else "0" for k in range(8))
    hcas = ",".join(f"mlx5_{k}:1" for k in range(rails))
    rows = [
        ("nccl", "NCCL_IB_HCA", f"={hcas}"),
        ("nccl", "NCCL_IB_TIMEOUT", str(nccl_ib_timeout)),
        ("nccl", "NCCL_IB_RETRY_CNT", "7"),
        ("nccl", "NCCL_SOCKET_IFNAME", socket_ifname),
        ("nccl", "NCCL_CROSS_NIC", "0"),
    ]
    if transport == "infiniband":
        rows += [
            ("nccl", "NCCL_IB_SL", str(nccl_ib_sl)),
            ("fabric", "subnet_manager", "UFM / OpenSM, active + standby"),
            ("fabric", "subnet_prefix", "0xfe80000000000000"),
            ("fabric", "adaptive_routing", "on"),
        ]
    else:
        rows += [
            ("nccl", "NCCL_IB_GID_INDEX", "-1"),
            ("nccl", "NCCL_IB_TC", str(26 * 4)),
            ("switch", "pfc", "on" if pfc else "off"),
            ("switch", "pfc_priority", str(priority) if pfc else ""),
            ("switch", "ecn", "on" if ecn else "off"),
            ("switch", "ecn_min_bytes", "150000" if ecn else ""),
            ("switch", "ecn_max_bytes", "1500000" if ecn else ""),
            ("switch", "roce_dscp", "26"),
            ("switch", "cnp_dscp", "48"),
            ("switch", "trust", "pcp,dscp"),
            ("host", "congestion_control", "DCQCN" if ecn else "none"),
            ("host", "mlnx_qos", f"--trust=dscp --pfc {pfc_mask}"),
        ]  # fmt: skip
    return pd.DataFrame([(transport, *r) for r in rows], columns=RDMA_COLUMNS)
