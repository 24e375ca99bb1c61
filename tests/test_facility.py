"""Facility stage: racks, power, cooling and the equipment list, against hand-worked numbers.

Sources for the figures: NVIDIA DGX H100/H200 User Guide (10.2 kW maximum, 8U, 130.45 kg);
the planning guide "智算技术与算力规划设计及部署实施方案" v2.0 (≥ 15 % headroom, 1.5 ×
nameplate at power-on); NIST SP 811 (1 BTU_IT/h = 0.293 071 1 W).
"""

import numpy as np
import pandas as pd
import pytest

import hubplan
from hubplan.core.errors import ScenarioError
from hubplan.facility import (
    Facility,
    cooling_mode,
    device_table,
    empty_storage_nodes,
    empty_switches,
    heat_btu_h,
    next_fit,
    place_devices,
    power_allocation,
    power_on_steps,
)
from hubplan.facility.stage import facility_findings, facility_tables
from hubplan.views.render import findings_table

DGX = {
    "pool": "training",
    "partition": "train",
    "model": "DGX H100",
    "accelerator": "H100 SXM5 80GB",
    "gpus_per_server": 8,
    "rack_scale": False,
    "u_height": 8.0,
    "max_power_kw": 10.2,
    "typical_power_kw": 8.16,
    "weight_kg": 130.45,
    "price_usd": 270000.0,
    "power_source": "catalog",
    "size_source": "catalog",
    "compute_nics": 8.0,
    "compute_nic_gbps": 400.0,
}


def servers(n, **kw):
    return pd.DataFrame([{**DGX, "servers": n, **kw}])


def codes(plan, stage="facility"):
    f = plan.findings
    return set(f.loc[f["stage"] == stage, "code"])


def test_four_dgx_in_a_40_kw_rack_leave_no_headroom_three_do():
    # 4 × 10.2 = 40.8 kW on 40 kW: −0.8 kW (−2 %), over; 3 × 10.2 = 30.6 kW: 9.4 kW = 23.5 %.
    f = Facility(management_servers=0, max_servers_per_rack=4, power_headroom=0.0)
    racks, layout = place_devices(
        device_table(servers(4), empty_storage_nodes(), empty_switches(), f), f
    )
    # with no headroom rule the cap is the 40 kW supply: three fit, the fourth gets a rack
    assert racks["devices"].tolist() == [3, 1]
    # force four into one rack and read the allocation
    layout = layout.assign(rack="A01")
    alloc = power_allocation(racks.iloc[[0]], layout, Facility())
    row = alloc.iloc[0]
    assert row["device_power_kw"] == pytest.approx(40.8)
    assert row["headroom_kw"] == pytest.approx(-0.8)
    assert row["headroom_pct"] == pytest.approx(-0.02)
    assert row["status"] == "over"
    three = power_allocation(racks.iloc[[0]], layout.iloc[:3], Facility()).iloc[0]
    assert three["headroom_pct"] == pytest.approx(0.235)
    assert three["status"] == "ok"


def test_default_packs_three_dgx_per_40_kw_rack(default):
    plan = hubplan.build_plan(default)
    racks, layout = plan["racks"], plan["rack_layout"]
    # Compute racks (40 kW, cap 40 × 0.85 = 34 kW): 18 training DGX H100 at 3 a rack
    # (30.6 kW; a 4th would make 40.8) = 6 racks, 2 inference = 1, 1 L40S server = 1.
    # Storage and network racks have 22 kW, cap 22 × 0.85 = 18.7 kW.
    # Storage (storage stage, no catalogue size or power): 2 hot OSS + 2 hot MDS + 3 warm
    # + 3 cold capacity nodes (three replicas each) = 10 nodes on the 2U / 2 kW stand-ins
    # = 20 kW > 18.7: 9 in the first rack (18 kW, 18U), the 10th in a second (2 kW).
    # Network: unit 1's 8 QM9700 compute leaves (1U, 1.72 kW) = 13.76 kW: 1 rack; the
    # shared rack holds 4 QM9700 spines + 1 QM9700 storage leaf (5 × 1.72 = 8.6 kW), the
    # SN4600C (2U, 0.466 kW typical ÷ 0.8 = 0.5825 kW), 2 SN2201 (2 × 0.098 ÷ 0.8 = 0.245
    # kW; the OOB ports include 18 kept for rack PDUs), 4 UFM appliances (a pair per
    # InfiniBand fabric, unrated: the 1U / 0.8 kW management-server stand-in) and 3
    # management servers (3 × 0.8 kW) = 15.0275 kW, 15 devices in 16U.
    # 8 compute + 2 storage = row A's 10; the 2 network racks join its end: A01-A12.
    assert racks["rack"].tolist() == [f"A{i:02d}" for i in range(1, 13)]
    assert racks["kind"].tolist() == ["compute"] * 8 + ["storage"] * 2 + ["network"] * 2
    assert racks["devices"].tolist() == [3, 3, 3, 3, 3, 3, 2, 1, 9, 1, 8, 15]
    assert racks["u_used"].iloc[-4:].tolist() == [18, 2, 8, 16]
    # every device sits in exactly one rack at a unique position; 8U servers at U1, 9, 17
    assert layout["device"].is_unique and layout["rack"].notna().all()
    assert not layout.duplicated(["rack", "u_position"]).any()
    assert layout.loc[layout["rack"] == "A01", "u_position"].tolist() == [1, 9, 17]
    assert layout["device"].iloc[0] == "train-0001" and "infer-0002" in set(layout["device"])
    alloc = plan["power_allocation"]
    assert (alloc["status"] == "ok").all()
    assert alloc.loc[0, "allocated_kw"] == pytest.approx(30.6)
    # storage 18 + 2 kW, compute leaves 13.76 kW, shared 15.0275 kW, each of 22 kW
    assert alloc["allocated_kw"].iloc[-4:].tolist() == pytest.approx([18.0, 2.0, 13.76, 15.0275])
    assert {
        "rack_power_over",
        "rack_power_headroom",
        "inrush_over_feed",
        "cooling_missing",
        "cooling_over",
        "rack_over_weight",
        "rack_over_height",
    }.isdisjoint(codes(plan))


