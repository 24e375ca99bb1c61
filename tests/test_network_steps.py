"""The network stage's steps one by one (hubplan.network.steps), on one DGX SuperPOD
H100 scalable unit: 32 DGX H100, eight NDR400 rails, QM9700 leaves and spines.

Reference: NVIDIA DGX SuperPOD Reference Architecture featuring DGX H100, RA-11333-001
V11 (2023-09-22), Table 4 "Compute fabric component count" (1 SU: 8 leaves, 4 spines,
256 spine-leaf cables) and "In-Band Management Network" (two bonded 100 Gb/s links per
node); the DGX H100 user guide (eight single-port ConnectX-7 for compute, one BMC port).
"""

import pandas as pd
import pytest

import hubplan
from hubplan.core.errors import HubplanError
from hubplan.network import Network
from hubplan.network.steps import (
    compute_fabric,
    ip_plan,
    management_planes,
    pool_servers,
    switch_port_use,
)
from hubplan.scenario import Pools, PoolSpec
from hubplan.storage import STORAGE_NODE_COLUMNS

CATALOG = hubplan.load_catalog()
DGX = Pools(training=PoolSpec(server="DGX H100"))
NO_NODES = pd.DataFrame(columns=STORAGE_NODE_COLUMNS)


def _rows(servers, partition="train"):
    return pd.DataFrame(
        [
            {
                "level": "pool",
                "pool": "training",
                "partition": partition,
                "gpus_per_server": 8,
                "total_servers": servers,
                "total_gpus": servers * 8,
            }
        ]
    )


def _one_su():
    servers = pool_servers(_rows(32), DGX, CATALOG)
    compute = compute_fabric(servers, Network(), CATALOG)
    planes = management_planes(servers, NO_NODES, Network(), CATALOG, compute)
    return servers, compute, planes


def test_servers_step_names_every_server_with_its_nics():
    (s,) = pool_servers(_rows(32), DGX, CATALOG)
    assert s["names"][0] == "train-0001" and s["names"][-1] == "train-0032"
    assert len(s["names"]) == 32
    # DGX H100 user guide: 8 × ConnectX-7 at 400 Gb/s for compute, one BMC port
    assert (s["compute_nics"], s["compute_nic_gbps"], s["bmc_nics"]) == (8, 400, 1)
    assert pool_servers(_rows(0), DGX, CATALOG) == []


def test_compute_step_builds_one_su():
    _, c, _ = _one_su()
    f = c.fabric
    # RA-11333-001 Table 4, 1 SU: 8 leaves, 4 spines; 32 × 8 node links; 256 spine-leaf
    assert (f.tiers, f.leaves, f.spines, f.cores) == (2, 8, 4, 0)
    assert (c.rails, c.nic_gbps, c.radix) == (8, 400, 64)
    links = {g.segment: len(g) for g in c.groups}
    assert links == {"server-leaf": 256, "leaf-spine": 256}
    roles = {}
    for r in c.switch_rows:
        roles[r["role"]] = roles.get(r["role"], 0) + r["count"]
    # and the fabric's UFM pair (RA-11333-001 Table 7: 4 UFM for two fabrics)
    assert roles == {"leaf": 8, "spine": 4, "ufm": 2}
    # 32 servers fill the SU: no slot for the UFM appliances (the RA's SU holds 31 DGX)
    assert [f.code for f in c.findings] == ["ufm_without_slot"]
    assert c.ufm.tolist() == ["compute-ufm-01", "compute-ufm-02"]


