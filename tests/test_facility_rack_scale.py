"""Cooling ranges from vendor sheets, and a GB200 NVL72 rack planned under the default
scenario: liquid cooling, its real rack power, its trays cabled and powered on."""

import pytest

import hubplan
from hubplan.facility.cooling import cooling_ranges
from hubplan.facility.section import Facility

NVL72 = {
    "pools.training.accelerator": "GB200 186GB",
    "pools.training.gpus_per_server": 72,
    "pools.training.server": "GB200 NVL72 rack",
}


def test_cooling_defaults_lie_inside_their_sourced_ranges():
    ranges = cooling_ranges()
    assert set(ranges["mode"]) == {"air", "rear_door", "liquid"}
    assert (ranges["source"].str.len() > 20).all() and (ranges["as_of"] != "").all()
    assert (ranges["low_kw"] < ranges["high_kw"]).all()
    f = Facility()
    by_mode = ranges.groupby("mode").agg(low=("low_kw", "min"), high=("high_kw", "max"))
    # air 10-20 kW; rear doors 14-75 kW; direct liquid 80-150 kW (data/cooling.csv)
    assert by_mode.loc["air"].tolist() == [10, 20]
    assert by_mode.loc["rear_door"].tolist() == [14, 75]
    assert by_mode.loc["liquid"].tolist() == [80, 150]
    for mode, value in (
        ("air", f.air_max_kw),
        ("rear_door", f.rear_door_max_kw),
        ("liquid", f.liquid_max_kw),
    ):
        assert by_mode.loc[mode, "low"] <= value <= by_mode.loc[mode, "high"], mode
    # The default door is a fan-assisted one: above every passive door's 35 kW (HPE's
    # 14-35 kW family; IBM's passive door removes only 55-85 % of a 20-32 kW cabinet).
    doors = ranges[ranges["mode"] == "rear_door"].set_index("variant")
    assert f.rear_door_max_kw > doors.loc["passive", "high_kw"]
    assert doors.loc["active", "low_kw"] <= f.rear_door_max_kw <= doors.loc["active", "high_kw"]
    # Was 80 kW: above every door in the table.
    assert f.rear_door_max_kw < 80


@pytest.fixture(scope="module")
def nvl72_plan(default):
    return hubplan.build_plan(default.with_changes(NVL72))


def test_nvl72_rack_plans_under_the_default_scenario(nvl72_plan):
    # Before: the network stage took the rack's 72 NICs as 72 rails of one server and
    # stopped ('72 rails per server do not fit a 64-port spine pod'); with that passed,
    # the rack's 132 kW was 'beyond' liquid cooling and its power-on 1.5 × 132 = 198 kW
    # over its 150 kW feed: two errors.
    plan = nvl72_plan
    f = plan.findings
    assert f.loc[f["severity"] == "error", "code"].tolist() == []
    pools = plan["pools"].set_index("pool")
    # 72 GPUs of demand → 1 rack + 1 spare at 5 %
    assert pools.loc["training", "total_servers"] == 2


def test_nvl72_is_cabled_by_its_18_trays(nvl72_plan):
    # NVIDIA DGX GB200 user guide: 18 compute trays of 4 GPUs, 4 × 400 Gb/s compute NICs
    # each, in a rack of 72 GPUs (data/servers.csv: 72 compute NICs for the rack).
    ports = nvl72_plan["port_map"]
    compute = ports[(ports["plane"] == "compute") & ports["device_a"].str.startswith("train-")]
    trays = sorted(set(compute["device_a"]))
    # The working rack's 18 trays; the spare rack is spare whole (one NVLink domain): the
    # SU's 32 slots less 1 for the UFM pair (2 × 2 ports on 4 rails) leave 13 after 18 trays,
    # too few for its 18, so
    # it waits in the cold pool, on the in-band and BMC planes only.
    assert len(trays) == 18
    assert trays[0] == "train-0001-t01" and trays[-1] == "train-0001-t18"
    assert compute.groupby("device_a").size().unique().tolist() == [4]  # rails per tray
    assert set(compute["speed_gbps"]) == {400.0}
    fabric = nvl72_plan["fabric"].set_index("plane").loc["compute"]
    assert fabric["endpoints"] == 72
    spare = ports[ports["device_a"] == "train-0002-t18"]
    assert "compute" not in set(spare["plane"]) and "bmc" in set(spare["plane"])
    past = nvl72_plan.findings[nvl72_plan.findings["code"] == "spares_past_su"]
    assert past["data"].iloc[0]["cold"] == 18