def test_unsourced_storage_nodes_and_switches_are_planned_on_stand_ins(default):
    plan = hubplan.build_plan(default)
    lay = plan["rack_layout"].set_index("device")
    # The catalogue sources neither size nor power of the default storage nodes: the
    # section's stand-ins, 2U and 2 kW, typical 2 × 0.8 = 1.6 kW.
    oss = lay.loc["stor-hot-oss-01"]
    assert (oss["u_height"], oss["max_power_kw"], oss["typical_power_kw"]) == (2, 2.0, 1.6)
    assert oss["power_source"] == "estimate" and oss["size_source"] == "estimate"
    # SN4600C: 2U and 0.466 kW typical are sourced (SN4000 manual), the maximum is not:
    # 0.466 ÷ 0.8 = 0.5825 kW; the QM9700's 1.72 kW maximum is sourced, nothing estimated.
    sn = lay.loc["inband-leaf-01"]
    assert sn["max_power_kw"] == pytest.approx(0.5825) and sn["typical_power_kw"] == 0.466
    assert (sn["power_source"], sn["size_source"]) == ("estimate", "catalog")
    assert lay.loc["compute-leaf-01", "power_source"] == "switches"
    f = plan.findings
    est = f[f["code"] == "device_figures_estimated"].set_index("subject")["data"]
    # three storage models (the HDD node serves warm and cold, three each: 6 devices), two switches
    # and the UFM appliances (4, a pair per InfiniBand fabric: the 1U / 0.8 kW
    # management-server stand-in, network.ufm_model)
    assert est["HDD capacity node 60x24TB 2x100G"] == {
        "model": "HDD capacity node 60x24TB 2x100G",
        "count": 6,
        "kw": 2.0,
        "units": 2,
    }
    assert est["SN4600C"]["kw"] == 0.58 and est["SN2201"]["kw"] == 0.12  # 0.098 ÷ 0.8
    assert est["UFM Enterprise Appliance 3.1"] == {
        "model": "UFM Enterprise Appliance 3.1",
        "count": 4,
        "kw": 0.8,
        "units": 1,
    }
    assert len(est) == 6 and "QM9700" not in est
    # the stand-in is a setting: 1.5 kW storage nodes make one 10 × 1.5 = 15 kW storage rack
    s = default.with_changes({"facility.unknown_storage_kw": 1.5})
    alloc = hubplan.build_plan(s)["power_allocation"]
    assert alloc.loc[alloc["kind"] == "storage", "device_power_kw"].tolist() == [15.0]


