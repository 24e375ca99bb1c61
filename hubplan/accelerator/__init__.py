"""Accelerator stage: which card, for each workload, and why.

Every candidate is sized for every workload with the workload stage's own calculators
(dense peaks only for training), then priced and ranked; beside it the "TOPS trap" (the
marketing figure next to the one that applies) and the interconnect fit of the pools.
"""

from .section import Selection
from .selection import (
    MARKETING_COLUMNS,
    candidate_mfu,
    candidate_names,
    compare_inference,
    compare_training,
    compute_claims,
    gpu_cost_usd,
    marketing_figure,
    matmul_share,
    rank,
    scaleout_gbps_per_gpu,
    usd_per_effective_pflop_day,
)

__all__ = [
    "MARKETING_COLUMNS",
    "Selection",
    "candidate_mfu",
    "candidate_names",
    "compare_inference",
    "compare_training",
    "compute_claims",
    "gpu_cost_usd",
    "marketing_figure",
    "matmul_share",
    "rank",
    "scaleout_gbps_per_gpu",
    "usd_per_effective_pflop_day",
]
