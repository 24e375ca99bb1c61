"""build_plan: determinism, pools and the overlap policy."""

import pandas as pd

import hubplan


def test_same_scenario_same_plan(default):
    a, b = hubplan.build_plan(default), hubplan.build_plan(default)
    for name in a.tables:
        pd.testing.assert_frame_equal(a[name], b[name])
    pd.testing.assert_frame_equal(a.findings, b.findings)


def test_pools_dedicated(default):
    pools = hubplan.build_plan(default)["pool_demand"].set_index("pool")
    # training 136 + inference 8 on H100 = 144 GPUs in 18 servers; development 8 L40S.
    assert pools.loc["training", "gpus"] == 136
    assert pools.loc["inference", "gpus"] == 8
    assert pools.loc["development", ["accelerator", "gpus"]].tolist() == ["L40S 48GB", 8]
    fleet = pools.loc["fleet"].set_index("accelerator")
    assert (fleet["policy"] == "dedicated").all()
    assert fleet.loc["H100 SXM5 80GB", "gpus"] == 144
    assert fleet.loc["H100 SXM5 80GB", "servers"] == 18


def test_pools_shared_uses_coincident_peak(default):
    shared = default.with_changes({
        "workload.overlap.policy": "shared",
        "workload.overlap.inference_coincidence": 0.5,
        "pools.development.accelerator": "H100 SXM5 80GB",
        "pools.development.server": None,
    })  # fmt: skip
    pools = hubplan.build_plan(shared)["pool_demand"]
    fleet = pools[(pools["level"] == "fleet") & (pools["policy"] == "shared")].iloc[0]
    # required 132 × 1.0 + 8 × 0.5 + 8 × 0.5 = 140 GPUs → 18 servers; but at the peak the
    # fine-tune holds its 17 whole servers and the service (Kubernetes) and development
    # (Slurm) one server each, as one server answers to one scheduler: 19 servers =
    # 152 GPUs, where the dedicated pools would take 17 + 1 + 1 + 1 + 1 spares.
    assert fleet["gpus"] == 152
    assert fleet["gpus_required"] == 148


def test_plan_tables_in_chinese(default):
    plan = hubplan.build_plan(default)
    zh = plan.table("training", "zh")
    assert "GPU 数" in zh.columns
    assert plan.errors.empty


def test_unknown_table_is_a_clear_error(default):
    plan = hubplan.build_plan(default)
    import pytest

    with pytest.raises(KeyError, match="tables: training"):
        plan["no_such_table"]