def test_devices_are_named_as_the_network_names_them():
    # The facility names devices itself (NumPy strings, no pandas string ops); the names
    # must be the network stage's: 4 digits up to 9 999 servers, 5 from 10 000 on
    # (train-10000), 3 digits from 100 storage nodes of a type on, 3 from 100 switches of
    # a plane and role on (compute-leaf-100), numbered on across that plane and role's rows.
    from hubplan.network import server_names, storage_node_names

    stor = pd.DataFrame(
        {
            "tier": ["warm", "hot"],
            "role": ["capacity", "oss"],
            "nodes": [3, 120],
            "nic_ports": [2, 2],
            "nic_gbps": [100.0, 400.0],
        }
    )
    sw = pd.DataFrame(
        {
            "plane": ["compute", "compute", "bmc"],
            "role": ["leaf"] * 3,
            "model": ["QM9700"] * 2 + ["SN2201"],
            "count": [60, 45, 2],
            "rack_units": [1.0] * 3,
            "max_power_kw": [1.72] * 3,
            "typical_power_kw": [0.747] * 3,
            "price_usd": [np.nan] * 3,
            "unit": ["1", "2", ""],
        }
    )
    f = Facility(management_servers=2)
    d = device_table(
        servers(10_000),
        stor.assign(
            model="node", rack_units=2.0, max_power_kw=2.0, typical_power_kw=1.6, price_usd=np.nan
        ),
        sw,
        f,
    )
    dev = d["device"].tolist()
    assert dev[:10_000] == server_names("train", 10_000).tolist()
    assert dev[9_999] == "train-10000" and dev[0] == "train-00001"
    # hot before warm (rack order), as the network stage names the sorted table
    hot_first = stor.iloc[[1, 0]].reset_index(drop=True)
    assert dev[10_000:10_123] == storage_node_names(hot_first)["device"].tolist()
    assert dev[10_000] == "stor-hot-oss-001" and dev[10_122] == "stor-warm-capacity-003"
    assert dev[10_123] == "compute-leaf-001" and dev[10_183] == "compute-leaf-061"
    assert dev[10_228:10_230] == ["bmc-leaf-01", "bmc-leaf-02"]  # after 10 123 + 105
    assert dev[-2:] == ["mgmt-01", "mgmt-02"] and d["device"].is_unique


def test_l40s_server_power_is_estimated_and_flagged(default):
    plan = hubplan.build_plan(default)
    dev = plan["rack_layout"].set_index("device").loc["dev-0001"]
    # catalogue has no maximum: 8 × 350 W ÷ 0.55 = 5.091 kW; 8U stand-in height
    assert dev["max_power_kw"] == pytest.approx(5.0909, abs=1e-4)
    assert dev["power_source"] == "estimate" and dev["u_height"] == 8
    assert dev["size_source"] == "estimate"  # the 8U stand-in, not a catalogue height
    assert plan["rack_layout"].set_index("device").loc["mgmt-01", "size_source"] == "scenario"
    assert {"server_power_estimated", "server_size_estimated"} <= codes(plan)
    # a custom server with its maximum given is not estimated
    custom = {
        "name": "8×L40S quoted",
        "accelerator": "L40S 48GB",
        "gpus": 8,
        "ram_gb": 768,
        "cpu_cores_total": 64,
        "cpu_base_ghz": 2.4,
        "storage_nics": 1,
        "inband_nics": 1,
        "bmc_nics": 1,
        "max_power_kw": 4.4,
    }
    s = default.with_changes(
        {"pools.development.server": None, "pools.development.custom_server": custom}
    )
    plan = hubplan.build_plan(s)
    assert plan["rack_layout"].set_index("device").loc["dev-0001", "power_source"] == "scenario"
    assert "server_power_estimated" not in codes(plan)


def test_power_on_sequence_keeps_inrush_under_the_feed():
    # 3 × 10.2 kW on a 40 kW feed at 1.5×: two start (2 × 15.3 = 30.6 ≤ 40), then the third
    # (20.4 running + 15.3 = 35.7 ≤ 40); two racks at once.
    rack = np.array([0, 0, 0, 1, 1])
    steps = power_on_steps(rack, np.full(5, 10.2), np.full(5, 40.0), 1.5)
    assert steps.tolist() == [1, 1, 2, 1, 1]
    t = facility_tables(
        servers(3),
        empty_storage_nodes(),
        empty_switches(),
        hubplan.load_catalog(),
        Facility(management_servers=0),
    )
    seq = t["power_on_sequence"]
    assert seq["peak_kw"].round(2).tolist() == [30.6, 35.7]
    assert (seq["status"] == "ok").all()


def test_inrush_over_the_feed_is_an_error(default):
    # 12 kW racks: 10.2 ≤ 12 × 0.85 = 10.2 fits one DGX a rack, but its start draws
    # 1.5 × 10.2 = 15.3 kW on a 12 kW feed.
    plan = hubplan.build_plan(default.with_changes({"facility.rack_budget_kw": 12}))
    assert "inrush_over_feed" in codes(plan)
    en = findings_table(plan.findings, "en")
    msg = en.loc[en["code"] == "inrush_over_feed", "message"].iloc[0]
    assert "peaks at 15.3 kW (1.5 × inrush) on a 12.0 kW feed" in msg


