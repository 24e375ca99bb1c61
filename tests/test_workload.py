"""Workload sizing against numbers worked out by hand or published in papers.

Every expected value below was computed independently of the code (the arithmetic is in
the comment) or is quoted from the cited source.
"""

import math
from pathlib import Path

import pandas as pd
import pytest

import hubplan
from hubplan.scenario import Architecture, InferenceService, PoolSpec, TrainingJob
from hubplan.workload import (
    activation_bytes_per_layer,
    development_gpu_count,
    inference_gpus_planning_rule,
    inference_step_times,
    inference_token_model,
    kv_cache_bytes_per_token,
    lora_trainable_params,
    md1_wait_quantile_s,
    memory_bound_gpu_count,
    model_state_bytes,
    resolve_model,
    size_inference,
    size_training,
    training_days,
    training_flops,
    training_gpu_count,
    training_memory,
    training_on_gpus,
    whole_servers,
    zero_state_bytes_per_gpu,
)

H100 = PoolSpec(accelerator="H100 SXM5 80GB", gpus_per_server=8)


# -- the worked example (issue 2): memory arithmetic ---------------------------------------


def test_worked_example_memory_arithmetic():
    # 70e9 params × 16 B (ZeRO §3.1: 2 + 2 + 12) = 1.12e12 B = 1 120 GB
    state = model_state_bytes(70e9, 16)
    assert state == 1_120e9
    # 1 120 / 80 = 14 cards just to hold it; × 2 headroom = 28; 8-GPU servers → 32
    assert memory_bound_gpu_count(state, 80, 1.0) == 14
    assert memory_bound_gpu_count(state, 80, 2.0) == 28
    assert whole_servers(28, 8) == 32


def test_sizing_rule_365_gpus():
    # 6 × 70e9 × 2e12 = 8.4e23 FLOP; one GPU-day at 989 TFLOPS × 0.45 = 3.845e19;
    # 8.4e23 / 3.845e19 / 60 days = 364.1 → 365 GPUs (issue 2's sizing rule).
    flops = training_flops(70e9, 2e12)
    assert flops == pytest.approx(8.4e23)
    assert training_gpu_count(flops, 989, 60, mfu=0.45, goodput=1, time_margin=0) == 365


def test_default_scenario_compute_check(default, catalog):
    row, findings = size_training(default.workload.training[0], default.pools.training, catalog)
    # 500 GB / 4 B per token = 125e9 tokens; 6 × 70e9 × 125e9 = 5.25e22 FLOP
    assert row["tokens"] == pytest.approx(125e9)
    assert row["flops"] == pytest.approx(5.25e22)
    # One GPU-day: 989.5e12 × 0.45 × 0.9 × 86 400 = 3.4625e19 → 1 516.3 GPU-days;
    # 15 / 1.3 = 11.54 days → 131.4 → 132 GPUs → 17 servers = 136.
    assert row["gpu_days"] == pytest.approx(1516.26, abs=0.01)
    assert row["compute_bound_gpus"] == 132
    assert row["memory_bound_gpus"] == 28
    assert (row["gpus"], row["servers"], row["binding"]) == (136, 17, "compute")
    # The 32-GPU memory answer would take 1 516.3 / 32 = 47.4 days for a 15-day deadline.
    assert row["days_on_memory_bound"] == pytest.approx(47.38, abs=0.01)
    msg = next(f for f in findings if f.code == "binding_compute").message()
    assert "47.4 days" in msg and "15-day deadline" in msg


def test_training_days_inverse():
    # 8.4e23 / (365 × 989e12 × 0.45 × 86 400) = 59.85 days
    assert training_days(8.4e23, 365, 989, 0.45, 1.0) == pytest.approx(59.850, abs=1e-3)


def test_on_gpus_solves_for_days(default, catalog):
    row, findings = training_on_gpus(default.workload.training[0], H100, catalog, 32)
    # 1 516.3 GPU-days / 32 = 47.38 days; with 30 % margin 61.6 > 15 → misses deadline
    assert row["days_to_finish"] == pytest.approx(47.38, abs=0.01)
    assert row["days_with_margin"] == pytest.approx(61.6, abs=0.05)
    assert row["meets_deadline"] is False
    _, findings = training_on_gpus(default.workload.training[0], H100, catalog, 10)
    assert any(f.code == "too_few_to_hold" and f.severity == "error" for f in findings)


def test_memory_binds_when_deadline_is_long(default, catalog):
    # 1 516.3 GPU-days spread over 3 000/1.3 days needs 1 GPU; memory needs 28 → 32.
    job = default.workload.training[0].model_copy(update={"days": 3000})
    row, _ = size_training(job, H100, catalog)
    assert (row["compute_bound_gpus"], row["gpus"], row["binding"]) == (1, 32, "memory")


def test_moe_uses_active_params_for_compute(catalog):
    # Mixtral-8x7B: 12.88e9 active of 46.7e9 (models.csv). 6 × 12.88e9 × 1e12 = 7.728e22.
    job = TrainingJob(model="Mixtral-8x7B", tokens=1e12, days=30)
    row, _ = size_training(job, H100, catalog)
    assert row["flops"] == pytest.approx(6 * 12_879_925_248 * 1e12)
    # Memory uses all 46.7e9 parameters: 46 702 792 704 × 16 B = 747.2 GB.
    assert row["model_state_gb"] == pytest.approx(747.24, abs=0.01)


