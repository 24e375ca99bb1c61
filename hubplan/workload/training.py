"""Training and fine-tuning: compute, memory and the GPUs a deadline needs.

References are listed in :mod:`hubplan.workload`.
"""

from __future__ import annotations

import math

import pandas as pd

from ..core.catalog import Catalog, peak_tflops
from ..core.errors import HubplanError, InputError, check_range
from ..core.findings import Finding
from ..core.units import GB, SECONDS_PER_DAY
from ..pools import PoolSpec
from .model import ModelShape, resolve_model
from .section import TrainingJob

#: Bytes per parameter for (weights, gradients, optimizer states) [ZeRO §3.1].
OPTIMIZER_BYTES: dict[str, tuple[float, float, float]] = {
    "adam_mixed": (2, 2, 12),  # BF16 weights + grads; FP32 master, momentum, variance
    "adam_fp32": (4, 4, 8),  # FP32 weights + grads; FP32 momentum, variance
    "adam_bf16_states": (2, 2, 8),  # FP32 master + BF16 momentum/variance (DeepSeek-V3 §3.3)
    "sgd_momentum_mixed": (2, 2, 8),  # FP32 master + FP32 momentum
}


#: QLoRA base weights: 4-bit NF4 plus double-quantised constants, 4 + 0.127 bits [QLoRA §3].
QLORA_BASE_BYTES_PER_PARAM = (4 + 0.127) / 8


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

    ⌈state × headroom / VRAM⌉ — the planning rule (2× memory headroom; docs/architecture.md,
    planning rules).

    >>> memory_bound_gpu_count(1120e9, 80, 1.0), memory_bound_gpu_count(1120e9, 80, 2.0)
    (14, 28)
    """
    check_range("vram_gb", vram_gb, gt=0)
    check_range("headroom", headroom, ge=1)
    return math.ceil(round(state_bytes * headroom / (vram_gb * GB), 9))


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
    row, found, _ = _size_training(job, pool, catalog)
    return row, found


def _tokens_per_epoch(job: TrainingJob) -> float:
    """The tokens one epoch reads: given, or the data set's bytes ÷ bytes per token."""
    if job.tokens is not None:
        return job.tokens
    assert job.data_bytes is not None  # TrainingJob takes exactly one of tokens, data_bytes
    return job.data_bytes / job.bytes_per_token


def _training_figures(
    job: TrainingJob,
    pool: PoolSpec,
    acc: pd.Series,
    shape: ModelShape | None,
    params: float,
    active: float,
) -> tuple[dict, dict, int, int | None]:
    """The job's table row, its training state (:func:`_training_state`), the memory-bound
    count the deadline is weighed against and the layout search's count (None: no fit)."""
    peak = peak_tflops(acc, job.precision, sparse=job.use_sparse)
    tokens = _tokens_per_epoch(job) * job.epochs
    k = 6.0 if job.method == "full" else 4.0
    flops = training_flops(active, tokens, k)
    compute_gpus = training_gpu_count(flops, peak, job.days, job.mfu, job.goodput, job.time_margin)
    gpu_days = flops / (peak * 1e12 * job.mfu * job.goodput * SECONDS_PER_DAY)

    st = _training_state(job, shape, params)
    state = st["frozen"] * st["frozen_bpp"] + st["trainable"] * (st["wb"] + st["gb"] + st["ob"])
    vram = float(acc["vram_gb"])
    hold_gpus = memory_bound_gpu_count(state, vram, 1.0)
    rule_gpus = memory_bound_gpu_count(state, vram, job.memory_headroom)
    step = layout_step(job.tensor_parallel, job.pipeline_parallel, pool.gpus_per_server)
    layout_gpus = _layout_gpus(job, shape, st, vram, pool.gpus_per_server, step)
    # The memory bound is the larger of the planning rule (state × headroom) and what the
    # parallel layout really needs per GPU (states per ZeRO stage + activations).
    memory_gpus = max(rule_gpus, layout_gpus or 0)
    required, gpus, binding = _deadline_count(compute_gpus, memory_gpus, step)
    days_to_finish = training_days(flops, gpus, peak, job.mfu, job.goodput)
    row = {
        "job": job.name,
        "accelerator": acc["name"],
        "precision": job.precision,
        "method": job.method,
        "params": params,
        "active_params": active,
        "tokens": tokens,
        "flops": flops,
        "peak_tflops": peak,
        "mfu": job.mfu,
        "goodput": job.goodput,
        "deadline_days": job.days,
        "time_margin": job.time_margin,
        "days_available": job.days / (1 + job.time_margin),
        "gpu_days": gpu_days,
        "compute_bound_gpus": compute_gpus,
        "model_state_gb": state / GB,
        "gpus_to_hold_state": hold_gpus,
        "memory_headroom": job.memory_headroom,
        "memory_bound_gpus": rule_gpus,
        "layout_memory_gpus": layout_gpus or math.nan,
        "layout_step_gpus": step,
        "gpus_required": required,
        "gpus": gpus,
        "servers": gpus // pool.gpus_per_server,
        "binding": binding,
        "days_to_finish": days_to_finish,
        "tokens_per_s": tokens / (days_to_finish * SECONDS_PER_DAY)
        if days_to_finish > 0
        else math.nan,
        "days_on_memory_bound": training_days(
            flops, max(math.ceil(rule_gpus / step), 1) * step, peak, job.mfu, job.goodput
        ),
    }
    return row, st, memory_gpus, layout_gpus