def test_sized_distribution_allocates_inrush():
    # sized: 40 × 0.85 ÷ 1.5 = 22.67 kW → two DGX (20.4) a rack, allocated 1.5 × 20.4 = 30.6
    f = Facility(management_servers=0, inrush_policy="sized")
    t = facility_tables(
        servers(18), empty_storage_nodes(), empty_switches(), hubplan.load_catalog(), f
    )
    assert len(t["racks"]) == 9
    assert t["power_allocation"]["allocated_kw"].iloc[0] == pytest.approx(30.6)
    assert (t["power_on_sequence"]["step"] == 1).all()


def test_low_headroom_is_a_warning(default):
    # One 10.2 kW DGX on an 11 kW rack leaves (11 − 10.2) ÷ 11 = 7.3 %, below 15 %; with
    # an inrush factor of 1 its power-on stays under the feed.
    plan = hubplan.build_plan(
        default.with_changes({"facility.rack_budget_kw": 11, "facility.inrush_factor": 1.0})
    )
    alloc = plan["power_allocation"]
    dgx = alloc[alloc["device_power_kw"] == 10.2]
    assert dgx["headroom_pct"].round(3).unique().tolist() == [0.073]
    assert "rack_power_headroom" in codes(plan)
    assert "rack_power_over" not in codes(plan)


def test_cooling_modes_and_btu():
    # NIST SP 811: 1 BTU_IT/h = 0.2930711 W → 10.2 kW = 34 804 BTU/h
    assert round(heat_btu_h(10.2)) == 34804
    # limits at 15 % headroom: air 15 × 0.85 = 12.75, rear door 40 × 0.85 = 34, liquid
    # 150 × 0.85 = 127.5 kW; 128-150 kW only liquid removes (below its headroom); over
    # 150 kW nothing does.
    heat = [12.75, 12.76, 34.0, 34.1, 127.5, 128, 150, 150.1]
    modes = cooling_mode(pd.Series(heat), Facility())
    assert modes.tolist() == [
        "air",
        "rear_door",
        "rear_door",
        "liquid",
        "liquid",
        "liquid",
        "liquid",
        "beyond",
    ]


def test_rack_needing_cooling_the_plan_lacks_is_an_error(default):
    plan = hubplan.build_plan(default.with_changes({"facility.cooling_modes": ["air"]}))
    cool = plan["cooling"]
    # Air cools up to 15 × 0.85 = 12.75 kW a rack. Over it, needing rear doors: 6 training
    # racks (30.6 kW), the inference rack (2 × 10.2 = 20.4 kW) and unit 1's compute-leaf
    # rack (8 QM9700 × 1.72 = 13.76 kW) and the shared network rack (15.0275 kW, its 4
    # UFM appliances and 2 SN2201 included; test_default_packs_three_dgx_per_40_kw_rack)
    # and the first storage rack (9 × 2 kW = 18 kW): 10 racks. Under it: the L40S rack
    # (5.09 kW) and the second storage rack (one 2 kW node).
    missing = cool[(cool["level"] == "rack") & (cool["status"] == "missing")]
    assert len(missing) == 10
    assert "cooling_missing" in codes(plan)
    row = cool[cool["level"] == "row"].iloc[0]
    # row A: 6 × 30.6 + 20.4 + 5.0909 + 18 + 2 + 13.76 + 15.0275 = 257.878 kW
    assert row["heat_kw"] == pytest.approx(257.878, abs=0.001)


def test_rack_scale_systems_get_their_own_racks(default):
    s = default.with_changes(
        {
            "pools.training.accelerator": "GB200 186GB",
            "pools.training.gpus_per_server": 72,
            "pools.training.server": "GB200 NVL72 rack",
            "pools.training.spare_ratio": 0,
            "facility.cooling_modes": ["air", "rear_door", "liquid"],
        }
    )
    plan = hubplan.build_plan(s)
    lay = plan["rack_layout"]
    nvl = lay[lay["model"] == "GB200 NVL72 rack"]
    assert nvl["rack"].is_unique  # one rack each
    alloc = plan["power_allocation"].set_index("rack").loc[nvl["rack"].iloc[0]]
    # 132 kW on 150 kW: 12 % headroom, below 15 %
    assert alloc["headroom_pct"] == pytest.approx(0.12)
    # 132 kW is over liquid's 150 × 0.85 = 127.5 kW but within its 150 kW: 12 % headroom,
    # a warning as for power (before, 'beyond' liquid: an error that stopped the plan)
    cool = plan["cooling"].set_index("rack").loc[nvl["rack"].iloc[0]]
    assert (cool["cooling_mode"], cool["status"]) == ("liquid", "low_headroom")
    assert cool["cooling_headroom_pct"] == pytest.approx(18 / 150)
    assert {"rack_power_headroom", "cooling_headroom"} <= codes(plan)
    assert "cooling_over" not in codes(plan)


