"""Design review: every rule fires on a hand-built faulty frame and stays quiet on a sound
one; the review stage runs last and lists items other stages check by their codes."""

import datetime as dt

import pandas as pd
import pytest

import hubplan
from hubplan.core import labels
from hubplan.core.catalog import load_catalog
from hubplan.plan import STAGES, build_plan
from hubplan.review import (
    ELSEWHERE,
    RULES,
    ReviewPolicy,
    check_air_cooled_density,
    check_buy_beyond_need,
    check_checkpoint_overhead,
    check_default_partition,
    check_driver_lifecycle,
    check_fabric_acceptance,
    check_hot_tier_single_node,
    check_inrush_allowance,
    check_management_plane,
    check_memory_margin,
    check_no_schedule_buffer,
    check_no_spares,
    check_no_time_margin,
    check_pcie_cards_multinode_tp,
    check_phased_handover,
    check_rack_headroom,
    check_single_replica_service,
    check_single_spine,
    check_stability_run,
    check_storage_below_guideline,
    check_training_on_marketing_figure,
    check_training_oversubscription,
)

P = ReviewPolicy()
DF = pd.DataFrame


def pools(servers=18, spares=1, required=136, gps=8, total=None, pool="training"):
    total = servers + spares if total is None else total
    return DF(
        {
            "level": ["pool"],
            "pool": [pool],
            "servers": [servers],
            "spare_servers": [spares],
            "total_servers": [total],
            "gpus_per_server": [gps],
            "gpus_required": [required],
        }
    )


def training(precision="bf16", peak=989.5, margin=0.3, servers=17, acc="H100 SXM5 80GB"):
    return DF(
        {
            "job": ["j"],
            "accelerator": [acc],
            "precision": [precision],
            "peak_tflops": [peak],
            "time_margin": [margin],
            "servers": [servers],
        }
    )


CLAIMS = DF({"candidate": ["H100 SXM5 80GB"], "bf16_dense_tflops": [989.5]})
SCHED = DF(
    {
        "milestone": [False, True],
        "buffer_days": [9, 0],
        "batch": [1, 2],
        "end_date": [pd.Timestamp("2026-09-01"), pd.Timestamp("2026-10-01")],
    }
)
SCHED_NO_BUFFER = SCHED.assign(buffer_days=[0, 0], batch=[1, 1])


def fabric(oversub=1.0, planes=("compute", "storage", "inband", "bmc"), leaves=4, spines=2):
    n = len(planes)
    return DF(
        {
            "plane": list(planes),
            "oversubscription": [oversub] * n,
            "leaves": [leaves] * n,
            "spines": [spines] * n,
        }
    )


def acceptance(tests=("rdma_write_bw", "fabric_all_reduce", "stability_run"), hours=24.0):
    return DF(
        {
            "pool": ["training"] * len(tests),
            "test": list(tests),
            "expected": [hours if t == "stability_run" else 1.0 for t in tests],
        }
    )


#: The NVIDIA family's fabric acceptance tools (data/families.csv: rdma_test_cmd, and
#: the collective test's command under MPI).
NVIDIA_TOOLS = {"rdma_tool": "ib_write_bw --use_cuda", "collective_tool": "all_reduce_perf (MPI)"}


CATALOG = load_catalog()

