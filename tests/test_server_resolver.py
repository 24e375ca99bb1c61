"""One pool → server resolver: every stage sees a custom server's figures the same way.

The custom server below is typed in the scenario (``pools.training.custom_server``) with
figures of a DGX H100 from NVIDIA's DGX H100/H200 user guide (8 × H100, 2 × 56-core
Xeon 8480C, 2 TB, 8 × 400 Gb/s compute ports, 10.2 kW, 8 U, 130.45 kg) and the storage
bandwidth data/README.md records for it (800 Gb/s usable over two dual-port cards).
"""

import math

import pytest

import hubplan
from hubplan.server import catalog_server, pool_server, resolve_server

CUSTOM = {
    "name": "own 8-GPU box",
    "accelerator": "H100 SXM5 80GB",
    "gpus": 8,
    "cpu_sockets": 2,
    "cpu_cores_total": 112,
    "cpu_base_ghz": 2.0,
    "ram_gb": 2048,
    "compute_nics": 8,
    "compute_nic_gbps": 400,
    "storage_nics": 2,
    "storage_nic_gbps": 400,
    "storage_usable_gbps": 800,
    "inband_nics": 2,
    "inband_nic_gbps": 100,
    "bmc_nics": 1,
    "bmc_nic_gbps": 1,
    "pcie_gen": 5,
    "max_power_kw": 10.2,
    "rack_units": 8,
    "weight_kg": 130.45,
    "price_usd": 250000,
}


@pytest.fixture(scope="module")
def custom_plan(default):
    scenario = default.with_changes(
        {"pools.training.custom_server": CUSTOM, "pools.training.server": None}
    )
    return scenario, hubplan.build_plan(scenario)


def test_resolver_reads_every_figure_of_a_custom_server(default, catalog):
    scenario = default.with_changes(
        {"pools.training.custom_server": CUSTOM, "pools.training.server": None}
    )
    box = pool_server(scenario.pools, "training", catalog)
    assert box.custom and box.kind == "server"
    assert (box.storage_usable_gbps, box.weight_kg, box.rack_units) == (800, 130.45, 8)
    assert (box.cpu_sockets, box.inband_nic_gbps, box.bmc_nic_gbps) == (2, 100, 1)
    # The catalogue's DGX H100 row resolves to the same figures (data/servers.csv).
    dgx = catalog_server("DGX H100", catalog)
    assert (dgx.storage_usable_gbps, dgx.weight_kg, dgx.rack_units, dgx.kind) == (
        800,
        130.45,
        8,
        "server",
    )
    assert resolve_server(hubplan.scenario.PoolSpec(), catalog) is None  # no server chosen


def test_every_stage_sees_the_custom_servers_figures(custom_plan):
    _, plan = custom_plan
    t = plan.tables
    pools = t["pools"].set_index("pool")
    assert pools.loc["training", "server"] == "own 8-GPU box"
    servers = int(pools.loc["training", "total_servers"])
    assert servers == 18  # 136 GPUs of demand → 17 servers + 1 spare at 5 %
    # storage: 18 servers × 800 Gb/s ÷ 8 = 1 800 GB/s of client bandwidth. Before one
    # resolver the storage stage looked the name up in the catalogue only: NaN.
    bw = t["storage_bandwidth"].set_index("pool")
    assert bw.loc["training", "client_gb_s"] == pytest.approx(1800.0)
    # network: 8 compute rails, 2 storage, 2 in-band and 1 BMC port cabled per server.
    ports = t["port_map"]
    per_plane = ports[ports["device_a"] == "train-0001"].groupby("plane").size().to_dict()
    assert per_plane == {"compute": 8, "storage": 2, "inband": 2, "bmc": 1}
    # facility: its power, height and weight as typed (the weight was NaN before: the
    # facility stage read kind, height and weight from the catalogue row only).
    layout = t["rack_layout"].set_index("device")
    row = layout.loc["train-0001"]
    assert (row["max_power_kw"], row["u_height"], row["weight_kg"]) == (10.2, 8.0, 130.45)
    assert row["size_source"] == "scenario"
    # delivery: Slurm node of 2 sockets × 56 cores; RDMA test on 18 × 8 ports.
    node = t["slurm_nodes"].set_index("pool").loc["training"]
    assert (node["sockets"], node["cores_per_socket"]) == (2, 56)
    accept = t["acceptance"]
    rdma = accept[(accept["pool"] == "training") & (accept["test"] == "rdma_write_bw")]
    assert rdma["count"].tolist() == [144]


def test_a_custom_server_without_usable_storage_bandwidth_stays_unknown(default):
    # No storage_usable_gbps: the card layout is not known, so no client bandwidth is
    # made up from the port line rate (2 × 400 Gb/s would overstate a PCIe-capped card).
    spec = {k: v for k, v in CUSTOM.items() if k != "storage_usable_gbps"}
    scenario = default.with_changes(
        {"pools.training.custom_server": spec, "pools.training.server": None}
    )
    plan = hubplan.build_plan(scenario, until="storage")
    bw = plan.tables["storage_bandwidth"].set_index("pool")
    assert math.isnan(bw.loc["training", "client_gb_s"])
