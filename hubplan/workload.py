"""Workload stage: how many accelerators the training, inference and development work needs.

Small cited formulas first (each a pure function of numbers), then the stage functions
that apply them to a Scenario section and the Catalog and return DataFrames. Nothing
here imports widgets, charts or spreadsheets (DESIGN.md).

References
----------
.. [Kaplan] Kaplan et al., "Scaling Laws for Neural Language Models", arXiv 2001.08361,
   §2.1: forward pass ≈ 2N FLOPs per token, backward ≈ twice the forward → 6N.
.. [Chinchilla] Hoffmann et al., "Training Compute-Optimal Large Language Models",
   arXiv 2203.15556: C ≈ 6ND.
.. [ZeRO] Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
   Parameter Models", arXiv 1910.02054, §3.1 and §5 (model states 2Ψ + 2Ψ + KΨ, K = 12).
.. [Korthikanti] Korthikanti et al., "Reducing Activation Recomputation in Large
   Transformer Models", arXiv 2205.05198, Eq. 1-2, Table 2, §4.2.3.
.. [LoRA] Hu et al., "LoRA: Low-Rank Adaptation of Large Language Models", arXiv 2106.09685.
.. [QLoRA] Dettmers et al., "QLoRA: Efficient Finetuning of Quantized LLMs",
   arXiv 2305.14314, §3 (NF4; double quantisation: 0.127 bits/param of constants).
.. [MBU] Databricks, "LLM Inference Performance Engineering: Best Practices" (2023):
   decode is memory-bandwidth bound; MBU = achieved / peak bandwidth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .catalog import Catalog, peak_tflops
from .errors import HubplanError, InputError, check_range
from .findings import Finding
from .scenario import (
    Architecture,
    DevelopmentPool,
    InferenceService,
    Overlap,
    Pools,
    PoolSpec,
    TrainingJob,
    Workload,
)

SECONDS_PER_DAY = 86_400
GB = 1e9  # decimal gigabyte (DESIGN.md conventions)

#: Bytes per parameter for (weights, gradients, optimizer states) [ZeRO §3.1].
OPTIMIZER_BYTES: dict[str, tuple[float, float, float]] = {
    "adam_mixed": (2, 2, 12),  # BF16 weights + grads; FP32 master, momentum, variance
    "adam_fp32": (4, 4, 8),  # FP32 weights + grads; FP32 momentum, variance
    "adam_bf16_states": (2, 2, 8),  # FP32 master + BF16 momentum/variance (DeepSeek-V3 §3.3)
    "sgd_momentum_mixed": (2, 2, 8),  # FP32 master + FP32 momentum
}

#: Bytes per element of stored weights / KV cache.
ELEMENT_BYTES = {"fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0,
                 "int4": 0.5}  # fmt: skip

#: QLoRA base weights: 4-bit NF4 plus double-quantised constants, 4 + 0.127 bits [QLoRA §3].
QLORA_BASE_BYTES_PER_PARAM = (4 + 0.127) / 8


# -- formulas ------------------------------------------------------------------------------


def training_flops(
    active_params: float, tokens: float, flops_per_param_token: float = 6.0
) -> float:
    """Training compute C = k·N·D. [FLOP]

    Parameters
    ----------
    active_params : float
        Parameters active per token N (all of them for dense models). [count]
    tokens : float
        Tokens processed D (all epochs). [tokens]
    flops_per_param_token : float
        6 for full training (2 forward + 4 backward [Kaplan]); 4 for LoRA/QLoRA, whose
        frozen weights need activation gradients but no weight gradients.

    Notes
    -----
    C = k·N·D [Kaplan]_, [Chinchilla]_. Attention FLOPs (∝ sequence length) are left out,
    as in those papers; they add a few percent at 4k context.

    Examples
    --------
    70 B parameters on 2 T tokens (hand: 6 × 7e10 × 2e12 = 8.4e23):

    >>> training_flops(70e9, 2e12)
    8.4e+23
    """
    check_range("active_params", active_params, gt=0)
    check_range("tokens", tokens, gt=0)
    return flops_per_param_token * active_params * tokens


def training_gpu_count(
    flops: float,
    peak_tflops: float,
    days: float,
    mfu: float = 0.45,
    goodput: float = 1.0,
    time_margin: float = 0.0,
) -> int:
    """Accelerators needed to finish ``flops`` by the deadline. [count]

    Parameters
    ----------
    flops : float
        Training compute. [FLOP]
    peak_tflops : float
        Dense tensor peak at the training precision (never a sparse or INT8 figure). [TFLOPS]
    days : float
        Deadline. [d]
    mfu : float
        Model FLOPs utilisation. [1]
    goodput : float
        Share of wall-clock time spent training. [1]
    time_margin : float
        Schedule margin; the plan finishes in days / (1 + margin). [1]

    Notes
    -----
    GPUs = ⌈C / (peak · MFU · goodput · 86 400 · days / (1 + margin))⌉ — the planning rule.

    Examples
    --------
    70 B params, 2 000 B tokens, 989 TFLOPS, MFU 0.45, 60 days (hand: 8.4e23 /
    (989e12 · 0.45 · 86 400 · 60) = 364.1 → 365):

    >>> training_gpu_count(8.4e23, 989, 60, mfu=0.45)
    365
    """
    check_range("peak_tflops", peak_tflops, gt=0)
    check_range("days", days, gt=0)
    check_range("mfu", mfu, gt=0, le=1)
    check_range("goodput", goodput, gt=0, le=1)
    check_range("time_margin", time_margin, ge=0)
    days_available = days / (1 + time_margin)
    per_gpu = peak_tflops * 1e12 * mfu * goodput * SECONDS_PER_DAY * days_available
    # Round away float noise before the ceiling (1e-9 relative), so an exact fit stays exact.
    return math.ceil(round(flops / per_gpu, 9))


def training_days(flops: float, gpus: int, peak_tflops: float, mfu: float, goodput: float) -> float:
    """Calendar days to train ``flops`` on ``gpus`` accelerators (no margin). [d]

    >>> round(training_days(8.4e23, 365, 989, 0.45, 1.0), 2)
    59.85
    """
    check_range("gpus", gpus, gt=0)
    return flops / (gpus * peak_tflops * 1e12 * mfu * goodput * SECONDS_PER_DAY)


def model_state_bytes(params: float, bytes_per_param: float = 16.0) -> float:
    """Weights + gradients + optimizer states of a model. [B]

    16 B/param for mixed-precision Adam: 2 (BF16 weights) + 2 (grads) + 12 (FP32 master,
    momentum, variance) [ZeRO]_ §3.1.

    >>> model_state_bytes(70e9) / 1e9
    1120.0
    """
    check_range("params", params, gt=0)
    return params * bytes_per_param


def zero_state_bytes_per_gpu(
    params: float,
    zero_stage: int,
    dp: int,
    weight_bytes: float = 2,
    grad_bytes: float = 2,
    optimizer_bytes: float = 12,
    model_parallel: int = 1,
) -> float:
    """Model-state bytes on one GPU under ZeRO-DP stage 0-3. [B]

    Parameters
    ----------
    params : float
        Ψ, trainable-and-stored parameters. [count]
    zero_stage : int
        0 (plain DP), 1 (shard optimizer), 2 (+ gradients), 3 (+ weights).
    dp : int
        Data-parallel degree N_d over which ZeRO shards.
    weight_bytes, grad_bytes, optimizer_bytes : float
        Bytes per parameter of each state (2, 2, 12 for mixed-precision Adam). [B]
    model_parallel : int
        Tensor × pipeline degree; each rank holds Ψ / model_parallel first.

    Notes
    -----
    [ZeRO]_ §5.1: stage 0: (2+2+K)Ψ; 1: (2+2)Ψ + KΨ/N_d; 2: 2Ψ + (2+K)Ψ/N_d;
    3: (2+2+K)Ψ/N_d.

    Examples
    --------
    ZeRO paper Table 1 anchor, 7.5 B parameters, N_d = 64: 120 → 31.4 → 16.6 → 1.88 GB.

    >>> [round(zero_state_bytes_per_gpu(7.5e9, s, 64) / 1e9, 2) for s in (0, 1, 2, 3)]
    [120.0, 31.41, 16.64, 1.88]
    """
    if zero_stage not in (0, 1, 2, 3):
        raise InputError("zero_stage", zero_stage, "must be 0, 1, 2 or 3")
    check_range("dp", dp, ge=1)
    psi = params / model_parallel
    w = weight_bytes * psi / (dp if zero_stage >= 3 else 1)
    g = grad_bytes * psi / (dp if zero_stage >= 2 else 1)
    o = optimizer_bytes * psi / (dp if zero_stage >= 1 else 1)
    return w + g + o


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
) -> float:
    """Activation memory of one transformer layer with 16-bit activations. [B]

    Notes
    -----
    [Korthikanti]_ Eq. 1-2 and Table 2 (s sequence, b micro-batch, h hidden, a heads,
    t tensor-parallel):

    ====================  ==================================
    none, no SP           s·b·h·(10 + 24/t + 5·a·s/(h·t))
    none, SP              s·b·h/t · (34 + 5·a·s/h)
    selective, no SP      s·b·h·(10 + 24/t)
    selective, SP         34·s·b·h/t
    full                  2·s·b·h (÷ t with SP): layer input only
    ====================  ==================================

    For t = 1 the no-SP and SP rows agree (34 + 5as/h). The formula is for the GPT block
    (4h MLP); SwiGLU MLPs and GQA shift the 34 by a few units.

    Examples
    --------
    GPT-3 175B layer, s = 2048, b = 1, h = 12288, a = 96 (hand: 2048 · 12288 · 114 B =
    2.87 GB; with t = 8, SP and selective: 34 · 2048 · 12288 / 8 = 0.107 GB):

    >>> round(activation_bytes_per_layer(2048, 1, 12288, 96) / 1e9, 3)
    2.869
    >>> round(activation_bytes_per_layer(2048, 1, 12288, 96, 8, True, "selective") / 1e9, 3)
    0.107
    """
    if recompute not in ("none", "selective", "full"):
        raise InputError("recompute", recompute, "must be 'none', 'selective' or 'full'")
    s, b, h, a, t = seq_len, micro_batch, hidden, heads, tensor_parallel
    sbh = s * b * h
    sp = sequence_parallel or t == 1
    if recompute == "full":
        return 2 * sbh / (t if sp else 1)
    attn_scores = 0.0 if recompute == "selective" else 5 * a * s / h
    if sp:
        return sbh / t * (34 + attn_scores)
    return sbh * (10 + 24 / t + attn_scores / t)


def memory_bound_gpu_count(state_bytes: float, vram_gb: float, headroom: float = 2.0) -> int:
    """Accelerators needed to hold the model state with headroom. [count]

    ⌈state × headroom / VRAM⌉ — the planning rule (DESIGN.md: 2× memory headroom).

    >>> memory_bound_gpu_count(1120e9, 80, 1.0), memory_bound_gpu_count(1120e9, 80, 2.0)
    (14, 28)
    """
    check_range("vram_gb", vram_gb, gt=0)
    check_range("headroom", headroom, ge=1)
    return math.ceil(round(state_bytes * headroom / (vram_gb * GB), 9))


def whole_servers(gpus: int, gpus_per_server: int) -> int:
    """Round a GPU count up to whole servers, returned as GPUs.

    >>> whole_servers(28, 8), whole_servers(132, 8), whole_servers(0, 8)
    (32, 136, 0)
    """
    check_range("gpus_per_server", gpus_per_server, ge=1)
    return math.ceil(gpus / gpus_per_server) * gpus_per_server


def lora_trainable_params(arch: ModelShape, rank: int) -> float:
    """LoRA adapter parameters with rank ``rank`` on every linear layer. [count]

    Each adapted d_in × d_out matrix gains r·(d_in + d_out) parameters [LoRA]_ §4.
    Per layer: q and o (h→h), k and v (h→kv·d), and the gated MLP's three matrices
    (h↔ffn); MoE models adapt attention only.

    Examples
    --------
    Llama-2-70B (h 8192, kv 8 × 128, ffn 28672, 80 layers) at r = 16 — by hand per
    layer: 16·(2·16384 + 2·9216 + 3·36864) = 2 588 672, × 80 = 207 093 760:

    >>> shape = ModelShape(69e9, 69e9, 80, 8192, 64, 8, 128, 28672)
    >>> lora_trainable_params(shape, 16)
    207093760
    """
    h, kv = arch.hidden_size, arch.kv_heads * arch.head_dim
    q_dim = arch.attention_heads * arch.head_dim
    per_layer = (h + q_dim) * 2 + (h + kv) * 2  # q, o, k, v
    if arch.ffn_hidden_size and not arch.moe:
        per_layer += 3 * (h + arch.ffn_hidden_size)
    return rank * per_layer * arch.layers


def kv_cache_bytes_per_token(
    layers: int,
    kv_heads: int,
    head_dim: int,
    bytes_per_element: float = 2.0,
    kv_lora_rank: int | None = None,
    qk_rope_head_dim: int | None = None,
) -> float:
    """KV-cache bytes per token of context. [B/token]

    Notes
    -----
    GQA/MHA: 2 (K and V) × layers × kv_heads × head_dim × bytes. MLA (DeepSeek-V2/V3)
    caches one latent of kv_lora_rank plus the decoupled RoPE key per layer:
    layers × (kv_lora_rank + qk_rope_head_dim) × bytes (DeepSeek-V2, arXiv 2405.04434 §2.1).

    Examples
    --------
    Llama-2-70B, FP16 (hand: 2 · 80 · 8 · 128 · 2 = 327 680 B = 320 KiB):

    >>> kv_cache_bytes_per_token(80, 8, 128)
    327680.0
    """
    if kv_lora_rank:
        return layers * (kv_lora_rank + (qk_rope_head_dim or 0)) * bytes_per_element
    return 2.0 * layers * kv_heads * head_dim * bytes_per_element


def inference_gpus_planning_rule(peak_qps: float, mean_latency_s: float, concurrency: float) -> int:
    """Serving GPUs by Little's law: ⌈peak QPS × mean latency ÷ per-GPU concurrency⌉.

    Requests in flight = arrival rate × time in system (Little's law); each GPU carries
    ``concurrency`` of them.

    >>> inference_gpus_planning_rule(10, 8, 16)
    5
    """
    check_range("peak_qps", peak_qps, gt=0)
    check_range("mean_latency_s", mean_latency_s, gt=0)
    check_range("concurrency", concurrency, gt=0)
    return math.ceil(round(peak_qps * mean_latency_s / concurrency, 9))


def decode_step_seconds(
    weight_bytes: float,
    kv_bytes_read: float,
    mem_bw_tb_s: float,
    mbu: float,
    flops: float,
    peak_tflops: float,
    mfu: float,
) -> float:
    """Time of one decode step: the slower of streaming memory and doing the maths. [s]

    Every step reads all weights plus the batch's KV cache once [MBU]_; the compute
    ceiling is 2·N_active FLOPs per generated token.

    >>> round(decode_step_seconds(140e9, 0, 4 * 3.35, 0.6, 0, 1, 1) * 1e3, 2)  # ms
    17.41
    """
    t_mem = (weight_bytes + kv_bytes_read) / (mem_bw_tb_s * 1e12 * mbu)
    t_compute = flops / (peak_tflops * 1e12 * mfu)
    return max(t_mem, t_compute)


# -- model shape -------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelShape:
    """The numbers the formulas need about a model (from the catalogue or the scenario)."""

    total_params: float
    active_params: float
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    ffn_hidden_size: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    moe: bool = False
    name: str = ""


def _opt_int(v: object) -> int | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)


def resolve_model(
    catalog: Catalog,
    model: str | None,
    architecture: Architecture | None,
    params: float | None,
    active_params: float | None = None,
) -> tuple[ModelShape | None, float, float]:
    """(shape or None, total params, active params) for a workload item.

    ``params`` overrides the catalogue's total (and active, for dense models).
    """
    shape = None
    if architecture is not None:
        a = architecture
        shape = ModelShape(
            a.total_params, a.active_params or a.total_params, a.layers, a.hidden_size,
            a.attention_heads, a.kv_heads, a.head_dim or a.hidden_size // a.attention_heads,
            a.ffn_hidden_size, a.kv_lora_rank, a.qk_rope_head_dim,
            moe=bool(a.active_params and a.active_params < a.total_params), name="custom",
        )  # fmt: skip
    elif model is not None:
        row = catalog.model(model)
        heads = int(row["attention_heads"])
        shape = ModelShape(
            float(row["total_params"]),
            float(row["active_params"]) if row["active_params"] == row["active_params"]
            else float(row["total_params"]),
            int(row["layers"]), int(row["hidden_size"]), heads, int(row["kv_heads"]),
            _opt_int(row["head_dim"]) or int(row["hidden_size"]) // heads,
            _opt_int(row["ffn_hidden_size"]), _opt_int(row["kv_lora_rank"]),
            _opt_int(row["qk_rope_head_dim"]), moe=row["architecture"] == "moe",
            name=str(row["name"]),
        )  # fmt: skip
    total = params if params is not None else (shape.total_params if shape else math.nan)
    if active_params is not None:
        active = active_params
    elif shape is not None and shape.moe:
        active = shape.active_params * (total / shape.total_params)
    else:
        active = total
    return shape, total, active


# -- training stage ------------------------------------------------------------------------


def _training_state(job: TrainingJob, shape: ModelShape | None, params: float) -> dict:
    """Stored and trainable bytes per the fine-tune method."""
    wb, gb, ob = OPTIMIZER_BYTES[job.optimizer]
    if job.method == "full":
        return dict(frozen=0.0, frozen_bpp=0.0, trainable=params, wb=wb, gb=gb, ob=ob)
    if shape is None:
        raise HubplanError(
            f"training job {job.name!r}: method = {job.method!r} needs the model's shape to "
            "count adapter parameters; name a catalogue model or give architecture"
        )
    trainable = lora_trainable_params(shape, job.lora_rank)
    frozen_bpp = 2.0 if job.method == "lora" else QLORA_BASE_BYTES_PER_PARAM
    return dict(frozen=params, frozen_bpp=frozen_bpp, trainable=trainable, wb=wb, gb=gb, ob=ob)


def size_training(job: TrainingJob, pool: PoolSpec, catalog: Catalog) -> tuple[dict, list[Finding]]:
    """Size one training job: compute-bound and memory-bound counts, and which binds.

    Returns one table row (dict) and the findings it raises.
    """
    acc = catalog.accelerator(pool.accelerator)
    shape, params, active = resolve_model(
        catalog, job.model, job.architecture, job.params, job.active_params
    )
    peak = peak_tflops(acc, job.precision, sparse=job.use_sparse)
    tokens_per_epoch = (
        job.tokens if job.tokens is not None else job.data_bytes / job.bytes_per_token
    )
    tokens = tokens_per_epoch * job.epochs
    k = 6.0 if job.method == "full" else 4.0
    flops = training_flops(active, tokens, k)
    compute_gpus = training_gpu_count(flops, peak, job.days, job.mfu, job.goodput, job.time_margin)
    gpu_days = flops / (peak * 1e12 * job.mfu * job.goodput * SECONDS_PER_DAY)

    st = _training_state(job, shape, params)
    state = st["frozen"] * st["frozen_bpp"] + st["trainable"] * (st["wb"] + st["gb"] + st["ob"])
    vram = float(acc["vram_gb"])
    hold_gpus = memory_bound_gpu_count(state, vram, 1.0)
    memory_gpus = memory_bound_gpu_count(state, vram, job.memory_headroom)
    required = max(compute_gpus, memory_gpus)
    gpus = whole_servers(required, pool.gpus_per_server)
    binding = "compute" if compute_gpus >= memory_gpus else "memory"
    days_to_finish = training_days(flops, gpus, peak, job.mfu, job.goodput)
    row = {
        "job": job.name, "accelerator": acc["name"], "precision": job.precision,
        "method": job.method, "params": params, "active_params": active,
        "tokens": tokens, "flops": flops, "peak_tflops": peak, "mfu": job.mfu,
        "goodput": job.goodput, "deadline_days": job.days, "time_margin": job.time_margin,
        "days_available": job.days / (1 + job.time_margin), "gpu_days": gpu_days,
        "compute_bound_gpus": compute_gpus, "model_state_gb": state / GB,
        "gpus_to_hold_state": hold_gpus, "memory_headroom": job.memory_headroom,
        "memory_bound_gpus": memory_gpus, "gpus_required": required, "gpus": gpus,
        "servers": gpus // pool.gpus_per_server, "binding": binding,
        "days_to_finish": days_to_finish,
        "tokens_per_s": tokens / (days_to_finish * SECONDS_PER_DAY),
        "days_on_memory_bound": training_days(
            flops, whole_servers(memory_gpus, pool.gpus_per_server), peak, job.mfu, job.goodput
        ),
    }  # fmt: skip

    found: list[Finding] = []
    subj = job.name
    if job.force_marketing_figure and (job.use_sparse or job.precision == "int8"):
        found.append(Finding("warning", "workload", subj, "marketing_figure",
                             {"precision": job.precision, "peak": peak}))  # fmt: skip
    if not 0.35 <= job.mfu <= 0.55:
        found.append(Finding("warning", "workload", subj, "mfu_outside", {"mfu": job.mfu}))
    if shape is not None and job.params is not None:
        diff = abs(job.params / shape.total_params - 1)
        if diff > 0.05:
            found.append(Finding("warning", "workload", subj, "params_override",
                                 {"params_b": job.params / 1e9, "model": shape.name,
                                  "catalog_b": shape.total_params / 1e9}))  # fmt: skip
    found.append(
        Finding(
            "info",
            "workload",
            subj,
            f"binding_{binding}",
            {
                "compute": compute_gpus,
                "memory": memory_gpus,
                "gpus": gpus,
                "hold": hold_gpus,
                "days_mem": row["days_on_memory_bound"],
                "deadline": job.days,
            },
        )
    )
    return row, found


def training_on_gpus(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog, gpus: int
) -> tuple[dict, list[Finding]]:
    """Solve for time instead of count: days the job takes on ``gpus`` accelerators.

    Returns the :func:`size_training` row with ``gpus`` fixed, ``days_to_finish`` (no
    margin), ``days_with_margin`` (× (1 + margin)) and ``meets_deadline``; a finding
    when ``gpus`` cannot even hold the model state.
    """
    check_range("gpus", gpus, ge=1)
    row, found = size_training(job, pool, catalog)
    peak, flops = row["peak_tflops"], row["flops"]
    days = training_days(flops, gpus, peak, job.mfu, job.goodput)
    row.update(
        gpus=gpus,
        servers=math.ceil(gpus / pool.gpus_per_server),
        days_to_finish=days,
        days_with_margin=days * (1 + job.time_margin),
        meets_deadline=bool(days * (1 + job.time_margin) <= job.days),
        tokens_per_s=row["tokens"] / (days * SECONDS_PER_DAY),
        binding="given",
    )
    found = [f for f in found if not f.code.startswith("binding_")]
    if gpus < row["gpus_to_hold_state"]:
        found.append(Finding("error", "workload", job.name, "too_few_to_hold",
                             {"gpus": gpus, "hold": row["gpus_to_hold_state"]}))  # fmt: skip
    elif gpus < row["memory_bound_gpus"]:
        found.append(Finding("warning", "workload", job.name, "below_memory_headroom",
                             {"gpus": gpus, "memory": row["memory_bound_gpus"]}))  # fmt: skip
    return row, found


def training_memory(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog, gpus: int
) -> tuple[dict, list[Finding]]:
    """Per-GPU memory of the job's parallel layout at ``gpus`` accelerators.

    Model states per [ZeRO]_, activations per [Korthikanti]_ (1F1B: the first pipeline
    stage holds p micro-batches of L/p layers, i.e. L layers' worth, §4.2.3).
    """
    acc = catalog.accelerator(pool.accelerator)
    shape, params, _ = resolve_model(
        catalog, job.model, job.architecture, job.params, job.active_params
    )
    tp, pp = job.tensor_parallel, job.pipeline_parallel
    mp = tp * pp
    dp = max(gpus // mp, 1)
    st = _training_state(job, shape, params)
    frozen_zero3 = dp if job.zero_stage == 3 else 1
    weights = st["frozen"] * st["frozen_bpp"] / mp / frozen_zero3
    w = zero_state_bytes_per_gpu(st["trainable"], job.zero_stage, dp, st["wb"], 0, 0, mp)
    g = zero_state_bytes_per_gpu(st["trainable"], job.zero_stage, dp, 0, st["gb"], 0, mp)
    o = zero_state_bytes_per_gpu(st["trainable"], job.zero_stage, dp, 0, 0, st["ob"], mp)
    if shape is not None:
        act = shape.layers * activation_bytes_per_layer(
            job.seq_len_tokens, job.micro_batch, shape.hidden_size, shape.attention_heads,
            tp, job.sequence_parallel, job.recompute,
        )  # fmt: skip
    else:
        act = math.nan
    vram = float(acc["vram_gb"]) * GB
    total = weights + w + g + o + (0.0 if math.isnan(act) else act)
    row = {
        "job": job.name, "gpus": gpus, "tensor_parallel": tp, "pipeline_parallel": pp,
        "data_parallel": dp, "zero_stage": job.zero_stage, "recompute": job.recompute,
        "weights_gb": (weights + w) / GB, "gradients_gb": g / GB, "optimizer_gb": o / GB,
        "activations_gb": act / GB, "total_gb": total / GB, "vram_gb": vram / GB,
        "fits": bool(total <= vram),
    }  # fmt: skip
    found: list[Finding] = []
    if math.isnan(act):
        found.append(Finding("info", "workload", job.name, "activations_unknown", {}))
    if total > vram:
        found.append(Finding("error", "workload", job.name, "memory_overflow",
                             {"total": total / GB, "vram": vram / GB}))  # fmt: skip
    if gpus % mp:
        found.append(Finding("warning", "workload", job.name, "layout_indivisible",
                             {"gpus": gpus, "mp": mp}))  # fmt: skip
    if tp > pool.gpus_per_server:
        found.append(Finding("warning", "workload", job.name, "tp_across_servers",
                             {"tp": tp, "per_server": pool.gpus_per_server}))  # fmt: skip
    return row, found


def training_gpus_vs_days(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog, days: list[float] | None = None
) -> pd.DataFrame:
    """Compute-bound and memory-bound GPU counts across deadlines (for the chart).

    Columns: ``deadline_days``, ``compute_bound_gpus``, ``memory_bound_gpus``, ``gpus`` (whole
    servers), ``binding``. The default grid spans a quarter to three times the deadline.
    """
    if days is None:
        lo = max(1.0, job.days / 4)
        days = sorted({*(lo + i * (job.days * 3 - lo) / 40 for i in range(41)), job.days})
    rows = []
    for d in days:
        row, _ = size_training(job.model_copy(update={"days": d}), pool, catalog)
        keys = ("deadline_days", "compute_bound_gpus", "memory_bound_gpus", "gpus", "binding")
        rows.append({k: row[k] for k in keys})
    return pd.DataFrame(rows)


# -- inference stage -----------------------------------------------------------------------


def _tp_candidates(service: InferenceService, pool: PoolSpec, acc: pd.Series) -> list[int]:
    """Tensor-parallel sizes to try: powers of two up to one server, or up to the
    scale-up domain where that is larger (GB200 NVL72). PCIe-only servers run tensor
    parallel over PCIe, slower but common for 8-card inference servers."""
    if service.tensor_parallel is not None:
        return [service.tensor_parallel]
    domain = acc["scaleup_domain_gpus"]
    limit = max(pool.gpus_per_server, int(domain) if domain == domain else 1)
    return [t for t in (1, 2, 4, 8, 16, 32, 64) if t <= limit]


def inference_token_model(
    service: InferenceService, pool: PoolSpec, catalog: Catalog
) -> pd.DataFrame:
    """Token-level serving estimate for each tensor-parallel size (one row per size).

    Per replica of t GPUs: weights = N × bytes; KV free = t·VRAM·utilisation − weights;
    concurrent sequences B = ⌊KV free / (KV bytes/token × (prompt + output))⌋ (capped by
    ``max_batch``); decode step per :func:`decode_step_seconds` with the mean context
    prompt + output/2; prefill = 2·N_active·prompt / (t·peak·MFU) (compute-bound);
    replica capacity = 1 / (prefill + output·step/B) requests/s (prefill and decode
    share the GPUs); replicas = ⌈QPS / capacity⌉.
    """
    acc = catalog.accelerator(pool.accelerator)
    shape, params, active = resolve_model(catalog, service.model, service.architecture,
                                          service.params)  # fmt: skip
    assert shape is not None  # the scenario requires model or architecture
    peak = peak_tflops(acc, service.compute_precision)
    bw = float(acc["mem_bw_tb_s"])
    if math.isnan(bw):
        raise HubplanError(
            f"accelerator {acc['name']!r} has no sourced memory bandwidth (mem_bw_tb_s); the "
            "token-level inference estimate needs it: choose another accelerator or add it"
        )
    kv_tok = kv_cache_bytes_per_token(
        shape.layers, shape.kv_heads, shape.head_dim, ELEMENT_BYTES[service.kv_precision],
        shape.kv_lora_rank, shape.qk_rope_head_dim,
    )  # fmt: skip
    weights = params * ELEMENT_BYTES[service.weight_precision]
    seq_tokens = service.prompt_tokens + service.output_tokens
    mean_ctx = service.prompt_tokens + service.output_tokens / 2
    rows = []
    for tp in _tp_candidates(service, pool, acc):
        usable = tp * float(acc["vram_gb"]) * GB * service.gpu_memory_utilization
        free = usable - weights
        fit = max(math.floor(free / (kv_tok * seq_tokens)), 0) if free > 0 else 0
        batch = min(fit, service.max_batch)
        row = {"tensor_parallel": tp, "weights_gb": weights / GB, "kv_free_gb": free / GB,
               "kv_cache_bytes_per_token": kv_tok, "concurrent_seqs": batch}  # fmt: skip
        if batch < 1:
            rows.append({**row, "replicas": math.nan, "gpus": math.nan, "fits": False})
            continue
        step = decode_step_seconds(weights / 1, batch * kv_tok * mean_ctx, tp * bw,
                                   service.memory_bandwidth_utilization,
                                   2 * active * batch, tp * peak, service.compute_mfu)  # fmt: skip
        t_mem = (weights + batch * kv_tok * mean_ctx) / (
            tp * bw * 1e12 * service.memory_bandwidth_utilization
        )
        prefill = 2 * active * service.prompt_tokens / (tp * peak * 1e12 * service.compute_mfu)
        decode_share = service.output_tokens * step / batch
        capacity = 1 / (prefill + decode_share)
        replicas = math.ceil(round(service.peak_qps / capacity, 9))
        if prefill > decode_share:
            bind = "prefill_compute"
        elif t_mem >= step * (1 - 1e-12):
            bind = "decode_bandwidth"
        else:
            bind = "decode_compute"
        rows.append({
            **row, "decode_step_ms": step * 1e3,
            "decode_tokens_per_s_per_seq": 1 / step,
            "decode_tokens_per_s": batch / step, "ttft_s": prefill,
            "latency_s": prefill + service.output_tokens * step,
            "replica_qps": capacity, "replicas": replicas, "gpus": replicas * tp,
            "fits": True, "limit": "batch_cap" if fit > service.max_batch else "kv_memory",
            "token_binding": bind,
        })  # fmt: skip
    return pd.DataFrame(rows)


def size_inference(
    service: InferenceService, pool: PoolSpec, catalog: Catalog
) -> tuple[dict, list[Finding]]:
    """Size one service both ways (planning rule, token model) and say which binds."""
    acc = catalog.accelerator(pool.accelerator)
    rule = inference_gpus_planning_rule(service.peak_qps, service.mean_latency_s,
                                        service.concurrency_per_gpu)  # fmt: skip
    options = inference_token_model(service, pool, catalog)
    found: list[Finding] = []
    viable = options[options["fits"]]
    if viable.empty:
        weights = float(options["weights_gb"].iloc[0])
        found.append(Finding("error", "workload", service.name, "weights_do_not_fit",
                             {"weights": weights, "tp": int(options["tensor_parallel"].max()),
                              "accelerator": acc["name"]}))  # fmt: skip
        best = None
        token_gpus = math.nan
    else:
        best = viable.sort_values(["gpus", "tensor_parallel"]).iloc[0]
        token_gpus = int(best["gpus"])
    required = rule if best is None else max(rule, token_gpus)
    binding = "planning_rule" if best is None or rule >= token_gpus else "token_model"
    gpus = whole_servers(required, pool.gpus_per_server)
    row = {
        "service": service.name, "accelerator": acc["name"], "peak_qps": service.peak_qps,
        "rule_gpus": rule, "token_gpus": token_gpus, "gpus_required": required,
        "gpus": gpus, "servers": gpus // pool.gpus_per_server, "binding": binding,
    }  # fmt: skip
    if best is not None:
        for key in ("tensor_parallel", "weights_gb", "kv_cache_bytes_per_token",
                    "concurrent_seqs", "decode_step_ms", "decode_tokens_per_s_per_seq",
                    "decode_tokens_per_s", "ttft_s", "latency_s", "replica_qps", "replicas",
                    "token_binding"):  # fmt: skip
            row[key] = best[key]
        if best["latency_s"] > service.mean_latency_s * 1.5:
            found.append(Finding("warning", "workload", service.name, "latency_mismatch",
                                 {"model_s": best["latency_s"],
                                  "rule_s": service.mean_latency_s}))  # fmt: skip
        if best["tensor_parallel"] > pool.gpus_per_server:
            found.append(Finding("warning", "workload", service.name, "tp_across_servers",
                                 {"tp": int(best["tensor_parallel"]),
                                  "per_server": pool.gpus_per_server}))  # fmt: skip
    found.append(Finding("info", "workload", service.name, f"inference_{binding}",
                         {"rule": rule, "token": token_gpus, "gpus": gpus}))  # fmt: skip
    return row, found


# -- development and pools ---------------------------------------------------------------


def development_gpu_count(dev: DevelopmentPool) -> int:
    """⌈developers × GPUs each × share active at peak⌉.

    >>> development_gpu_count(DevelopmentPool(developers=16, gpus_per_developer=1,
    ...                                       peak_active_share=0.5))
    8
    """
    return math.ceil(round(dev.developers * dev.gpus_per_developer * dev.peak_active_share, 9))


POOL_KINDS = ("training", "inference", "development")


def pool_table(
    required: dict[str, int],
    workloads: dict[str, list[str]],
    pools: Pools,
    overlap: Overlap,
    catalog: Catalog,
) -> pd.DataFrame:
    """Pools sized separately, then the fleet per the overlap policy.

    ``dedicated``: each pool owns whole servers; fleet = Σ pools. ``shared``: pools on the
    same accelerator form one scheduled fleet of ⌈Σ required × coincidence⌉ GPUs, rounded
    to servers; each pool keeps its own row for what it needs alone.
    """
    rows = []
    for kind in POOL_KINDS:
        if not workloads.get(kind):
            continue
        spec: PoolSpec = getattr(pools, kind)
        acc = catalog.accelerator(spec.accelerator)["name"]
        need = required.get(kind, 0)
        gpus = whole_servers(need, spec.gpus_per_server)
        rows.append({"pool": kind, "accelerator": acc, "workloads": ", ".join(workloads[kind]),
                     "gpus_required": need, "gpus": gpus,
                     "servers": gpus // spec.gpus_per_server,
                     "coincidence": getattr(overlap, f"{kind}_coincidence"),
                     "gpus_per_server": spec.gpus_per_server})  # fmt: skip
    df = pd.DataFrame(rows, columns=["pool", "accelerator", "workloads", "gpus_required", "gpus",
                                     "servers", "coincidence", "gpus_per_server"])  # fmt: skip
    fleet = []
    for acc, grp in df.groupby("accelerator", sort=False):
        per_server = int(grp["gpus_per_server"].max())
        if overlap.policy == "dedicated":
            gpus = int(grp["gpus"].sum())
        else:
            peak = math.ceil(round(float((grp["gpus_required"] * grp["coincidence"]).sum()), 9))
            gpus = whole_servers(max(peak, int(grp["gpus_required"].max())), per_server)
        fleet.append({"pool": f"fleet ({overlap.policy})", "accelerator": acc,
                      "workloads": ", ".join(grp["pool"]),
                      "gpus_required": int(grp["gpus_required"].sum()), "gpus": gpus,
                      "servers": math.ceil(gpus / per_server), "coincidence": math.nan,
                      "gpus_per_server": per_server})  # fmt: skip
    return pd.concat([df, pd.DataFrame(fleet, columns=df.columns)], ignore_index=True)


def run_workload(
    workload: Workload, pools: Pools, catalog: Catalog
) -> tuple[dict[str, pd.DataFrame], list[Finding]]:
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
    tables = {
        "training": pd.DataFrame(train_rows),
        "training_memory": pd.DataFrame(mem_rows),
        "training_curve": pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(),
        "inference": pd.DataFrame(inf_rows),
        "pool_demand": pool_table(required, names, pools, workload.overlap, catalog),
    }
    return tables, findings
