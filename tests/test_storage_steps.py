"""The storage stage's steps, each against independent figures: demand from the DGX
SuperPOD storage guideline, tiers and their client-side write, node counts, protection
(failure domains) and the offload between tiers; and the acceptance floor that reads them.

[RA] NVIDIA, RA-11333-001 "NVIDIA DGX SuperPOD Reference Architecture, DGX H100", V11
(2023-09-22), Table 6 "Guidelines for storage performance", GB/s, good / better / best:
single-node read 4 / 8 / 40, write 2 / 4 / 20; single-SU aggregate read 15 / 40 / 125,
write 7 / 20 / 62; 4-SU aggregate read 60 / 160 / 500, write 30 / 80 / 250. An SU is 32
DGX H100; the RA's 4-SU build has 127 (one gives way to the UFM appliances).
https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/storage-architecture.html

Expected numbers are worked by hand in the comments (decimal TB and GB). Step functions
are imported inside the tests, so the plan-level tests also run, and fail, on a hubplan
without them.
"""

import pandas as pd
import pytest

import hubplan
import hubplan.core.paths
from hubplan.core.frames import empty

PRETRAIN = hubplan.core.paths.templates_dir() / "scenarios" / "pretrain-16k.yaml"


def _run(dgx: int, storage=None):
    """The storage stage alone on one training pool of ``dgx`` DGX H100, no training job."""
    from hubplan.storage.stage import run_storage
    from hubplan.workload.stage import TRAINING

    pools = pd.DataFrame(
        [
            {
                "level": "pool",
                "pool": "training",
                "server": "DGX H100",
                "gpus_per_server": 8,
                "servers": dgx,
                "total_servers": dgx,
                "total_gpus": dgx * 8,
            }
        ]
    )
    sc = hubplan.default_scenario()
    return run_storage(
        catalog=hubplan.load_catalog(),
        tables={"pools": pools, "training": empty(TRAINING)},
        storage=storage or sc.storage,
        workload=sc.workload,
        pools=sc.pools,
        network_compute_switch=sc.network.compute_switch,
    )


def _codes(p, code):
    f = p.findings
    return f[(f["stage"] == "storage") & (f["code"] == code)]


# -- demand: the guideline -------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "node_r", "node_w", "su_r", "su4_r", "su4_w"),
    [("good", 4, 2, 15, 60, 30), ("better", 8, 4, 40, 160, 80), ("best", 40, 20, 125, 500, 250)],
)
def test_guideline_is_the_ra_table(level, node_r, node_w, su_r, su4_r, su4_w):
    from hubplan.storage import guideline_gb_s

    # [RA] Table 6: one DGX (8 GPUs) reads and writes its single-node figure
    assert guideline_gb_s(8, level) == node_r
    assert guideline_gb_s(8, level, "write") == node_w
    # one SU, 32 DGX, or 31 as in the 4-SU build: the single-SU aggregate; two SUs twice it
    assert guideline_gb_s(32 * 8, level) == guideline_gb_s(31 * 8, level) == su_r
    assert guideline_gb_s(64 * 8, level) == 2 * su_r
    # the 4-SU build, 127 DGX = 1 016 GPUs: the 4-SU aggregate, read and write
    assert guideline_gb_s(127 * 8, level) == su4_r
    assert guideline_gb_s(127 * 8, level, "write") == su4_w


def test_single_su_write_is_the_4su_figure_over_four():
    from hubplan.storage import guideline_gb_s

    # [RA] prints the single-SU write as 7 / 20 / 62 and the 4-SU write as 30 / 80 / 250;
    # per SU hubplan takes 30/4 = 7.5, 20 and 250/4 = 62.5: the table's single-SU row is
    # the same figure rounded down (within 0.5 GB/s of it)
    got = [guideline_gb_s(256, lv, "write") for lv in ("good", "better", "best")]
    assert got == [7.5, 20.0, 62.5]
    assert all(0 <= g - ra < 1 for g, ra in zip(got, (7, 20, 62), strict=True))
    with pytest.raises(ValueError, match="'great'"):
        guideline_gb_s(256, "great")
    with pytest.raises(ValueError, match="'io'"):
        guideline_gb_s(256, "better", "io")