def _input_findings(job: TrainingJob, shape: ModelShape | None, peak: float) -> list[Finding]:
    """Warnings on the job's inputs: a marketing peak figure, an MFU outside the usual
    range, a parameter count far from the catalogue model's."""
    found: list[Finding] = []
    subj = job.name
    if job.force_marketing_figure and (job.use_sparse or job.precision == "int8"):
        found.append(
            Finding(
                "warning",
                "workload",
                subj,
                "marketing_figure",
                {"precision": job.precision, "peak": peak},
            )
        )
    if not 0.35 <= job.mfu <= 0.55:
        found.append(Finding("warning", "workload", subj, "mfu_outside", {"mfu": job.mfu}))
    if shape is not None and job.params is not None:
        diff = abs(job.params / shape.total_params - 1)
        if diff > 0.05:
            found.append(
                Finding(
                    "warning",
                    "workload",
                    subj,
                    "params_override",
                    {
                        "params_b": job.params / 1e9,
                        "model": shape.name,
                        "catalog_b": shape.total_params / 1e9,
                    },
                )
            )
    return found


def _size_training(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog
) -> tuple[dict, list[Finding], int]:
    """:func:`size_training`, plus the memory-bound count the deadline is weighed against
    (the larger of the planning rule and the layout search) [GPUs]."""
    acc = catalog.accelerator(pool.accelerator)
    shape, params, active = resolve_model(
        catalog, job.model, job.architecture, job.params, job.active_params
    )
    row, st, memory_gpus, layout_gpus = _training_figures(job, pool, acc, shape, params, active)
    vram = float(acc["vram_gb"])
    subj = job.name
    found = _input_findings(job, shape, row["peak_tflops"])
    if layout_gpus is None:
        mem, _ = _layout_memory(
            job, shape, st, vram, pool.gpus_per_server, LAYOUT_SEARCH_LIMIT_GPUS
        )
        found.append(
            Finding(
                "error",
                "workload",
                subj,
                "layout_cannot_fit",
                {
                    "total": mem["total_gb"],
                    "vram": vram,
                    "tp": job.tensor_parallel,
                    "pp": job.pipeline_parallel,
                    "zero": job.zero_stage,
                    "accelerator": acc["name"],
                },
            )
        )
    found.append(
        Finding(
            "info",
            "workload",
            subj,
            f"binding_{row['binding']}",
            {
                "compute": row["compute_bound_gpus"],
                "memory": memory_gpus,
                "gpus": row["gpus"],
                "hold": row["gpus_to_hold_state"],
                "days_mem": row["days_on_memory_bound"],
                "deadline": job.days,
            },
        )
    )
    return row, found, memory_gpus


def _deadline_count(compute_gpus: int, memory_gpus: int, step: int) -> tuple[int, int, str]:
    """(GPUs required, GPUs in whole layout steps, which bound binds) for one deadline.

    >>> _deadline_count(365, 28, 8), _deadline_count(20, 28, 8)
    ((365, 368, 'compute'), (28, 32, 'memory'))
    """
    required = max(compute_gpus, memory_gpus)
    gpus = math.ceil(required / step) * step
    return required, gpus, "compute" if compute_gpus >= memory_gpus else "memory"


#: The largest cluster the layout search tries before calling a layout infeasible: four
#: times the 16 384-GPU Llama 3 run (arXiv 2407.21783).
LAYOUT_SEARCH_LIMIT_GPUS = 65_536


