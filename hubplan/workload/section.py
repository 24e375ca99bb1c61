"""The workload section: what the centre must carry (training, inference, development)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..core.section import Bytes, Quantity, Section

#: Plausibility ceilings: far above anything built, low enough that a typo (a missing
#: "e9" turned into "e19") is refused instead of sized into 1e40 GPUs.
#: 1e14 parameters is ~50x the largest published model (Kimi-K2, 1.04e12; data/models.csv);
#: 1e15 tokens is ~60x Llama 3's 15.6e12 training tokens (arXiv 2407.21783 §3.1);
#: 1e7 requests/s is ~100x the ~1e5 QPS of the largest public search front ends.
MAX_PARAMS = 1e14
MAX_TOKENS = 1e15
MAX_QPS = 1e7

TrainingPrecision = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8"]
WeightPrecision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]


class Architecture(Section):
    """A transformer's shape, for models not in ``data/models.csv``."""

    total_params: Quantity = Field(
        gt=0, le=MAX_PARAMS, description="All parameters; at most 1e14 (plausibility). [count]"
    )
    active_params: Quantity | None = Field(
        None,
        gt=0,
        le=MAX_PARAMS,
        description="Parameters active per token (MoE); empty = total. [count]",
    )
    layers: int = Field(gt=0, description="Transformer layers.")
    hidden_size: int = Field(gt=0, description="Model width h.")
    attention_heads: int = Field(gt=0, description="Query heads a.")
    kv_heads: int = Field(gt=0, description="Key/value heads (GQA); = attention_heads for MHA.")
    head_dim: int | None = Field(None, gt=0, description="Per-head width; empty = h / a.")
    ffn_hidden_size: int | None = Field(None, gt=0, description="MLP width (per expert).")
    kv_lora_rank: int | None = Field(None, gt=0, description="MLA latent KV rank (DeepSeek).")
    qk_rope_head_dim: int | None = Field(None, gt=0, description="MLA decoupled RoPE width.")