@pytest.mark.parametrize(
    ("dgx", "read", "write"), [(1, 8, 4), (2, 16, 8), (32, 40, 20), (64, 80, 40), (127, 160, 80)]
)
def test_stage_reads_and_writes_at_the_default_level_beside_the_ra(dgx, read, write):
    # default level 'better' [RA]: 1 DGX 8 / 4; 2 DGX 2 × 8 = 16 / 8 (all of them at once is
    # below the SU aggregate); 1 SU 40 / 20; 2 SU 80 / 40; 4 SU 160 / 80. Before, 0.5 GB/s
    # per GPU gave the 4-SU build 1 016 × 0.5 = 508 GB/s: the RA's 'best' (500).
    total = _run(dgx).tables["storage_bandwidth"].set_index("pool").loc["total"]
    assert (total["read_demand_gb_s"], total["write_demand_gb_s"]) == (read, write)
    assert total["guideline_read_gb_s"] == read


def test_level_is_a_validated_choice_and_scales_the_4su_demand():
    s = hubplan.Scenario().storage
    assert s.performance_level == "better"
    best = _run(127, s.model_copy(update={"performance_level": "best"}))
    assert best.tables["storage_bandwidth"].iloc[-1]["read_demand_gb_s"] == 500  # [RA]
    with pytest.raises(hubplan.ScenarioError, match=r"storage\.performance_level"):
        hubplan.default_scenario().with_changes({"storage.performance_level": "great"})


def test_16k_hot_tier_is_sized_from_the_guideline_not_per_gpu():
    big = hubplan.build_plan(hubplan.load_scenario(PRETRAIN))
    bw = big["storage_bandwidth"].set_index("pool").loc["total"]
    # 2 048 working DGX (the 103 spares run no job) = 64 SUs × 40 = 2 560 GB/s 'better'
    # read [RA], 64 × 20 = 1 280 write; before: 17 208 GPUs × 0.5 = 8 604 GB/s → 87 OSS
    assert bw["read_demand_gb_s"] == 2560 and bw["guideline_write_gb_s"] == 1280
    hot = big["storage_tiers"].set_index("tier").loc["hot"]
    # ⌈2 560 / 100⌉ = 26 OSS for reads; checkpoints (3 400 GB/s at the failure model's
    # M = 3.03 h, test_storage.py) at 61.44 per OSS: ⌈55.3⌉ = 56
    assert (hot["nodes_for_read"], hot["nodes_for_write"]) == (26, 56)
    assert (hot["nodes"], hot["sized_by"]) == (56, "write")


# -- tiers: the write clients see ------------------------------------------------------


def test_hot_tier_write_supply_is_after_protection_and_acceptance_agrees():
    p = hubplan.build_plan(hubplan.default_scenario())
    hot = p["storage_tiers"].set_index("tier").loc["hot"]
    # 2 OSS × 24 drives × 3.2 GB/s = 153.6 GB/s of drive writes; RAID 6 8+2 writes 10 B per
    # 8, so clients get 153.6 × 8/10 = 122.88 GB/s. Before, the stage sized and supplied
    # 153.6 while the acceptance floor divided it to 122.88: the two disagreed.
    assert hot["write_gb_s"] == pytest.approx(122.88) and hot["write_factor"] == 1.25
    assert p["storage_bandwidth"].iloc[-1]["supply_write_gb_s"] == pytest.approx(122.88)
    acc = p["acceptance"].query("scope == 'storage'").set_index(["subject", "test"])
    assert acc.loc[("hot", "storage_write"), "expected"] == pytest.approx(hot["write_gb_s"])
    assert acc.loc[("hot", "storage_write"), "protection_factor"] == 1.25


def test_minio_write_measured_at_clients_is_divided_once_nowhere():
    # MinIO: 165 GiB/s PUT over 32 nodes measured at its clients with EC:4 in place =
    # 5.54 GB/s per node (blog.min.io benchmark). Six nodes (EC 4+2 needs 6 failure
    # domains) deliver 6 × 5.54 = 33.24 GB/s; before, the floor divided it by 6/4 again
    # (3.69 GB/s per node).
    s = hubplan.default_scenario().with_changes(
        {"storage.warm_model": "minio-nvme", "storage.warm_protection": "ec_4+2"}
    )
    p = hubplan.build_plan(s)
    warm = p["storage_tiers"].set_index("tier").loc["warm"]
    assert (warm["nodes"], warm["write_factor"]) == (6, 1.0)
    assert warm["write_gb_s"] == pytest.approx(33.24)
    acc = p["acceptance"].query("scope == 'storage' and subject == 'warm'").set_index("test")
    assert acc.loc["storage_write", "expected"] == pytest.approx(33.24)
    assert acc.loc["storage_write", "protection_factor"] == 1.0


