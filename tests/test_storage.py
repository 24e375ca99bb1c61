"""Storage stage: capacity by tier, bandwidth, checkpoint interval and goodput, fill, DR.

Expected numbers are worked by hand in the comments (decimal TB and GB)."""

import math

import pandas as pd
import pytest

import hubplan
from hubplan.storage import (
    checkpoint_interval_s,
    checkpoint_tb,
    goodput,
    storage_catalog,
    storage_model,
)

PRETRAIN = hubplan.core.paths.templates_dir() / "scenarios" / "pretrain-16k.yaml"


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


@pytest.fixture(scope="module")
def big():
    return hubplan.build_plan(hubplan.load_scenario(PRETRAIN))


def codes(p, code):
    f = p.findings
    return f[(f["stage"] == "storage") & (f["code"] == code)]


def test_70b_checkpoint_and_three_kept(plan):
    # 70e9 × (2 + 4 + 8) B = 9.8e11 B = 0.98 TB; three kept = 2.94 TB before protection
    row = plan["checkpoint_plan"].iloc[0]
    assert row["bytes_per_param"] == 14
    assert row["checkpoint_tb"] == pytest.approx(0.98)
    assert row["hot_retained_tb"] == pytest.approx(2.94)
    assert checkpoint_tb(405e9, 14) == pytest.approx(5.67)  # Llama 3 405B


def test_default_hot_tier_content_and_nodes(plan):
    c = plan["storage_content"].set_index(["tier", "content"])["tb"]
    # 125e9 tokens × 4 B = 0.5 TB; inference 70e9 × 2 B + final weights 70e9 × 2 B = 0.28 TB;
    # 16 developers × 1 TB = 16 TB; total 0.5 + 2.94 + 0.28 + 16 = 19.72 TB, growth 30 % = 5.916
    assert c["hot", "datasets_processed"] == pytest.approx(0.5)
    assert c["hot", "model_repository"] == pytest.approx(0.28)
    assert c["hot", "growth"] == pytest.approx(5.916)
    hot = plan["storage_tiers"].set_index("tier").loc["hot"]
    # 19.72 × 1.3 / 0.85 = 30.16 TB usable: one OSS (737.28 × 0.8 = 589.8 TB) would do; read
    # 21 DGX, under one SU, at the DGX SuperPOD 'better' level: min(21 × 8, 40) = 40 GB/s,
    # also one (100 GB/s): the HA pair minimum of 2 sets it.
    assert hot["usable_needed_tb"] == pytest.approx(30.16)
    assert (hot["nodes"], hot["sized_by"]) == (2, "minimum")
    assert hot["usable_tb"] == pytest.approx(2 * 737.28 * 0.8)


def test_read_demand_per_pool_and_superpod_guideline(plan):
    bw = plan["storage_bandwidth"].set_index("pool")
    # DGX SuperPOD RA-11333-001 Table 6, 'better': 8 GB/s per DGX, 40 per SU of 32 DGX.
    # 18 training DGX: min(18 × 8, 40) = 40; inference 1 working DGX (its second is a
    # spare, which runs no job): 8; all 20 working DGX are still one SU: 40 in total (the
    # RA's aggregate is the system's, not a sum of pools)
    assert bw.loc["training", "read_demand_gb_s"] == 40
    assert bw.loc["inference", "read_demand_gb_s"] == 8
    assert bw.loc["total", "read_demand_gb_s"] == 40
    assert bw.loc["total", "write_demand_gb_s"] == 20  # 20 per SU beats 0.15 of checkpoints
    # 18 DGX H100 × 800 usable Gb/s (not 4 × 400) / 8 = 1 800 GB/s
    assert bw.loc["training", "client_gb_s"] == 1800
    # 'best' 40 GB/s per DGX but 125 per SU: min(720, 125); 'good' min(20 × 4, 15)
    assert bw.loc["training", "guideline_best_read_gb_s"] == 125
    assert bw.loc["total", "guideline_good_read_gb_s"] == 15
    assert bw.loc["total", "supply_read_gb_s"] == 200  # 2 OSS × 100 GB/s


