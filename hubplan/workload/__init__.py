"""Workload stage: how many accelerators the training, inference and development work needs.

Small cited formulas (each a pure function of numbers) in ``training``, ``inference`` and
``development``; the stage entry (``stage.py``) applies them to the scenario's
``workload`` section and the Catalog and returns DataFrames. Nothing here imports
widgets, charts or spreadsheets.

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
.. [Megatron] Shoeybi et al., "Megatron-LM: Training Multi-Billion Parameter Language
   Models Using Model Parallelism", arXiv 1909.08053, §3: two all-reduces per layer in
   the forward pass of tensor parallelism.
.. [NCCL] NVIDIA/nccl ``src/graph/tuning.cc`` (ring latency model: base + 2(n−1) steps);
   nccl-tests ``doc/PERFORMANCE.md`` (bus bandwidth = algorithm bandwidth × 2(n−1)/n);
   Thakur, Rabenseifner & Gropp, IJHPCA 19(1) 2005 (the ring all-reduce cost).
.. [Sarathi] Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with
   Sarathi-Serve", OSDI 2024: chunked prefill and stall-free batching; vLLM docs,
   "Optimization and Tuning" (chunked prefill, max_num_batched_tokens).
.. [Kingman] Kingman, "On queues in heavy traffic", J. R. Stat. Soc. B 24 (1962): the
   exponential approximation of waiting times; Pollaczek-Khinchine for the M/D/1 mean.
.. [MLPerf] MLCommons MLPerf Inference v4.0, Llama-2-70B server scenario: TTFT ≤ 2 s and
   TPOT ≤ 200 ms at p99.
.. [aiconfigurator] NVIDIA aiconfigurator (PyPI ``aiconfigurator``,
   github.com/ai-dynamo/aiconfigurator): a serving model built on measured kernel timings;
   its figures for a few services are in ``data/aiconfigurator_reference.csv``.
"""

from ..core.units import GB
from ..pools import whole_servers
from .demand import POOL_KINDS, pool_table
from .development import development_gpu_count
from .inference import (
    decode_step_seconds,
    inference_gpus_planning_rule,
    inference_step_times,
    inference_token_model,
    kv_cache_bytes_per_token,
    md1_wait_quantile_s,
    ring_allreduce_seconds,
    size_inference,
    tensor_parallel_link,
)
from .model import ELEMENT_BYTES, ModelShape, resolve_model
from .section import (
    Architecture,
    DevelopmentPool,
    InferenceService,
    Overlap,
    TrainingJob,
    Workload,
)
from .training import (
    OPTIMIZER_BYTES,
    QLORA_BASE_BYTES_PER_PARAM,
    SECONDS_PER_DAY,
    activation_bytes_per_layer,
    lora_trainable_params,
    memory_bound_gpu_count,
    model_state_bytes,
    size_training,
    training_days,
    training_flops,
    training_gpu_count,
    training_gpus_vs_days,
    training_memory,
    training_on_gpus,
    zero_state_bytes_per_gpu,
)

__all__ = [
    "ELEMENT_BYTES",
    "GB",
    "OPTIMIZER_BYTES",
    "POOL_KINDS",
    "QLORA_BASE_BYTES_PER_PARAM",
    "SECONDS_PER_DAY",
    "Architecture",
    "DevelopmentPool",
    "InferenceService",
    "ModelShape",
    "Overlap",
    "TrainingJob",
    "Workload",
    "activation_bytes_per_layer",
    "decode_step_seconds",
    "development_gpu_count",
    "inference_gpus_planning_rule",
    "inference_step_times",
    "inference_token_model",
    "kv_cache_bytes_per_token",
    "lora_trainable_params",
    "md1_wait_quantile_s",
    "memory_bound_gpu_count",
    "model_state_bytes",
    "pool_table",
    "resolve_model",
    "ring_allreduce_seconds",
    "size_inference",
    "size_training",
    "tensor_parallel_link",
    "training_days",
    "training_flops",
    "training_gpu_count",
    "training_gpus_vs_days",
    "training_memory",
    "training_on_gpus",
    "whole_servers",
    "zero_state_bytes_per_gpu",
]