class TrainingJob(Section):
    """A pre-training or fine-tuning run that must finish by a deadline."""

    name: str = Field("training", min_length=1, description="Shown in tables.")
    model: str | None = Field(
        None, description="A model in data/models.csv: gives parameters and architecture."
    )
    architecture: Architecture | None = Field(
        None, description="The model's shape when it is not in the catalogue."
    )
    params: Quantity | None = Field(
        None,
        gt=0,
        le=MAX_PARAMS,
        description="Total parameters N; overrides the catalogue figure (e.g. the round "
        "70e9 of a planning brief). At most 1e14, ~50x the largest published model, so a "
        "typo is refused rather than sized. [count]",
    )
    active_params: Quantity | None = Field(
        None,
        gt=0,
        le=MAX_PARAMS,
        description="Activated parameters per token for MoE; empty = N. [count]",
    )
    method: Literal["full", "lora", "qlora"] = Field(
        "full",
        description="full: every weight trains (16 B/param mixed-precision Adam); lora: "
        "frozen BF16 base + adapters (Hu et al. 2021); qlora: 4-bit NF4 base (Dettmers et "
        "al. 2023).",
    )
    tokens: Quantity | None = Field(
        None,
        gt=0,
        le=MAX_TOKENS,
        description="Training tokens D per epoch. At most 1e15, ~60x Llama 3's 15.6T "
        "(arXiv 2407.21783 §3.1), so a typo is refused rather than sized. [tokens]",
    )
    data_bytes: Bytes | None = Field(
        None,
        gt=0,
        le=MAX_TOKENS * 64,
        description="Training text in bytes, when tokens are not known; at most 1e15 tokens "
        "at the 64 B/token ceiling of bytes_per_token. [B]",
    )
    bytes_per_token: float = Field(
        4.0,
        gt=0,
        le=64,
        description="Text bytes per token: ~4 characters per token for English BPE "
        "(OpenAI tokenizer guide); a Chinese character is 3 UTF-8 bytes and modern "
        "tokenizers pack ~1.3-1.5 characters per token, also ~4 B. [B/token]",
    )
    epochs: float = Field(1.0, gt=0, le=1000, description="Passes over the data.")
    days: float = Field(
        15.0,
        ge=0.1,
        le=3650,
        description="Deadline, calendar days; at least 0.1 (2.4 hours): shorter is no training "
        "run a centre is sized for. [d]",
    )
    precision: TrainingPrecision = Field(
        "bf16", description="Math precision of the matmuls; dense peak at this precision."
    )
    use_sparse: bool = Field(
        False, description="Size on the 2:4-sparse peak. Wrong for training; needs the force flag."
    )
    force_marketing_figure: bool = Field(
        False,
        description="Allow INT8 or sparse peaks for training sizing (a warning finding is "
        "still raised). Off: sizing training on them is an error.",
    )
    mfu: float = Field(
        0.45,
        gt=0,
        le=1,
        description="Model FLOPs utilisation: 0.45 is the planning rule (docs/architecture.md, "
        "planning rules); "
        "Llama 3 405B reached 38-43% BF16 MFU on 16K H100 (arXiv 2407.21783 Table 4). "
        "Outside 0.35-0.55 is warned; above 0.6 needs mfu_justification.",
    )
    mfu_justification: str = Field(
        "", description="Why an MFU above 0.6 is credible (required above 0.6)."
    )
    goodput: float = Field(
        0.9,
        gt=0,
        le=1,
        description="Share of wall-clock time that trains (failures, restarts, checkpoints "
        "excluded): Llama 3 405B kept >90% effective training time (arXiv 2407.21783 §3.3.4).",
    )
    time_margin: float = Field(
        0.30,
        ge=0,
        le=5,
        description="Schedule margin: the job is planned to finish in days / (1 + margin); "
        "0.30 is the planning rule (docs/architecture.md, planning rules).",
    )
    optimizer: Literal["adam_mixed", "adam_fp32", "adam_bf16_states", "sgd_momentum_mixed"] = Field(
        "adam_mixed",
        description="adam_mixed: 2+2+12 = 16 B/param (ZeRO paper §3.1); adam_fp32: 4+4+8 = "
        "16; adam_bf16_states: BF16 moments, FP32 master = 12; sgd_momentum_mixed: 2+2+8 = 12.",
    )
    zero_stage: Literal[0, 1, 2, 3] = Field(
        1, description="ZeRO-DP stage (Rajbhandari et al. 2019); 1 shards optimizer states."
    )
    tensor_parallel: int = Field(1, ge=1, le=512, description="Tensor-parallel degree t.")
    pipeline_parallel: int = Field(1, ge=1, le=512, description="Pipeline-parallel degree p.")
    sequence_parallel: bool = Field(
        True, description="Megatron sequence parallelism (shards LayerNorm/dropout by t)."
    )
    recompute: Literal["none", "selective", "full"] = Field(
        "selective",
        description="Activation recomputation (Korthikanti et al. 2022): selective drops "
        "the attention-score term at ~2-4% extra compute; full keeps only layer inputs.",
    )
    seq_len_tokens: int = Field(4096, ge=1, le=10_000_000, description="Sequence length s.")
    micro_batch: int = Field(1, ge=1, le=4096, description="Micro-batch size b per GPU.")
    memory_headroom: float = Field(
        2.0,
        ge=1,
        le=10,
        description="Memory-bound count = model state × headroom / VRAM; 2× leaves room "
        "for activations, buffers and fragmentation (docs/architecture.md, planning rules).",
    )
    lora_rank: int = Field(16, ge=1, le=4096, description="LoRA rank r on every linear layer.")

    @model_validator(mode="after")
    def _check(self) -> TrainingJob:
        if (self.tokens is None) == (self.data_bytes is None):
            raise ValueError("give exactly one of tokens or data_bytes")
        if self.model is None and self.architecture is None and self.params is None:
            raise ValueError("give model (a catalogue name), architecture or params")
        if self.mfu > 0.6 and not self.mfu_justification.strip():
            raise ValueError(
                f"mfu = {self.mfu}: above 0.6 needs mfu_justification (published large runs "
                "reach 0.38-0.55)"
            )
        marketing = self.precision == "int8" or self.use_sparse
        if marketing and not self.force_marketing_figure:
            which = "INT8" if self.precision == "int8" else "2:4-sparse"
            raise ValueError(
                f"precision = {self.precision!r}, use_sparse = {self.use_sparse}: training is "
                f"sized on dense floating-point peaks, not {which} figures; use bf16/fp16/fp8 "
                "dense, or set force_marketing_figure: true to override"
            )
        return self


