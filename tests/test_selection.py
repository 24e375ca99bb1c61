"""Accelerator selection: costs, MFU carried across cards, ranking, TOPS trap, interconnect.

Expected values are worked by hand from catalogue figures (sources in data/accelerators.csv).
"""

import pytest

import hubplan
from hubplan.accelerator import (
    candidate_mfu,
    gpu_cost_usd,
    marketing_figure,
    usd_per_effective_pflop_day,
)
from hubplan.views.render import findings_table


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


def cand(plan, workload, name):
    c = plan["candidates"]
    return c[(c["workload"] == workload) & (c["candidate"] == name)].iloc[0]


TRAIN, SERVE = "industry-70b-finetune", "industry-70b-online"


def test_cost_per_gpu_and_per_pflop_day(catalog):
    h100 = catalog.accelerator("H100 SXM5 80GB")
    # US$30 000 card (Hugging Face MSRP) × 1.3 platform overhead = 39 000
    assert gpu_cost_usd(h100, 0.3) == pytest.approx(39_000)
    # 39 000 / (5 × 365) / (989.5 × 0.45 / 1000) = 21.37 / 0.4453 = 47.99 USD per PFLOP-day
    assert usd_per_effective_pflop_day(39_000, 989.5, 0.45, 5) == pytest.approx(47.99, abs=0.01)


def test_mfu_carried_by_measured_matmul_share(catalog):
    h100, mi300x = catalog.accelerator("H100 SXM5 80GB"), catalog.accelerator("MI300X 192GB")
    # ml-engineering MAMF: H100 794.5 / 989.5 = 0.803; MI300X 668.4 / 1307.4 = 0.511
    # 0.45 × 0.511 / 0.803 = 0.2865
    assert candidate_mfu(0.45, mi300x, h100) == pytest.approx(0.2865, abs=1e-4)
    assert candidate_mfu(0.45, h100, h100) == pytest.approx(0.45)
    # H200 has no MAMF row: its MFU is left as stated rather than guessed
    assert candidate_mfu(0.45, catalog.accelerator("H200 SXM 141GB"), h100) == 0.45


def test_training_comparison_numbers(plan):
    h100 = cand(plan, TRAIN, "H100 SXM5 80GB")
    # the pool's own card reproduces the workload stage exactly
    assert (h100["gpus"], h100["binding"]) == (136, "compute")
    assert h100["capex_usd"] == pytest.approx(136 * 39_000)
    # budget US$5 M buys ⌊5e6 / (8 × 39 000)⌋ = 16 servers = 128 GPUs → 1 516.3 / 128 = 11.85 d
    assert h100["budget_gpus"] == 128
    assert h100["days_on_budget"] == pytest.approx(11.85, abs=0.01)
    mi = cand(plan, TRAIN, "MI300X 192GB")
    # one GPU-day: 1 307.4e12 × 0.2865 × 0.9 × 86 400 = 2.913e19 → 1 802 GPU-days → 156.2
    # in 11.54 days → 157 → 160 whole servers; 160 × 15 000 × 1.3 = 3.12 M USD
    assert mi["gpus"] == 160
    assert mi["capex_usd"] == pytest.approx(3_120_000)


def test_l40s_holds_the_70b_layout_only_when_memory_binds(plan):
    l40s = cand(plan, TRAIN, "L40S 48GB")
    # TP 8, ZeRO-1: per GPU 17.5 (BF16 weights / 8) + 17.5 (gradients) + 11.4085
    # (activations, 80 × 34 × 4096 × 8192 / 8 B) + 12·70e9 / 8 / DP GB. At the compute-bound
    # 45 replicas that is 48.74 GB > 48 GB; it first fits at DP ≥ 105 / (48 − 46.4085)
    # = 65.97 → 66 replicas = 528 GPUs (47.999 GB): the L40S plan is memory-bound.
    assert l40s["gpus"] == 528 and l40s["binding"] == "memory"
    assert l40s["state_per_gpu_gb"] == pytest.approx(47.9994, abs=0.001)
    assert l40s["fits"]
    assert l40s["interconnect"] == "tp_beyond_scaleup"  # PCIe-only card, TP 8


def test_inference_throughput_per_dollar_and_watt(plan):
    h100 = cand(plan, SERVE, "H100 SXM5 80GB")
    # The selection multiplies the token model's per-replica output rate (the workload
    # stage's figure, checked by hand in test_workload.py) by the replicas it buys:
    # 8 GPUs / TP 4 = 2 replicas; 8 × 700 W = 5.6 kW; 8 × 39 000 USD = 312 kUSD.
    serve = plan["inference"].set_index("service").loc[SERVE]
    assert h100["tensor_parallel"] == 4 and h100["gpus"] == 8
    tokens = 2 * serve["decode_tokens_per_s"]
    assert h100["decode_tokens_per_s"] == pytest.approx(tokens)
    assert h100["tokens_per_s_per_kw"] == pytest.approx(tokens / 5.6)
    assert h100["tokens_per_s_per_kusd"] == pytest.approx(tokens / 312)