# -- ZeRO and activations against the papers ------------------------------------------------


@pytest.mark.parametrize(
    ("stage", "expected_gb"),
    # ZeRO paper Table 1: 7.5 B parameters, N_d = 64 → 120, 31.4, 16.6, 1.88 GB
    [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.88)],
)
def test_zero_table1(stage, expected_gb):
    got = zero_state_bytes_per_gpu(7.5e9, stage, 64) / 1e9
    assert got == pytest.approx(expected_gb, abs=0.05)


def test_zero_1t_grid():
    # facts.md §5.2 grid (from the ZeRO formulas by hand): 1 T params, N_d = 1024:
    # P_os 4 011.7 GB, P_os+g 2 013.7 GB, P_os+g+p 15.6 GB
    got = [zero_state_bytes_per_gpu(1e12, s, 1024) / 1e9 for s in (1, 2, 3)]
    assert got == pytest.approx([4011.7, 2013.7, 15.6], abs=0.1)


@pytest.mark.parametrize(
    ("tp", "sp", "recompute", "expected_gb"),
    # GPT-3 175B layer (s 2048, b 1, h 12288, a 96), Korthikanti et al. Table 2 worked
    # by hand: none 2048·12288·(34 + 80) = 2.869 GB; TP8+SP 2048·12288·114/8 = 0.359 GB;
    # TP8+SP+selective 34·2048·12288/8 = 0.107 GB; full recompute 2·2048·12288 = 0.050 GB.
    [
        (1, False, "none", 2.869),
        (8, True, "none", 0.359),
        (8, True, "selective", 0.107),
        (1, False, "full", 0.050),
    ],
)
def test_korthikanti_gpt3(tp, sp, recompute, expected_gb):
    got = activation_bytes_per_layer(2048, 1, 12288, 96, tp, sp, recompute) / 1e9
    assert got == pytest.approx(expected_gb, abs=0.001)


def test_korthikanti_tp_without_sp():
    # Eq. 2, t = 8, no SP, no recompute: sbh(10 + 24/8 + 5·96·2048/(12288·8))
    # = 25 165 824 × (10 + 3 + 10) = 578.8e6 B
    got = activation_bytes_per_layer(2048, 1, 12288, 96, 8, False, "none")
    assert got == pytest.approx(2048 * 12288 * 23, rel=1e-12)


def test_default_layout_fits(default, catalog):
    mem, findings = training_memory(default.workload.training[0], H100, catalog, 136)
    # TP 8, ZeRO-1, DP 17: weights 2·70e9/8 = 17.5 GB, grads 17.5 GB,
    # optimizer 12·70e9/8/17 = 6.18 GB; activations 80 layers × 34·4096·8192/8 = 11.41 GB
    assert mem["data_parallel"] == 17
    assert mem["weights_gb"] == pytest.approx(17.5)
    assert mem["gradients_gb"] == pytest.approx(17.5)
    assert mem["optimizer_gb"] == pytest.approx(6.176, abs=1e-3)
    assert mem["activations_gb"] == pytest.approx(11.41, abs=0.01)
    assert mem["fits"] is True
    assert not [f for f in findings if f.severity == "error"]


def test_layout_that_overflows_is_an_error(default, catalog):
    # ZeRO-0, TP 1 on 70 B: 16 × 70e9 = 1 120 GB per GPU ≫ 80 GB
    job = default.workload.training[0].model_copy(update={"zero_stage": 0, "tensor_parallel": 1})
    mem, findings = training_memory(job, H100, catalog, 136)
    assert mem["total_gb"] > 1120
    assert any(f.code == "memory_overflow" and f.severity == "error" for f in findings)


# -- LoRA / QLoRA -----------------------------------------------------------------------------


def test_lora_params_llama2_70b(catalog):
    shape, _, _ = resolve_model(catalog, "Llama-2-70B", None, None)
    # r = 16: per layer q,o 16·(8192+8192)·2 + k,v 16·(8192+1024)·2 + MLP 16·(8192+28672)·3
    # = 524 288 + 294 912 + 1 769 472 = 2 588 672; × 80 layers = 207 093 760
    assert lora_trainable_params(shape, 16) == 207_093_760


def test_qlora_state_is_about_a_sixth_of_bf16(catalog):
    base = dict(model="Llama-2-70B", tokens=1e9, days=10)
    lora, _ = size_training(TrainingJob(**base, method="lora"), H100, catalog)
    qlora, _ = size_training(TrainingJob(**base, method="qlora"), H100, catalog)
    n, t = 68_976_648_192, 207_093_760
    # LoRA: 2 B/param frozen BF16 base + 16 B per adapter parameter
    assert lora["model_state_gb"] == pytest.approx((2 * n + 16 * t) / 1e9)
    # QLoRA: (4 + 0.127) bits per base parameter (QLoRA §3, double quantisation)
    assert qlora["model_state_gb"] == pytest.approx((4.127 / 8 * n + 16 * t) / 1e9)
    # LoRA skips weight gradients: 4·N·D instead of 6·N·D
    assert lora["flops"] == pytest.approx(4 * n * 1e9)


