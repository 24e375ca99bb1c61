"""Network stage: fabric counts against NVIDIA's published reference designs, a port map
in which every port is used once, an IP plan without overlaps, and each finding both ways.

Reference designs cited:
- [H100-RA] NVIDIA DGX SuperPOD Reference Architecture featuring DGX H100, RA-11333-001
  V11 (2023-09-22), Table 2 "Compute fabric component count": 1 SU 8 leaves / 4 spines,
  2 SU 16 / 8, 3 SU 24 / 16, 4 SU 32 / 16 (QM9700, 32 DGX per SU, 8 NDR400 rails);
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/network-fabrics.html
- [B200-RA] NVIDIA DGX SuperPOD Reference Architecture with DGX B200, "Larger DGX
  SuperPOD component counts" (same SU of 32 nodes × 8 rails on 64-port NDR switches):
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html
"""

import ipaddress

import numpy as np
import pandas as pd
import pytest

import hubplan
from hubplan.network import Network, load_switches, size_fabric
from hubplan.network.stage import run_network
from hubplan.scenario import Pools, PoolSpec, ServerSpec
from hubplan.storage import STORAGE_NODE_COLUMNS


# (SUs, leaves, spines, cores, node-leaf, leaf-spine, spine-core cables) from [B200-RA]
# and, for 1 and 3 SUs, [H100-RA] Table 2 (whose cable counts differ by the four UFM
# links and the one node a UFM appliance replaces; the switch counts are these).
@pytest.mark.parametrize(
    ("sus", "leaves", "spines", "cores"),
    [
        (1, 8, 4, 0),
        (2, 16, 8, 0),
        (3, 24, 16, 0),
        (4, 32, 16, 0),
        (8, 64, 32, 0),
        (16, 128, 128, 64),
        (32, 256, 256, 128),
        (64, 512, 512, 256),
    ],
)
def test_fabric_counts_match_superpod_reference(sus, leaves, spines, cores):
    f = size_fabric(32 * sus, 8, 64, 1.0)
    assert (f.units, f.leaves, f.spines, f.cores) == (sus, leaves, spines, cores)
    assert f.tiers == (3 if cores else 2)


def _pools_table(servers, partition="train", gpus=8):
    return pd.DataFrame(
        [
            {
                "level": "pool",
                "pool": "training",
                "partition": partition,
                "gpus_per_server": gpus,
                "total_servers": servers,
                "total_gpus": servers * gpus,
            }
        ]
    )


DGX = Pools(training=PoolSpec(server="DGX H100"))


def _run(servers, network=None, pools=DGX, storage_nodes=None, catalog=None):
    if storage_nodes is None:  # no storage nodes: servers reach storage elsewhere
        storage_nodes = pd.DataFrame(columns=STORAGE_NODE_COLUMNS)
    tables = {"pools": _pools_table(servers), "storage_nodes": storage_nodes}
    return run_network(
        catalog=catalog or hubplan.load_catalog(),
        tables=tables,
        network=network or Network(),
        pools=pools,
    )


def _codes(result):
    return [f.code for f in result.findings]


@pytest.mark.parametrize(
    ("gpus", "leaves", "spines", "cores"),
    # 8 GPUs: one DGX, NVLink only. 256: one SU [H100-RA]. 1 024: 4 SUs [H100-RA, B200-RA].
    # 16 384: 64 SUs [B200-RA].
    [(8, 0, 0, 0), (256, 8, 4, 0), (1024, 32, 16, 0), (16384, 512, 512, 256)],
)
def test_plan_at_reference_sizes(gpus, leaves, spines, cores):
    servers = gpus // 8
    r = _run(servers)
    sw = r.tables["switches"]
    comp = sw[sw["plane"] == "compute"].groupby("role")["count"].sum()
    assert int(comp.get("leaf", 0)) == leaves
    assert int(comp.get("spine", 0)) == spines
    assert int(comp.get("core", 0)) == cores
    pm = r.tables["port_map"]
    compute = pm[pm["plane"] == "compute"]
    # cable counts of [B200-RA]: node-leaf = GPUs, leaf-spine = leaves × 32, spine-core = spines × 32
    assert (compute["purpose"].str.startswith("compute rail")).sum() == (gpus if leaves else 0)
    assert (compute["purpose"] == "leaf-spine").sum() == leaves * 32
    assert (compute["purpose"] == "spine-core").sum() == (spines * 32 if cores else 0)
    _check_port_map(r)
    _check_ip_plan(r, Network())
    if gpus == 8:
        assert "single_server_no_fabric" in _codes(r)