def layout_step(tensor_parallel: int, pipeline_parallel: int, gpus_per_server: int) -> int:
    """The GPU count a training pool grows by: whole model-parallel groups (TP × PP, one
    data-parallel replica each) that also fill whole servers. [GPUs]

    Notes
    -----
    lcm(TP × PP, GPUs per server): a data-parallel replica spans TP × PP GPUs (Megatron-LM,
    Narayanan et al. 2021, arXiv 2104.04473 §2), and servers come whole.

    >>> layout_step(8, 1, 8), layout_step(4, 3, 8), layout_step(1, 1, 8)
    (8, 24, 8)
    """
    return math.lcm(tensor_parallel * pipeline_parallel, gpus_per_server)


def layout_memory_gpu_count(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog, step: int
) -> int | None:
    """Fewest GPUs, in whole layout steps, at which the job's parallel layout fits in
    VRAM (model states per ZeRO stage plus activations, :func:`training_memory`); None
    when it does not fit even at :data:`LAYOUT_SEARCH_LIMIT_GPUS`. [GPUs]

    Per-GPU memory only falls as data parallelism grows (ZeRO shards by it), so the
    search doubles, then bisects.
    """
    shape, st, vram_gb = _job_on(job, pool, catalog)
    return _layout_gpus(job, shape, st, vram_gb, pool.gpus_per_server, step)


def _job_on(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog
) -> tuple[ModelShape | None, dict, float]:
    """The job's model shape, its training state sizes and the pool card's VRAM [GB]: what
    the layout functions read, looked up once."""
    shape, params, _ = resolve_model(
        catalog, job.model, job.architecture, job.params, job.active_params
    )
    vram_gb = float(catalog.accelerator(pool.accelerator)["vram_gb"])
    return shape, _training_state(job, shape, params), vram_gb