# -- inference ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("Llama-2-70B", 327_680),  # 2·80·8·128·2 = 320 KiB (facts §5.4; IETF bmwg draft)
        ("Llama-2-7B", 524_288),  # 2·32·32·128·2 = 512 KiB (MHA)
        ("Llama-3.1-8B", 131_072),  # 2·32·8·128·2 = 128 KiB
        ("Llama-3.1-405B", 516_096),  # 2·126·8·128·2 = 504 KiB
        ("DeepSeek-V3", 70_272),  # MLA: 61·(512 + 64)·2
    ],
)
def test_kv_cache_per_token(catalog, model, expected):
    shape, _, _ = resolve_model(catalog, model, None, None)
    got = kv_cache_bytes_per_token(
        shape.layers,
        shape.kv_heads,
        shape.head_dim,
        2.0,
        shape.kv_lora_rank,
        shape.qk_rope_head_dim,
    )
    assert got == expected


def test_kv_cache_4096_context_matches_ietf_draft():
    # draft-calabria-bmwg-ai-fabric-inference-bench: Llama-2-70B, 4 096 tokens → 1 342 177 280 B
    assert kv_cache_bytes_per_token(80, 8, 128, 2) * 4096 == 1_342_177_280


def test_planning_rule():
    # Little's law: 10 req/s × 8 s = 80 in flight; ÷ 16 per GPU = 5 GPUs
    assert inference_gpus_planning_rule(10, 8, 16) == 5
    # 100 × 2 / 3 = 66.7 → 67
    assert inference_gpus_planning_rule(100, 2, 3) == 67


def test_weights_that_never_fit(catalog):
    # Llama-3.1-405B in BF16 is 2 × 405.85e9 = 811.7 GB; a whole 8 × L40S server offers
    # 8 × 48 × 0.9 = 345.6 GB: nothing fits → an error finding, the rule still shown,
    # but the binding says "no fit" rather than passing the rule off as the plan.
    svc = InferenceService(model="Llama-3.1-405B")
    row, findings = size_inference(svc, PoolSpec(accelerator="L40S 48GB"), catalog)
    assert any(f.code == "weights_do_not_fit" and f.severity == "error" for f in findings)
    assert math.isnan(row["token_gpus"])
    assert row["binding"] == "no_fit"
    assert not any(f.code == "inference_token_model" for f in findings)


def test_custom_architecture(catalog):
    # A custom GQA model: 2 × 40 layers × 4 KV heads × 128 × 1 B (FP8 KV) = 40 960 B/token
    arch = Architecture(
        total_params=30e9, layers=40, hidden_size=6144, attention_heads=48, kv_heads=4
    )
    svc = InferenceService(architecture=arch, kv_precision="fp8")
    row, _ = size_inference(svc, H100, catalog)
    assert row["kv_cache_bytes_per_token"] == 40_960


def test_development_pool():
    from hubplan.scenario import DevelopmentPool

    # 16 developers × 1 GPU × 0.5 active = 8; 10 × 2 × 0.3 = 6
    assert development_gpu_count(DevelopmentPool()) == 8
    assert (
        development_gpu_count(
            DevelopmentPool(developers=10, gpus_per_developer=2, peak_active_share=0.3)
        )
        == 6
    )


# -- bad input ------------------------------------------------------------------------------


def test_calculators_reject_bad_numbers():
    with pytest.raises(hubplan.InputError, match=r"mfu = 0: must be > 0 and <= 1"):
        training_gpu_count(1e23, 989, 30, mfu=0)
    with pytest.raises(hubplan.InputError, match="days"):
        training_gpu_count(1e23, 989, -1)
    with pytest.raises(hubplan.InputError, match="zero_stage = 4"):
        zero_state_bytes_per_gpu(1e9, 4, 8)


def test_missing_catalogue_figure_is_an_error_not_a_guess(catalog):
    # A100 has no FP8: sizing FP8 training on it must fail naming the column.
    job = TrainingJob(params=7e9, tokens=1e12, precision="fp8")
    with pytest.raises(hubplan.CatalogError, match="fp8_dense_tflops is empty"):
        size_training(job, PoolSpec(accelerator="A100 SXM4 80GB"), catalog)


# -- against a published real run --------------------------------------------------------------


def test_llama_3_1_405b_gpu_hours(catalog):
    # Llama 3 paper (arXiv 2407.21783): 405B trained on 15.6 T tokens at 38-43 % BF16 MFU
    # (Table 4) with >90 % effective training time. Llama 3.1 model card
    # (meta-llama/llama-models MODEL_CARD.md): 30.84 M H100-80GB GPU-hours.
    # Hand: 6 × 405.85e9 × 15.6e12 = 3.799e25 FLOP; / (989.5e12 × MFU × 0.9 × 3600)
    # = 31.18 M hours at MFU 0.38, 27.56 M at 0.43.
    def million_hours(mfu):
        job = TrainingJob(model="Llama-3.1-405B", tokens=15.6e12, mfu=mfu, goodput=0.9, days=60)
        row, _ = size_training(job, H100, catalog)
        return row["gpu_days"] * 24 / 1e6

    low_mfu, high_mfu = million_hours(0.38), million_hours(0.43)
    assert low_mfu == pytest.approx(31.18, abs=0.01)
    assert high_mfu == pytest.approx(27.56, abs=0.01)
    published = 30.84
    assert high_mfu < published < low_mfu  # the real run sits inside the paper's MFU range
    assert published == pytest.approx(low_mfu, rel=0.02)


