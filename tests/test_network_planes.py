"""The in-band and out-of-band management planes sized from the ports they need.

Hand-worked against NVIDIA DGX SuperPOD H100 RA-11333-001 V11 (Tables 7 and 8: 4 SUs,
8 SN4600C in-band switches, 6 leaves under 2 cores, 8 SN2201 OOB switches with two
uplinks each to in-band) and the fat-tree arithmetic of Al-Fares, Loukissas & Vahdat,
SIGCOMM 2008, §3.1.
"""

import numpy as np
import pandas as pd
import pytest

from hubplan import load_scenario
from hubplan.core.errors import HubplanError
from hubplan.network.planes import management_plane
from hubplan.network.ports import plane_links
from hubplan.plan import build_plan

# SN4600C at 4:1: u = ⌈64 / 5⌉ = 13 uplinks, d = 51 downlinks per leaf.
SN4600C = 64


def _media(gbps, reach):
    return "dac"


def test_table_8_four_su_is_six_leaves_and_a_pair():
    # RA-11333-001 Table 8: 290 in-band ports → ⌈290 / 51⌉ = 6 leaves, 6 × 13 = 78
    # uplinks on max(2, ⌈78 / 64⌉) = 2 cores: Table 7's 8 switches.
    f = management_plane(290, SN4600C, 4.0)
    assert (f.tiers, f.leaves, f.spines, f.cores) == (2, 6, 2, 0)


def test_16k_in_band_plane_from_its_ports():
    # 16 384 GPUs: 4 646 ports (2 151 DGX × 2 + 91 storage nodes + 3 management servers
    # + 4 UFM + 123 OOB leaves × 2). L = ⌈4 646 / 51⌉ = 92 leaves; 92 × 13 = 1 196
    # uplinks need ⌈1 196 / 64⌉ = 19 spines > 13 uplinks per leaf: three tiers.
    # Pods of ≤ 32 leaves (a 64-port spine: 32 down, 32 up): 32, 32, 28 leaves;
    # spines ⌈32 × 13 / 32⌉ = 13, 13, ⌈28 × 13 / 32⌉ = 12 → 38; each sends 32 up;
    # cores ⌈38 × 32 / 64⌉ = 19 ≤ 32, each spine reaching every core. 92 + 38 + 19 = 149
    # (size_fabric's rule gave 39 spines and 26 cores).
    f = management_plane(4646, SN4600C, 4.0)
    assert (f.tiers, f.leaves, f.leaf_up, f.leaf_down) == (3, 92, 13, 51)
    assert f.pod_spines == (13, 13, 12)
    assert (f.spine_up, f.cores, f.core_mesh) == (32, 19, True)
    assert f.leaves + f.spines + f.cores == 149


def test_in_band_past_a_mesh_core_uses_core_groups():
    # 192 leaves (9 792 ports = 192 × 51): 6 pods of 32 leaves × 13 spines = 78 spines,
    # 32 up each; a mesh would need ⌈78 × 32 / 64⌉ = 39 cores > 32 uplinks, so spine j of
    # every pod feeds group j of ⌈6 × 32 / 64⌉ = 3 cores: 13 × 3 = 39 cores.
    f = management_plane(192 * 51, SN4600C, 4.0)
    assert (f.leaves, f.spines, f.cores_per_group, f.cores) == (192, 78, 3, 39)
    assert not f.core_mesh


def test_in_band_past_three_tiers_is_an_error_naming_the_reach():
    # Three tiers reach 64 pods × 32 leaves × 51 ports = 104 448 at 4:1: 2 048 leaves,
    # 64 × 13 = 832 spines, 13 groups of ⌈64 × 32 / 64⌉ = 32 cores = 416. One port more
    # is 2 049 leaves, 65 pods, ⌈65 × 32 / 64⌉ = 33 cores per group > 32 spine uplinks.
    f = management_plane(104_448, SN4600C, 4.0)
    assert (f.leaves, f.spines, f.cores) == (2048, 832, 416)
    with pytest.raises(HubplanError, match=r"104,449 ports.*104,448.*network\.inband_switch"):
        management_plane(104_449, SN4600C, 4.0)


def test_in_band_ratio_that_leaves_no_downlink_is_named():
    # at 0:1 a leaf's u = ⌈64 / 1⌉ = 64 uplinks leave d = 0 ports for endpoints
    with pytest.raises(HubplanError, match=r"network\.management_oversubscription = 0"):
        management_plane(100, SN4600C, 0.0)