def test_storage_nodes_and_switches_take_their_own_racks():
    stor = pd.DataFrame(
        [
            {
                "tier": "cold",
                "role": "data",
                "model": "obj-4u",
                "nodes": 4,
                "rack_units": 4,
                "max_power_kw": 1.0,
                "typical_power_kw": 0.6,
                "price_usd": 20000,
                "nic_ports": 2,
                "nic_gbps": 100,
            },
            {
                "tier": "hot",
                "role": "data",
                "model": "nvme-2u",
                "nodes": 12,
                "rack_units": 2,
                "max_power_kw": 2.0,
                "typical_power_kw": 1.5,
                "price_usd": 60000,
                "nic_ports": 2,
                "nic_gbps": 400,
            },
        ]
    )
    sw = pd.DataFrame(
        [
            {
                "plane": "compute",
                "role": "leaf",
                "model": "QM9700",
                "count": 4,
                "ports": 64,
                "port_gbps": 400,
                "rack_units": 1,
                "max_power_kw": 1.7,
                "typical_power_kw": 1.0,
                "price_usd": 30000,
                "unit": 1,
            },
            {
                "plane": "compute",
                "role": "leaf",
                "model": "QM9700",
                "count": 4,
                "ports": 64,
                "port_gbps": 400,
                "rack_units": 1,
                "max_power_kw": 1.7,
                "typical_power_kw": 1.0,
                "price_usd": 30000,
                "unit": 2,
            },
            {
                "plane": "compute",
                "role": "spine",
                "model": "QM9700",
                "count": 4,
                "ports": 64,
                "port_gbps": 400,
                "rack_units": 1,
                "max_power_kw": 1.7,
                "typical_power_kw": 1.0,
                "price_usd": 30000,
                "unit": "",
            },
        ]
    )
    f = Facility(management_servers=0, racks_per_row=4)
    t = facility_tables(servers(18), stor, sw, hubplan.load_catalog(), f)
    lay = t["rack_layout"].set_index("device")
    # hot tier first; 12 × 2 kW = 24 kW on a 22 kW rack at 15 % (18.7 kW): 9 a rack → 2 racks
    assert lay.loc["stor-hot-data-01", "rack"] == lay.loc["stor-hot-data-09", "rack"]
    assert lay.loc["stor-hot-data-10", "rack"] != lay.loc["stor-hot-data-09", "rack"]
    # switches numbered from 01 per plane and role across units
    assert {"compute-leaf-01", "compute-leaf-08", "compute-spine-04"} <= set(lay.index)
    racks = t["racks"].set_index("rack")
    # 18 DGX → 6 compute racks; storage: 9 hot (18 kW), then 3 hot + 4 cold (10 kW, 22U)
    assert racks["kind"].value_counts()[["compute", "storage"]].tolist() == [6, 2]
    # unit 1's network rack joins row A (its end), unit 2's row B, shared switches row A
    net = racks[racks["kind"] == "network"]
    assert net.loc[lay.loc["compute-leaf-01", "rack"], "row"] == "A"
    assert net.loc[lay.loc["compute-leaf-05", "rack"], "row"] == "B"
    assert lay.loc["compute-leaf-01", "rack"] == "A05"  # after A01-A04
    eq = t["equipment_list"].set_index("model")
    assert eq.loc["QM9700", "quantity"] == 12
    # one row per model naming every use of it
    assert eq.loc["QM9700", "configuration"] == "compute leaf, compute spine; 64 × 400 Gb/s"
    # every size and power given: no stand-in, no warning
    assert not (t["rack_layout"]["power_source"] == "estimate").any()
    found = facility_findings(servers(18), t, f)
    assert "device_figures_estimated" not in {x.code for x in found}
    assert eq.loc["nvme-2u", "extended_price_usd"] == 12 * 60000