def test_ranking_and_winner(default):
    three = default.with_changes(
        {"accelerator.candidates": ["H100 SXM5 80GB", "H200 SXM 141GB", "B200 180GB"]}
    )
    plan = hubplan.build_plan(three)
    win = plan["candidates"][plan["candidates"]["winner"]].set_index("workload")
    # B200: MFU 0.45 × (1745/2250)/0.803 = 0.4347; 5.25e22 / (2250e12 × 0.4347 × 0.9 × 86 400)
    # = 690 GPU-days → 59.8 → 60 → 64 GPUs × 52 000 = 3.328 M USD, under H100's 5.304 M
    assert win.loc[TRAIN, "candidate"] == "B200 180GB"
    assert win.loc[TRAIN, "capex_usd"] == pytest.approx(3_328_000)
    assert win.loc[SERVE, "candidate"] == "H100 SXM5 80GB"
    found = findings_table(plan.findings)
    finding = found[found["code"] == "winner_capex"].iloc[0]
    assert "B200 180GB meets this workload for 3,328,000 USD" in finding["message"]


def test_rank_by_power(default):
    plan = hubplan.build_plan(default.with_changes({"accelerator.rank_by": "power"}))
    c = plan["candidates"]
    ranked = c[(c["workload"] == TRAIN) & c["rank"].notna()].sort_values("rank")
    assert ranked["power_kw"].is_monotonic_increasing


def test_tops_trap_table(catalog):
    claims = hubplan.build_plan(hubplan.default_scenario())["compute_claims"].set_index("candidate")
    # H100: the datasheet headline is INT8 sparse 3 958 TOPS; training uses 989.5: 4.0×
    assert claims.loc["H100 SXM5 80GB", "marketing_figure"] == 3958
    assert claims.loc["H100 SXM5 80GB", "marketing_basis"] == "INT8 sparse"
    assert claims.loc["H100 SXM5 80GB", "marketing_ratio"] == pytest.approx(4.0, abs=1e-3)
    # MI300X labels its sparse figure explicitly: INT8 sparse 5 229.8 vs 1 307.4 dense
    assert marketing_figure(catalog.accelerator("MI300X 192GB")) == (5229.8, "INT8 sparse")


def test_tensor_parallel_beyond_scaleup_is_flagged(default):
    l40s = default.with_changes(
        {"pools.training.accelerator": "L40S 48GB", "pools.training.server": None}
    )
    f = findings_table(hubplan.build_plan(l40s).findings)
    row = f[f["code"] == "tp_beyond_scaleup"].iloc[0]
    assert row["severity"] == "warning"
    assert "Tensor parallel 8" in row["message"] and "scale-up domain is 1 GPU" in row["message"]


@pytest.fixture
def workstation_catalog(tmp_path):
    """The shipped catalogue plus one workstation card, WS-48 (no scale-up fabric)."""
    csv = tmp_path / "ws.csv"
    csv.write_text(
        "name,vendor,segment,vram_gb,bf16_dense_tflops,mem_bw_tb_s,scaleup_kind,"
        "scaleup_domain_gpus,source,as_of,confidence\n"
        "WS-48,Example,workstation,48,200,0.96,none,1,example sheet,2026,low\n"
    )
    return hubplan.load_catalog(accelerators=csv)


def test_workstation_cards_in_a_multinode_training_pool(workstation_catalog, default):
    scenario = default.with_changes(
        {
            "pools.training.accelerator": "WS-48",
            "pools.training.server": None,
            "workload.training.0.tensor_parallel": 1,
        }
    )
    f = hubplan.build_plan(scenario, workstation_catalog).findings
    assert "workstation_multinode" in set(f["code"])


def test_missing_price_is_not_ranked(default):
    # Moore Threads' S4000 has no price, for the card or its server (data/prices.csv): it
    # is compared but never ranked or called the winner
    plan = hubplan.build_plan(
        default.with_changes({"accelerator.candidates": ["H100 SXM5 80GB", "MTT S4000 48GB"]})
    )
    s4000 = plan["candidates"][plan["candidates"]["candidate"] == "MTT S4000 48GB"]
    assert s4000["capex_usd"].isna().all() and s4000["rank"].isna().all()
    assert s4000["gpus"].notna().all()


def test_candidates_default_to_the_pools_accelerators(default):
    plan = hubplan.build_plan(default.with_changes({"accelerator.candidates": []}))
    assert set(plan["candidates"]["candidate"]) == {"H100 SXM5 80GB", "L40S 48GB"}