def test_young_daly_against_llama3():
    # δ = 30 s, M = 3 h: Daly τ = √(2 × 30 × 10 800) − 30 = 805.0 − 30 = 775.0 s of compute
    assert checkpoint_interval_s(30, 10_800) == pytest.approx(774.98, abs=0.01)
    # period 805.0 s: goodput = 1 − 30/805 − (402.5 + 0)/10 800 = 1 − 0.03727 − 0.03727 = 0.9255
    assert goodput(30, 774.98, 10_800, 0) == pytest.approx(0.9255, abs=1e-4)


def test_pretrain_16k_names_storage_nodes_and_write_bandwidth(big):
    assert int(big["training"]["gpus"].iloc[0]) == 16_384
    ck = big["checkpoint_plan"].iloc[0]
    # Component rates (data/failure_rates.csv, Llama 3 Table 5) per day: 12.6214e-6 × 24 per
    # GPU, 43.7043e-6 × 24 per node, 26.373e-6 × 24 per switch; 16 384 GPUs, 2 048 nodes,
    # 1 280 QM9700 switches (512 + 512 + 256): 4.9629 + 2.1482 + 0.8102 = 7.9213 a day,
    # M = 24 / 7.9213 = 3.0298 h = 10 907 s; restarts 900 / 10 907 = 0.08251; write share
    # = (0.10 − 0.08251) / 2 = 0.008743; window = 2 × 10 907 × 0.008743² = 1.668 s;
    # 5 670 GB / 1.668 s = 3 400 GB/s (Llama 3's Tectonic: 2 TB/s sustained, 7 TB/s peak)
    assert ck["checkpoint_tb"] == pytest.approx(5.67)
    assert ck["mtbf_hours"] == pytest.approx(3.0298, abs=1e-3)
    assert ck["write_window_s"] == pytest.approx(1.668, abs=0.002)
    assert ck["write_demand_gb_s"] == pytest.approx(3400, abs=4)
    hot = big["storage_tiers"].set_index("tier").loc["hot"]
    # 2 048 working DGX = 64 SUs × 40 GB/s ('better', DGX SuperPOD RA Table 6) = 2 560 GB/s
    # read: ⌈2 560 / 100⌉ = 26 OSS. Checkpoints: the failure model's M = 3.03 h (Llama 3
    # Table 5 rates, test_failure.py) and 90 % goodput give a 1.668 s window, 5 670 GB /
    # 1.668 s = 3 400 GB/s at 76.8 × 8/10 = 61.44 GB/s per OSS after RAID 6 8+2:
    # ⌈55.3⌉ = 56 OSS; writes set it
    assert (hot["sized_by"], hot["nodes"]) == ("write", 56)
    assert hot["nodes_for_read"] == 26
    nodes = big["storage_nodes"]
    assert list(nodes.columns) == [
        "tier",
        "role",
        "model",
        "nodes",
        "rack_units",
        "max_power_kw",
        "typical_power_kw",
        "price_usd",
        "nic_ports",
        "nic_gbps",
    ]
    assert set(nodes["tier"]) == {"hot", "warm", "cold"}
    assert nodes.loc[nodes["role"] == "mds", "nodes"].item() == 2
    assert ck["expected_goodput"] >= 0.9


def test_hot_tier_fill_finding_when_checkpoints_stay(big):
    s = hubplan.load_scenario(PRETRAIN).with_changes(
        {"storage.checkpoint_offload": False, "storage.hot_nodes": 4}
    )
    p = hubplan.build_plan(s)
    f = codes(p, "hot_tier_fills")
    assert len(f) == 1 and f.iloc[0]["severity"] == "error"
    # 4 OSS × 589.824 = 2 359.3 TB usable; 62.4 + 0.81 = 63.21 TB of data and models; 5.67 TB per
    # checkpoint: full after ⌈(2 359.3 − 63.21) / 5.67⌉ = 405 checkpoints
    ck = p["checkpoint_plan"].iloc[0]
    assert ck["days_to_full"] == pytest.approx(405 * ck["interval_min"] / 1440, rel=1e-6)
    assert ck["days_to_alert"] < ck["days_to_full"]
    fill = p["hot_fill"]
    assert fill["fill"].max() >= 1 and (fill["alert_fill"] == 0.85).all()
    # with keep-last-3 offload the same tier never passes the alert
    assert codes(big, "hot_tier_fills").empty and codes(big, "hot_tier_alert").empty