def test_node_figures_and_write_basis():
    from hubplan.storage.protection import client_write_gb_s, write_factor
    from hubplan.storage.tiers import node_figures

    cat, st = hubplan.load_catalog(), hubplan.Scenario().storage
    # HDD node: 60 × 0.285 = 17.1 GB/s of drive writes; EC 8+2 → 17.1 × 0.8 = 13.68
    hdd = node_figures(cat.storage_block(st.warm_model), "f", "ec_8+2", st)
    assert hdd.write_gb_s == pytest.approx(13.68) and hdd.usable_tb == pytest.approx(1152)
    # three replicas write every byte three times: 17.1 / 3 = 5.7
    assert client_write_gb_s(17.1, "replica_3") == pytest.approx(5.7)
    # DDN AI400X2T: no published write; 0.5 × 99.018 read, a client-side ratio: no factor
    ddn = node_figures(cat.storage_block("DDN AI400X2T"), "f", "appliance", st)
    assert (ddn.write_gb_s, ddn.write_factor) == (pytest.approx(49.509), 1.0)
    with pytest.raises(hubplan.HubplanError, match="write_basis"):
        write_factor("ec_8+2", "")
    row = cat.storage_block(st.warm_model).copy()
    row["write_basis"] = ""
    with pytest.raises(hubplan.HubplanError, match=r"f = 'HDD .*write_basis is ''"):
        node_figures(row, "f", "ec_8+2", st)


# -- nodes and protection --------------------------------------------------------------


def test_tier_nodes_takes_the_largest_need():
    from hubplan.storage.nodes import tier_nodes

    # 183.7 TB usable needed at 1 152 TB per HDD node: 1 node; EC 8+2 across nodes: 10
    assert tier_nodes(
        usable_needed_tb=183.7, usable_per_node_tb=1152, minimum=1, protection_nodes=10
    )[:2] == (10, "protection")
    # 3 000 TB at 1 152: ⌈2.6⌉ = 3; three replicas need 3: capacity, the first of equals
    assert tier_nodes(
        usable_needed_tb=3000, usable_per_node_tb=1152, minimum=1, protection_nodes=3
    )[:2] == (3, "capacity")
    # nothing stored: no node, not even the scheme's
    assert tier_nodes(usable_needed_tb=0, usable_per_node_tb=1152, minimum=0, protection_nodes=10)[
        :2
    ] == (0, "capacity")
    # a fixed count stays fixed
    assert tier_nodes(
        usable_needed_tb=0,
        usable_per_node_tb=1,
        minimum=2,
        protection_nodes=1,
        read_need_gb_s=500,
        read_per_node_gb_s=100,
        fixed=4,
    )[:2] == (4, "fixed")


@pytest.mark.parametrize(
    ("scheme", "nodes", "usable"),
    [
        ("ec_8+2", 10, 0.8),
        ("ec_4+2", 6, 4 / 6),
        ("ec_16+4", 20, 0.8),
        ("replica_3", 3, 1 / 3),
        ("raid6_8+2", 1, 0.8),
        ("raid10", 1, 0.5),
    ],
)
def test_failure_domains_per_scheme(scheme, nodes, usable):
    from hubplan.storage import nodes_for_protection, usable_fraction

    # k + m chunks across nodes need k + m nodes (Ceph CRUSH: one chunk per host; MinIO
    # erasure sets); n replicas n nodes; RAID is inside one node
    assert nodes_for_protection(scheme) == nodes
    assert usable_fraction(scheme) == pytest.approx(usable)


def test_warm_and_cold_tiers_have_enough_nodes_for_their_scheme():
    # The default scenario keeps three replicas on its warm and cold tiers: 11.3 TB of warm
    # content fits on one 1 440 TB HDD node, which protected nothing against its own loss;
    # three copies need three nodes (before: 1 node each)
    p = hubplan.build_plan(hubplan.default_scenario())
    t = p["storage_tiers"].set_index("tier")
    for tier in ("warm", "cold"):
        assert (t.loc[tier, "nodes"], t.loc[tier, "sized_by"]) == (3, "protection")
        assert t.loc[tier, "nodes_for_protection"] == 3
    assert p["storage_nodes"].set_index("tier").loc["warm", "nodes"] == 3
    # the section's default, EC 8+2 across nodes, places a stripe's ten chunks on ten
    ec = hubplan.build_plan(
        hubplan.default_scenario().with_changes({"storage.warm_protection": "ec_8+2"})
    )
    warm = ec["storage_tiers"].set_index("tier").loc["warm"]
    assert (warm["nodes"], warm["nodes_for_protection"]) == (10, 10)
    assert hubplan.Scenario().storage.warm_protection == "ec_8+2"