class InferenceService(Section):
    """An online serving workload: the token model sizes it (engine steps, continuous
    batching, latency targets at load); the planning rule is a cross-check."""

    name: str = Field("inference", min_length=1, description="Shown in tables.")
    model: str | None = Field(None, description="A model in data/models.csv.")
    architecture: Architecture | None = Field(None, description="Shape when not catalogued.")
    params: Quantity | None = Field(
        None, gt=0, le=MAX_PARAMS, description="Overrides catalogue N; at most 1e14. [count]"
    )
    peak_qps: float = Field(
        10.0,
        gt=0,
        le=MAX_QPS,
        description="Peak requests per second. At most 1e7, ~100x the largest public web "
        "front ends, so a typo is refused rather than sized. [1/s]",
    )
    mean_latency_s: float = Field(
        10.0,
        gt=0,
        description="Mean end-to-end request time at peak, for the planning rule (a "
        "cross-check of the token model). [s]",
    )
    concurrency_per_gpu: float = Field(
        4.0,
        gt=0,
        description="Concurrent requests one GPU serves (planning rule, per-GPU form, a "
        "cross-check of the token model); used when concurrency_per_instance is empty.",
    )
    concurrency_per_instance: float | None = Field(
        None,
        gt=0,
        le=100_000,
        description="Concurrent requests one model instance (replica) serves, as a brief "
        "states it: in flight = peak QPS × mean latency (Little's law); instances = "
        "⌈in flight ÷ this⌉; GPUs = instances × gpus_per_instance. Empty = the per-GPU form.",
    )
    gpus_per_instance: int | None = Field(
        None,
        ge=1,
        le=72,
        description="GPUs per instance in the per-instance rule; empty = the token model's "
        "tensor-parallel size (the smallest that holds the model).",
    )
    ttft_target_s: float | None = Field(
        2.0,
        gt=0,
        le=600,
        description="Time-to-first-token target at peak load, met at p95 (queueing for the "
        "prefill included); binds the batch, the replicas and the tensor-parallel width. "
        "2 s is MLPerf Inference's Llama-2-70B server-scenario limit (MLCommons, v4.0, "
        "stated at p99). Empty = no target. [s]",
    )
    tpot_target_ms: float | None = Field(
        200.0,
        gt=0,
        le=10_000,
        description="Time-per-output-token target at peak load, met at p95; binds the batch "
        "per replica (a larger batch makes every step longer). 200 ms is MLPerf Inference's "
        "Llama-2-70B server-scenario limit (MLCommons, v4.0, stated at p99): about 5 "
        "tokens/s, reading speed; a chat service usually asks 30-50 ms. Empty = no "
        "target. [ms]",
    )
    prefill_chunk_tokens: int = Field(
        2048,
        ge=16,
        le=1_000_000,
        description="Chunked prefill: most prompt tokens one engine step carries beside "
        "the decoding sequences (Sarathi-Serve, Agrawal et al., OSDI 2024; vLLM "
        "max_num_batched_tokens). 2048 is vLLM's default for online serving with chunked "
        "prefill (docs.vllm.ai, Optimization and Tuning). [tokens]",
    )
    prompt_tokens: int = Field(1024, ge=1, description="Mean prompt length. [tokens]")
    output_tokens: int = Field(256, ge=1, description="Mean generated length. [tokens]")
    weight_precision: WeightPrecision = Field(
        "bf16", description="Precision of stored weights (bf16 2 B, fp8/int8 1 B, int4 0.5 B)."
    )
    kv_precision: Literal["fp32", "bf16", "fp16", "fp8", "int8"] = Field(
        "bf16", description="Precision of the KV cache."
    )
    compute_precision: Literal["bf16", "fp16", "fp8", "int8"] = Field(
        "bf16", description="Matmul precision for prefill/decode compute (dense peak)."
    )
    gpu_memory_utilization: float = Field(
        0.9,
        gt=0,
        le=1,
        description="Share of VRAM the server may use for weights + KV cache; vLLM's "
        "default gpu_memory_utilization is 0.9.",
    )
    memory_bandwidth_utilization: float = Field(
        0.6,
        gt=0,
        le=1,
        description="Achieved share of peak HBM bandwidth in decode (MBU); ~0.6 is typical "
        "of tuned servers at moderate batch (Databricks 'LLM Inference Performance "
        "Engineering', 2023).",
    )
    compute_mfu: float = Field(
        0.5,
        gt=0,
        le=1,
        description="MFU of prompt processing (prefill is compute-bound) and of the "
        "compute ceiling in decode; 0.5 sits between training MFU and dense-matmul peaks.",
    )
    collective_bw_utilization: float = Field(
        0.45,
        gt=0,
        le=1,
        description="Achieved share of the per-direction scale-up (or PCIe) bandwidth in the "
        "tensor-parallel all-reduces. 0.45: NCCL 2.29 all_reduce of 64 MiB over 8 H100 SXM "
        "measured at 0.579 ms, a bus bandwidth of 1.75 × 67.1 MB / 0.579 ms = 203 GB/s of "
        "the 450 GB/s NVLink 4 line rate (aiconfigurator 0.12.0 perf database, "
        "systems/data/h100_sxm/comm/nccl/2.29.2); nccl-tests reach ~0.8 with every SM "
        "given to NCCL, which a serving engine does not do.",
    )
    tensor_parallel: int | None = Field(
        None, ge=1, le=72, description="GPUs per model replica; empty = smallest that fits."
    )
    max_batch: int = Field(
        256, ge=1, description="Cap on concurrent sequences per replica (vLLM max_num_seqs 256)."
    )

    @model_validator(mode="after")
    def _check(self) -> InferenceService:
        if self.model is None and self.architecture is None:
            raise ValueError("give model (a catalogue name) or architecture")
        return self


