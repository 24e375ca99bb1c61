"""Delivery stage: schedule and critical path, scheduler files, acceptance figures."""

import pandas as pd
import pytest

import hubplan
from hubplan.delivery import (
    Delivery,
    gres_conf,
    implementation_schedule,
    k8s_manifests,
    prolog_script,
    real_memory_mib,
    slurm_conf,
    validate_scheduler,
)
from hubplan.plan import build_plan


@pytest.fixture(scope="module")
def plan():
    return build_plan(hubplan.default_scenario())


@pytest.fixture(scope="module")
def big():
    return build_plan(hubplan.load_scenario(hubplan.core.paths.templates_dir()
                                            / "scenarios" / "pretrain-16k.yaml"))  # fmt: skip


def test_schedule_dates_and_critical_path(plan):
    s = plan["schedule"].set_index("task")
    # Default: 19 servers in 2 batches (10 + 9). Design 42 d + 20 % → 51 (50.4 up).
    # Batch 2 servers arrive at 20 + 4 = 24 weeks = 168 d, + 20 % = 202 (201.6 up):
    # day 51 + 202 = 253. Rack 9 servers at 8/day = 2 d (+1 buffer) → 256; network 10 + 2
    # → 268; commissioning 15 + 3 → 286; trial 2 + 1 → 289 = 2026-01-05 + 289 d.
    assert s.loc["handover_2", "end_day"] == 289
    assert s.loc["handover_2", "end_date"] == pd.Timestamp("2026-10-21")
    # Batch 1 goes to users 34 days before the last (phased hand-over).
    assert s.loc["handover_1", "end_day"] == 255
    crit = set(s.index[s["critical"]])
    assert {"design", "procure_servers_2", "rack_2", "commission_2", "handover_2"} <= crit
    # Fit-out (16 weeks + 20 % = 135 d) runs beside the 168 d server lead time: slack.
    assert not s.loc["fitout", "critical"] and s.loc["fitout", "slack_days"] > 0
    assert set(plan["schedule"]["phase"]) == set(hubplan.delivery.PHASES)


def test_no_buffer_shortens_to_the_raw_lead_times():
    s = implementation_schedule(16, Delivery(buffer=0, handover_batches=1)).set_index("task")
    # 42 + 140 + 2 + 10 + 15 + 2 = 211 days.
    assert s.loc["handover_1", "end_day"] == 211


def test_16k_schedule_is_phased(big):
    s = big["schedule"]
    assert s["batch"].max() == 8
    ends = s[s["task"].str.startswith("handover_")]["end_day"]
    assert ends.is_monotonic_increasing and ends.iloc[0] < ends.iloc[-1]


def test_slurm_nodes_and_text(plan):
    n = plan["slurm_nodes"].set_index("pool")
    # DGX H100: 2 × 56 cores, 2 threads → 224 CPUs; 2 048 GB = 1 953 125 MiB, × 0.95 →
    # 1 855 468 MiB.
    assert n.loc["training", "cpus"] == 224
    assert n.loc["training", "real_memory_mib"] == 1_855_468 == real_memory_mib(2048, 0.05)
    conf = slurm_conf(plan["slurm_nodes"], plan["slurm_partitions"])
    assert (
        "NodeName=train-[0001-0018] CPUs=224 Sockets=2 CoresPerSocket=56 ThreadsPerCore=2 "
        "RealMemory=1855468 Gres=gpu:h100:8 State=UNKNOWN"
    ) in conf
    assert "PartitionName=dev Nodes=dev-0001 Default=YES MaxTime=480 State=UP" in conf
    gres = gres_conf(plan["slurm_nodes"])
    assert "NodeName=train-[0001-0018] Name=gpu Type=h100 File=/dev/nvidia[0-7]" in gres
    assert validate_scheduler(conf, gres, plan["slurm_nodes"]) == []
    assert "train-*) expected=8" in prolog_script(plan["slurm_nodes"])


def test_validation_catches_bad_text(plan):
    nodes = plan["slurm_nodes"]
    conf = slurm_conf(nodes, plan["slurm_partitions"])
    gres = gres_conf(nodes)
    bad = conf.replace("RealMemory=1855468", "RealMemory=1953125").replace(
        "gpu:h100:8", "gpu:h100:4").replace("PartitionName=dev ", "#")  # fmt: skip
    codes = {f.code for f in validate_scheduler(bad, gres, nodes)}
    assert codes == {"realmemory_not_below_physical", "gres_count_mismatch",
                     "node_without_partition"}  # fmt: skip
    bad_gres = gres.replace("nvidia[0-7]", "nvidia[0-3]")
    assert {f.code for f in validate_scheduler(conf, bad_gres, nodes)} == {"gres_count_mismatch"}