def test_gpu_count_rounds_to_whole_layout_groups_and_servers(default):
    # TP 4 × PP 3 = 12-GPU replicas in 8-GPU servers: the pool grows in lcm(12, 8) = 24.
    # The deadline needs 132 GPUs (worked example) → ⌈132 / 24⌉ × 24 = 144 GPUs, i.e.
    # 12 data-parallel replicas in 18 servers (whole servers alone would give 136).
    s = default.with_changes(
        {"workload.training.0.tensor_parallel": 4, "workload.training.0.pipeline_parallel": 3}
    )
    row = hubplan.build_plan(s)["training"].iloc[0]
    assert row["layout_step_gpus"] == 24
    assert row["gpus"] == 144 and row["servers"] == 18


def test_memory_binding_counts_the_layout_not_only_the_state(default):
    # QLoRA on the 70 B model, TP 1: the NF4 base is 70e9 × 4.127 / 8 = 36.1 GB and the
    # "state × headroom" rule needs 1 GPU, but one GPU of the layout also holds the
    # activations of 80 layers at s = 4096 without tensor parallelism (Korthikanti Eq. 2 with
    # selective recompute: 34 · s · b · h = 34 × 4096 × 8192 B = 1.14 GB per layer,
    # 91.3 GB in all): 128 GB per GPU whatever the data parallelism, more than 80 GB.
    # That is an error, not "memory needs 1 GPU".
    s = default.with_changes(
        {"workload.training.0.method": "qlora", "workload.training.0.tensor_parallel": 1}
    )
    plan = hubplan.build_plan(s)
    mem = plan["training_memory"].iloc[0]
    assert 127 < mem["total_gb"] < 130 and not mem["fits"]
    errors = set(plan.errors["code"])
    assert "layout_cannot_fit" in errors
    # The default layout (TP 8) fits at its compute-bound size: no such error there.
    assert "layout_cannot_fit" not in set(hubplan.build_plan(default).findings["code"])


def test_context_longer_than_the_window_is_an_error(catalog):
    # Llama-2-70B's config.json: max_position_embeddings 4096. 10 000 000 + 256 tokens > 4096.
    svc = InferenceService(model="Llama-2-70B", prompt_tokens=10_000_000)
    row, findings = size_inference(svc, H100, catalog)
    by_code = {f.code: f for f in findings}
    err = by_code["context_exceeds_window"]
    assert err.severity == "error"
    assert (err.params["tokens"], err.params["window"]) == (10_000_256, 4096)
    # One request's KV cache: 10 000 256 × 327 680 B = 3 276.9 GB; beside 140 GB of BF16
    # weights (2 × 68.98e9 = 137.96 GB) 8 × 80 × 0.9 − 137.96 = 438.0 GB is left.
    assert by_code["kv_does_not_fit"].params["seq_gb"] == pytest.approx(3276.9, abs=0.1)
    assert row["binding"] == "no_fit" and math.isnan(row["token_gpus"])


def test_context_within_the_window_is_not_flagged(catalog):
    # 3 840 + 256 = 4 096 tokens: exactly Llama-2-70B's window.
    svc = InferenceService(model="Llama-2-70B", prompt_tokens=3840)
    _, findings = size_inference(svc, H100, catalog)
    assert not any(f.severity == "error" for f in findings)


def test_kv_cache_that_never_fits_names_the_cause(catalog):
    # Llama-3.1-8B (131 072-token window) with a 120 000-token prompt on one L4 24GB
    # (TP capped at 1): weights 16.06 GB, usable 24 × 0.9 = 21.6 GB, free 5.54 GB;
    # one request needs 120 256 × 131 072 B = 15.76 GB of KV cache.
    svc = InferenceService(model="Llama-3.1-8B", prompt_tokens=120_000, tensor_parallel=1)
    _, findings = size_inference(svc, PoolSpec(accelerator="L4 24GB"), catalog)
    f = next(f for f in findings if f.code == "kv_does_not_fit")
    assert f.severity == "error"
    assert f.params["seq_gb"] == pytest.approx(15.76, abs=0.01)
    assert f.params["free_gb"] == pytest.approx(5.54, abs=0.01)
    assert not any(f.code == "weights_do_not_fit" for f in findings)


def test_missed_deadline_on_given_gpus_is_a_warning(default, catalog):
    # 1 516.3 GPU-days / 32 = 47.4 days, × 1.3 = 61.6 > 15: warned, naming the 136 needed.
    _, findings = training_on_gpus(default.workload.training[0], H100, catalog, 32)
    f = next(f for f in findings if f.code == "deadline_missed")
    assert f.severity == "warning" and f.params["needed"] == 136
    # 1 516.3 / 136 × 1.3 = 14.5 days ≤ 15: met, no warning.
    _, findings = training_on_gpus(default.workload.training[0], H100, catalog, 136)
    assert not any(f.code == "deadline_missed" for f in findings)