class DevelopmentPool(Section):
    """Interactive development and debugging GPUs."""

    developers: int = Field(
        16,
        ge=0,
        le=1_000_000,
        description="People who need GPUs for development; at most 1e6 (plausibility: more "
        "than the engineering staff of any company).",
    )
    gpus_per_developer: float = Field(1.0, gt=0, le=64, description="GPUs each uses when active.")
    peak_active_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="Share of developers active at the busiest hour; 0.5 is an assumption "
        "to revisit with the client's team calendar.",
    )


class Overlap(Section):
    """How the pools' peaks coincide: pools are never summed blindly."""

    policy: Literal["dedicated", "shared"] = Field(
        "dedicated",
        description="dedicated: each pool owns its servers and the fleet is their sum. "
        "shared: pools on the same accelerator in servers of the same size are one "
        "scheduled fleet sized to the coincident peak Σ pool × coincidence, built once; "
        "each pool holds its share (largest remainders) and borrows at its own peak.",
    )
    training_coincidence: float = Field(1.0, ge=0, le=1, description="Share at fleet peak.")
    inference_coincidence: float = Field(1.0, ge=0, le=1, description="Share at fleet peak.")
    development_coincidence: float = Field(
        0.5, ge=0, le=1, description="Development is daytime-bursty: half its peak coincides."
    )


class Workload(Section):
    """Workload stage: what the centre must carry."""

    training: tuple[TrainingJob, ...] = Field(default=(), description="Training / fine-tune jobs.")
    inference: tuple[InferenceService, ...] = Field(default=(), description="Online services.")
    development: DevelopmentPool | None = Field(None, description="Development pool.")
    overlap: Overlap = Field(default_factory=Overlap, description="Peak-overlap policy.")

    @model_validator(mode="after")
    def _unique_names(self) -> Workload:
        for kind, items in (("training", self.training), ("inference", self.inference)):
            names = [item.name for item in items]
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise ValueError(
                    f"{kind} names must be unique (tables and findings key on them): "
                    f"{', '.join(repr(d) for d in dupes)} appears more than once"
                )
        return self
