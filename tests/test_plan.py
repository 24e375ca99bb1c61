"""build_plan: determinism, pools and the overlap policy."""

import dataclasses

import pandas as pd
import pytest

import hubplan


def test_same_scenario_same_plan(default):
    # The second build comes from the stage cache, the third computes every stage: all
    # three must agree, also after a caller has scribbled on the first Plan's tables.
    a = hubplan.build_plan(default)
    for table in a.tables.values():
        for col in table.columns:
            if table[col].dtype.kind in "if" and len(table):  # int and float columns
                table.loc[table.index[0], col] = -1
    b, fresh = hubplan.build_plan(default), hubplan.build_plan(default, cache=False)
    assert b.stages_run == ()  # every stage from the cache
    for name in fresh.tables:
        pd.testing.assert_frame_equal(b[name], fresh[name])
    pd.testing.assert_frame_equal(b.findings, fresh.findings)


def test_editing_a_plan_table_does_not_reach_the_next_plan(default):
    # The default fine-tune needs 136 GPUs: 1 516.26 GPU-days in 15 / 1.3 days → 132 GPUs →
    # 17 servers of 8 (worked by hand in tests/test_workload.py).
    hubplan.clear_cache()
    plan = hubplan.build_plan(default)
    assert plan["training"].loc[0, "gpus"] == 136
    plan["training"].loc[0, "gpus"] = 1  # in place, as a notebook user might
    plan.tables["pools"]["total_gpus"] = 0  # a whole column
    with pytest.raises(ValueError, match="read-only"):
        plan["training"]["gpus"].to_numpy()[0] = 2
    again = hubplan.build_plan(default)
    assert again.stages_run == ()  # served from the cache, which is intact
    assert again["training"].loc[0, "gpus"] == 136
    pools = again["pools"]
    # 144 training + 16 inference H100 and 8 L40S (tests/test_overview.py: 168 GPUs)
    assert pools.loc[pools["level"] == "fleet", "total_gpus"].sum() == 168
    assert plan["training"].loc[0, "gpus"] == 1  # the caller keeps their own edit


def test_a_stage_editing_its_input_does_not_reach_the_cache(default, monkeypatch):
    # A stage gets its own copies of the tables it needs: a server stage that wrote into
    # pool_demand must not change the workload stage's cached table.
    from hubplan import plan as plan_module

    server = next(s for s in plan_module.STAGES if s.name == "server")

    def scribbling(*, tables, **kw):
        tables["pool_demand"].loc[:, "gpus"] = 0
        return server.run(tables=tables, **kw)

    hubplan.clear_cache()
    stages = tuple(
        dataclasses.replace(s, run=scribbling) if s.name == "server" else s
        for s in plan_module.STAGES
    )
    monkeypatch.setattr(plan_module, "STAGES", stages)
    hubplan.build_plan(default, until="server")
    monkeypatch.setattr(plan_module, "STAGES", plan_module.STAGES)
    demand = hubplan.build_plan(default, until="workload")["pool_demand"].set_index("pool")
    assert demand.loc["training", "gpus"] == 136


def test_clear_cache_recomputes_every_stage(default):
    hubplan.build_plan(default)
    assert hubplan.build_plan(default).stages_run == ()
    hubplan.clear_cache()
    again = hubplan.build_plan(default)
    assert again.stages_run == tuple(s.name for s in hubplan.STAGES)
    assert again["training"].loc[0, "gpus"] == 136


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
    shared = default.with_changes(
        {
            "workload.overlap.policy": "shared",
            "workload.overlap.inference_coincidence": 0.5,
            "pools.development.accelerator": "H100 SXM5 80GB",
            "pools.development.server": None,
        }
    )
    pools = hubplan.build_plan(shared)["pool_demand"]
    fleet = pools[(pools["level"] == "fleet") & (pools["policy"] == "shared")].iloc[0]
    # required 136 × 1.0 + 8 × 0.5 + 8 × 0.5 = 144 GPUs → 18 servers (the fine-tune needs
    # 132 GPUs, and its TP-8 layout occupies ⌈132 ÷ 8⌉ = 17 replicas = 136, which its pool
    # must hold); but at the peak the fine-tune holds its 17 whole servers and the service (Kubernetes) and development
    # (Slurm) one server each, as one server answers to one scheduler: 19 servers =
    # 152 GPUs, where the dedicated pools would take 17 + 1 + 1 + 1 + 1 spares.
    assert fleet["gpus"] == 152
    assert fleet["gpus_required"] == 136 + 8 + 8


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


