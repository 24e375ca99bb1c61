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
from ..core.units import GB
from ..pools import PoolSpec, whole_servers
from .model import ELEMENT_BYTES, resolve_model
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


# -- collective cost over the scale-up link ----------------------------------------------

#: Ring all-reduce latency terms of NCCL's own cost model (NVIDIA/nccl
#: ``src/graph/tuning.cc``, ``baseLat`` and ``hwLat``, Ring with the LL protocol NCCL picks
#: for the small messages of decode): a 3.6 µs base per call plus 0.47 µs per step over
#: NVLink and 1.0 µs per step over PCIe. [s]
ALLREDUCE_BASE_LATENCY_S = 3.6e-6
HOP_LATENCY_S = {"scaleup": 0.47e-6, "pcie": 1.0e-6}

#: PCIe x16 bandwidth per direction [GB/s]: 8 / 16 / 32 GT/s per lane for Gen 3 / 4 / 5
#: with 128b/130b encoding (PCI-SIG base specifications 3.0-5.0) → 15.75 / 31.5 / 63;
#: Gen 6 at 64 GT/s PAM4 with FLIT encoding ≈ 121 (PCI-SIG PCIe 6.0 FAQ).
PCIE_X16_GB_S = {3: 15.75, 4: 31.5, 5: 63.0, 6: 121.0}

#: All-reduces per transformer layer in Megatron tensor parallelism: one after the
#: attention block, one after the MLP, forward pass only (Shoeybi et al. 2019,
#: arXiv 1909.08053 §3 and Fig. 4, the g operators of the forward pass).
ALLREDUCES_PER_LAYER = 2

#: Bytes per activation element on the wire: serving engines all-reduce BF16/FP16
#: activations (TensorRT-LLM and vLLM default), whatever the weight precision.
ACTIVATION_BYTES = 2.0


def ring_allreduce_seconds(
    message_bytes: float | np.ndarray,
    ranks: int | np.ndarray,
    link_gb_s: float | np.ndarray,
    hop_latency_s: float | np.ndarray,
    base_latency_s: float = ALLREDUCE_BASE_LATENCY_S,
) -> float | np.ndarray:
    """Time of one ring all-reduce of ``message_bytes`` over ``ranks`` GPUs. [s]

    Notes
    -----
    The α-β model of the ring algorithm (Thakur, Rabenseifner & Gropp, "Optimization of
    Collective Communication Operations in MPICH", IJHPCA 2005, §4.4; NCCL's
    ``ncclTopoTuneModel``): 2(n−1) steps, each moving 1/n of the message over one link, so
    t = base + 2(n−1)·hop + 2(n−1)/n · S / B, with B the per-direction link bandwidth
    (nccl-tests ``doc/PERFORMANCE.md``: bus bandwidth = algorithm bandwidth × 2(n−1)/n).
    One GPU needs no all-reduce.

    Examples
    --------
    A 16 MiB BF16 all-reduce over 8 H100s (NVLink 4: 900 GB/s total, 450 GB/s each way):
    3.6 + 14 × 0.47 = 10.18 µs of latency plus 1.75 × 16 777 216 / 450e9 = 65.24 µs.

    >>> round(ring_allreduce_seconds(16 * 2**20, 8, 450, 0.47e-6) * 1e6, 2)
    75.42
    >>> ring_allreduce_seconds(1e6, 1, 450, 0.47e-6)
    0.0
    """
    n = np.asarray(ranks, dtype=float)
    steps = 2 * (n - 1)
    with np.errstate(invalid="ignore"):
        t = (
            base_latency_s
            + steps * hop_latency_s
            + steps / n * message_bytes / (np.asarray(link_gb_s) * 1e9)
        )
    out = np.where(n > 1, t, 0.0 * np.asarray(message_bytes))
    return float(out) if out.ndim == 0 else out


