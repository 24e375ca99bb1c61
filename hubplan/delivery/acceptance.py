"""The acceptance plan: per node, per scalable unit, per fabric and per storage tier, the
test, its tool and the figure it must reach, computed from the plan.

Figures are minimums a healthy system reaches; each comes from the plan's hardware and a
share from a published measurement (fields of the delivery section).
"""

from __future__ import annotations

import math

import pandas as pd

from ..core.catalog import Catalog
from ..pools import Pools
from .scheduler import records, server_figures
from .section import Delivery

ACCEPTANCE_COLUMNS = [
    "scope",
    "pool",
    "subject",
    "test",
    "tool",
    "count",
    "expected",
    "figure_unit",
]


def matmul_tflops(dense_peak_tflops: float, share: float) -> float:
    """Single-GPU dense BF16 matmul throughput expected in acceptance. [TFLOPS]

    Notes
    -----
    ``share × dense peak``. The best measured share on H100 SXM is 794.5 / 989 = 80.3 %
    (mamf-finder, Bekman, *Machine Learning Engineering*, "Maximum Achievable Matmul
    FLOPS").

    Examples
    --------
    H100 SXM, 989.5 dense BF16 TFLOPS, 80 % share: 791.6 TFLOPS.

    >>> round(matmul_tflops(989.5, 0.80), 1)
    791.6
    """
    return dense_peak_tflops * share


def rdma_gbps(nic_gbps: float, share: float) -> float:
    """``ib_write_bw`` bandwidth expected per NIC port. [Gb/s]

    Notes
    -----
    ``share × line rate``; Azure's ND H100 v5 health checks require ≥ 375 Gb/s per 400G
    port (github Azure/azurehpc-health-checks, nd96isr_h100_v5 configuration).

    >>> rdma_gbps(400, 0.94)
    376.0
    """
    return nic_gbps * share


def nvlink_busbw_gb_s(scaleup_bw_gb_s: float, share: float) -> float:
    """Single-node nccl-tests ``all_reduce_perf`` bus bandwidth expected. [GB/s]

    Notes
    -----
    The catalogue's scale-up bandwidth is bidirectional (H100: 900 GB/s); one direction is
    half. busbw = algbw × 2(n−1)/n (nccl-tests ``doc/PERFORMANCE.md``), comparable to the
    one-way link rate; 8 × H100 rings reach ~370 of 450 GB/s (nccl-tests issue #212).

    >>> nvlink_busbw_gb_s(900, 0.82)
    369.0
    """
    return scaleup_bw_gb_s / 2 * share


def fabric_busbw_gb_s(nics: int, nic_gbps: float, share: float) -> float:
    """Multi-node ``all_reduce_perf`` bus bandwidth expected across the fabric. [GB/s]

    Notes
    -----
    A ring across nodes leaves each node through all its compute NICs, so busbw is bound by
    the node's NIC line rate, nics × Gb/s ÷ 8; 8 × 400G H100 nodes reach 400-450 GB/s
    (Saturn Cloud; NVLS/SHARP can exceed the ring bound).

    >>> fabric_busbw_gb_s(8, 400, 0.90)
    360.0
    """
    return nics * nic_gbps / 8 * share