def _layout_gpus(
    job: TrainingJob,
    shape: ModelShape | None,
    st: dict,
    vram_gb: float,
    gpus_per_server: int,
    step: int,
) -> int | None:
    """:func:`layout_memory_gpu_count` with the model and accelerator already looked up."""

    def fits(n_steps: int) -> bool:
        row, _ = _layout_memory(job, shape, st, vram_gb, gpus_per_server, n_steps * step)
        return bool(row["fits"])

    limit = max(LAYOUT_SEARCH_LIMIT_GPUS // step, 1)
    if not fits(limit):
        return None
    hi = 1
    while not fits(hi):
        hi *= 2
    lo = hi // 2  # does not fit (or 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return hi * step


def training_on_gpus(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog, gpus: int
) -> tuple[dict, list[Finding]]:
    """Solve for time instead of count: days the job takes on ``gpus`` accelerators.

    Returns the :func:`size_training` row with ``gpus`` fixed, ``days_to_finish`` (no
    margin), ``days_with_margin`` (× (1 + margin)) and ``meets_deadline``; an error
    finding when ``gpus`` cannot even hold the model state, a warning when the job
    misses its deadline on them.
    """
    check_range("gpus", gpus, ge=1)
    row, found = size_training(job, pool, catalog)
    peak, flops = row["peak_tflops"], row["flops"]
    days = training_days(flops, gpus, peak, job.mfu, job.goodput)
    needed = row["gpus"]  # the deadline's count, before ``gpus`` is fixed
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
        found.append(
            Finding(
                "error",
                "workload",
                job.name,
                "too_few_to_hold",
                {"gpus": gpus, "hold": row["gpus_to_hold_state"]},
            )
        )
    elif gpus < row["memory_bound_gpus"]:
        found.append(
            Finding(
                "warning",
                "workload",
                job.name,
                "below_memory_headroom",
                {"gpus": gpus, "memory": row["memory_bound_gpus"]},
            )
        )
    if not row["meets_deadline"]:
        found.append(
            Finding(
                "warning",
                "workload",
                job.name,
                "deadline_missed",
                {
                    "gpus": gpus,
                    "days": row["days_with_margin"],
                    "deadline": job.days,
                    "needed": needed,
                },
            )
        )
    return row, found


def training_memory(
    job: TrainingJob, pool: PoolSpec, catalog: Catalog, gpus: int
) -> tuple[dict, list[Finding]]:
    """Per-GPU memory of the job's parallel layout at ``gpus`` accelerators.

    Model states per [ZeRO]_, activations per [Korthikanti]_ (1F1B: the first pipeline
    stage holds p micro-batches of L/p layers, i.e. L layers' worth, §4.2.3).
    """
    shape, st, vram_gb = _job_on(job, pool, catalog)
    return _layout_memory(job, shape, st, vram_gb, pool.gpus_per_server, gpus)


def _activations_bytes(job: TrainingJob, shape: ModelShape | None) -> float:
    """Activation bytes per GPU: L layers' worth (the first pipeline stage under 1F1B);
    NaN when the model's shape is unknown. [B]"""
    if shape is None:
        return math.nan
    return shape.layers * activation_bytes_per_layer(
        job.seq_len_tokens,
        job.micro_batch,
        shape.hidden_size,
        shape.attention_heads,
        job.tensor_parallel,
        job.sequence_parallel,
        job.recompute,
    )


def _layout_memory(
    job: TrainingJob,
    shape: ModelShape | None,
    st: dict,
    vram_gb: float,
    gpus_per_server: int,
    gpus: int,
) -> tuple[dict, list[Finding]]:
    """:func:`training_memory` with the model, its stored and trainable bytes
    (:func:`_training_state`) and the accelerator's VRAM [GB] already looked up, so the
    layout search and the deadline curve look them up once per job."""
    tp, pp = job.tensor_parallel, job.pipeline_parallel
    mp = tp * pp
    dp = max(gpus // mp, 1)
    frozen_zero3 = dp if job.zero_stage == 3 else 1
    weights = st["frozen"] * st["frozen_bpp"] / mp / frozen_zero3
    w = zero_state_bytes_per_gpu(st["trainable"], job.zero_stage, dp, st["wb"], 0, 0, mp)
    g = zero_state_bytes_per_gpu(st["trainable"], job.zero_stage, dp, 0, st["gb"], 0, mp)
    o = zero_state_bytes_per_gpu(st["trainable"], job.zero_stage, dp, 0, 0, st["ob"], mp)
    act = _activations_bytes(job, shape)
    vram = vram_gb * GB
    total = weights + w + g + o + (0.0 if math.isnan(act) else act)
    row = {
        "job": job.name,
        "gpus": gpus,
        "tensor_parallel": tp,
        "pipeline_parallel": pp,
        "data_parallel": dp,
        "zero_stage": job.zero_stage,
        "recompute": job.recompute,
        "weights_gb": (weights + w) / GB,
        "gradients_gb": g / GB,
        "optimizer_gb": o / GB,
        "activations_gb": act / GB,
        "total_gb": total / GB,
        "vram_gb": vram / GB,
        "fits": bool(total <= vram),
    }
    found: list[Finding] = []
    if math.isnan(act):
        found.append(Finding("info", "workload", job.name, "activations_unknown", {}))
    if total > vram:
        found.append(
            Finding(
                "error",
                "workload",
                job.name,
                "memory_overflow",
                {"total": total / GB, "vram": vram / GB},
            )
        )
    if gpus % mp:
        found.append(
            Finding("warning", "workload", job.name, "layout_indivisible", {"gpus": gpus, "mp": mp})
        )
    if tp > gpus_per_server:
        found.append(
            Finding(
                "warning",
                "workload",
                job.name,
                "tp_across_servers",
                {"tp": tp, "per_server": gpus_per_server},
            )
        )
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
    # Only the compute bound moves with the deadline: the job is sized in full once (at
    # the first deadline, so errors surface as they would there), then each further
    # deadline reweighs its compute-bound count against the same memory bound.
    rows = []
    first = None
    for d in days:
        if first is None:
            first, _, memory_gpus = _size_training(
                job.model_copy(update={"days": d}), pool, catalog
            )
            flops, peak, step = first["flops"], first["peak_tflops"], first["layout_step_gpus"]
            compute_gpus, gpus, binding = (
                first["compute_bound_gpus"],
                first["gpus"],
                first["binding"],
            )
        else:
            compute_gpus = training_gpu_count(flops, peak, d, job.mfu, job.goodput, job.time_margin)
            _, gpus, binding = _deadline_count(compute_gpus, memory_gpus, step)
            training_days(flops, gpus, peak, job.mfu, job.goodput)  # raises on 0, as sizing does
        rows.append(
            {
                "deadline_days": d,
                "compute_bound_gpus": compute_gpus,
                "memory_bound_gpus": first["memory_bound_gpus"],
                "gpus": gpus,
                "binding": binding,
            }
        )
    return pd.DataFrame(rows)


# -- inference stage -----------------------------------------------------------------------