def test_ufm_takes_the_free_slot_of_a_31_server_su():
    # RA-11333-001 Table 4, 1 SU: 31 DGX, 8 leaves, 4 spines, 252 "Compute and UFM"
    # cables = 31 × 8 + 4 (two appliances × 2 ports, on the 32nd slot's rail 1-4 leaves)
    servers = pool_servers(_rows(31), DGX, CATALOG)
    c = compute_fabric(servers, Network(), CATALOG)
    assert (c.fabric.leaves, c.fabric.spines) == (8, 4)
    node_links = sum(len(g) for g in c.groups if g.segment == "server-leaf")
    assert node_links == 252
    (ufm,) = [g for g in c.groups if isinstance(g.purpose, str) and "UFM" in g.purpose]
    assert ufm.device_b.tolist() == [f"compute-leaf-0{k}" for k in (1, 2, 3, 4)]
    assert set(ufm.port_b) == {"p32"}
    assert c.findings == []


def test_compute_step_refuses_mixed_nics():
    servers = pool_servers(_rows(4), DGX, CATALOG)
    other = dict(servers[0], pool="inference", compute_nics=4)
    with pytest.raises(HubplanError, match="different compute NICs"):
        compute_fabric([*servers, other], Network(compute_pools=("training", "inference")), CATALOG)


def test_planes_step_counts_each_planes_ports():
    _, _, p = _one_su()
    # storage: 32 × 2 ports + 2 storage UFM × 2 = 68 > 64: 3 QM9700 leaves of 32 down
    # and ⌈3 × 32 / 64⌉ = 2 spines. BMC: 32 BMCs + 4 UFM + ⌈0.85 × 32⌉ = 28 PDU ports +
    # mgmt0 of 12 compute, 5 storage and the in-band switches; in-band: 32 × 2 bonded
    # 100 GbE + 4 UFM + 2 uplinks per OOB leaf. One OOB leaf: 68 + 2 + 4 = 74 > 64 ports,
    # so in-band is 2 leaves (u = ⌈64/5⌉ = 13, d = 51) + 2 spines = 4 switches; OOB =
    # 32 + 4 + 28 + 12 + 5 + 4 = 85 ports = 2 SN2201, whose 4 uplinks make in-band
    # 64 + 4 + 4 = 72 ports, still 2 leaves.
    assert len(p.ends["storage"]["device"]) == 68
    assert len(p.ends["inband"]["device"]) == 72
    assert len(p.ends["bmc"]["device"]) == 32 + 4 + 12 + 5 + 4
    assert p.fabrics["bmc"].servers == 85
    assert [p.fabrics[k].leaves for k in ("storage", "inband", "bmc")] == [3, 2, 2]
    assert [p.fabrics[k].spines for k in ("storage", "inband", "bmc")] == [2, 2, 0]
    assert len(p.mgmt_devices) == 12 + 5 + 4


def test_address_step_gives_every_interface_one_address():
    _, c, p = _one_su()
    findings = []
    ips = ip_plan(Network(), c, p, findings)
    # 256 rails + 68 storage + 72 in-band + 57 BMC-plane ports (the counts of
    # test_planes_step_counts_each_planes_ports) + mgmt0 of the 2 SN2201 + 23 loopbacks
    # (12 compute, 5 storage, 4 in-band, 2 BMC switches)
    assert len(ips) == 256 + 68 + 72 + 57 + 2 + 23
    assert not ips["address"].duplicated().any()
    assert findings == []


def test_port_step_uses_no_port_twice_and_none_beyond_capacity():
    _, c, p = _one_su()
    use = switch_port_use([*c.groups, *p.groups], c, p).set_index("device")
    # 1 SU at 1:1: every compute leaf 32 down + 32 up, every spine 8 leaves × 8 links
    assert (use.loc[use["plane"] == "compute", "used"] == 64).all()
    assert len(use[use["plane"] == "compute"]) == 12
    # the 57 cabled BMC-plane ports: 48 on the first SN2201, 9 on the second (whose other
    # ports are kept for the 28 rack PDUs), each + its 2 uplinks p49, p50 to in-band
    assert (use.loc["bmc-leaf-01", "ports"], use.loc["bmc-leaf-01", "used"]) == (50, 50)
    assert use.loc["bmc-leaf-02", "used"] == 9 + 2
    assert (use["used"] <= use["ports"]).all()