def test_hot_tier_alert_without_full(plan):
    # Keep-all on the default: 2 OSS = 1 179.6 TB usable, 16.78 TB base, 0.98 TB per
    # checkpoint every ~77 min for 11.1 days = 208 checkpoints = 204 TB: never near 85 %.
    s = hubplan.default_scenario().with_changes({"storage.checkpoint_offload": False})
    assert codes(hubplan.build_plan(s), "hot_tier_alert").empty
    # An alert line at 10 % (118 TB) is passed after ⌈(118 − 16.78) / 0.98⌉ = 104
    # checkpoints, but the tier never fills: a warning, not the error
    s = s.with_changes({"storage.alert_fill": 0.1})
    f = codes(hubplan.build_plan(s), "hot_tier_alert")
    assert len(f) == 1 and f.iloc[0]["severity"] == "warning"


def test_checkpoint_burst_finding(big):
    assert codes(big, "checkpoint_burst").empty
    # Fix the hot tier at 10 OSS: 10 × 61.44 = 614.4 GB/s of client writes after RAID 6
    # 8+2, 5 670 / 614.4 = 9.2 s > 2.03 s window
    p = hubplan.build_plan(hubplan.load_scenario(PRETRAIN).with_changes({"storage.hot_nodes": 10}))
    f = codes(p, "checkpoint_burst")
    assert len(f) == 1
    assert f.iloc[0]["data"]["write_s"] == pytest.approx(5670 / 614.4)
    assert f.iloc[0]["data"]["limited_by"] == "tier"


def test_goodput_unreachable_is_an_error():
    # 16 384 GPUs restart every 3.09 h; a 60-minute restart is 32 % of the time > 10 %
    s = hubplan.load_scenario(PRETRAIN).with_changes({"storage.restart_minutes": 60})
    f = codes(hubplan.build_plan(s), "goodput_unreachable")
    assert len(f) == 1 and f.iloc[0]["severity"] == "error"


def test_storage_on_compute_fabric(plan, tmp_path):
    assert codes(plan, "storage_on_compute_fabric").empty  # DGX H100 has storage NICs
    dgx = hubplan.load_catalog().server("DGX H100").copy()
    dgx["storage_nics"], dgx["storage_usable_gbps"] = 0, 0
    dgx["name"], dgx["aliases"] = "DGX H100 no storage NIC", ""
    path = tmp_path / "servers.csv"
    pd.DataFrame([dgx]).to_csv(path, index=False)
    cat = hubplan.load_catalog(servers=path)
    s = hubplan.default_scenario().with_changes(
        {"pools.training.server": "DGX H100 no storage NIC"}
    )
    f = codes(hubplan.build_plan(s, cat), "storage_on_compute_fabric")
    assert f["subject"].tolist() == ["training"]


def test_no_offsite_copy_and_dr_figures(plan):
    assert codes(plan, "no_offsite_copy").empty
    dr = plan["storage_dr"].iloc[0]
    # 0.98 TB in an 8 h window: 980 / 28 800 = 0.0340 GB/s; RPO one day + window = 32 h;
    # restore 0.98 + 0.5 TB over 100 Gb/s: 1.48 × 8 000 / 100 / 3 600 = 0.0329 h
    assert dr["replication_gb_s"] == pytest.approx(0.03403, abs=1e-5)
    assert dr["rpo_hours"] == 32
    assert dr["rto_hours"] == pytest.approx(0.03289, abs=1e-5)
    s = hubplan.default_scenario().with_changes({"storage.dr": "none"})
    f = codes(hubplan.build_plan(s), "no_offsite_copy")
    assert len(f) == 1 and f.iloc[0]["severity"] == "warning"


