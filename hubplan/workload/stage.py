"""The workload stage entry: every table it adds to the Plan, and its findings."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding
from ..core.stage import Stage, StageResult
from ..pools import Pools
from .demand import pool_table
from .development import development_gpu_count
from .inference import size_inference
from .section import Workload
from .training import size_training, training_gpus_vs_days, training_memory


def run_workload(
    *, catalog: Catalog, tables: dict[str, pd.DataFrame], workload: Workload, pools: Pools
) -> StageResult:
    """The workload stage: every table it contributes to the Plan, and its findings."""
    findings: list[Finding] = []
    train_rows, mem_rows, curves = [], [], []
    for job in workload.training:
        row, f = size_training(job, pools.training, catalog)
        train_rows.append(row)
        findings += f
        curves.append(training_gpus_vs_days(job, pools.training, catalog).assign(job=job.name))
        mem, f = training_memory(job, pools.training, catalog, row["gpus"])
        mem_rows.append(mem)
        findings += f
    inf_rows = []
    for service in workload.inference:
        row, f = size_inference(service, pools.inference, catalog)
        inf_rows.append(row)
        findings += f
    required = {
        "training": sum(r["gpus_required"] for r in train_rows),
        "inference": sum(r["gpus_required"] for r in inf_rows),
    }
    names = {"training": [r["job"] for r in train_rows],
             "inference": [r["service"] for r in inf_rows], "development": []}  # fmt: skip
    if workload.development is not None and workload.development.developers > 0:
        required["development"] = development_gpu_count(workload.development)
        names["development"] = [f"{workload.development.developers} developers"]
    out = {
        "training": pd.DataFrame(train_rows),
        "training_memory": pd.DataFrame(mem_rows),
        "training_curve": pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(),
        "inference": pd.DataFrame(inf_rows),
        "pool_demand": pool_table(required, names, pools, workload.overlap, catalog),
    }
    return StageResult(out, tuple(findings))


STAGE = Stage(
    name="workload",
    sections=("workload", "pools"),
    needs=(),
    provides=("training", "training_memory", "training_curve", "inference", "pool_demand"),
    run=run_workload,
)