def test_nvl72_rack_cooling_and_power_on(nvl72_plan):
    layout = nvl72_plan["rack_layout"]
    rack = layout.loc[layout["model"] == "GB200 NVL72 rack", "rack"].iloc[0]
    cool = nvl72_plan["cooling"].set_index("rack").loc[rack]
    # 132 kW on 150 kW of direct liquid cooling: 18 / 150 = 12 % headroom, below 15 %
    assert (cool["cooling_mode"], cool["status"]) == ("liquid", "low_headroom")
    assert cool["heat_kw"] == pytest.approx(132.0)
    # Its 18 trays start one after another: peak = 132 × (1 + 0.5 / 18) = 135.667 kW on
    # the 150 kW rack-scale feed (all at once: 1.5 × 132 = 198 kW).
    seq = nvl72_plan["power_on_sequence"]
    row = seq[seq["rack"] == rack].iloc[0]
    assert row["peak_kw"] == pytest.approx(135.6667, abs=1e-3)
    assert row["status"] == "ok"


def test_nvl72_slurm_nodes_are_its_trays(nvl72_plan):
    # Slurm runs on each compute tray (4 GPUs, 2 Grace of 72 cores, 2 × 480 GB LPDDR5X:
    # NVIDIA DGX GB200 user guide), named as the port map cables them; the NVLink domain
    # is one rack, 18 trays. Before: two 72-GPU 'nodes' train-[0001-0002] that the
    # topology did not place ('topology_nodes_missing').
    node = nvl72_plan["slurm_nodes"].set_index("pool").loc["training"]
    assert node["node_group"] == "train-[0001-0002]-t[01-18]"
    assert (node["nodes"], node["gres_gpus"], node["domain_nodes"]) == (36, 4, 18)
    assert (node["sockets"], node["cores_per_socket"]) == (2, 72)
    # Neoverse V2 cores run one thread each: 144 CPUs, as slurmd registers a GB200 tray
    # (a GB200 NVL72 slurm.conf: CPUs=144 ThreadsPerCore=1). Before: ThreadsPerCore=2,
    # CPUs=288, more than the node has, so slurmctld would set every tray INVALID.
    assert (node["threads_per_core"], node["cpus"]) == (1, 144)
    topo = nvl72_plan["slurm_topology"]
    assert topo["child_nodes"].tolist()[:2] == ["train-0001-t[01-18]", "train-0002-t[01-18]"]
    # the L40S development node, in no NVLink block, is in a partition of its own: Slurm
    # schedules it without the block logic (tests/test_delivery_block.py), no warning
    f = nvl72_plan.findings
    missing = f[f["code"] == "topology_nodes_missing"]
    assert missing["subject"].tolist() == []
    # acceptance: nvidia-smi on each of the 36 trays lists 4 GPUs (before: 72 on 2 nodes)
    accept = nvl72_plan["acceptance"]
    count = accept[(accept["pool"] == "training") & (accept["test"] == "gpu_count")]
    assert count[["count", "expected"]].values.tolist() == [[36, 4]]


def test_nvl72_inference_pool_plans_and_schedules_on_trays(default):
    plan = hubplan.build_plan(
        default.with_changes(
            {
                "pools.inference.accelerator": "GB200 186GB",
                "pools.inference.gpus_per_server": 72,
                "pools.inference.server": "GB200 NVL72 rack",
            }
        )
    )
    f = plan.findings
    assert f.loc[f["severity"] == "error", "code"].tolist() == []
    # A pod's share is of one 4-GPU tray (GKE's reservation rule, kubernetes.node_allocatable):
    # 960 GB = 894.07 GiB; reserved 1 + 0.8 + 0.8 + 6.72 + 0.02 × 766.07 + 0.098 = 24.74;
    # (894.07 − 24.74 − 2 GiB of daemon sets) × 2/4 GPUs = 433.7 → 433 GiB. CPUs: Grace
    # has one thread a core, 144 (two 72-core Grace, Crusoe's MLPerf GB200-NVL72 JSON);
    # reserved 0.06 + 0.01 + 2 × 0.005 + 140 × 0.0025 = 0.43; 144 − 0.43 − 1 = 142.57 ×
    # 2/4 = 71.3 → 71. Before, the share was 2/72 of the whole rack's 17 280 GB (437 GiB,
    # more than the tray leaves), then of 288 "threads" (143 CPUs the tray does not have).
    pod = plan["k8s_pools"].iloc[0]
    assert pod["gpus_per_pod"] == 2
    assert (pod["cpus_per_pod"], pod["memory_gib_per_pod"]) == (71, 433)
