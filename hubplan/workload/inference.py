"""Online inference: the planning rule and the token model.

References are listed in :mod:`hubplan.workload`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.catalog import Catalog, peak_tflops
from ..core.errors import HubplanError, check_range
from ..core.findings import Finding
from ..pools import PoolSpec, whole_servers
from .model import ELEMENT_BYTES, GB, resolve_model
from .section import InferenceService


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

    Any load at all needs one GPU, however small (rounding to nine decimals must not make
    it none).

    >>> inference_gpus_planning_rule(10, 8, 16), inference_gpus_planning_rule(1e-300, 8, 16)
    (5, 1)
    """
    check_range("peak_qps", peak_qps, gt=0)
    check_range("mean_latency_s", mean_latency_s, gt=0)
    check_range("concurrency", concurrency, gt=0)
    return max(1, math.ceil(round(peak_qps * mean_latency_s / concurrency, 9)))


def planning_rule_instances(
    peak_qps: float,
    mean_latency_s: float,
    concurrency_per_instance: float,
    gpus_per_instance: int,
) -> tuple[float, int, int]:
    """The planning rule per instance: (requests in flight, instances, GPUs).

    In flight = peak QPS × mean latency (Little's law); instances = ⌈in flight ÷
    concurrency per instance⌉; GPUs = instances × GPUs per instance.

    >>> planning_rule_instances(20, 6, 16, 2)  # 120 in flight → 7.5 → 8 instances
    (120.0, 8, 16)
    >>> planning_rule_instances(1e-300, 6, 16, 2)  # any load needs one instance
    (6e-300, 1, 2)
    """
    check_range("concurrency_per_instance", concurrency_per_instance, gt=0)
    in_flight = float(peak_qps * mean_latency_s)
    instances = max(1, math.ceil(round(in_flight / concurrency_per_instance, 9)))
    return in_flight, instances, instances * gpus_per_instance


def decode_at_load(
    qps_per_replica: float, prefill_s: float, output_tokens: int, step_s, max_batch: int
) -> tuple[float, float]:
    """Sequences decoding at once and the time per output token a replica sees at a load.

    A replica spends ρ = λ × prefill of its time on prompts, which pause decoding, so a
    decode step takes step(b) / (1 − ρ) in wall time. Little's law for the decoding
    sequences gives b = λ × output_tokens × step(b) / (1 − ρ); solved by fixed-point
    iteration (step grows linearly with b, so it converges below capacity). At the
    replica's capacity λ = 1 / (prefill + output × step(B) / B) this gives b = B.

    Returns (b, time per output token [s]).

    >>> round(decode_at_load(0.1, 0.0, 100, lambda b: 0.01, 256)[0], 6)  # λ·out·step
    0.1
    """
    rho = qps_per_replica * prefill_s
    if rho >= 1:
        return float(max_batch), math.inf
    b = 1.0
    for _ in range(200):
        nxt = min(qps_per_replica * output_tokens * step_s(max(b, 1.0)) / (1 - rho), max_batch)
        if abs(nxt - b) < 1e-9:
            break
        b = nxt
    return b, step_s(max(b, 1.0)) / (1 - rho)


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

    The rows of :func:`_token_options` as a table; see there for the model.
    """
    return pd.DataFrame(_token_options(service, pool, catalog))


def _token_options(service: InferenceService, pool: PoolSpec, catalog: Catalog) -> list[dict]:
    """Token-level serving estimate for each tensor-parallel size, one dict per size.

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
        # any load needs one replica, however small the QPS (rounding must not make none)
        replicas = max(1, math.ceil(round(service.peak_qps / capacity, 9)))

        def step_of(b: float, tp=tp) -> float:
            return decode_step_seconds(weights, b * kv_tok * mean_ctx, tp * bw,
                                       service.memory_bandwidth_utilization,
                                       2 * active * b, tp * peak, service.compute_mfu)  # fmt: skip

        load_b, tpot = decode_at_load(service.peak_qps / replicas, prefill,
                                      service.output_tokens, step_of, batch)  # fmt: skip
        target = service.tpot_target_ms / 1e3 if service.tpot_target_ms else None
        meets_tpot = target is None or step_of(1.0) <= target
        if target is not None and meets_tpot:
            # more replicas, fewer sequences each, until each step is short enough
            while tpot > target and replicas < 1_000_000:
                replicas += max(1, replicas // 20)
                load_b, tpot = decode_at_load(service.peak_qps / replicas, prefill,
                                              service.output_tokens, step_of, batch)  # fmt: skip
            meets_tpot = tpot <= target
        meets_ttft = service.ttft_target_s is None or prefill <= service.ttft_target_s
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
            "token_binding": bind, "load_seqs": load_b, "load_tpot_ms": tpot * 1e3,
            "load_latency_s": prefill + service.output_tokens * tpot,
            "meets_targets": bool(meets_tpot and meets_ttft),
        })  # fmt: skip
    return rows


#: The chosen layout's columns that the inference row carries.
CHOSEN_COLUMNS = ("tensor_parallel", "weights_gb", "kv_cache_bytes_per_token",
                  "concurrent_seqs", "decode_step_ms", "decode_tokens_per_s_per_seq",
                  "decode_tokens_per_s", "ttft_s", "latency_s", "replica_qps", "replicas",
                  "token_binding", "load_seqs", "load_tpot_ms", "load_latency_s")  # fmt: skip


def _chosen_values(options: list[dict], best: int) -> dict:
    """Option ``best``'s :data:`CHOSEN_COLUMNS` as the options table
    (:func:`inference_token_model`) holds them: numpy scalars, and whole numbers as floats
    where another option left the column empty (a column with gaps is a float column)."""
    values = {}
    for key in CHOSEN_COLUMNS:
        if key == "token_binding":
            values[key] = options[best][key]
        else:
            values[key] = np.array([o.get(key, math.nan) for o in options])[best]
    return values