def test_planning_rule_per_instance_as_the_brief_states_it(default):
    # 20 QPS × 6 s = 120 requests in flight; 16 per instance → 7.5 → 8 instances; two GPUs
    # each → 16 GPUs.
    s = default.with_changes(
        {
            "workload.inference.0.peak_qps": 20,
            "workload.inference.0.mean_latency_s": 6,
            "workload.inference.0.concurrency_per_instance": 16,
            "workload.inference.0.gpus_per_instance": 2,
        }
    )
    row = hubplan.build_plan(s, until="workload")["inference"].iloc[0]
    assert row["rule_basis"] == "instance"
    assert (row["in_flight"], row["rule_instances"], row["rule_gpus"]) == (120, 8, 16)


# -- inference: the token model sizes, at load --------------------------------------------


def test_ring_allreduce_per_decode_step(catalog):
    # Llama-2-70B (80 layers, hidden 8192) on 4 × H100 SXM, one token: each all-reduce is
    # 8192 × 2 B = 16 384 B. NVLink 4 is 900 GB/s in all (NVIDIA H100 datasheet) = 450 GB/s
    # each way, × 0.45 achieved = 202.5 GB/s. NCCL's ring model (src/graph/tuning.cc):
    # 3.6 µs + 2·3 × 0.47 µs = 6.42 µs, plus 2·3/4 × 16 384 / 202.5e9 = 0.121 µs
    # → 6.541 µs; 2 per layer (Megatron-LM §3) × 80 layers = 1.0466 ms.
    svc = InferenceService(model="Llama-2-70B", params=70e9)
    t = inference_step_times(svc, H100, catalog, 4, 1)
    assert t["collective_s"] * 1e3 == pytest.approx(1.0466, abs=1e-4)
    # Decode step: (140e9 + 1 × 1 152 × 327 680 B) / (4 × 3.35e12 × 0.6) = 17.460 ms of
    # HBM streaming, + 1.047 ms = 18.507 ms.
    assert t["decode_step_s"] * 1e3 == pytest.approx(18.507, abs=1e-3)
    # One GPU has nothing to all-reduce.
    assert inference_step_times(svc, H100, catalog, 1, 1)["collective_s"] == 0


def test_decode_step_llama_3_1_8b_one_h100(catalog):
    # 8 030 261 248 params × 2 B = 16.06 GB of BF16 weights; at H100's 3.35 TB/s (NVIDIA
    # H100 datasheet) that is 4.79 ms per step at full bandwidth; at MBU 0.6, with the
    # KV cache of one 1 152-token mean context (× 131 072 B): (16.06e9 + 0.151e9)
    # / (3.35e12 × 0.6) = 8.065 ms.
    svc = InferenceService(model="Llama-3.1-8B", prompt_tokens=1024, output_tokens=256)
    t = inference_step_times(svc, H100, catalog, 1, 1)
    assert t["decode_step_s"] * 1e3 == pytest.approx(8.065, abs=1e-3)


def test_tensor_parallel_8_no_longer_twice_as_fast(catalog):
    # Without all-reduces TP 8 halves TP 4's step exactly (17.46 / 8.73 ms = 2.0), which
    # measurements do not show: aiconfigurator 0.12.0 (TensorRT-LLM kernels measured on
    # H100 SXM, data/aiconfigurator_reference.csv) gives 15.81 / 9.95 = 1.59 at batch 1.
    # With the collective cost: TP 4 18.507 ms (above); TP 8: 8.730 + 160 × (3.6 + 14 ×
    # 0.47 + 1.75 × 16 384 / 202.5e9 µs) = 8.730 + 1.651 = 10.381 ms → 1.78.
    svc = InferenceService(model="Llama-2-70B", params=70e9)
    tp4 = inference_step_times(svc, H100, catalog, 4, 1)["decode_step_s"]
    tp8 = inference_step_times(svc, H100, catalog, 8, 1)["decode_step_s"]
    assert tp8 * 1e3 == pytest.approx(10.381, abs=1e-3)
    assert tp4 / tp8 == pytest.approx(1.78, abs=0.01)


def test_prefill_with_collectives_on_an_idle_replica(default, catalog):
    # 1 024-token prompt of the default 70B service on TP 4: compute 2 × 70e9 × 1 024
    # / (4 × 989.5e12 × 0.5) = 72.44 ms; all-reduces of 1 024 × 8 192 × 2 B = 16.8 MB:
    # 160 × (6.42 µs + 1.5 × 16 777 216 / 202.5e9) = 20.91 ms → 93.35 ms.
    svc = default.workload.inference[0]
    options = inference_token_model(svc, H100, catalog).set_index("tensor_parallel")
    assert options.loc[4, "ttft_s"] * 1e3 == pytest.approx(93.35, abs=0.01)
    # TP 8: 36.22 + 160 × (10.18 µs + 1.75 × 16 777 216 / 202.5e9) = 36.22 + 24.83 ms
    assert options.loc[8, "ttft_s"] * 1e3 == pytest.approx(61.05, abs=0.01)
    # TP 1 cannot hold 140 GB; TP 4 holds 352 sequences at 1 280 tokens, capped at 256.
    assert not options.loc[1, "fits"] and options.loc[4, "concurrent_seqs"] == 256
    # and TP 1 says why (issue 24: its limit was NaN beside "fits False"): 140 GB of
    # weights on one 80 GB card leave no room for a single sequence's KV cache.
    assert options.loc[1, "concurrent_seqs"] == 0 and options.loc[1, "limit"] == "kv_memory"