def test_dr_link_too_slow():
    # warm standby of the 16K run: 56 OSS write 3 440.64 GB/s, δ = 5 670 / 3 440.64 =
    # 1.648 s, M = 3.0298 h = 10 907 s: one checkpoint every √(2 × 1.648 × 10 907) = 189.6 s
    # (Daly), 5 670 GB / 189.6 s = 29.90 GB/s = 239.2 Gb/s > 100
    s = hubplan.load_scenario(PRETRAIN).with_changes({"storage.dr": "warm_standby"})
    f = codes(hubplan.build_plan(s), "dr_link_too_slow")
    assert len(f) == 1 and f.iloc[0]["data"]["need_gbps"] == pytest.approx(239.2, rel=0.001)
    assert codes(hubplan.build_plan(hubplan.load_scenario(PRETRAIN)), "dr_link_too_slow").empty


def test_bad_storage_model_names_the_field():
    s = hubplan.default_scenario().with_changes({"storage.hot_model": "Lustre OSS"})
    with pytest.raises(
        hubplan.CatalogError,
        match=r"storage.hot_model = 'Lustre OSS': not in data/storage.csv; closest",
    ):
        hubplan.build_plan(s)
    s = hubplan.default_scenario().with_changes(
        {"storage.hot_model": "HDD capacity node 60x24TB 2x100G"}
    )
    with pytest.raises(hubplan.HubplanError, match="not the hot tier"):
        hubplan.build_plan(s)
    with pytest.raises(hubplan.ScenarioError, match=r"storage\.fill_ceiling"):
        hubplan.default_scenario().with_changes({"storage.fill_ceiling": 1.5})


def test_storage_catalogue_provenance():
    cat = storage_catalog()
    assert (cat["source"].str.len() > 20).all()
    assert cat["confidence"].isin(["high", "medium", "low"]).all()
    # MinIO: 325 GiB/s over 32 nodes = 10.16 GiB/s = 10.9 GB/s
    assert storage_model("minio-nvme", "x")["read_gb_s"] == pytest.approx(
        325 / 32 * 1.073741824, abs=0.01
    )
    assert not math.isnan(storage_model("DDN AI400X2T", "x")["read_gb_s"])


def test_existing_scenarios_load_unchanged(default):
    # the default scenario writes only its warm and cold tiers' three replicas
    # (templates/scenarios/default.yaml); every other storage field is the section default
    assert default.storage == hubplan.Scenario().storage.model_copy(
        update={"warm_protection": "replica_3", "cold_protection": "replica_3"}
    )
    again = hubplan.Scenario.from_yaml(hubplan.load_scenario(PRETRAIN).to_yaml())
    assert again == hubplan.load_scenario(PRETRAIN)


def test_storage_panel_headless():
    from hubplan.views import StoragePanel

    p = StoragePanel()
    assert "2 × Lustre OSS" in p.summary.value and "reads 40.0 GB/s" in p.summary.value
    # keep every checkpoint on the hot tier, alert at 50 %
    p.controls["offload"].value = False
    p.controls["alert"].value = 0.5  # 590 TB: 16.78 + 208 × 0.98 = 221 TB never reaches it
    assert "hot_tier_alert" not in p.result.findings["code"].tolist()
    p.controls["dr"].value = "none"
    assert "No off-site copy of checkpoints" in p.findings.value
    p.language.value = "zh"
    assert "热层" in p.summary.value and "检查点无异地副本" in p.findings.value
    spec = p.fill_chart.chart.to_dict()
    assert spec["layer"][1]["mark"]["type"] == "rule"
    p.controls["performance_level"].value = "best"  # 20 DGX: min(20 × 40, 125) GB/s
    assert "读带宽需求 125.0 GB/s" in p.summary.value
    assert "最佳" in p.controls["performance_level"].options[2][0]
    p.controls["hot_model"].value = "DDN AI400X2T"
    nodes = p.result["storage_nodes"]
    assert "mds" not in nodes["role"].tolist() and p.error is None


def test_the_removed_read_rule_says_what_replaced_it():
    # A scenario saved before the guideline levels sized reads at a rate per GPU.
    with pytest.raises(
        hubplan.ScenarioError,
        match=r"read_gb_s_per_gpu: unknown key; removed: reads follow the DGX SuperPOD "
        r"storage guideline.*performance_level",
    ):
        hubplan.Scenario.from_dict({"storage": {"read_gb_s_per_gpu": 0.5}})