def acceptance_plan(pools: pd.DataFrame, catalog: Catalog, delivery: Delivery,
                    storage_tiers: pd.DataFrame | None = None,
                    fabric: pd.DataFrame | None = None,
                    spec: Pools | None = None) -> pd.DataFrame:  # fmt: skip
    """The acceptance tests with their expected figures, per pool, unit, fabric and tier.

    One row per (scope, pool, test): ``count`` is how many nodes, NICs, units or nodes of
    a tier run it; ``expected`` is the minimum in ``unit``.
    """
    d = delivery
    rows: list[dict] = []

    def add(scope, pool, subject, test, tool, count, expected, unit):
        rows.append({"scope": scope, "pool": pool, "subject": subject, "test": test,
                     "tool": tool, "count": int(count), "expected": float(expected),
                     "figure_unit": unit})  # fmt: skip

    columns = ["pool", "server", "accelerator", "total_servers", "gpus_per_server"]
    for p in records(pools, columns, pools["level"].to_numpy() == "pool"):
        nodes, gps, pool = int(p["total_servers"]), int(p["gpus_per_server"]), p["pool"]
        acc = catalog.accelerator(p["accelerator"])
        server = server_figures(p["server"], catalog, spec)
        add("node", pool, p["server"] or acc["name"], "gpu_count", "nvidia-smi -L", nodes,
            gps, "count")  # fmt: skip
        add("node", pool, acc["name"], "dense_matmul", "mamf-finder (BF16)", nodes * gps,
            matmul_tflops(float(acc["bf16_dense_tflops"]), d.matmul_share), "TFLOPS")  # fmt: skip
        if acc["scaleup_kind"] == "nvswitch" and gps > 1:
            add("node", pool, acc["name"], "nvlink_all_reduce", "all_reduce_perf -g "
                f"{gps}", nodes, nvlink_busbw_gb_s(float(acc["scaleup_bw_gb_s"]),
                                                   d.nvlink_share), "GB/s")  # fmt: skip
        nics = float(server["compute_nics"]) if server is not None else 0.0
        nics = int(nics) if nics == nics else 0  # unsourced: no NIC test
        if nics > 0 and not math.isnan(float(server["compute_nic_gbps"] or math.nan)):
            nic_gbps = float(server["compute_nic_gbps"])
            add("node", pool, p["server"], "rdma_write_bw", "ib_write_bw --use_cuda",
                nodes * nics, rdma_gbps(nic_gbps, d.rdma_share), "Gb/s")  # fmt: skip
            if pool == "training" and nodes > 1:
                units = 1
                if fabric is not None and not fabric.empty:
                    comp = fabric["units"].to_numpy()[fabric["plane"].to_numpy() == "compute"]
                    units = int(comp[0]) if comp.size else 1
                busbw = fabric_busbw_gb_s(nics, nic_gbps, d.fabric_share)
                if acc["scaleup_kind"] == "nvswitch":
                    busbw = min(busbw, nvlink_busbw_gb_s(float(acc["scaleup_bw_gb_s"]),
                                                         d.nvlink_share))  # fmt: skip
                add("unit", pool, "compute", "fabric_all_reduce", "all_reduce_perf (MPI)",
                    units, busbw, "GB/s")  # fmt: skip
                add("fabric", pool, "compute", "fabric_all_reduce", "all_reduce_perf (MPI)",
                    1, busbw, "GB/s")  # fmt: skip
        add("node", pool, p["server"] or acc["name"], "dcgm_diag", "dcgmi diag -r 3", nodes,
            0, "count")  # fmt: skip
        add("node", pool, p["server"] or acc["name"], "ecc_errors", "nvidia-smi -q -d ECC",
            nodes, 0, "count")  # fmt: skip
        add("cluster", pool, p["server"] or acc["name"], "stability_run",
            "training job / burn-in", nodes, d.stability_hours, "h")  # fmt: skip
    if storage_tiers is not None:
        for t in records(storage_tiers, ["tier", "nodes", "read_gb_s", "write_gb_s"]):
            if int(t["nodes"]) <= 0:
                continue
            for test, col in (("storage_read", "read_gb_s"), ("storage_write", "write_gb_s")):
                if not math.isnan(float(t[col])) and float(t[col]) > 0:
                    add("storage", "", t["tier"], test, "fio / IOR", t["nodes"],
                        float(t[col]) * d.storage_share, "GB/s")  # fmt: skip
    if not rows:
        return pd.DataFrame(rows, columns=ACCEPTANCE_COLUMNS)
    return pd.DataFrame({c: [r[c] for r in rows] for c in ACCEPTANCE_COLUMNS})