def _check_port_map(r):
    pm, sw, use = r.tables["port_map"], r.tables["switches"], r.tables["port_use"]
    ends = pd.concat(
        [
            pm[["device_a", "port_a"]].set_axis(["d", "p"], axis=1),
            pm[["device_b", "port_b"]].set_axis(["d", "p"], axis=1),
        ]
    )
    assert not ends.duplicated().any(), "a port is used twice"
    assert (use["used"] <= use["ports"]).all(), "a switch is over its port count"
    # every switch in the bill appears in the port map, and no other
    named = ends["d"][ends["d"].str.match(r"^(compute|storage|inband|bmc)-(leaf|spine|core)-")]
    per_role = named.drop_duplicates().str.rsplit("-", n=1).str[0].value_counts()
    # UFM appliances (role "ufm") sit in the bill to be racked and powered; they are
    # cabled as endpoints, each named <plane>-ufm-<nn> in the port map
    ufm = sw[sw["role"] == "ufm"]
    for plane, count in zip(ufm["plane"], ufm["count"], strict=True):
        assert ends["d"].str.match(f"^{plane}-ufm-").sum() > 0 or count == 0
    sw = sw[sw["role"] != "ufm"]
    bill = sw.groupby(sw["plane"] + "-" + sw["role"])["count"].sum()
    assert per_role.sort_index().to_dict() == bill.sort_index().to_dict()
    assert pm["link_id"].is_unique
    # rail k of every server lands on leaf k of its unit
    rails = pm[pm["purpose"].str.startswith("compute rail")]
    if len(rails):
        k = rails["port_a"].str.removeprefix("rail").astype(int)
        server = rails["device_a"].str.rsplit("-", n=1).str[1].astype(int) - 1
        leaf = rails["device_b"].str.rsplit("-", n=1).str[1].astype(int)
        assert (leaf == (server // 32) * 8 + k).all()


def _check_ip_plan(r, net):
    ip = r.tables["ip_plan"]
    assert ip["address"].is_unique, "an address is given twice"
    assert not ip.duplicated(["device", "interface"]).any()
    for plane in ("compute", "storage", "inband", "bmc", "loopback"):
        sub = ip[ip["plane"] == plane]
        if sub.empty:
            continue
        net_ = ipaddress.ip_network(getattr(net, f"{plane}_cidr"))
        first, last = sub["address"].iloc[[0, -1]]
        assert ipaddress.ip_address(first) in net_ and ipaddress.ip_address(last) in net_


def test_sixteen_k_plan_addresses_every_interface():
    # 2 048 DGX × (8 rails + 2 storage + 2 in-band + 1 BMC) = 26 624 server interfaces;
    # plus every switch's management port and loopback.
    r = _run(2048)
    ip = r.tables["ip_plan"]
    servers = ip[ip["device_role"] == "gpu_server"]
    assert len(servers) == 2048 * 13
    # rail subnets are /26 (32 servers + gateway + network + broadcast = 35 ≤ 64); the
    # first server's rail 1 is .2 of the first /26, rail 2 the next /26
    first = servers[(servers["device"] == "train-0001")].set_index("interface")["address"]
    assert first["rail1"] == "10.0.0.2" and first["rail2"] == "10.0.0.66"
    assert first["bmc1"].startswith("10.24.")


def test_storage_nodes_join_the_storage_plane():
    # Hand-built storage stage table: 4 hot-tier data nodes with 2 × 400 Gb/s each.
    nodes = pd.DataFrame(
        [
            {
                "tier": "hot",
                "role": "data",
                "model": "x",
                "nodes": 4,
                "rack_units": 2,
                "max_power_kw": 1.5,
                "typical_power_kw": 1.0,
                "price_usd": 1.0,
                "nic_ports": 2,
                "nic_gbps": 400.0,
            }
        ]
    )
    r = _run(32, storage_nodes=nodes)
    pm = r.tables["port_map"]
    st = pm[(pm["plane"] == "storage") & (pm["purpose"] == "storage")]
    # 32 DGX × 2 storage ports + 4 nodes × 2 + the storage fabric's 2 UFM appliances × 2
    # (RA-11333-001 Table 7) = 76 ports: more than one 64-port QM9700, so 3 leaves of 32
    # down (1:1), 3 × 32 uplinks over ⌈96 / 64⌉ = 2 spines (2 divides 32).
    assert len(st) == 76
    assert (st["device_a"].str.startswith("storage-ufm-")).sum() == 4
    assert set(st["device_a"]) >= {"stor-hot-data-01", "stor-hot-data-04"}
    fab = r.tables["fabric"].set_index("plane")
    assert (fab.loc["storage", "leaves"], fab.loc["storage", "spines"]) == (3, 2)
    ip = r.tables["ip_plan"]
    assert len(ip[(ip["device"] == "stor-hot-data-04") & (ip["plane"] == "storage")]) == 2
    _check_port_map(r)


def test_oversubscription_finding_each_way():
    assert "oversubscription_above_policy" not in _codes(_run(64))
    r = _run(64, Network(oversubscription=3.0))
    # 64 ports at 3:1: 48 down, 16 up -> 3.0:1 > 2:1
    assert "oversubscription_above_policy" in _codes(r)
    assert r.tables["fabric"].set_index("plane").loc["compute", "oversubscription"] == 3.0


def test_fewer_nics_than_gpus_each_way():
    assert "fewer_nics_than_gpus" not in _codes(_run(4))
    four = Pools(
        training=PoolSpec(
            custom_server=ServerSpec(
                accelerator="H100 SXM5 80GB",
                gpus=8,
                compute_nics=4,
                compute_nic_gbps=400,
                storage_nics=2,
                inband_nics=1,
                bmc_nics=1,
            )
        )
    )
    r = _run(4, pools=four)
    assert "fewer_nics_than_gpus" in _codes(r)
    # 4 rails -> 4 leaves in the one unit
    assert r.tables["fabric"].set_index("plane").loc["compute", "leaves"] == 4


def test_third_tier_early_each_way():
    # 300 DGX on SN5400 (64 × 400G): two tiers reach 256 servers, so a core tier; the
    # SN5600 breaks out to 128 × 400G and keeps 1 024 servers in two tiers.
    eth = Network(compute_switch="SN5400")
    r = _run(300, eth)
    assert r.tables["fabric"].set_index("plane").loc["compute", "tiers"] == 3
    assert "third_tier_early" in _codes(r)
    r = _run(300, Network(compute_switch="SN5600"))
    assert r.tables["fabric"].set_index("plane").loc["compute", "tiers"] == 2
    assert "third_tier_early" not in _codes(r)


def test_roce_without_lossless_each_way():
    assert "roce_without_lossless" not in _codes(_run(64, Network(compute_switch="SN5400")))
    r = _run(64, Network(compute_switch="SN5400", pfc=False))
    assert "roce_without_lossless" in _codes(r)
    rd = r.tables["rdma_settings"].set_index("setting")["value"]
    assert rd["pfc"] == "off" and rd["NCCL_IB_TIMEOUT"] == "20"


def test_storage_on_compute_each_way():
    assert "storage_on_compute" not in _codes(_run(64))
    assert "storage_on_compute" in _codes(_run(64, Network(storage_plane="compute")))


def test_supernet_growth_and_too_small():
    # 2 048 DGX: 512 rail subnets of /26 = 32 768 addresses, 42 624 with 30 % growth.
    # /16 (65 536) holds both; /17 (32 768) holds the plan, not the growth; /18 fails.
    big = _run(2048, Network(compute_cidr="10.0.0.0/16"))
    assert "supernet_growth_short" not in _codes(big)
    short = _run(2048, Network(compute_cidr="10.0.0.0/17"))
    assert "supernet_growth_short" in _codes(short)
    with pytest.raises(hubplan.HubplanError, match=r"compute_cidr = '10.0.0.0/18'.*use a /16"):
        _run(2048, Network(compute_cidr="10.0.0.0/18"))


def test_overlapping_supernets_and_bad_cidr_are_refused():
    with pytest.raises(hubplan.HubplanError, match="overlaps"):
        _run(8, Network(storage_cidr="10.0.0.0/16"))
    with pytest.raises(hubplan.ScenarioError, match=r"network\.compute_cidr"):
        hubplan.default_scenario().with_changes({"network.compute_cidr": "10.0.0.1/12"})


def test_optics_bill_counts_every_link():
    r = _run(32)
    optics = r.tables["transceivers"].set_index(["plane", "link_segment"])
    # 32 DGX × 8 rails = 256 server-leaf cables at 30 m: SR4 multimode ([H100-RA] counts
    # node-leaf cables per link). A DGX H100 serves its 8 rails from 4 twin-port OSFP
    # cages (DGX BasePOD RA, "4x OSFP ports serving 8x single-port ConnectX-7"): 32 × 4 =
    # 128 modules; a QM9700 leaf's 32 downlinks fill 16 twin-port cages: 8 × 16 = 128.
    row = optics.loc[("compute", "server-leaf")]
    assert (row["media"], row["cables"], row["modules"]) == ("transceiver-SR4", 256, 256)
    # 8 leaves × 32 uplinks = 256 leaf-spine links at 100 m: DR4, 128 + 128 twin modules
    row = optics.loc[("compute", "leaf-spine")]
    assert (row["media"], row["links"], row["modules"]) == ("transceiver-DR4", 256, 256)
    pm = r.tables["port_map"]
    assert r.tables["transceivers"]["links"].sum() == len(pm)


def test_latency_radius():
    # (20 ms − 5 ms serving − 10 hops × 50 µs) / (2 × 5 µs/km) = 1 450 km
    lat = _run(8).tables["latency_budget"].set_index("component")
    assert lat.loc["target", "radius_km"] == pytest.approx(1450.0)


def test_default_plan_and_yaml_round_trip(default):
    plan = hubplan.build_plan(default)
    # default training pool: 17 DGX + 1 spare = 18 servers -> one SU: 8 leaves, 4 spines
    sw = plan["switches"]
    comp = sw[sw["plane"] == "compute"].set_index("role")["count"]
    assert (int(comp["leaf"]), int(comp["spine"])) == (8, 4)
    assert hubplan.Scenario.from_yaml(default.to_yaml()) == default
    assert plan["port_map"]["device_a"].iloc[0] == "train-0001"


def test_switch_catalogue_rows_cite_a_document():
    sw = load_switches()
    assert sw["source"].str.contains("https://").all()
    assert set(sw["technology"]) <= {"infiniband", "ethernet"}
    qm = sw.set_index("name").loc["QM9700"]
    assert (qm["ports"], qm["port_gbps"], qm["cages"], qm["rack_units"]) == (64, 400, 32, 1)


def test_scale_is_vectorised_enough():
    # not a timing assertion: 131 072 GPUs (16 384 servers) must build at all with the
    # SN5600 at 400G (128 ports: three tiers), and give one compute link per GPU.
    r = _run(16384, Network(compute_switch="SN5600", compute_cidr="10.0.0.0/12"))
    pm = r.tables["port_map"]
    assert (pm["purpose"].str.startswith("compute rail")).sum() == 131072
    assert np.all(r.tables["port_use"]["used"] <= r.tables["port_use"]["ports"])