def tensor_parallel_link(acc: pd.Series, tp: int) -> tuple[float, float, str]:
    """(bandwidth per direction [GB/s], latency per ring step [s], kind) of the link a
    ``tp``-wide replica's all-reduces run over.

    Within the accelerator's scale-up domain (``scaleup_domain_gpus``) the catalogue's
    ``scaleup_bw_gb_s`` (the vendor's bidirectional total, e.g. 900 GB/s for NVLink 4 on
    H100 SXM, NVIDIA H100 datasheet) halved; beyond it, or without a scale-up link (L40S,
    L4), PCIe x16 of the card's generation (:data:`PCIE_X16_GB_S`). NCCL's NVLink step
    latency is used for every vendor's scale-up link (no other published figure).
    (nan, nan, "unknown") when the catalogue has neither figure.

    >>> import hubplan
    >>> cat = hubplan.load_catalog()
    >>> tensor_parallel_link(cat.accelerator("H100 SXM5 80GB"), 8)
    (450.0, 4.7e-07, 'scaleup')
    >>> tensor_parallel_link(cat.accelerator("L40S 48GB"), 4)
    (31.5, 1e-06, 'pcie')
    """
    if tp <= 1:
        return math.inf, 0.0, "none"
    domain, bw = acc["scaleup_domain_gpus"], acc["scaleup_bw_gb_s"]
    kind = acc["scaleup_kind"] if isinstance(acc["scaleup_kind"], str) else ""
    if kind not in ("", "none") and bw == bw and bw > 0 and domain == domain and tp <= domain:
        return float(bw) / 2, HOP_LATENCY_S["scaleup"], "scaleup"
    gen = acc["pcie_gen"]
    if gen == gen and int(gen) in PCIE_X16_GB_S:
        return PCIE_X16_GB_S[int(gen)], HOP_LATENCY_S["pcie"], "pcie"
    return math.nan, math.nan, "unknown"


def decode_step_seconds(
    weight_bytes: float,
    kv_bytes_read,
    mem_bw_tb_s: float,
    mbu: float,
    flops,
    peak_tflops: float,
    mfu: float,
    collective_s=0.0,
):
    """Time of one engine step: the slower of streaming memory and doing the maths, plus
    the tensor-parallel all-reduces, which do not overlap them. [s]

    Every step reads all weights plus the batch's KV cache once [MBU]_; the compute
    ceiling is 2·N_active FLOPs per token processed (decode tokens and prefill-chunk
    tokens alike); ``collective_s`` is the step's all-reduce time
    (:func:`ring_allreduce_seconds` × 2 per layer, Megatron-LM §3).

    Llama-2-70B BF16 at batch 1 on 4 × H100 (3.35 TB/s each, NVIDIA H100 datasheet) at
    MBU 0.6: 140e9 / (4 × 3.35e12 × 0.6) = 17.41 ms, before the all-reduces.

    >>> round(float(decode_step_seconds(140e9, 0, 4 * 3.35, 0.6, 0, 1, 1)) * 1e3, 2)  # ms
    17.41
    """
    t_mem = (weight_bytes + kv_bytes_read) / (mem_bw_tb_s * 1e12 * mbu)
    t_compute = flops / (peak_tflops * 1e12 * mfu)
    return np.maximum(t_mem, t_compute) + collective_s