def test_token_model_against_nvidia_nim_benchmark(catalog):
    # NVIDIA NIM for LLMs benchmarks (docs.nvidia.com/nim/benchmarking/llm, "Performance"):
    # Llama-3.3-70B-Instruct (Llama-3.1-70B's architecture), NIM 1.8.0, 2 × H100 80G, FP8,
    # TP2, 5 000 input / 500 output tokens, concurrency 1: TTFT 406.77 ms, ITL 18.58 ms.
    # Hand: decode step = (70.554e9 B of FP8 weights + 5 250 × 327 680 B of BF16 KV)
    # / (2 × 3.35e12 × 0.6) = 17.979 ms + 160 all-reduces of 16 384 B over 2 GPUs
    # (3.6 + 2 × 0.47 + 16 384 / 202.5e9 µs = 4.621 µs) = 0.739 ms → 18.718 ms.
    # Prefill in 2 048-token chunks (2 048, 2 048, 904): each chunk 2 × 70.554e9 × c
    # / (2 × 1 979e12 × 0.5) + 160 × (4.54 µs + c × 16 384 / 202.5e9) = 173.27 ms
    # (c = 2 048) and 76.89 ms (c = 904) → 423.42 ms.
    svc = InferenceService(
        model="Llama-3.1-70B",
        weight_precision="fp8",
        kv_precision="bf16",
        compute_precision="fp8",
        prompt_tokens=5000,
        output_tokens=500,
        tensor_parallel=2,
        peak_qps=0.1,
    )
    t = inference_step_times(svc, H100, catalog, 2, 1)
    assert t["decode_step_s"] * 1e3 == pytest.approx(18.718, abs=1e-3)
    row = inference_token_model(svc, H100, catalog).iloc[0]
    assert row["ttft_s"] * 1e3 == pytest.approx(423.42, abs=0.01)
    assert t["decode_step_s"] * 1e3 == pytest.approx(18.58, rel=0.01)  # published ITL
    assert row["ttft_s"] * 1e3 == pytest.approx(406.77, rel=0.05)  # published TTFT


def test_latency_at_load_against_nvidia_nim_benchmark(catalog):
    # The same NIM table at 5 and 25 concurrent users: 218.48 and 623.4 output tokens/s,
    # i.e. 0.437 and 1.247 requests/s of 500 tokens, at ITL 21.83 and 38.75 ms (TTFT 546.7
    # and 688.69 ms, a closed loop of users, which the Poisson model does not imitate).
    # FP8 KV cache assumed (NIM's FP8 profiles quantise it). hubplan at those arrival
    # rates: sequences decoding by Little's law near the users in the loop, TPOT within
    # 15 % of the measured ITL.
    def at(qps):
        svc = InferenceService(
            model="Llama-3.1-70B",
            weight_precision="fp8",
            kv_precision="fp8",
            compute_precision="fp8",
            prompt_tokens=5000,
            output_tokens=500,
            tensor_parallel=2,
            peak_qps=qps,
            ttft_target_s=None,
            tpot_target_ms=None,
            max_batch=1024,
        )
        row, _ = size_inference(svc, H100, catalog)
        return row

    five, many = at(218.48 / 500), at(623.4 / 500)
    assert five["replicas"] == many["replicas"] == 1
    assert five["tpot_p50_ms"] == pytest.approx(21.83, rel=0.15)
    assert many["tpot_p50_ms"] == pytest.approx(38.75, rel=0.15)
    assert five["load_seqs"] == pytest.approx(5, rel=0.15)
    assert many["load_seqs"] == pytest.approx(25, rel=0.15)
    # The saturated benchmark (concurrency 100-250) settles at 917-921 tokens/s = 1.84
    # requests/s: the replica's capacity in hubplan is within 10 % of it.
    assert five["replica_qps"] == pytest.approx(920.9 / 500, rel=0.10)
    # p95 is never below p50, and the queue makes both TTFTs exceed the idle prefill.
    assert many["ttft_p95_s"] > many["ttft_p50_s"] > many["ttft_s"]
    assert many["tpot_p95_ms"] > many["tpot_p50_ms"]


def test_md1_queue_by_hand():
    # Prefill service 0.1 s at 80 % load: P-K mean wait 0.8 × 0.1 / (2 × 0.2) = 0.2 s;
    # exponential tail: p95 = (0.2 / 0.8) × ln(0.8 / 0.05) = 0.25 × 2.7726 = 0.6931 s;
    # at 4 % load the p95 arrival does not wait at all (ρ < 5 %).
    assert md1_wait_quantile_s(0.8, 0.1, None) == pytest.approx(0.2)
    assert md1_wait_quantile_s(0.8, 0.1, 0.95) == pytest.approx(0.6931, abs=1e-4)
    assert md1_wait_quantile_s(0.04, 0.1, 0.95) == 0
    assert md1_wait_quantile_s(1.0, 0.1, 0.95) == math.inf