# -- every mix of workloads ------------------------------------------------------------------


def test_inference_only_centre_plans_with_an_empty_training_table(default):
    # A serving-only centre: no training job. The storage stage read training["job"] on a
    # table built from no rows (no columns at all) and raised KeyError 'job'.
    plan = hubplan.build_plan(default.with_changes({"workload.training": []}))
    training = plan["training"]
    assert training.empty and "job" in training.columns
    assert str(training["gpus"].dtype) == "int64" and str(training["job"].dtype) == "str"
    pools = plan["pools"]
    # The service alone: 1 DGX H100 (8 GPUs) + 1 spare; development 1 L40S server, no spare.
    assert set(pools.loc[pools["level"] == "pool", "pool"]) == {"inference", "development"}
    per_pool = pools[pools["level"] == "pool"].set_index("pool")["total_servers"]
    assert per_pool.to_dict() == {"inference": 2, "development": 1}


def test_no_workload_at_all_is_a_named_error(default):
    # Nothing to carry: a plan of storage and racks around zero GPUs would be a silently
    # empty proposal, so the workload section is named instead.
    empty = default.with_changes(
        {"workload.training": [], "workload.inference": [], "workload.development.developers": 0}
    )
    with pytest.raises(hubplan.ScenarioError, match=r"^invalid scenario: workload: no training"):
        hubplan.build_plan(empty)
    no_dev_section = empty.with_changes({"workload.development": None})
    with pytest.raises(hubplan.ScenarioError, match=r"workload\.development\.developers > 0"):
        hubplan.build_plan(no_dev_section)


# -- pools cover the parallel layouts ----------------------------------------------------


@pytest.mark.parametrize("policy", ["dedicated", "shared"])
def test_training_pool_holds_what_a_pipeline_layout_occupies(default, policy):
    # The worked fine-tune with pipeline parallelism 3 and a 16-day deadline:
    #   FLOPs = 6 × 70e9 params × (500 GB ÷ 4 B/token = 125e9 tokens) = 5.25e22
    #   one H100 delivers 989.5e12 × 0.45 MFU × 0.9 goodput = 4.0075e14 FLOP/s for
    #   16 ÷ 1.3 = 12.31 days = 1 063 385 s: 4.2615e20 FLOP, so ⌈5.25e22 ÷ 4.2615e20⌉ =
    #   ⌈123.2⌉ = 124 GPUs required.
    #   The layout: TP 8 × PP 3 = 24 GPUs per data-parallel replica, DP = ⌈124 ÷ 24⌉ = 6
    #   replicas = 144 GPUs = 18 DGX H100. Sized from the 124 GPUs, the pool got ⌈124 ÷ 8⌉
    #   = 16 servers (128 GPUs): two servers short of the layout. With 5 % spares:
    #   18 + ⌈0.9⌉ = 19 servers.
    s = default.with_changes(
        {
            "workload.training.0.pipeline_parallel": 3,
            "workload.training.0.days": 16.0,
            "workload.overlap.policy": policy,
        }
    )
    plan = hubplan.build_plan(s, until="server")
    job = plan["training"].iloc[0]
    assert (job["gpus_required"], job["gpus"]) == (124, 144)
    pools = plan["pools"]
    training = pools[(pools["level"] == "pool") & (pools["pool"] == "training")].iloc[0]
    assert training["servers"] == 18 and training["spare_servers"] == 1
    assert training["servers"] * training["gpus_per_server"] >= 144