@pytest.mark.parametrize("endpoints", [290, 4646, 192 * 51, 3 * 51 * 32 + 7])
def test_in_band_cabling_reaches_every_switch_within_its_ports(endpoints):
    # Every leaf reaches every spine of its pod, every spine every core of its group,
    # and no switch uses a port beyond its 64.
    f = management_plane(endpoints, SN4600C, 4.0)
    ends = {
        "device": np.array([f"h{i}" for i in range(endpoints)], dtype=object),
        "interface": np.full(endpoints, "mgmt", dtype=object),
    }
    groups = plane_links("inband", f, ends, 100.0, 1, (1.0, 10.0, 30.0), media_of=_media)
    links = pd.concat(
        [
            pd.DataFrame({"a": g.device_a, "pa": g.port_a, "b": g.device_b, "pb": g.port_b})
            for g in groups
        ],
        ignore_index=True,
    )
    for col, dev in (("pa", "a"), ("pb", "b")):
        sw = links[links[dev].str.startswith("inband-")]
        assert sw[col].str[1:].astype(int).max() <= SN4600C
        assert not sw.duplicated([dev, col]).any()
    up = links[links["a"].str.startswith("inband-leaf")]
    assert len(up) == f.leaves * f.leaf_up
    reached = up.groupby("a")["b"].nunique().sort_index().to_numpy()
    pod = np.arange(f.leaves) // f.units_per_pod
    assert (reached == np.asarray(f.pod_spines)[pod]).all()
    if f.tiers == 3:
        core = links[links["a"].str.startswith("inband-spine")]
        per_spine = core.groupby("a")["b"].nunique()
        assert len(per_spine) == f.spines
        assert per_spine.min() == per_spine.max() == f.cores_per_group


@pytest.fixture(scope="module")
def plan_16k():
    scenario = load_scenario("templates/scenarios/pretrain-16k.yaml")
    return build_plan(scenario, until="network")


def test_16k_plan_in_band_and_out_of_band_counts(plan_16k):
    fabric = plan_16k.tables["fabric"].set_index("plane")
    # In-band: the rule of test_16k_in_band_plane_from_its_ports on the plan's 4 633 ports
    # (its 78 storage nodes; the hand example's 4 646 had 91): ⌈4 633 / 51⌉ = 91 leaves in
    # pods of 32, 32 and 27; spines 13 + 13 + ⌈27 × 13 / 32⌉ = 11 = 37; cores
    # ⌈37 × 32 / 64⌉ = 19.
    inband = fabric.loc["inband", ["endpoints", "leaves", "spines", "cores"]].tolist()
    assert inband == [4633, 91, 37, 19]
    # Out-of-band: 2 151 DGX BMCs + 78 storage nodes + 3 management servers + 4 UFM +
    # the mgmt0 of 1 280 compute (512 + 512 + 256), 380 storage (140 + 144 + 96) and 147
    # in-band switches + ⌈0.85 × 2 151⌉ = 1 829 PDU ports = 5 872 → ⌈5 872 / 48⌉ = 123
    # SN2201 leaves, no spines (their 2 uplinks each land on the in-band plane).
    assert fabric.loc["bmc", ["endpoints", "leaves", "spines"]].tolist() == [5872, 123, 0]


def test_16k_in_band_finding_prices_the_higher_radix_alternative(plan_16k):
    # SN5400 (64 × 400G, breakout 4) and SN5600 (64 × 800G, breakout 4) both give
    # 64 × 4 = 256 ports at 100G (NVIDIA SN5000 user manual, 'Data Interfaces'). At 4:1:
    # u = ⌈256 / 5⌉ = 52, d = 204; ⌈4 633 / 204⌉ = 23 leaves, ⌈23 × 52 / 256⌉ = 5 spines
    # ≤ 52: two tiers, 28 switches against 147. Of the two, the slower native port
    # (SN5400, less breakout).
    f = plan_16k.findings
    (data,) = f.loc[f["code"] == "inband_three_tiers", "data"].tolist()
    assert (data["switch"], data["leaves"], data["spines"], data["cores"]) == (
        "SN4600C",
        91,
        37,
        19,
    )
    assert (data["other"], data["other_radix"], data["other_leaves"], data["other_spines"]) == (
        "SN5400",
        256,
        23,
        5,
    )


def test_two_tier_in_band_plane_has_no_radix_finding():
    f = build_plan(load_scenario("templates/scenarios/default.yaml"), until="network").findings
    assert "inband_three_tiers" not in set(f["code"])