def test_token_model_sizes_and_the_rule_cross_checks(catalog):
    # Llama-3.1-8B in FP8 at 10 QPS with the generic rule (8 s × 10 QPS / 4 per GPU = 20
    # GPUs). One H100 carries it: at the batch cap of 256 a replica serves ~46 requests/s
    # (see the next test's table), so the token model needs 1 GPU, and the plan follows
    # it (before, the rule's 20 bound the plan): a warning says they are 20× apart.
    svc = InferenceService(
        model="Llama-3.1-8B",
        weight_precision="fp8",
        kv_precision="fp8",
        compute_precision="fp8",
        peak_qps=10,
        mean_latency_s=8,
    )
    row, findings = size_inference(svc, H100, catalog)
    assert (row["rule_gpus"], row["token_gpus"], row["gpus_required"]) == (20, 1, 1)
    assert row["binding"] == "token_model" and row["tensor_parallel"] == 1
    f = next(f for f in findings if f.code == "rule_disagrees")
    assert f.severity == "warning" and f.params["ratio"] == 20
    # Within a factor 2 the rule stays quiet: 10 QPS × 8 s / 80 per GPU = 1 GPU.
    quiet = svc.model_copy(update={"concurrency_per_gpu": 80.0})
    assert not any(f.code == "rule_disagrees" for f in size_inference(quiet, H100, catalog)[1])


@pytest.mark.parametrize(
    ("model", "precision", "expected_tp"),
    [
        # NVIDIA's vLLM-backed NIM deployment lists Llama-2-70b-chat on 4 × H100 80 GB
        # (NVIDIA RAG LLM Operator 24.3.0, "Platform Support"); aiconfigurator picks TP 4
        # for 70B BF16 on 8 × H100 at TTFT 2 s / TPOT 50 ms (data/aiconfigurator_reference).
        ("Llama-3.1-70B", "bf16", 4),
        # An 8B model fits one card many times over: replicas of one GPU, no all-reduces.
        ("Llama-3.1-8B", "bf16", 1),
        ("Llama-3.1-8B", "fp8", 1),
    ],
)
def test_tensor_parallel_matches_practice(catalog, model, precision, expected_tp):
    svc = InferenceService(
        model=model,
        weight_precision=precision,
        kv_precision=precision,
        compute_precision=precision,
        prompt_tokens=1024,
        output_tokens=256,
        peak_qps=20,
        ttft_target_s=2.0,
        tpot_target_ms=50,
    )
    row, _ = size_inference(svc, H100, catalog)
    assert row["tensor_parallel"] == expected_tp


def test_latency_targets_bind_at_load(default):
    # The default service (Llama-2-70B BF16, 10 QPS) meets TTFT 2 s / TPOT 200 ms (the
    # MLPerf server limits, the defaults) on 8 GPUs. A 0.15 s TTFT target is met by an idle
    # TP 4 replica (93 ms prefill) but not once prompts queue at 5 QPS per replica:
    # TTFT at load binds, so the plan needs more GPUs than the idle figure suggests.
    base = hubplan.build_plan(default, until="workload")["inference"].iloc[0]
    assert base["gpus_required"] == 8 and base["meets_targets"]
    assert base["ttft_p95_s"] <= 2.0 and base["tpot_p95_ms"] <= 200
    tight = default.with_changes({"workload.inference.0.ttft_target_s": 0.15})
    row = hubplan.build_plan(tight, until="workload")["inference"].iloc[0]
    assert row["gpus_required"] > base["gpus_required"]
    assert row["ttft_p95_s"] <= 0.15 and row["meets_targets"]


def test_unreachable_target_is_an_error(default):
    # TPOT 5 ms: even TP 8 on an idle replica streams 140e9 B / (8 × 3.35e12 × 0.6) =
    # 8.706 ms and waits 160 × (3.6 + 14 × 0.47) µs = 1.629 ms for the all-reduces:
    # 10.335 ms on H100, so no layout meets it → an error finding.
    five = default.with_changes({"workload.inference.0.tpot_target_ms": 5})
    plan = hubplan.build_plan(five, until="workload")
    err = plan.errors.set_index("code").loc["targets_unreachable"]
    assert err["data"]["best_tpot"] == pytest.approx(10.335, abs=0.001)
    assert "targets_unreachable" not in set(
        hubplan.build_plan(default, until="workload").findings["code"]
    )


AIC = Path(__file__).resolve().parents[1] / "data" / "aiconfigurator_reference.csv"


def test_within_band_of_aiconfigurator(catalog):
    # NVIDIA aiconfigurator 0.12.0 (measured TensorRT-LLM kernel timings, H100/H200 SXM,
    # recorded by scripts/aiconfigurator_reference.py). Static rows: hubplan's decode step
    # within 0.75-1.3× of its TPOT in BF16 and 0.5-1.05× in FP8 (hubplan is optimistic
    # there: measured FP8 GEMMs at small batch run far from the bandwidth roofline, so
    # FP8 at TP 8 barely beats BF16); one prompt's TTFT within 0.8-1.5×.
    ref = pd.read_csv(AIC)
    static = ref[ref["mode"] == "static"]
    assert len(static) >= 40
    for r in static.itertuples():
        svc = InferenceService(
            model=r.model,
            weight_precision=r.precision,
            kv_precision=r.precision,
            compute_precision=r.precision,
            prompt_tokens=r.isl,
            output_tokens=r.osl,
        )
        t = inference_step_times(
            svc, PoolSpec(accelerator=r.accelerator), catalog, r.tensor_parallel, r.batch
        )
        lo, hi = (0.75, 1.3) if r.precision == "bf16" else (0.5, 1.05)
        assert lo <= t["decode_step_s"] * 1e3 / r.tpot_ms <= hi, r
        if r.batch == 1:
            assert 0.8 <= t["prefill_s"] * 1e3 / r.ttft_ms <= 1.5, r


