"""Bandwidth: the DGX SuperPOD storage guideline, reads from training throughput, and
what the GPU servers' storage NICs can move."""

from __future__ import annotations

import math

#: Levels of the DGX SuperPOD storage performance guideline, in the RA's order.
LEVELS = ("good", "better", "best")

#: NVIDIA DGX SuperPOD storage performance guideline, RA-11333-001 "NVIDIA DGX SuperPOD
#: Reference Architecture, DGX H100" (V11, 2023-09-22), Table 6 "Guidelines for storage
#: performance", GB/s, good / better / best:
#: single-node read 4 / 8 / 40, write 2 / 4 / 20;
#: single-SU aggregate read 15 / 40 / 125, write 7 / 20 / 62;
#: 4-SU aggregate read 60 / 160 / 500, write 30 / 80 / 250.
#: The RA's levels by workload: 'good' for datasets that mostly fit in the nodes' local
#: cache (LLM text, NLP), 'better' for datasets too large for it (compressed images),
#: 'best' for uncompressed image or video data, offline inference and ETL.
SUPERPOD_NODE_READ_GB_S = {"good": 4.0, "better": 8.0, "best": 40.0}
SUPERPOD_NODE_WRITE_GB_S = {"good": 2.0, "better": 4.0, "best": 20.0}
SUPERPOD_4SU_READ_GB_S = {"good": 60.0, "better": 160.0, "best": 500.0}
SUPERPOD_4SU_WRITE_GB_S = {"good": 30.0, "better": 80.0, "best": 250.0}
#: Per scalable unit: the 4-SU figure over 4 (the fully tested size). Reads equal the
#: table's single-SU row (15 / 40 / 125); writes are 7.5 / 20 / 62.5 where the single-SU
#: row prints 7 / 20 / 62, the same figures rounded down.
SUPERPOD_SU_READ_GB_S = {k: v / 4 for k, v in SUPERPOD_4SU_READ_GB_S.items()}
SUPERPOD_SU_WRITE_GB_S = {k: v / 4 for k, v in SUPERPOD_4SU_WRITE_GB_S.items()}
#: A DGX SuperPOD scalable unit: 32 DGX H100 of 8 GPUs (RA-11333-001, "Scalable Unit";
#: its 4-SU build has 127, one DGX giving way to the UFM appliances).
SU_NODES = 32
GPUS_PER_DGX = 8


def guideline_gb_s(gpus: float, level: str, kind: str = "read") -> float:
    """Aggregate storage bandwidth the DGX SuperPOD guideline asks for ``gpus``. [GB/s]

    Parameters
    ----------
    gpus : float
        Working GPUs the storage serves (spares run no job). [count]
    level : str
        ``good``, ``better`` or ``best`` (:data:`LEVELS`).
    kind : str
        ``read`` or ``write``.

    Notes
    -----
    nodes = GPUs / 8 (the guideline is per 8-GPU DGX H100; other servers count by their
    GPUs), SUs = ⌈nodes / 32⌉, and the figure is
    min(nodes × single-node figure, SUs × per-SU figure): the per-SU aggregate for whole
    scalable units, as the RA's Table 6 gives for 1 and 4 SUs, and no more than every node
    reading at its single-node figure at once for a cluster smaller than one SU. The
    aggregate grows with SUs, not with nodes × the single-node rate: not every node reads
    at its peak at the same time, which is why the 4-SU 'better' figure is 160 GB/s and
    not 127 × 8 = 1 016.

    References
    ----------
    NVIDIA, RA-11333-001 "NVIDIA DGX SuperPOD Reference Architecture, DGX H100", V11,
    Table 6 "Guidelines for storage performance".

    Examples
    --------
    The RA's 4-SU build, 127 DGX H100 = 1 016 GPUs, at 'better': 4 SUs × 40 = 160 GB/s
    read and 4 × 20 = 80 GB/s write; two DGX: 2 × 8 = 16 GB/s.

    >>> guideline_gb_s(1016, "better"), guideline_gb_s(1016, "better", "write")
    (160.0, 80.0)
    >>> guideline_gb_s(16, "better")
    16.0
    """
    if level not in LEVELS:
        raise ValueError(f"guideline level {level!r}: one of {', '.join(LEVELS)}")
    if kind not in ("read", "write"):
        raise ValueError(f"guideline kind {kind!r}: read or write")
    node, su = (
        (SUPERPOD_NODE_READ_GB_S, SUPERPOD_SU_READ_GB_S)
        if kind == "read"
        else (SUPERPOD_NODE_WRITE_GB_S, SUPERPOD_SU_WRITE_GB_S)
    )
    nodes = gpus / GPUS_PER_DGX
    if nodes <= 0:
        return 0.0
    units = math.ceil(round(nodes / SU_NODES, 9))
    return min(nodes * node[level], units * su[level])


def token_read_gb_s(tokens_per_s: float, bytes_per_token: float, amplification: float) -> float:
    """Read demand from training throughput: tokens/s × bytes/token × amplification. [GB/s]

    Examples
    --------
    The default 70 B fine-tune reads 129 766 tokens/s of int32 tokens: 0.52 MB/s, far
    below the guideline (LLM text is small; checkpoints dominate writes).

    >>> round(token_read_gb_s(129_766, 4, 1) * 1000, 2)
    0.52
    """
    return tokens_per_s * bytes_per_token * amplification / 1e9


def client_gb_s(servers: float, storage_usable_gbps: float) -> float:
    """What the GPU servers' storage NICs can move, by their usable bandwidth. [GB/s]

    Notes
    -----
    servers × usable Gb/s / 8. Usable, not nominal: a DGX H100's four 400 Gb/s storage
    ports sit on two dual-port cards, each on one PCIe Gen5 x16 slot, so the catalogue
    gives 800 Gb/s, not 1 600 (data/servers.csv, ``storage_usable_gbps``).

    Examples
    --------
    18 DGX H100 at 800 Gb/s: 18 × 100 = 1 800 GB/s.

    >>> client_gb_s(18, 800)
    1800.0
    """
    return servers * storage_usable_gbps / 8