def size_inference(
    service: InferenceService, pool: PoolSpec, catalog: Catalog
) -> tuple[dict, list[Finding]]:
    """Size one service both ways (planning rule, token model) and say which binds."""
    acc = catalog.accelerator(pool.accelerator)
    options = _token_options(service, pool, catalog)
    in_flight = service.peak_qps * service.mean_latency_s
    viable = [i for i, o in enumerate(options) if o["fits"]]
    if service.concurrency_per_instance is not None:
        per_instance = service.gpus_per_instance
        if per_instance is None:
            per_instance = min(options[i]["tensor_parallel"] for i in viable) if viable else 1
        _, rule_instances, rule = planning_rule_instances(
            service.peak_qps, service.mean_latency_s, service.concurrency_per_instance,
            per_instance,
        )  # fmt: skip
        rule_basis = "instance"
    else:
        rule = inference_gpus_planning_rule(service.peak_qps, service.mean_latency_s,
                                            service.concurrency_per_gpu)  # fmt: skip
        rule_instances, per_instance, rule_basis = math.nan, math.nan, "gpu"
    found: list[Finding] = []
    window = context_window(service, catalog)
    tokens = service.prompt_tokens + service.output_tokens
    if window is not None and tokens > window:
        data = {"tokens": tokens, "model": service.model, "window": window}
        found.append(Finding("error", "workload", service.name, "context_exceeds_window", data))
    if not viable:
        largest = max(options, key=lambda o: o["tensor_parallel"])  # the first of the largest
        weights, tp = float(largest["weights_gb"]), int(largest["tensor_parallel"])
        if float(largest["kv_free_gb"]) <= 0:
            data = {"weights": weights, "tp": tp, "accelerator": acc["name"]}
            found.append(Finding("error", "workload", service.name, "weights_do_not_fit", data))
        else:  # the weights fit, but not even one request's KV cache beside them
            seq_gb = float(largest["kv_cache_bytes_per_token"]) * tokens / GB
            found.append(Finding("error", "workload", service.name, "kv_does_not_fit",
                                 {"tokens": tokens, "seq_gb": seq_gb, "tp": tp,
                                  "free_gb": float(largest["kv_free_gb"]),
                                  "accelerator": acc["name"]}))  # fmt: skip
        best = None
        token_gpus = math.nan
    else:
        meeting = [i for i in viable if options[i]["meets_targets"]]
        if not meeting:
            found.append(Finding("error", "workload", service.name, "targets_unreachable",
                                 {"ttft": service.ttft_target_s or math.nan,
                                  "tpot": service.tpot_target_ms or math.nan,
                                  "best_ttft": min(options[i]["ttft_s"] for i in viable),
                                  "best_tpot": min(options[i]["decode_step_ms"]
                                                   for i in viable),
                                  "accelerator": acc["name"]}))  # fmt: skip
            meeting = viable
        # fewest GPUs, then the smallest tensor-parallel size (one option per size)
        pick = min(meeting, key=lambda i: (options[i]["gpus"], options[i]["tensor_parallel"]))
        best = _chosen_values(options, pick)
        token_gpus = int(options[pick]["gpus"])
    required = rule if best is None else max(rule, token_gpus)
    if best is None:
        binding = "no_fit"  # an error finding says why; the rule's count is not a plan
    else:
        binding = "planning_rule" if rule >= token_gpus else "token_model"
    gpus = whole_servers(required, pool.gpus_per_server)
    row = {
        "service": service.name, "accelerator": acc["name"], "peak_qps": service.peak_qps,
        "in_flight": in_flight, "rule_basis": rule_basis, "rule_instances": rule_instances,
        "gpus_per_instance": per_instance,
        "rule_gpus": rule, "token_gpus": token_gpus, "gpus_required": required,
        "gpus": gpus, "servers": gpus // pool.gpus_per_server, "binding": binding,
    }  # fmt: skip
    # The same columns whether or not a layout fits (empty when none does), so later
    # stages and views never meet a missing column.
    for key in CHOSEN_COLUMNS:
        row[key] = best[key] if best is not None else (math.nan if key != "token_binding" else "")
    if best is not None:
        # Warn only when the load the service really carries misses the brief's latency.
        if best["load_latency_s"] > service.mean_latency_s * 1.5:
            found.append(Finding("warning", "workload", service.name, "latency_mismatch",
                                 {"model_s": best["load_latency_s"],
                                  "rule_s": service.mean_latency_s}))  # fmt: skip
        if best["tensor_parallel"] > pool.gpus_per_server:
            found.append(Finding("warning", "workload", service.name, "tp_across_servers",
                                 {"tp": int(best["tensor_parallel"]),
                                  "per_server": pool.gpus_per_server}))  # fmt: skip
    if best is not None:
        found.append(Finding("info", "workload", service.name, f"inference_{binding}",
                             {"rule": rule, "token": token_gpus, "gpus": gpus}))  # fmt: skip
    return row, found


def context_window(service: InferenceService, catalog: Catalog) -> int | None:
    """The catalogue model's context window [tokens], or None when unknown or custom.

    From ``context_tokens`` in ``data/models.csv`` (each model's config.json
    ``max_position_embeddings``).

    >>> import hubplan
    >>> context_window(InferenceService(model="Llama-2-70B"), hubplan.load_catalog())
    4096
    """
    if service.model is None or service.architecture is not None:
        return None
    window = catalog.model(service.model)["context_tokens"]
    return None if window != window else int(window)


# -- development and pools ---------------------------------------------------------------