def test_middle_of_row_network_racks():
    sw = pd.DataFrame(
        [
            {
                "plane": "compute",
                "role": "leaf",
                "model": "QM9700",
                "count": 2,
                "ports": 64,
                "port_gbps": 400,
                "rack_units": 1,
                "max_power_kw": 1.7,
                "typical_power_kw": 1.0,
                "price_usd": 30000,
                "unit": 1,
            }
        ]
    )
    f = Facility(management_servers=0, network_rack_position="middle_of_row")
    t = facility_tables(servers(12), empty_storage_nodes(), sw, hubplan.load_catalog(), f)
    # 4 compute racks; the network rack stands third: A01, A02 compute, A03 network
    racks = t["racks"]
    assert racks["kind"].tolist() == ["compute", "compute", "network", "compute", "compute"]
    assert racks["rack"].tolist() == ["A01", "A02", "A03", "A04", "A05"]


def test_rack_over_height_and_next_fit_caps(default):
    plan = hubplan.build_plan(
        default.with_changes({"facility.rack_units": 10, "facility.reserved_units": 3})
    )
    assert "rack_over_height" in codes(plan)  # an 8U DGX in 7 usable units
    # weight: three 130.45 kg DGX = 391.35 kg; a 300 kg limit leaves two a rack
    assert next_fit(
        np.full(3, 10.2), np.full(3, 8.0), np.full(3, 130.45), 34, 40, 300
    ).tolist() == [0, 0, 1]


def test_versions_pinned_or_flagged(default):
    default = default.with_changes({"facility.versions": []})  # the default pins a stack
    assert "versions_unpinned" in codes(hubplan.build_plan(default))
    servers_only = (
        "DGX H100",
        "Supermicro SYS-521GE-TNRT L40S",
        "1U management server",
        "compute NIC 400 Gb/s",
        "storage NIC 400 Gb/s",
        "in-band NIC 100 Gb/s",
        "in-band NIC, speed unknown",
    )
    # the storage nodes (storage stage) and switches (network stage) are equipment too
    storage_and_network = (
        "Lustre OSS NVMe 24x30.72TB 2x400G",
        "Lustre MDS NVMe mirrored 2x400G",
        "HDD capacity node 60x24TB 2x100G",
        "QM9700",
        "UFM Enterprise Appliance 3.1",
        "SN4600C",
        "SN2201",
    )

    def pinned(models):
        pins = [{"model": m, "firmware": "fw-1", "driver": "drv-1"} for m in models]
        return hubplan.build_plan(default.with_changes({"facility.versions": pins}))

    f = pinned(servers_only).findings
    left = f.loc[f["code"] == "versions_unpinned", "data"].iloc[0]
    assert left["count"] == 7 and left["models"].split(", ") == list(storage_and_network)
    # a switch runs its own network OS: its firmware is the whole pin (no host driver);
    # a GPU server with firmware but no driver is still unpinned
    switch_os = [{"model": m, "firmware": "os-1"} for m in ("QM9700", "SN4600C", "SN2201")]
    half = hubplan.build_plan(
        default.with_changes(
            {
                "facility.versions": [
                    *(
                        {"model": m, "firmware": "fw-1", "driver": "drv-1"}
                        for m in servers_only[1:]
                    ),
                    {"model": "DGX H100", "firmware": "fw-1"},
                    *switch_os,
                ]
            }
        )
    )
    left = half.findings.set_index("code").loc["versions_unpinned", "data"]
    assert left["models"].split(", ") == [
        "DGX H100",
        "Lustre OSS NVMe 24x30.72TB 2x400G",
        "Lustre MDS NVMe mirrored 2x400G",
        "HDD capacity node 60x24TB 2x100G",
        "UFM Enterprise Appliance 3.1",
    ]
    plan = pinned(servers_only + storage_and_network)
    assert "versions_unpinned" not in codes(plan)
    eq = plan["equipment_list"].set_index("model")
    assert eq.loc["compute NIC 400 Gb/s", "firmware_version"] == "fw-1"
    # the NIC ports the port map cables: 18 training DGX H100 × 8 rails (the 2 inference
    # DGX are not on the compute fabric: their 8 compute NICs are a finding, not a line);
    # 20 DGX × 2 storage ports (network.storage_ports_per_server) and × 2 in-band ports
    assert eq.loc["compute NIC 400 Gb/s", "quantity"] == 144
    assert eq.loc["storage NIC 400 Gb/s", "quantity"] == 40
    assert eq.loc["in-band NIC 100 Gb/s", "quantity"] == 40