# (rule, arguments that must trigger it, arguments that must not, the code)
CASES = [
    # 2 × 989.5 = 1979: the 2:4-sparse BF16 figure of H100 SXM (NVIDIA datasheet).
    (
        check_training_on_marketing_figure,
        (training(peak=1979), CLAIMS),
        (training(), CLAIMS),
        "review_marketing_sizing",
    ),
    (check_no_time_margin, (training(margin=0.0),), (training(),), "review_no_time_margin"),
    # L40S is PCIe-only (scaleup_kind none); TP 2 across 4 servers.
    (
        check_pcie_cards_multinode_tp,
        (
            training(acc="L40S 48GB", servers=4),
            DF({"job": ["j"], "tensor_parallel": [2]}),
            DF({"candidate": ["L40S 48GB"], "scaleup_kind": ["none"]}),
        ),
        (
            training(servers=4),
            DF({"job": ["j"], "tensor_parallel": [8]}),
            DF({"candidate": ["H100 SXM5 80GB"], "scaleup_kind": ["nvswitch"]}),
        ),
        "review_pcie_multinode_tp",
    ),
    (
        check_single_replica_service,
        (DF({"service": ["s"], "replicas": [1]}),),
        (DF({"service": ["s"], "replicas": [2]}),),
        "review_single_replica",
    ),
    (check_no_spares, (pools(spares=0),), (pools(),), "review_no_spares"),
    # 34 servers × 8 = 272 GPUs for a need of 136: 136 spare > 8 and > 30 % × 136 = 40.8.
    (check_buy_beyond_need, (pools(servers=34),), (pools(servers=17),), "review_buy_beyond_need"),
    (
        check_hot_tier_single_node,
        (DF({"tier": ["hot"], "nodes": [1], "model": ["m"]}),),
        (DF({"tier": ["hot"], "nodes": [2], "model": ["m"]}),),
        "review_hot_tier_single_node",
    ),
    # NVIDIA 'good': 4 GB/s read per DGX; 18 nodes → 72 GB/s.
    (
        check_storage_below_guideline,
        (
            DF(
                {
                    "pool": ["training"],
                    "supply_read_gb_s": [50.0],
                    "guideline_good_read_gb_s": [72.0],
                }
            ),
        ),
        (
            DF(
                {
                    "pool": ["training"],
                    "supply_read_gb_s": [200.0],
                    "guideline_good_read_gb_s": [72.0],
                }
            ),
        ),
        "review_storage_below_guideline",
    ),
    # 120 s per 30 min = 6.7 % > 5 %; 60 s per 30 min = 3.3 %.
    (
        check_checkpoint_overhead,
        (DF({"job": ["j"], "write_time_s": [120.0], "interval_min": [30.0]}),),
        (DF({"job": ["j"], "write_time_s": [60.0], "interval_min": [30.0]}),),
        "review_checkpoint_overhead",
    ),
    (
        check_training_oversubscription,
        (fabric(oversub=3.0),),
        (fabric(oversub=2.0),),
        "review_oversubscription",
    ),
    (
        check_management_plane,
        (fabric(planes=("compute", "storage")), pools()),
        (fabric(), pools()),
        "review_management_on_compute",
    ),
    (check_single_spine, (fabric(spines=1),), (fabric(),), "review_single_spine"),
    (
        check_rack_headroom,
        (DF({"rack": ["r1", "r2"], "required_headroom_pct": [0.05, 0.05]}),),
        (DF({"rack": ["r1"], "required_headroom_pct": [0.15]}),),
        "review_rack_headroom",
    ),
    (
        check_inrush_allowance,
        (DF({"step": [1]}), 1.0),
        (DF({"step": [1]}), 1.5),
        "review_no_inrush_allowance",
    ),
    # A 40.8 kW rack of four DGX H100 (4 × 10.2 kW) on air; 12 kW is fine.
    (
        check_air_cooled_density,
        (DF({"level": ["rack"], "rack": ["r1"], "cooling_mode": ["air"], "heat_kw": [40.8]}),),
        (DF({"level": ["rack"], "rack": ["r1"], "cooling_mode": ["air"], "heat_kw": [12.0]}),),
        "review_air_cooled_density",
    ),
    # Hand-over 2026-10-01 + 3 years = 2029-10-01: R535 (EOL June 2026) fails; R620 (LTSB,
    # EOL Sept 2029) also ends before it; R580 ends June 2028. So only a newer branch or a
    # shorter horizon passes: with 2 years (2028-09-30) R620 passes.
    (
        check_driver_lifecycle,
        (DF({"model": ["DGX H100"], "driver_version": ["535.183.01"]}), SCHED, CATALOG),
        (
            DF({"model": ["DGX H100"], "driver_version": ["620.10"]}),
            SCHED,
            CATALOG,
            ReviewPolicy(driver_support_years=2),
        ),
        "review_driver_lifecycle",
    ),
    (check_no_schedule_buffer, (SCHED_NO_BUFFER,), (SCHED,), "review_no_schedule_buffer"),
    (
        check_phased_handover,
        (SCHED_NO_BUFFER, pools(servers=100)),
        (SCHED, pools(servers=100)),
        "review_single_handover",
    ),
    (check_stability_run, (acceptance(hours=12.0),), (acceptance(),), "review_short_stability_run"),
    (
        check_fabric_acceptance,
        (acceptance(tests=("stability_run",)), pools(), NVIDIA_TOOLS),
        (acceptance(), pools(), NVIDIA_TOOLS),
        "review_fabric_untested",
    ),
    # 1 953 125 MiB physical (2 048 GB); RealMemory 1 950 000 keeps 0.16 % < 2 %.
    (
        check_memory_margin,
        (
            DF(
                {
                    "node_group": ["g"],
                    "real_memory_mib": [1_950_000],
                    "physical_memory_mib": [1_953_125],
                }
            ),
        ),
        (
            DF(
                {
                    "node_group": ["g"],
                    "real_memory_mib": [1_855_468],
                    "physical_memory_mib": [1_953_125],
                }
            ),
        ),
        "review_memory_margin",
    ),
    (
        check_default_partition,
        (
            DF(
                {
                    "partition": ["train", "dev"],
                    "pool": ["training", "development"],
                    "is_default": [True, False],
                }
            ),
        ),
        (
            DF(
                {
                    "partition": ["train", "dev"],
                    "pool": ["training", "development"],
                    "is_default": [False, True],
                }
            ),
        ),
        "review_default_partition",
    ),
]