def test_fixed_hot_tier_short_of_its_scheme_is_an_error():
    s = hubplan.default_scenario().with_changes(
        {"storage.hot_protection": "ec_8+2", "storage.hot_nodes": 4}
    )
    f = _codes(hubplan.build_plan(s), "protection_short")
    assert len(f) == 1 and f.iloc[0]["severity"] == "error"
    assert f.iloc[0]["data"] == {"tier": "hot", "nodes": 4, "protection": "ec_8+2", "needed": 10}
    assert _codes(hubplan.build_plan(hubplan.default_scenario()), "protection_short").empty


# -- protection: offload between tiers -------------------------------------------------


def test_offload_rate_by_hand():
    from hubplan.storage import offload_gb_s

    # a 5.67 TB checkpoint every 211.3 s moves down one per interval: 5 670 / 211.3 = 26.83
    assert offload_gb_s(5.67, 211.3) == pytest.approx(26.834, abs=1e-3)
    # milestones copied while the warm tier holds its 10: 5 670 / 2 113 = 2.683
    assert offload_gb_s(5.67, 211.3, 10) == pytest.approx(2.6834, abs=1e-4)
    assert offload_gb_s(5.67, float("inf")) == 0.0


def test_job_inflow_by_hand():
    from hubplan.storage import job_inflow_gb_s

    st = hubplan.Scenario().storage
    job = {
        "checkpoint_tb": 5.67,
        "interval_s": 211.3,
        "raw_tb": 62.4,
        "final_weights_tb": 0.81,
        "job_days": 75.18,
    }
    run_s = 75.18 * 86_400  # 6 495 552 s
    # warm: 5 670 / 211.3 = 26.834 GB/s of checkpoints + 62 400 GB of raw data over the run
    # cold: milestones copied while warm holds its 10: 5 670 / 2 113 = 2.683, + 63 210 GB
    warm, cold = job_inflow_gb_s(job, st)
    assert warm == pytest.approx(26.834 + 62_400 / run_s, abs=1e-3)
    assert cold == pytest.approx(2.6834 + 63_210 / run_s, abs=1e-4)
    # nothing moves off the hot tier: the warm tier only lands the data, and the cold
    # milestones must be copied while the hot tier keeps its last 3: 5 670 / 633.9 = 8.945
    warm, cold = job_inflow_gb_s(job, st.model_copy(update={"checkpoint_offload": False}))
    assert warm == pytest.approx(62_400 / run_s)
    assert cold == pytest.approx(8.945 + 63_210 / run_s, abs=1e-3)


def test_16k_offload_drains_and_a_slow_warm_tier_is_a_finding():
    big = hubplan.build_plan(hubplan.load_scenario(PRETRAIN))
    ck = big["checkpoint_plan"].iloc[0]
    # 56 OSS × 61.44 = 3 440.64 GB/s: 5 670 / 3 440.64 = 1.648 s per checkpoint; M = 3.0298 h
    # = 10 907 s (the failure model, test_failure.py); one checkpoint every
    # √(2 × 1.648 × 10 907) = 189.6 s (Daly); into warm 5 670 / 189.6 = 29.90 GB/s, plus
    # 62.4 TB of raw data over the 75.18-day run, 0.0096: 29.91 GB/s; the 10 HDD nodes
    # take 10 × 13.68 = 136.8
    assert ck["interval_min"] * 60 == pytest.approx(189.6, abs=0.1)
    assert ck["warm_inflow_gb_s"] == pytest.approx(29.91, abs=0.01)
    assert big["storage_tiers"].set_index("tier").loc["warm", "write_gb_s"] == 136.8
    assert _codes(big, "offload_too_slow").empty
    # 100 OSS fixed write 6 144 GB/s: 0.9229 s per checkpoint, √(2 × 0.9229 × 10 907)
    # = 141.9 s, 5 670 / 141.9 = 39.96 GB/s (+ 0.0096 of data) into a warm tier of six
    # MinIO nodes (EC 4+2) that take 6 × 5.54 = 33.24 GB/s: it falls behind
    s = hubplan.load_scenario(PRETRAIN).with_changes(
        {
            "storage.hot_nodes": 100,
            "storage.warm_model": "minio-nvme",
            "storage.warm_protection": "ec_4+2",
        }
    )
    f = _codes(hubplan.build_plan(s), "offload_too_slow")
    assert len(f) == 1 and f.iloc[0]["severity"] == "warning"
    d = f.iloc[0]["data"]
    assert (d["tier"], d["source"]) == ("warm", "hot")
    assert d["need"] == pytest.approx(39.97, abs=0.01) and d["supply"] == pytest.approx(33.24)
