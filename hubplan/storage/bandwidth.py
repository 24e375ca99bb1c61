"""Bandwidth: read demand per pool, checkpoint write demand, and what clients can move."""

from __future__ import annotations

#: NVIDIA DGX SuperPOD storage performance guideline per 8-GPU DGX node, GB/s
#: (RA-11333-001 "NVIDIA DGX SuperPOD Reference Architecture, DGX H100", storage
#: performance table): single-node read good 4 / better 8 / best 40, write 2 / 4 / 20.
SUPERPOD_NODE_READ_GB_S = {"good": 4.0, "better": 8.0, "best": 40.0}
SUPERPOD_NODE_WRITE_GB_S = {"good": 2.0, "better": 4.0, "best": 20.0}


def read_demand_gb_s(gpus: float, per_gpu_gb_s: float) -> float:
    """Aggregate read demand of a pool: GPUs × per-GPU read rate. [GB/s]

    Notes
    -----
    The planning guide's rule (GPU count × expected per-GPU read bandwidth sets the
    file system's floor); 0.5 GB/s per GPU is the DGX SuperPOD 'good' 4 GB/s per DGX.

    Examples
    --------
    168 GPUs at 0.5 GB/s: 84 GB/s.

    >>> read_demand_gb_s(168, 0.5)
    84.0
    """
    return gpus * per_gpu_gb_s


def token_read_gb_s(tokens_per_s: float, bytes_per_token: float, amplification: float) -> float:
    """Read demand from training throughput: tokens/s × bytes/token × amplification. [GB/s]

    Examples
    --------
    The default 70 B fine-tune reads 129 766 tokens/s of int32 tokens: 0.52 MB/s, far
    below the per-GPU rule (LLM text is small; checkpoints dominate writes).

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