def test_compute_inventory_and_facility_power(default):
    plan = hubplan.build_plan(default)
    inv = plan["compute_inventory"].set_index("pool")
    # 18 DGX H100 × 8 = 144 H100 at 989.5 dense BF16 TFLOPS = 142.488 PFLOPS
    assert inv.loc["training", "total_pflops"] == pytest.approx(142.488)
    assert inv.loc["total", "gpus"] == 168
    by_scope = plan["facility_power"].set_index("scope")
    # switches: 13 QM9700 × 1.72 + SN4600C 0.466 ÷ 0.8 + 2 SN2201 × 0.098 ÷ 0.8 = 22.36
    # + 0.5825 + 0.245 = 23.1875 kW; 4 UFM appliances (their own scope, servers not
    # switches) × 0.8 (management-server stand-in) = 3.2 kW; storage: 10 nodes × 2 kW
    # stand-in = 20 kW
    assert by_scope.loc["switch", "it_nameplate_kw"] == pytest.approx(23.1875)
    assert by_scope.loc["ufm", "it_nameplate_kw"] == pytest.approx(3.2)
    assert by_scope.loc["storage_node", "it_nameplate_kw"] == pytest.approx(20.0)
    fp = by_scope.loc["total"]
    # 20 × 10.2 + 5.0909 + 20 + 23.1875 + 3.2 + 3 × 0.8 = 257.878 kW nameplate; × 1.25 =
    # 322.348
    assert fp["it_nameplate_kw"] == pytest.approx(257.878, abs=1e-3)
    assert fp["facility_kw"] == pytest.approx(322.348, abs=1e-3)


def test_16k_gpu_plan_closes():
    s = hubplan.scenario.load_scenario(
        hubplan.core.paths.templates_dir() / "scenarios" / "pretrain-16k.yaml"
    )
    plan = hubplan.build_plan(s)
    # 2 048 working DGX H100 (16 384 GPUs) + 5 % spares: ⌈102.4⌉ = 103 → 2 151 servers,
    # 17 208 GPUs, all racked.
    assert int(plan["pools"]["total_gpus"].iloc[0]) == 17208
    lay = plan["rack_layout"]
    assert (lay["device_type"] == "gpu_server").sum() == 2151
    gpu = lay.loc[lay["device_type"] == "gpu_server", "device"]
    assert gpu.iloc[0] == "train-0001" and gpu.iloc[-1] == "train-2151"
    # Storage stage: 56 hot OSS (sized by checkpoint writes, test_storage.py) + 2 MDS + 10
    # warm + 10 cold nodes (EC 8+2: ten failure domains) = 78 on the 2 kW stand-in, 9 a
    # rack (9 × 2 = 18 ≤ 22 × 0.85 = 18.7 kW) → ⌈78 ÷ 9⌉ = 9 racks.
    # Network stage: the compute fabric is sized for the 64 working SUs (the 103 spares
    # wait in the cold pool): 512 leaves, 512 spines, 256 cores; storage 140 + 144 + 96
    # QM9700 (1 660 in all), 147 SN4600C (91 leaves, 37 spines, 19 cores: the in-band
    # plane from its ports), 123 SN2201, 4 UFM appliances (1U, 0.8 kW).
    # 64 units' 8 compute leaves (13.76 kW) take a rack each = 64. Shared, in table
    # order: 768 spines and cores at 10 a rack (17.2 kW ≤ 18.7) = 76 racks + 8; that rack
    # takes the 4 UFM (16.96 kW) and one storage QM9700 (18.68 kW); the other 379 storage
    # QM9700 = 37 racks + 9, topped with 5 SN4600C (15.48 + 2.9125 = 18.3925 kW); 142
    # SN4600C at 20 a rack (40U) = 7 racks + 2, topped with 36 SN2201 (40U); 87 SN2201
    # at 40 a rack = 2 + 7, with the 3 management servers: 76 + 1 + 37 + 1 + 7 + 1 + 2 + 1
    # = 126. Network racks:
    # 64 + 126 = 190.
    racks = plan["racks"]
    assert racks["kind"].value_counts()[["compute", "storage", "network"]].tolist() == [
        717,
        9,
        190,
    ]  # compute: 2 151 ÷ 3 a rack = 717 exactly
    # 717 compute + 9 storage racks fill ⌈726 ÷ 10⌉ = 73 rows, each unit's leaf rack joins
    # its row; the 126 shared network racks (spines, cores, storage, in-band, BMC) are more
    # than half a row, so they fill ⌈126 ÷ 10⌉ = 13 rows of their own: 86 rows, none longer
    # than 10 floor racks + 1 unit network rack.
    assert racks["row"].nunique() == 86
    assert racks.groupby("row").size().max() == 11
    counts = plan["switches"].groupby("model")["count"].sum()
    assert counts[["QM9700", "SN4600C", "SN2201"]].tolist() == [1660, 147, 123]
    assert (plan["power_allocation"]["status"] == "ok").all()
    assert (plan["cooling"]["status"] == "ok").all()
    fp = plan["facility_power"].set_index("scope").loc["total"]
    # typical: 2 151 × 8.16 = 17 552.16; switches 1 660 × 0.747 + 147 × 0.466 + 123 ×
    # 0.098 = 1 320.576, 4 UFM × 0.64 = 2.56; storage 78 × 2 × 0.8 = 124.8; management
    # 3 × 0.4 = 1.2: 19 001.296 kW; × 1.25 PUE × 8 760 h = 208 064.19 MWh; × US$88 per
    # MWh = US$18.310 M a year, which the cost stage prices (the facility stage reports
    # energy)
    assert fp["it_typical_kw"] == pytest.approx(19001.296)
    assert fp["annual_mwh"] == pytest.approx(208064.1912, abs=0.01)
    assert "annual_cost_usd" not in fp.index
    energy = plan["cost_opex"].set_index("category").loc["energy", "usd_per_year"]
    assert energy == pytest.approx(18.30965e6, rel=1e-6)
    assert plan["compute_inventory"].set_index("pool").loc["total", "total_pflops"] == (
        pytest.approx(17208 * 989.5 / 1000)
    )