def _call(rule, args):
    policy = args[-1] if isinstance(args[-1], ReviewPolicy) else P
    args = args[:-1] if isinstance(args[-1], ReviewPolicy) else args
    return rule(*args, policy)


@pytest.mark.parametrize(("rule", "bad", "good", "code"), CASES, ids=[c[0].__name__ for c in CASES])
def test_rule_fires_on_a_fault_and_not_on_a_sound_plan(rule, bad, good, code):
    found = _call(rule, bad)
    assert found and {f.code for f in found} == {code}
    assert all(f.stage == "review" and f.params["area"] for f in found)
    # The message and the fix render in both languages with the finding's data.
    for f in found:
        assert f.message("en") and f.message("zh") and f.fix("zh")
    assert _call(rule, good) == []


def test_every_rule_is_tested_and_there_are_at_least_twenty():
    assert len(RULES) >= 20
    assert {r.check for r in RULES} == {c[0] for c in CASES}
    for r in RULES:
        assert f"finding.{r.code}" in labels.catalog().index


def test_messages_name_the_offending_items():
    f = check_air_cooled_density(
        DF(
            {
                "level": ["rack"] * 2,
                "rack": ["A01", "A02"],
                "cooling_mode": ["air"] * 2,
                "heat_kw": [40.8, 30.6],
            }
        ),
        P,
    )[0]
    assert f.message("en") == (
        "Air-cooled racks (A01, A02) carry up to 40.8 kW, above the 20 kW "
        "air can remove (facility)."
    )


def test_review_runs_last_and_reads_only_tables_that_exist(default):
    assert STAGES[-1].name == "review"
    provided = {t for s in STAGES[:-1] for t in s.provides}
    assert set(STAGES[-1].needs) <= provided


def test_default_plan_review_checklist(default):
    plan = build_plan(default)
    c = plan["review_checklist"]
    # With the facility stage in the plan every review rule runs; none is left not run.
    assert not (c["result"] == "not_run").any()
    facility = c[
        c["rule"].isin(
            [
                "check_rack_headroom",
                "check_inrush_allowance",
                "check_air_cooled_density",
                "check_driver_lifecycle",
            ]
        )
    ]
    # and the default plan passes the four facility rules:
    #   rack headroom: the facility section keeps 15 % on every rack, the planning guide's
    #     floor (15 % ≥ 15 %);
    #   inrush: 1.5 × nameplate allowed, the guide's 1.5 (1.5 ≥ 1.5);
    #   air-cooled density: the hottest air-cooled rack is the storage rack, 6 nodes × 2.0 kW
    #     (the stand-in) = 12 kW, under the review's 20 kW air limit (the facility already
    #     puts the 8 compute leaves, 8 × 1.72 = 13.76 kW × 1.15 headroom = 15.8 kW, over
    #     its own 15 kW air limit, on a rear door);
    #   driver lifecycle: no driver versions are pinned, so no branch to judge (the facility
    #     stage's versions_unpinned warning says so).
    assert facility["result"].tolist() == ["pass"] * 4
    assert (c["result"] == "elsewhere").sum() == len(ELSEWHERE)
    # The default plan is sound for every rule that runs.
    assert not (plan.findings["stage"] == "review").any()


def test_a_faulty_scenario_is_caught_by_the_review(default):
    s = default.with_changes(
        {"pools.training.spare_ratio": 0.0, "delivery.buffer": 0.0, "delivery.stability_hours": 12}
    )
    codes = set(build_plan(s).findings["code"])
    assert {"review_no_spares", "review_no_schedule_buffer", "review_short_stability_run"} <= codes


def test_driver_branches_match_nvidia_lifecycle_table():
    # NVIDIA R620 release notes, lifecycle table: R580 LTSB to June 2028, R610 NFB.
    assert CATALOG.driver_branch("580") == ("ltsb", dt.date(2028, 6, 30))
    assert CATALOG.driver_branch("610")[0] == "new_feature"
    assert CATALOG.driver_branch("999") is None  # not a branch NVIDIA lists
    assert hubplan.review.ReviewPolicy().min_rack_headroom == 0.15
