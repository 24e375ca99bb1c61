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
    stages = tuple(dataclasses.replace(s, run=scribbling) if s.name == "server" else s
                   for s in plan_module.STAGES)  # fmt: skip
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
