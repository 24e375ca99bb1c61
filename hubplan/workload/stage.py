"""The workload stage entry: every table it adds to the Plan, and its findings."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import ScenarioError
from ..core.findings import Finding
from ..core.frames import Schema, typed, with_schema
from ..core.stage import Stage, StageResult
from ..pools import Pools
from .demand import pool_table
from .development import development_gpu_count
from .inference import size_inference
from .section import Workload
from .training import size_training, training_gpus_vs_days, training_memory

NO_WORKLOAD = (
    "no training job, no inference service and no developers: nothing to size. Add at least "
    "one of workload.training, workload.inference or workload.development.developers > 0"
)

# The tables' columns, so a centre without training jobs or services still has them (the
# storage stage reads training["job"] whatever the mix); checked on every run.
_F, _I, _S = "float64", "int64", "str"
TRAINING: Schema = {
    "job": _S,
    "accelerator": _S,
    "precision": _S,
    "method": _S,
    "params": _F,
    "active_params": _F,
    "tokens": _F,
    "flops": _F,
    "peak_tflops": _F,
    "mfu": _F,
    "goodput": _F,
    "deadline_days": _F,
    "time_margin": _F,
    "days_available": _F,
    "gpu_days": _F,
    "compute_bound_gpus": _I,
    "model_state_gb": _F,
    "gpus_to_hold_state": _I,
    "memory_headroom": _F,
    "memory_bound_gpus": _I,
    "layout_memory_gpus": _I,
    "layout_step_gpus": _I,
    "gpus_required": _I,
    "gpus": _I,
    "servers": _I,
    "binding": _S,
    "days_to_finish": _F,
    "tokens_per_s": _F,
    "days_on_memory_bound": _F,
}
TRAINING_MEMORY: Schema = {
    "job": _S,
    "gpus": _I,
    "tensor_parallel": _I,
    "pipeline_parallel": _I,
    "data_parallel": _I,
    "zero_stage": _I,
    "recompute": _S,
    "weights_gb": _F,
    "gradients_gb": _F,
    "optimizer_gb": _F,
    "activations_gb": _F,
    "total_gb": _F,
    "vram_gb": _F,
    "fits": "bool",
}
TRAINING_CURVE: Schema = {
    "deadline_days": _F,
    "compute_bound_gpus": _I,
    "memory_bound_gpus": _I,
    "gpus": _I,
    "binding": _S,
    "job": _S,
}
INFERENCE: Schema = {
    "service": _S,
    "accelerator": _S,
    "peak_qps": _F,
    "in_flight": _F,
    "rule_basis": _S,
    "rule_instances": _F,
    "gpus_per_instance": _F,
    "rule_gpus": _I,
    "token_gpus": _I,
    "gpus_required": _I,
    "gpus": _I,
    "servers": _I,
    "binding": _S,
    "rule_ratio": _F,
    "meets_targets": "bool",
    "tensor_parallel": _I,
    "weights_gb": _F,
    "kv_cache_bytes_per_token": _F,
    "concurrent_seqs": _I,
    "planned_batch": _F,
    "link_gb_s": _F,
    "decode_step_ms": _F,
    "collective_ms": _F,
    "decode_tokens_per_s_per_seq": _F,
    "decode_tokens_per_s": _F,
    "ttft_s": _F,
    "latency_s": _F,
    "replica_qps": _F,
    "replicas": _F,
    "limit": _S,
    "token_binding": _S,
    "load_seqs": _F,
    "load_tpot_ms": _F,
    "ttft_p50_s": _F,
    "ttft_p95_s": _F,
    "tpot_p50_ms": _F,
    "tpot_p95_ms": _F,
    "prefill_share": _F,
    "load_latency_s": _F,
}


def run_workload(
    *, catalog: Catalog, tables: dict[str, pd.DataFrame], workload: Workload, pools: Pools
) -> StageResult:
    """The workload stage: every table it contributes to the Plan, and its findings.

    Any mix of training (and fine-tune) jobs, inference services and developers plans;
    none of them at all is a :class:`~hubplan.core.errors.ScenarioError` naming
    ``workload``: a centre with nothing to carry has no GPU to size, and a plan of storage,
    network and racks around zero servers would be a silently empty proposal.
    """
    dev = workload.development
    if not workload.training and not workload.inference and (dev is None or dev.developers == 0):
        raise ScenarioError([("workload", NO_WORKLOAD)])
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
    # A training pool needs the GPUs its jobs' parallel layouts occupy, not their bare
    # counts: TP x PP x DP with DP whole, on whole servers (each job's ``gpus``, a multiple
    # of lcm(TP x PP, GPUs per server), :func:`~hubplan.workload.training.layout_step`).
    # Sized from the bare counts, 124 GPUs for a TP 8 x PP 3 job gave 16 servers while its
    # 6 replicas of 24 GPUs occupy 144, 18 servers (tests/test_plan.py).
    required = {
        "training": sum(r["gpus"] for r in train_rows),
        "inference": sum(r["gpus_required"] for r in inf_rows),
    }
    names = {
        "training": [r["job"] for r in train_rows],
        "inference": [r["service"] for r in inf_rows],
        "development": [],
    }
    if workload.development is not None and workload.development.developers > 0:
        required["development"] = development_gpu_count(workload.development)
        names["development"] = [f"{workload.development.developers} developers"]
    out = {
        "training": typed(train_rows, TRAINING),
        "training_memory": typed(mem_rows, TRAINING_MEMORY),
        "training_curve": with_schema(
            pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(), TRAINING_CURVE
        ),
        "inference": typed(inf_rows, INFERENCE),
        "pool_demand": pool_table(required, names, pools, workload.overlap, catalog),
    }
    return StageResult(out, tuple(findings))


STAGE = Stage(
    name="workload",
    sections=("workload", "pools"),
    needs=(),
    provides=("training", "training_memory", "training_curve", "inference", "pool_demand"),
    run=run_workload,
    columns={
        "training": TRAINING,
        "training_memory": TRAINING_MEMORY,
        "training_curve": TRAINING_CURVE,
        "inference": INFERENCE,
    },
)