def md1_wait_quantile_s(rho, service_s, q: float):
    """Waiting time in an M/D/1 queue: the mean, or the ``q`` quantile. [s]

    Notes
    -----
    Mean wait (Pollaczek-Khinchine, deterministic service): W = ρ·S / (2(1 − ρ)). The
    tail uses the exponential approximation of the waiting time (Kingman 1962, "On queues
    in heavy traffic", J. R. Stat. Soc. B 24): an arrival waits with probability ρ, and
    then for an exponential time of mean W/ρ, so P(wait > t) ≈ ρ·exp(−t·ρ/W) and the
    q quantile is (W/ρ)·ln(ρ / (1 − q)) when ρ > 1 − q, else 0. ``q`` = None gives the mean.

    Examples
    --------
    Service 0.1 s at 80 % load: mean wait 0.8 × 0.1 / 0.4 = 0.2 s; p95 = 0.25 × ln(16)
    = 0.693 s; the median arrival (ρ > 0.5) waits 0.25 × ln 1.6 = 0.1175 s.

    >>> [round(float(md1_wait_quantile_s(0.8, 0.1, q)), 4) for q in (None, 0.95, 0.5)]
    [0.2, 0.6931, 0.1175]
    """
    rho = np.asarray(rho, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(rho < 1, rho * service_s / (2 * (1 - rho)), np.inf)
        if q is None:
            return mean
        cond = np.where(rho > 0, mean / np.where(rho > 0, rho, 1), 0.0)
        tail = cond * np.log(np.where(rho > 1 - q, rho / (1 - q), 1.0))
    return np.where(rho < 1, tail, np.inf)


#: Standard normal 95th percentile, for the Poisson count of decoding sequences.
Z95 = 1.6449


def _tp_candidates(service: InferenceService, pool: PoolSpec, acc: pd.Series) -> list[int]:
    """Tensor-parallel sizes to try: powers of two up to one server, or up to the
    scale-up domain where that is larger (GB200 NVL72). PCIe-only servers run tensor
    parallel over PCIe, slower but common for 8-card inference servers; a size whose link
    the catalogue does not describe is not tried (a given ``tensor_parallel`` is an error
    then, raised by :func:`_token_options`)."""
    if service.tensor_parallel is not None:
        return [service.tensor_parallel]
    domain = acc["scaleup_domain_gpus"]
    limit = max(pool.gpus_per_server, int(domain) if domain == domain else 1)
    return [
        t
        for t in (1, 2, 4, 8, 16, 32, 64)
        if t <= limit and not math.isnan(tensor_parallel_link(acc, t)[0])
    ]


def inference_token_model(
    service: InferenceService, pool: PoolSpec, catalog: Catalog
) -> pd.DataFrame:
    """Token-level serving estimate for each tensor-parallel size (one row per size).

    The rows of :func:`_token_options` as a table; see there for the model.
    """
    return pd.DataFrame(_token_options(service, pool, catalog))


class _Shape:
    """Per-service constants of the token model (bytes, FLOPs, the hardware roofline)."""

    def __init__(self, service: InferenceService, pool: PoolSpec, catalog: Catalog):
        acc = catalog.accelerator(pool.accelerator)
        shape, params, active = resolve_model(
            catalog, service.model, service.architecture, service.params
        )
        assert shape is not None  # the scenario requires model or architecture
        self.acc, self.shape, self.active = acc, shape, active
        self.peak = peak_tflops(acc, service.compute_precision)
        self.bw = float(acc["mem_bw_tb_s"])
        if math.isnan(self.bw):
            raise HubplanError(
                f"accelerator {acc['name']!r} has no sourced memory bandwidth (mem_bw_tb_s); "
                "the token-level inference estimate needs it: choose another accelerator or "
                "add it"
            )
        self.kv_tok = kv_cache_bytes_per_token(
            shape.layers,
            shape.kv_heads,
            shape.head_dim,
            ELEMENT_BYTES[service.kv_precision],
            shape.kv_lora_rank,
            shape.qk_rope_head_dim,
        )
        self.weights = params * ELEMENT_BYTES[service.weight_precision]
        self.svc = service
        self._links: dict[int, tuple[float, float, str]] = {}
        self._link_arrays: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def collective_s(self, tp, tokens):
        """All-reduce time of one step that carries ``tokens`` tokens (2 per layer)."""
        s, tp = self.shape, np.asarray(tp, dtype=float)
        key = (tp.shape, tuple(tp.ravel()))
        if key not in self._link_arrays:
            links = [self._link(int(t)) for t in tp.ravel()]
            bw = np.array([x[0] for x in links]).reshape(tp.shape)
            self._link_arrays[key] = (bw, np.array([x[1] for x in links]).reshape(tp.shape))
        bw, hop = self._link_arrays[key]
        one = ring_allreduce_seconds(
            tokens * s.hidden_size * ACTIVATION_BYTES,
            tp,
            bw * self.svc.collective_bw_utilization,
            hop,
        )
        return ALLREDUCES_PER_LAYER * s.layers * one

    def _link(self, tp: int) -> tuple[float, float, str]:
        if tp not in self._links:
            self._links[tp] = tensor_parallel_link(self.acc, tp)
        return self._links[tp]

    def step_s(self, tp, decode_seqs, prefill_tokens, collective=None):
        """One engine step: ``decode_seqs`` sequences decoding (mean context prompt +
        output/2) and ``prefill_tokens`` prompt tokens of a chunk. [s]"""
        svc = self.svc
        ctx = svc.prompt_tokens + svc.output_tokens / 2
        tokens = decode_seqs + prefill_tokens
        if collective is None:
            collective = self.collective_s(tp, tokens)
        return decode_step_seconds(
            self.weights,
            decode_seqs * self.kv_tok * ctx,
            tp * self.bw,
            svc.memory_bandwidth_utilization,
            2 * self.active * tokens,
            tp * self.peak,
            svc.compute_mfu,
            collective,
        )


def _serving(m: _Shape, tp, b):
    """The continuous-batching model at mean decode batch ``b`` (arrays broadcast).

    Chunked prefill (Sarathi-Serve, Agrawal et al., OSDI 2024; vLLM "chunked prefill"): a
    prompt of P tokens is split into chunks of at most C = ``prefill_chunk_tokens`` that
    ride in the same engine steps as the b decoding sequences, so decoding never stalls:
    an iteration without a prompt takes i₀ = step(b, 0), one with a chunk i_C = step(b, C).
    The prompt's service time is S = Σ over its ⌈P/C⌉ chunks of step(b, chunk); prompts
    queue FCFS for it, an M/D/1 queue per replica (Poisson arrivals split evenly) at load
    ρ = λS. A decoding sequence gets one token per iteration, so over time
    1/TPOT = (1 − ρ)/i₀ + ρ/ī_C (ī_C = S / chunks) and, by Little's law, b = λ·O·TPOT,
    which gives λ for each b in closed form:
    1/TPOT = (1/i₀) / (1 + (b·S/O)(1/i₀ − 1/ī_C)).
    Each sequence holds a decode slot for a time independent of the others, so the number
    decoding is the occupancy of an M/G/∞ system: Poisson with mean b (Kleinrock,
    "Queueing Systems", vol. 1, 1975, the M/G/∞ queue). Its 95th percentile, b + 1.645√b
    (normal approximation), sets the p95 TPOT and the KV cache the replica must hold; the
    median batch is ≈ b, so TPOT p50 is the mean. A request's TPOT averages over its
    output tokens, so the step-to-step swing of prompt chunks averages out of it.
    TTFT = S + the M/D/1 wait (:func:`md1_wait_quantile_s`).
    """
    svc = m.svc
    P, out_tokens = svc.prompt_tokens, svc.output_tokens
    C = min(svc.prefill_chunk_tokens, P)
    n = math.ceil(P / C)
    last = P - (n - 1) * C

    def steps(bb):
        comm0 = m.collective_s(tp, bb)
        i0 = m.step_s(tp, bb, 0, comm0)
        s_p = m.step_s(tp, bb, last)
        if n > 1:
            s_p = s_p + (n - 1) * m.step_s(tp, bb, C)
        return i0, s_p, comm0

    i0, s_p, comm0 = steps(b)
    i_bar = s_p / n
    u = (1 / i0) / (1 + (b * s_p / out_tokens) * (1 / i0 - 1 / i_bar))
    lam = b * u / out_tokens
    rho = lam * s_p
    b95 = b + Z95 * np.sqrt(b)
    i0_95, s_p95, _ = steps(b95)
    with np.errstate(divide="ignore", invalid="ignore"):
        tpot95 = 1 / ((1 - rho) / i0_95 + rho / (s_p95 / n))
    t_mem = (m.weights + b * m.kv_tok * (P + out_tokens / 2)) / (
        tp * m.bw * 1e12 * svc.memory_bandwidth_utilization
    )
    out = {
        "lam": lam,
        "rho": rho,
        "tpot": 1 / u,
        "tpot95": tpot95,
        "i0": i0,
        "s_p": s_p,
        "b95": b95,
        "ttft50": s_p + md1_wait_quantile_s(rho, s_p, 0.5),
        "ttft95": s_p + md1_wait_quantile_s(rho, s_p, 0.95),
        "mem_bound": t_mem >= i0 - comm0 - 1e-15,
    }
    shape = np.broadcast(tp, b).shape
    return {k: v if np.shape(v) == shape else np.broadcast_to(v, shape) for k, v in out.items()}


def inference_step_times(
    service: InferenceService,
    pool: PoolSpec,
    catalog: Catalog,
    tensor_parallel: int,
    batch: float,
) -> dict[str, float]:
    """The token model's engine steps for one replica, without queueing: the decode step
    at ``batch`` sequences (mean context prompt + output/2), its all-reduce share, and the
    prefill of one whole prompt on an idle replica. [s]

    These are the figures a static-batch benchmark measures (e.g. aiconfigurator's
    ``estimate --estimate-mode static``: TPOT at a batch, TTFT at batch 1).

    >>> import hubplan
    >>> svc = InferenceService(model="Llama-3.1-8B", prompt_tokens=1024, output_tokens=256)
    >>> t = inference_step_times(svc, PoolSpec(), hubplan.load_catalog(), 1, 1)
    >>> round(t["decode_step_s"] * 1e3, 2), t["collective_s"]
    (8.07, 0.0)
    """
    m = _Shape(service, pool, catalog)
    tp = np.array([float(tensor_parallel)])
    if tensor_parallel > 1 and math.isnan(m._link(tensor_parallel)[0]):
        raise HubplanError(
            f"tensor_parallel = {tensor_parallel} on {m.acc['name']!r}: the catalogue gives "
            "neither a scale-up link nor pcie_gen for its all-reduces"
        )
    return {
        "decode_step_s": float(m.step_s(tp, batch, 0)[0]),
        "collective_s": float(m.collective_s(tp, batch)[0]),
        "prefill_s": float(m.step_s(tp, 0, service.prompt_tokens)[0]),
    }


def _batch_grid(max_batch: int) -> np.ndarray:
    """Mean decode batches to evaluate: an idle replica (1e-9) first, every whole number up
    to 64, and a geometric sweep from 1e-3 to the cap: ~300 points, steps of under 3 %
    above 64."""
    whole = np.arange(1, min(max_batch, 64) + 1, dtype=float)
    sweep = np.geomspace(1e-3, max_batch, 240)
    return np.unique(np.concatenate([[1e-9], whole, sweep, [float(max_batch)]]))


def _check_tensor_parallel_link(service: InferenceService, acc: pd.Series) -> None:
    """An error when the service fixes a tensor-parallel size whose all-reduce link the
    catalogue does not give."""
    if service.tensor_parallel is not None and service.tensor_parallel > 1:
        if math.isnan(tensor_parallel_link(acc, service.tensor_parallel)[0]):
            raise HubplanError(
                f"tensor_parallel = {service.tensor_parallel} on {acc['name']!r}: the "
                "catalogue gives neither a scale-up link (scaleup_bw_gb_s, "
                "scaleup_domain_gpus) nor pcie_gen for its all-reduces; add them or use 1"
            )


def _batch_masks(
    service: InferenceService, g: dict[str, np.ndarray], cap: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per layout × mean batch: (stable, usable, meets the targets, meets the TPOT target,
    meets the TTFT target); usable = stable with its p95 batch within the KV room."""
    stable = np.isfinite(g["lam"]) & (g["rho"] < 1) & (g["lam"] > 0)
    holds = g["b95"] <= cap[:, None]
    tpot_ok = (
        np.ones_like(stable)
        if service.tpot_target_ms is None
        else g["tpot95"] * 1e3 <= service.tpot_target_ms
    )
    ttft_ok = (
        np.ones_like(stable)
        if service.ttft_target_s is None
        else g["ttft95"] <= service.ttft_target_s
    )
    usable = stable & holds
    meets = usable & tpot_ok & ttft_ok
    return stable, usable, meets, tpot_ok, ttft_ok


def _unplanned_limit(cap: float, stable: np.ndarray, max_batch: int) -> str:
    """What rules out a layout with no planned batch."""
    # what rules the layout out is known even though no batch is planned: no room
    # for one sequence's KV cache, no batch the prefill keeps up with, or none
    # whose p95 batch fits the KV room (or max_batch)
    return (
        "kv_memory"
        if cap < 1
        else "prefill_saturated"
        if not stable.any()
        else "kv_memory"
        if cap < max_batch
        else "batch_cap"
    )


def _plan_batch(
    peak_qps: float, lam: np.ndarray, grid: np.ndarray, ok: np.ndarray
) -> tuple[int, int, float]:
    """One layout's plan over the batch grid: (grid index of the batch with the most
    requests/s among ``ok``, replicas, the mean batch each replica carries)."""
    rate = np.where(ok, lam, -np.inf)
    j = int(np.argmax(rate))
    replicas = max(1, math.ceil(round(peak_qps / float(rate[j]), 9)))
    # the mean batch at which λ(b) equals the load each replica carries
    prefix = np.maximum.accumulate(lam[: j + 1])
    b_op = float(np.interp(peak_qps / replicas, prefix, grid[: j + 1]))
    return j, replicas, b_op


def _planned_values(
    service: InferenceService,
    t: int,
    plan: tuple[int, int, float],
    i: int,
    g: dict[str, np.ndarray],
    op: dict[str, np.ndarray],
    collective_s: float,
    limit: str,
    meets_targets: bool,
) -> dict:
    """Layout ``i``'s planned figures: at its planned batch (``g``) and at the load each
    replica carries (``op``)."""
    j, replicas, b_op = plan
    cap_qps = float(g["lam"][i, j])
    bind = (
        "prefill_compute"
        if g["rho"][i, j] >= 0.5
        else "decode_bandwidth"
        if g["mem_bound"][i, j]
        else "decode_compute"
    )
    tpot_op = float(op["tpot"][i, 0])
    return {
        "planned_batch": math.ceil(float(g["b95"][i, j]) - 1e-9),
        "decode_step_ms": float(g["i0"][i, j]) * 1e3,
        "collective_ms": collective_s * 1e3,
        "decode_tokens_per_s_per_seq": 1 / float(g["tpot"][i, j]),
        "decode_tokens_per_s": cap_qps * service.output_tokens,
        "ttft_s": float(g["s_p"][i, 0]),
        "latency_s": float(g["ttft50"][i, j] + service.output_tokens * g["tpot"][i, j]),
        "replica_qps": cap_qps,
        "replicas": replicas,
        "gpus": replicas * t,
        "fits": True,
        "limit": limit,
        "token_binding": bind,
        "load_seqs": b_op,
        "load_tpot_ms": tpot_op * 1e3,
        "ttft_p50_s": float(op["ttft50"][i, 0]),
        "ttft_p95_s": float(op["ttft95"][i, 0]),
        "tpot_p50_ms": tpot_op * 1e3,
        "tpot_p95_ms": float(op["tpot95"][i, 0]) * 1e3,
        "prefill_share": float(op["rho"][i, 0]),
        "load_latency_s": float(op["ttft50"][i, 0]) + service.output_tokens * tpot_op,
        "meets_targets": meets_targets,
        "best_ttft_s": float(g["ttft95"][i, 0]),
        "best_tpot_ms": float(g["tpot95"][i, 0]) * 1e3,
    }


def _token_options(service: InferenceService, pool: PoolSpec, catalog: Catalog) -> list[dict]:
    """Token-level serving estimate for each tensor-parallel size, one dict per size.

    Per replica of t GPUs: weights = N × bytes; KV free = t·VRAM·utilisation − weights;
    sequences that fit B = ⌊KV free / (KV bytes/token × (prompt + output))⌋ (capped by
    ``max_batch``). Engine steps per :func:`decode_step_seconds` with the tensor-parallel
    all-reduces (:func:`ring_allreduce_seconds`, 2 per layer); the continuous-batching
    model of :func:`_serving` over a grid of mean batches b (vectorised over t × b). The
    planned batch is the one with the most requests/s whose p95 batch fits B and whose p95
    TTFT and TPOT meet the targets; replicas = ⌈peak QPS ÷ that rate⌉; the latencies are
    then reported at the load each replica really carries (peak QPS ÷ replicas).
    """
    m = _Shape(service, pool, catalog)
    acc = m.acc
    tps = _tp_candidates(service, pool, acc)
    _check_tensor_parallel_link(service, acc)
    tp = np.array(tps, dtype=float)[:, None]
    seq_tokens = service.prompt_tokens + service.output_tokens
    free = tp[:, 0] * float(acc["vram_gb"]) * GB * service.gpu_memory_utilization - m.weights
    fit = np.where(free > 0, np.floor(np.maximum(free, 0) / (m.kv_tok * seq_tokens)), 0)
    cap = np.minimum(fit, service.max_batch)
    grid = _batch_grid(service.max_batch)[None, :]
    g = _serving(m, tp, grid)
    stable, usable, meets, tpot_ok, ttft_ok = _batch_masks(service, g, cap)
    rows: list[dict] = []
    plans: list[tuple[int, int, float] | None] = []
    for i, t in enumerate(tps):
        row = {
            "tensor_parallel": t,
            "weights_gb": m.weights / GB,
            "kv_free_gb": free[i] / GB,
            "kv_cache_bytes_per_token": m.kv_tok,
            "concurrent_seqs": int(cap[i]),
            "link_gb_s": tensor_parallel_link(acc, t)[0] if t > 1 else math.nan,
        }
        rows.append(row)
        if cap[i] < 1 or not usable[i].any():
            limit = _unplanned_limit(cap[i], stable[i], service.max_batch)
            row.update(
                {
                    "replicas": math.nan,
                    "gpus": math.nan,
                    "fits": False,
                    "meets_targets": False,
                    "limit": limit,
                }
            )
            plans.append(None)
            continue
        ok = meets[i] if meets[i].any() else usable[i]
        plans.append(_plan_batch(service.peak_qps, g["lam"][i], grid[0], ok))
    # every layout's operating point (the load it really carries) in one evaluation
    b_ops = np.array([[p[2] if p else 1.0] for p in plans])
    op = _serving(m, tp, b_ops)
    comm = m.collective_s(tp[:, 0], grid[0, [p[0] if p else 0 for p in plans]])
    for i, (t, plan) in enumerate(zip(tps, plans, strict=True)):
        if plan is None:
            continue
        limit = _batch_limit(plan[0], i, grid, g, cap, service, tpot_ok, ttft_ok, stable)
        rows[i].update(
            _planned_values(service, t, plan, i, g, op, float(comm[i]), limit, bool(meets[i].any()))
        )
    return rows


def _batch_limit(j, i, grid, g, cap, service, tpot_ok, ttft_ok, stable) -> str:
    """What stops the planned batch growing: the first constraint the next larger mean
    batch breaks (KV memory, the batch cap, a latency target, prefill saturation), or
    ``throughput_peak`` when a larger batch would only serve fewer requests per second."""
    if j + 1 >= grid.shape[1]:
        return "batch_cap"
    k = j + 1
    if g["b95"][i, k] > cap[i]:
        return "kv_memory" if cap[i] < service.max_batch else "batch_cap"
    if not tpot_ok[i, k]:
        return "tpot_target"
    if not ttft_ok[i, k]:
        return "ttft_target"
    if not stable[i, k]:
        return "prefill_saturated"
    return "throughput_peak"


#: The chosen layout's columns that the inference row carries.
CHOSEN_COLUMNS = (
    "tensor_parallel",
    "weights_gb",
    "kv_cache_bytes_per_token",
    "concurrent_seqs",
    "planned_batch",
    "link_gb_s",
    "decode_step_ms",
    "collective_ms",
    "decode_tokens_per_s_per_seq",
    "decode_tokens_per_s",
    "ttft_s",
    "latency_s",
    "replica_qps",
    "replicas",
    "limit",
    "token_binding",
    "load_seqs",
    "load_tpot_ms",
    "ttft_p50_s",
    "ttft_p95_s",
    "tpot_p50_ms",
    "tpot_p95_ms",
    "prefill_share",
    "load_latency_s",
)

#: Text columns among :data:`CHOSEN_COLUMNS`.
_TEXT_COLUMNS = ("limit", "token_binding")

#: The planning rule is a cross-check: a warning when it and the token model differ by
#: more than this factor either way. 2×: a generic per-GPU concurrency cannot be trusted
#: closer than that across models, cards and precisions (the token model differs from a
#: measured-data model by 0.8-1.2×; the rule was seen up to 5× off), and a smaller factor
#: would flag most services.
RULE_DISAGREEMENT_FACTOR = 2.0


def _chosen_values(options: list[dict], best: int) -> dict:
    """Option ``best``'s :data:`CHOSEN_COLUMNS` as the options table
    (:func:`inference_token_model`) holds them: numpy scalars, and whole numbers as floats
    where another option left the column empty (a column with gaps is a float column)."""
    values = {}
    for key in CHOSEN_COLUMNS:
        if key in _TEXT_COLUMNS:
            values[key] = options[best][key]
        else:
            values[key] = np.array([o.get(key, math.nan) for o in options])[best]
    return values


def _planning_rule(
    service: InferenceService, options: list[dict], viable: list[int]
) -> tuple[int, float, float, str]:
    """The planning rule's cross-check: (GPUs, instances, GPUs per instance, basis); the
    instances and GPUs per instance are NaN on the per-GPU form."""
    if service.concurrency_per_instance is not None:
        per_instance = service.gpus_per_instance
        if per_instance is None:
            per_instance = min(options[i]["tensor_parallel"] for i in viable) if viable else 1
        _, rule_instances, rule = planning_rule_instances(
            service.peak_qps,
            service.mean_latency_s,
            service.concurrency_per_instance,
            per_instance,
        )
        return rule, rule_instances, per_instance, "instance"
    rule = inference_gpus_planning_rule(
        service.peak_qps, service.mean_latency_s, service.concurrency_per_gpu
    )
    return rule, math.nan, math.nan, "gpu"


def _no_fit_findings(
    service: InferenceService, options: list[dict], tokens: int, acc: pd.Series
) -> list[Finding]:
    """Why no layout fits, on the widest tensor parallelism: the weights alone, or not
    even one request's KV cache beside them."""
    largest = max(options, key=lambda o: o["tensor_parallel"])  # the first of the largest
    weights, tp = float(largest["weights_gb"]), int(largest["tensor_parallel"])
    if float(largest["kv_free_gb"]) <= 0:
        return [
            Finding(
                "error",
                "workload",
                service.name,
                "weights_do_not_fit",
                {"weights": weights, "tp": tp, "accelerator": acc["name"]},
            )
        ]
    # the weights fit, but not even one request's KV cache beside them
    seq_gb = float(largest["kv_cache_bytes_per_token"]) * tokens / GB
    return [
        Finding(
            "error",
            "workload",
            service.name,
            "kv_does_not_fit",
            {
                "tokens": tokens,
                "seq_gb": seq_gb,
                "tp": tp,
                "free_gb": float(largest["kv_free_gb"]),
                "accelerator": acc["name"],
            },
        )
    ]


def _pick_layout(
    service: InferenceService, options: list[dict], viable: list[int], acc: pd.Series
) -> tuple[int, list[Finding]]:
    """The chosen option among the viable ones: the fewest GPUs (then the narrowest tensor
    parallelism) meeting the targets, or among all viable ones with a finding when none
    does."""
    found = []
    meeting = [i for i in viable if options[i]["meets_targets"]]
    if not meeting:
        found.append(
            Finding(
                "error",
                "workload",
                service.name,
                "targets_unreachable",
                {
                    "ttft": service.ttft_target_s or math.nan,
                    "tpot": service.tpot_target_ms or math.nan,
                    "best_ttft": min(options[i]["best_ttft_s"] for i in viable),
                    "best_tpot": min(options[i]["best_tpot_ms"] for i in viable),
                    "accelerator": acc["name"],
                },
            )
        )
        meeting = viable
    # fewest GPUs, then the smallest tensor-parallel size (one option per size)
    pick = min(meeting, key=lambda i: (options[i]["gpus"], options[i]["tensor_parallel"]))
    return pick, found


def _layout_findings(
    service: InferenceService, pool: PoolSpec, best: dict, rule: int, token_gpus: int, gpus: int
) -> list[Finding]:
    """Findings on the chosen layout: latency at the real load, tensor parallelism across
    servers, the planning rule's disagreement, and the token model's count."""
    found = []
    # Warn only when the load the service really carries misses the brief's latency.
    if best["load_latency_s"] > service.mean_latency_s * 1.5:
        found.append(
            Finding(
                "warning",
                "workload",
                service.name,
                "latency_mismatch",
                {"model_s": best["load_latency_s"], "rule_s": service.mean_latency_s},
            )
        )
    if best["tensor_parallel"] > pool.gpus_per_server:
        found.append(
            Finding(
                "warning",
                "workload",
                service.name,
                "tp_across_servers",
                {"tp": int(best["tensor_parallel"]), "per_server": pool.gpus_per_server},
            )
        )
    ratio = rule / token_gpus
    if not 1 / RULE_DISAGREEMENT_FACTOR <= ratio <= RULE_DISAGREEMENT_FACTOR:
        found.append(
            Finding(
                "warning",
                "workload",
                service.name,
                "rule_disagrees",
                {
                    "rule": rule,
                    "token": token_gpus,
                    "ratio": ratio,
                    "factor": RULE_DISAGREEMENT_FACTOR,
                },
            )
        )
    found.append(
        Finding(
            "info",
            "workload",
            service.name,
            "inference_token_model",
            {"rule": rule, "token": token_gpus, "gpus": gpus},
        )
    )
    return found


def size_inference(
    service: InferenceService, pool: PoolSpec, catalog: Catalog
) -> tuple[dict, list[Finding]]:
    """Size one service with the token model; the planning rule is a cross-check.

    The token model (:func:`_token_options`) sets the GPUs: the layout with the fewest
    GPUs (then the narrowest tensor parallelism) among those meeting the latency targets
    at p95. The planning rule (Little's law with a per-GPU or per-instance concurrency)
    is reported beside it, with a warning when the two differ by more than
    :data:`RULE_DISAGREEMENT_FACTOR`.
    """
    acc = catalog.accelerator(pool.accelerator)
    options = _token_options(service, pool, catalog)
    in_flight = service.peak_qps * service.mean_latency_s
    viable = [i for i, o in enumerate(options) if o["fits"]]
    rule, rule_instances, per_instance, rule_basis = _planning_rule(service, options, viable)
    found: list[Finding] = []
    window = context_window(service, catalog)
    tokens = service.prompt_tokens + service.output_tokens
    if window is not None and tokens > window:
        found.append(
            Finding(
                "error",
                "workload",
                service.name,
                "context_exceeds_window",
                {"tokens": tokens, "model": service.model, "window": window},
            )
        )
    meets = any(options[i]["meets_targets"] for i in viable)
    best: dict | None = None
    token_gpus: float = math.nan
    required = rule
    if not viable:
        found += _no_fit_findings(service, options, tokens, acc)
    else:
        pick, unreachable = _pick_layout(service, options, viable, acc)
        found += unreachable
        best = _chosen_values(options, pick)
        token_gpus = required = int(options[pick]["gpus"])
    binding = "no_fit" if best is None else "token_model"
    gpus = whole_servers(required, pool.gpus_per_server)
    row = {
        "service": service.name,
        "accelerator": acc["name"],
        "peak_qps": service.peak_qps,
        "in_flight": in_flight,
        "rule_basis": rule_basis,
        "rule_instances": rule_instances,
        "gpus_per_instance": per_instance,
        "rule_gpus": rule,
        "token_gpus": token_gpus,
        "gpus_required": required,
        "gpus": gpus,
        "servers": gpus // pool.gpus_per_server,
        "binding": binding,
        "rule_ratio": rule / token_gpus if best is not None else math.nan,
        "meets_targets": meets,
    }
    # The same columns whether or not a layout fits (empty when none does), so later
    # stages and views never meet a missing column.
    for key in CHOSEN_COLUMNS:
        row[key] = best[key] if best is not None else ("" if key in _TEXT_COLUMNS else math.nan)
    if best is not None:
        found += _layout_findings(service, pool, best, rule, required, gpus)
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