def test_one_workstation_server_is_not_a_multinode_pool(workstation_catalog, default):
    # A single 8-card workstation server may train a small job; only multi-node pools of
    # such cards are flagged. 7e9 × 6 × 1e10 tokens over 30 days needs 1 GPU → 1 server.
    small = default.with_changes(
        {
            "pools.training.accelerator": "WS-48",
            "pools.training.server": None,
            "workload.training.0.tensor_parallel": 1,
            "workload.training.0.model": None,
            "workload.training.0.params": 1e9,
            "workload.training.0.data_bytes": 4e10,
            "workload.training.0.days": 30,
        }
    )
    plan = hubplan.build_plan(small, workstation_catalog)
    assert plan["training"].loc[0, "servers"] == 1
    assert "workstation_multinode" not in set(plan.findings["code"])


def test_unpriced_candidates_are_shown_unranked_not_dropped(default):
    # The MLU370-X8 has no card price and its catalogue server no price
    # (data/accelerators.csv, data/servers.csv, data/prices.csv): it stays in the
    # comparison with its GPU count, unranked, with the reason.
    s = default.with_changes(
        {"accelerator.candidates": ["H100 SXM5 80GB", "MLU370-X8 48GB", "L40S 48GB"]}
    )
    plan = hubplan.build_plan(s)
    c = plan["candidates"].set_index(["workload", "candidate"])
    mlu = c.loc[(TRAIN, "MLU370-X8 48GB")]
    assert mlu["unranked"] == "no_price" and mlu["rank"] != mlu["rank"]
    assert mlu["gpu_cost_basis"] == "none"
    # 5.25e22 FLOP / (96e12 BF16 × 0.45 × 0.9 × 86 400 × 15/1.3) = 1 354.5 → 1 355 → 1 360
    assert mlu["gpus"] == 1360
    assert c.loc[(TRAIN, "L40S 48GB"), "unranked"] == ""  # memory-bound at 528 GPUs, priced
    assert c.loc[(TRAIN, "H100 SXM5 80GB"), "unranked"] == ""
    found = findings_table(plan.findings)
    msg = found.loc[found["code"] == "unranked_no_price", "message"].iloc[0]
    assert "no public price: MLU370-X8 48GB" in msg


def test_a_card_sold_only_in_servers_is_priced_from_its_server(default):
    # The Ascend 910B has no card price, but its Atlas 800T A2 server is priced in CNY
    # (data/prices.csv: 1 480 000 CNY, Reuters-derived): 1 480 000 ÷ 7.1884 ÷ 8 =
    # 25 735.908 USD a GPU, the platform already in it. 448 GPUs (5.25e22 FLOP / (294.9e12 ×
    # 0.45 × 0.9 × 86 400 × 15/1.3) = 440.9 → 448) × 25 735.908 = 11 529 686.7 USD.
    s = default.with_changes(
        {"accelerator.candidates": ["H100 SXM5 80GB", "Ascend 910B 64GB", "L40S 48GB"]}
    )
    c = hubplan.build_plan(s)["candidates"].set_index(["workload", "candidate"])
    ascend = c.loc[(TRAIN, "Ascend 910B 64GB")]
    assert ascend["gpu_cost_basis"] == "server_price" and ascend["unranked"] == ""
    assert ascend["gpu_cost_usd"] == pytest.approx(1_480_000 / 7.1884 / 8)
    assert ascend["gpus"] == 448
    assert ascend["capex_usd"] == pytest.approx(11_529_686.7, abs=0.1)
    # the H100 keeps its card price × 1.3: 30 000 × 1.3 = 39 000
    h100 = c.loc[(TRAIN, "H100 SXM5 80GB")]
    assert (h100["gpu_cost_basis"], h100["gpu_cost_usd"]) == ("card_overhead", 39_000)


def test_a_layout_that_cannot_fit_is_unranked_with_the_reason(default):
    # QLoRA at TP 1 needs ~128 GB per GPU on any card below that (see test_workload):
    # H100 and L40S cannot hold it; MI300X (192 GB) can.
    s = default.with_changes(
        {
            "workload.training.0.method": "qlora",
            "workload.training.0.tensor_parallel": 1,
            "accelerator.candidates": ["H100 SXM5 80GB", "L40S 48GB", "MI300X 192GB"],
        }
    )
    c = hubplan.build_plan(s)["candidates"]
    c = c[c["workload"] == TRAIN].set_index("candidate")
    assert c.loc["H100 SXM5 80GB", "unranked"] == "does_not_fit"
    assert c.loc["L40S 48GB", "unranked"] == "does_not_fit"
    assert c.loc["MI300X 192GB", "unranked"] == "" and c.loc["MI300X 192GB", "rank"] == 1


def test_over_budget_candidates_are_flagged(default):
    # US$5 M budget (default scenario): H100 needs 136 × 30 000 × 1.3 = 5 304 000 USD (over),
    # B200 64 × 40 000 × 1.3 = 3 328 000 USD (within).
    s = default.with_changes({"accelerator.candidates": ["H100 SXM5 80GB", "B200 180GB"]})
    c = hubplan.build_plan(s)["candidates"].set_index(["workload", "candidate"])
    assert bool(c.loc[(TRAIN, "H100 SXM5 80GB"), "over_budget"])
    assert not bool(c.loc[(TRAIN, "B200 180GB"), "over_budget"])