def test_k8s_quota_and_container(plan):
    k = plan["k8s_pools"]
    # industry-70b-online: 2 replicas × TP 4 = 8 GPUs, plus one 4-GPU surge pod for a
    # rolling update = 12 (tests/test_kubernetes.py checks the manifests in full).
    assert k["gpu_quota"].sum() == 12
    text = k8s_manifests(k)
    assert "requests.nvidia.com/gpu: '12'" in text and "nvidia.com/gpu: '4'" in text
    spec = hubplan.delivery.container_spec(plan.scenario.delivery, plan["rdma_settings"])
    assert spec.startswith("# Training image") and "nvidia-driver" not in spec
    assert 'ENV NCCL_IB_TIMEOUT="20"' in spec


def test_acceptance_figures(plan):
    a = plan["acceptance"].set_index(["pool", "test"])
    # H100 SXM: 0.80 × 989.5 = 791.6 TFLOPS (mamf-finder measured 794.5, 80.3 %).
    assert a.loc[("training", "dense_matmul"), "expected"] == pytest.approx(791.6)
    # NVLink 900 GB/s bidirectional → 450 one way × 0.82 = 369 (nccl-tests #212: ~370).
    assert a.loc[("training", "nvlink_all_reduce"), "expected"] == pytest.approx(369.0)
    # 400G × 0.94 = 376 Gb/s (Azure ND H100 v5 requires ≥ 375).
    assert a.loc[("training", "rdma_write_bw"), "expected"] == pytest.approx(376.0)
    # 8 × 400 / 8 = 400 GB/s × 0.90 = 360, below the NVLink figure.
    fab = plan["acceptance"].query("test == 'fabric_all_reduce'")
    assert list(fab["expected"]) == pytest.approx([360.0, 360.0]) and set(fab["scope"]) == {
        "unit",
        "fabric",
    }
    # 18 DGX × 8 NICs = 144 ports to test.
    assert a.loc[("training", "rdma_write_bw"), "count"] == 144
    assert a.loc[("training", "stability_run"), "expected"] == 24
    # L40S has no NVSwitch: no NVLink test in the development pool.
    assert ("development", "nvlink_all_reduce") not in a.index


def test_delivery_section_refuses_bad_values(default):
    with pytest.raises(hubplan.ScenarioError, match=r"delivery\.buffer"):
        default.with_changes({"delivery.buffer": -0.1})
    with pytest.raises(hubplan.ScenarioError, match="realmemory_margin"):
        default.with_changes({"delivery.realmemory_margin": 1.0})


def test_scenario_with_delivery_round_trips(default):
    s = default.with_changes({"delivery.start_date": "2027-03-01"})
    assert hubplan.Scenario.from_yaml(s.to_yaml()) == s


def test_export_writes_the_files_atomically(plan, tmp_path):
    from hubplan.export import write_scheduler_files

    paths = write_scheduler_files(plan, tmp_path / "slurm")
    assert sorted(p.name for p in paths) == ["Dockerfile.training", "gres.conf",
                                             "k8s-inference.yaml", "prolog.sh", "slurm.conf"]  # fmt: skip
    assert (tmp_path / "slurm" / "prolog.sh").stat().st_mode & 0o111
    assert not list((tmp_path / "slurm").glob(".*"))  # no temporary file left behind
    text = (tmp_path / "slurm" / "slurm.conf").read_text()
    assert validate_scheduler(text, gres_conf(plan["slurm_nodes"]), plan["slurm_nodes"]) == []


def test_gantt_reads_the_schedule(plan):
    from hubplan.views import gantt

    spec = gantt(plan["schedule"], "zh").to_dict()
    bars = spec["layer"][0]
    assert bars["encoding"]["x"]["field"] == "start_date"
    assert bars["encoding"]["color"]["title"] == "阶段"


def test_a_service_that_fits_nowhere_gets_no_kubernetes_pool(default):
    # 1 330 311-token prompts exceed Llama-2-70B's 4 096-token window: the workload stage
    # raises an error finding and sizes no layout; delivery must not fail on it.
    s = default.with_changes({"workload.inference.0.prompt_tokens": 1_330_311})
    plan = hubplan.build_plan(s)
    assert "context_exceeds_window" in set(plan.errors["code"])
    assert plan["k8s_pools"].empty


def test_slurm_nodes_carry_the_hostnames_of_the_ip_plan_and_racks(default):
    # An installer reads the IP plan, the rack layout and slurm.conf side by side: a server
    # must have one name in all three (train-0001 … train-0018 for the default plan).
    plan = hubplan.build_plan(default)
    ips = set(plan["ip_plan"]["device"])
    racked = set(plan["rack_layout"]["device"])
    expected = {f"train-{i:04d}" for i in range(1, 19)}
    assert expected <= ips and expected <= racked
    group = plan["slurm_nodes"].set_index("pool").loc["training", "node_group"]
    assert group == "train-[0001-0018]"