def test_bad_facility_input_names_the_fields(default):
    with pytest.raises(ScenarioError, match=r"air_max_kw .*< rear_door_max_kw"):
        default.with_changes({"facility.air_max_kw": 100})
    with pytest.raises(ScenarioError, match=r"facility\.power_headroom = 1\.5"):
        default.with_changes({"facility.power_headroom": 1.5})
    with pytest.raises(ScenarioError, match=r"facility.cooling_modes"):
        default.with_changes({"facility.cooling_modes": ["water"]})


def test_facility_panel_recomputes_racks_headless():
    from hubplan.views import FacilityPanel, charts

    p = FacilityPanel()
    # default: 21 GPU servers in 8 compute racks, + 2 storage racks (10 nodes, 18 + 2 kW)
    # and 2 network racks (8 compute leaves; spines, storage leaf, management switches
    # and servers), as in test_default_packs_three_dgx_per_40_kw_rack: 12, all with headroom
    nums = p.summary_numbers()
    assert (nums["racks"], nums["compute"], nums["ok"], nums["total"]) == (12, 8, 12, 12)
    # cap two servers a rack: 18 training → 9, 2 inference → 1, 1 dev → 1: 11 compute racks
    p.controls["max_servers_per_rack"].value = 2
    assert p.summary_numbers()["compute"] == 11
    # a 60 kW budget: 60 × 0.85 = 51 kW → five DGX (51.0 kW) a rack when uncapped
    p.controls["max_servers_per_rack"].value = 0
    p.controls["rack_budget_kw"].value = 60
    assert p.result["racks"]["devices"].iloc[0] == 5
    assert p.error is None and "hubplan-facility-summary" in p.summary.value
    p.language.value = "zh"
    assert "机柜" in p.summary.value
    spec = charts.rack_elevation(p.result["rack_layout"], "zh").to_dict()
    assert spec["encoding"]["y2"]["field"] == "u_top"
    assert spec["title"] == "机柜布置图"
    power = charts.rack_power(p.result["power_allocation"]).to_dict()
    assert [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in power["layer"]
    ] == ["bar", "tick", "tick"]
    cool = charts.cooling_map(p.result["cooling"], p.result["racks"]).to_dict()
    assert cool["encoding"]["color"]["field"] == "cooling_mode"  # the code; labels in the legend


def test_server_with_no_power_figure_is_an_error(default, tmp_path):
    # A card with no TDP in a pool with no server: nothing to rate the server by.
    csv = tmp_path / "ws.csv"
    csv.write_text(
        "name,vendor,segment,vram_gb,bf16_dense_tflops,source,as_of,confidence\n"
        "WS-48,Example,workstation,48,200,example sheet,2026,low\n"
    )
    catalog = hubplan.load_catalog(accelerators=csv)
    s = default.with_changes(
        {"pools.development.accelerator": "WS-48", "pools.development.server": None}
    )
    plan = hubplan.build_plan(s, catalog)
    assert "server_power_unknown" in codes(plan)
    assert plan["rack_layout"].set_index("device").loc["dev-0001", "power_source"] == "unknown"
    assert "server_power_unknown" not in codes(hubplan.build_plan(default))


def test_nothing_to_rack_is_a_clear_error():
    # no servers, storage nodes, switches or management servers: nothing to put in a rack
    f = Facility(management_servers=0)
    d = device_table(servers(1).iloc[:0], empty_storage_nodes(), empty_switches(), f)
    with pytest.raises(hubplan.HubplanError, match="no devices to rack"):
        place_devices(d, f)
