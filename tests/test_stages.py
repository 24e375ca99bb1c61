"""The stage house: STAGES drives build_plan, the cache reruns only what changed, tables
hold data, and one function owns fleet totals."""

import pandas as pd
import pytest

import hubplan
from hubplan.core.stage import Stage, StageResult
from hubplan.plan import STAGES, build_plan


def test_build_plan_is_a_loop_over_stages(default):
    names = [
        "workload",
        "accelerator",
        "server",
        "storage",
        "network",
        "facility",
        "cost",
        "delivery",
        "review",
    ]
    assert [s.name for s in STAGES] == names
    plan = build_plan(default, cache=False)
    assert plan.stages_run == tuple(names)
    declared = {t for s in STAGES for t in s.provides}
    assert set(plan.tables) == declared
    # every stage reads only tables that an earlier stage provides
    seen: set[str] = set()
    for stage in STAGES:
        assert set(stage.needs) <= seen, stage.name
        seen |= set(stage.provides)


def test_until_runs_only_what_is_needed(default):
    plan = build_plan(default, until="workload", cache=False)
    assert plan.stages_run == ("workload",)
    assert "pools" not in plan.tables and "pool_demand" in plan.tables
    with pytest.raises(ValueError, match="until = 'racks': use one of workload, accelerator"):
        build_plan(default, until="racks")


def test_a_stage_must_provide_exactly_what_it_declares(catalog):
    def run(*, catalog, tables):
        return StageResult({"a": pd.DataFrame(), "b": pd.DataFrame()})

    stage = Stage("demo", sections=(), needs=(), provides=("a",), run=run)
    with pytest.raises(RuntimeError, match=r"missing: none; undeclared: b"):
        stage(catalog, {}, {})


def test_cache_reruns_only_the_stages_a_change_touches(default):
    build_plan(default)  # warm
    assert build_plan(default).stages_run == ()
    # The server section is read by the server stage only.
    s = default.with_changes({"server.ram_to_gpu_memory": 2.0})
    assert build_plan(s).stages_run == ("server",)
    # MFU 0.45 -> 0.451 keeps the fine-tune at 132 -> 136 GPUs (5.25e22 FLOP /
    # (989.5e12 × 0.451 × 0.9 × 86 400 × 15/1.3) = 131.7), so pool_demand is unchanged and
    # the server stage is reused; the workload, accelerator and storage stages read the
    # section (storage: the jobs' data sizes).
    s = default.with_changes({"workload.training.0.mfu": 0.451})
    plan = build_plan(s)
    # The cost stage reads the training table (GPU-days for the cost of the run) and the
    # review reads it too; delivery's inputs did not change.
    assert plan.stages_run == ("workload", "accelerator", "storage", "cost", "review")
    assert int(plan["training"].loc[0, "gpus"]) == 136
    # MFU 0.30 needs 198 GPUs -> 200: pool_demand changes and the server stage reruns.
    s = default.with_changes({"workload.training.0.mfu": 0.30})
    assert build_plan(s).stages_run == (
        "workload",
        "accelerator",
        "server",
        "storage",
        "network",
        "facility",
        "cost",
        "delivery",
        "review",
    )


def test_cached_plan_equals_a_fresh_one(default):
    s = default.with_changes({"server.ram_to_gpu_memory": 2.0})
    cached, fresh = build_plan(s), build_plan(s, cache=False)
    for name in fresh.tables:
        pd.testing.assert_frame_equal(cached[name], fresh[name])
    pd.testing.assert_frame_equal(cached.findings, fresh.findings)


def test_a_new_catalogue_invalidates_the_cache(default, tmp_path):
    base = hubplan.load_catalog()
    build_plan(default, base)
    extra = tmp_path / "acc.csv"
    rows = base.accelerators[base.accelerators["name"] == "H100 SXM5 80GB"].copy()
    rows["price_usd"] = 25_000
    rows.to_csv(extra, index=False)
    cheaper = hubplan.load_catalog(accelerators=extra)
    assert cheaper.fingerprint != base.fingerprint
    assert build_plan(default, cheaper).stages_run == (
        "workload",
        "accelerator",
        "server",
        "storage",
        "network",
        "facility",
        "cost",
        "delivery",
        "review",
    )


def test_tables_hold_data_not_sentences(default):
    plan = build_plan(default)
    for name, df in plan.tables.items():
        prose = [c for c in df.columns if c in ("message", "fix", "reason") or c.endswith("_zh")]
        assert not prose, f"{name} holds rendered text in {prose}"
    assert list(plan.findings.columns) == ["severity", "stage", "subject", "code", "data"]


def test_fleet_totals_with_mixed_server_sizes_on_one_accelerator(default):
    # Training on 8-GPU DGX H100 (136 GPUs = 17 servers); inference on H100 in 4-GPU
    # servers (8 GPUs = 2 servers). They are two kinds of server, so two fleet rows:
    # 17 servers / 136 GPUs and 2 servers / 8 GPUs. (Adding GPUs first and dividing by
    # the larger size would say 144 / 8 = 18 servers: wrong.)
    s = default.with_changes({"pools.inference.gpus_per_server": 4, "pools.inference.server": None})
    plan = build_plan(s)
    demand = plan["pool_demand"]
    fleet = demand[demand["level"] == "fleet"].set_index(["accelerator", "gpus_per_server"])
    assert fleet.loc[("H100 SXM5 80GB", 8), ["servers", "gpus"]].tolist() == [17, 136]
    assert fleet.loc[("H100 SXM5 80GB", 4), ["servers", "gpus"]].tolist() == [2, 8]
    # With spares (one per twenty, rounded up): 17 -> 1 spare, 2 -> 1 spare.
    pools = plan["pools"]
    pf = pools[pools["level"] == "fleet"].set_index(["accelerator", "gpus_per_server"])
    assert pf.loc[("H100 SXM5 80GB", 8), ["servers", "total_servers", "total_gpus"]].tolist() == [
        17,
        18,
        144,
    ]
    assert pf.loc[("H100 SXM5 80GB", 4), ["servers", "total_servers", "total_gpus"]].tolist() == [
        2,
        3,
        12,
    ]
    # the two stages agree on the fleet's working servers
    assert pf["servers"].sort_index().tolist() == fleet["servers"].sort_index().tolist()
