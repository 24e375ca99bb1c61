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
    return pd.DataFrame([{"level": "pool", "pool": "training", "partition": partition,
                          "gpus_per_server": 8, "total_servers": servers,
                          "total_gpus": servers * 8}])  # fmt: skip


def _one_su():
    servers = pool_servers(_rows(32), DGX, CATALOG)
    compute = compute_fabric(servers, Network(), CATALOG)
    planes = management_planes(servers, NO_NODES, Network(), CATALOG, compute.fabric)
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
    assert sum(r["count"] for r in c.switch_rows) == 12
    assert c.findings == []


def test_compute_step_refuses_mixed_nics():
    servers = pool_servers(_rows(4), DGX, CATALOG)
    other = dict(servers[0], pool="inference", compute_nics=4)
    with pytest.raises(HubplanError, match="different compute NICs"):
        compute_fabric([*servers, other], Network(compute_pools=("training", "inference")),
                       CATALOG)  # fmt: skip


def test_planes_step_counts_each_planes_ports():
    _, _, p = _one_su()
    # storage: 32 × 2 ports = 64 = one 64-port QM9700; in-band: 32 × 2 bonded 100 GbE =
    # 64 = one SN4600C; BMC: 32 BMCs + mgmt0 of 12 compute, 1 storage, 1 in-band switch
    # = 46 ≤ 48 = one SN2201.
    assert len(p.ends["storage"]["device"]) == 64
    assert len(p.ends["inband"]["device"]) == 64
    assert len(p.ends["bmc"]["device"]) == 46
    assert [p.fabrics[k].leaves for k in ("storage", "inband", "bmc")] == [1, 1, 1]
    assert [p.fabrics[k].spines for k in ("storage", "inband", "bmc")] == [0, 0, 0]
    assert len(p.mgmt_devices) == 14


def test_address_step_gives_every_interface_one_address():
    _, c, p = _one_su()
    findings = []
    ips = ip_plan(Network(), c, p, findings)
    # 256 rails + 64 storage + 64 in-band + 46 BMC-plane ports + 1 SN2201 mgmt0
    # + 15 loopbacks (12 compute, storage, in-band, BMC switch)
    assert len(ips) == 256 + 64 + 64 + 46 + 1 + 15
    assert not ips["address"].duplicated().any()
    assert findings == []


def test_port_step_uses_no_port_twice_and_none_beyond_capacity():
    _, c, p = _one_su()
    use = switch_port_use([*c.groups, *p.groups], c, p).set_index("device")
    # 1 SU at 1:1: every compute leaf 32 down + 32 up, every spine 8 leaves × 8 links
    assert (use.loc[use["plane"] == "compute", "used"] == 64).all()
    assert len(use[use["plane"] == "compute"]) == 12
    # the one SN2201 carries the 46 BMC-plane ports of test_planes_step_counts_each_planes_ports
    assert (use.loc["bmc-leaf-01", "ports"], use.loc["bmc-leaf-01", "used"]) == (48, 46)
    assert (use["used"] <= use["ports"]).all()