def _aic_agg_beside_hubplan(catalog) -> pd.DataFrame:
    """aiconfigurator's agg rows with hubplan's replica capacity for the same model, card,
    precision, tensor-parallel size and targets (batch cap 512, as aiconfigurator's)."""
    ref = pd.read_csv(AIC)
    rows = []
    for r in ref[ref["mode"] == "agg"].itertuples():
        svc = InferenceService(
            model=r.model,
            weight_precision=r.precision,
            kv_precision=r.precision,
            compute_precision=r.precision,
            prompt_tokens=r.isl,
            output_tokens=r.osl,
            tensor_parallel=int(r.tensor_parallel),
            ttft_target_s=r.ttft_target_ms / 1e3,
            tpot_target_ms=r.tpot_target_ms,
            max_batch=512,
        )
        o = inference_token_model(svc, PoolSpec(accelerator=r.accelerator), catalog).iloc[0]
        usable = r.tensor_parallel * catalog.accelerator(r.accelerator)["vram_gb"] * 0.9
        rows.append(
            {
                "combo": (r.model, r.accelerator, r.precision, r.ttft_target_ms, r.tpot_target_ms),
                "tp": r.tensor_parallel,
                "aic": r.request_rate_per_gpu,
                "hubplan": o["replica_qps"] / r.tensor_parallel if o["fits"] else math.nan,
                "weights_share": o["weights_gb"] / usable,
                "idle_tpot_share": o.get("best_tpot_ms", math.nan) / r.tpot_target_ms,
            }
        )
    return pd.DataFrame(rows)


def test_serving_capacity_within_band_of_aiconfigurator(catalog):
    # aiconfigurator's best aggregated configuration per TP on 8 GPUs for TTFT/TPOT targets
    # of 2 s / 50 ms and 1 s / 30 ms: hubplan's requests/s per GPU lands within 0.6-1.05×
    # (hubplan meets the targets at p95, aiconfigurator at its mean, so it is the lower)
    # wherever the layout has room: weights under 80 % of the usable memory (aiconfigurator
    # counts KV room as a share of what the weights leave, hubplan as vLLM does, of the
    # whole card) and an idle step under 60 % of the TPOT target (near the target a few
    # percent of bandwidth efficiency swing the batch several-fold).
    d = _aic_agg_beside_hubplan(catalog)
    roomy = d[(d["weights_share"] < 0.8) & (d["idle_tpot_share"] < 0.6)]
    assert len(roomy) >= 30
    ratio = roomy["hubplan"] / roomy["aic"]
    assert ratio.between(0.6, 1.05).all(), roomy.assign(ratio=ratio)


def test_tensor_parallel_choice_agrees_with_aiconfigurator(catalog):
    # For each model, card, precision and target pair, the tensor-parallel size hubplan
    # serves most requests/s per GPU with is, by aiconfigurator's own measured figures,
    # within 10 % of the best it finds. 9 of the 12 picks are the same size; the others
    # are 70B BF16 and FP8 on H100 at 1 s / 30 ms, near-ties in aiconfigurator (1.496 vs
    # 1.498, 2.966 vs 2.980 requests/s per GPU), and 8B BF16 on H100 at 1 s / 30 ms, where
    # hubplan's TP 2 serves 20.20 against TP 1's 22.19 (0.91) in aiconfigurator's figures.
    d = _aic_agg_beside_hubplan(catalog)
    for _, g in d.groupby("combo"):
        pick = g.loc[g["hubplan"].idxmax()]
        assert pick["aic"] >= 0.9 * g["aic"].max(), g


def test_tensor_parallel_without_a_link_figure_is_an_error(tmp_path):
    # A card the catalogue gives no scale-up link and no PCIe generation: one GPU per
    # replica is sized, wider tensor parallelism is not offered (its all-reduces would have
    # no cost), and asking for it names the missing columns instead of guessing.
    path = tmp_path / "mine.csv"
    path.write_text(
        "name,aliases,vendor,segment,vram_gb,bf16_dense_tflops,mem_bw_tb_s,source,as_of,"
        "confidence\nX1 64GB,x1,Acme,datacenter-inference,64,500,2.0,Acme sheet,2026-10,medium\n",
        encoding="utf-8",
    )
    cat = hubplan.load_catalog(accelerators=path)
    x1 = PoolSpec(accelerator="X1 64GB", gpus_per_server=8)
    svc = InferenceService(model="Llama-3.1-8B")
    assert inference_token_model(svc, x1, cat)["tensor_parallel"].tolist() == [1]
    wide = svc.model_copy(update={"tensor_parallel": 2})
    with pytest.raises(hubplan.HubplanError, match=r"tensor_parallel = 2 .*pcie_gen"):
        size_inference(wide, x1, cat)
