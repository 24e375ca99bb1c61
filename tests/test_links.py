"""Links, optics, media and NICs: the cabling a network engineer signs.

Sources of the expected figures:
- [H100-RA] NVIDIA DGX SuperPOD Reference Architecture featuring DGX H100, RA-11333-001
  V11 (2023-09-22), "Compute fabric component count": 1 SU = 31 DGX H100 (one node gives
  way to the UFM appliances), 8 leaves, 4 spines, 252 node-leaf cables (31 × 8 = 248 DGX
  links + 4 UFM links) and 256 leaf-spine cables;
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/network-fabrics.html
- [BasePOD] NVIDIA DGX BasePOD RA, "Core Components": DGX H100 has "4x OSFP ports serving
  8x single-port NVIDIA ConnectX-7" (twin-port cages).
- [QM9700] NVIDIA QM9700: 64 NDR ports in 32 twin-port OSFP cages (data/switches.csv).
- [LinkX] NVIDIA LinkX product specifications: MCP7Y00 passive DAC 1-3 m; ACC 4 and 5 m;
  MMA4Z00-NS SR 50 m; MMS4X00-NS DR 100 m; MMS4X00-NM 500 m; MMS4X50-NM FR4 2 km.
"""

import numpy as np
import pandas as pd
import pytest

import hubplan
from hubplan.core.errors import CatalogError
from hubplan.facility.section import Facility
from hubplan.facility.stage import run_facility
from hubplan.network import Network, choose_media, modules_at
from hubplan.network.stage import run_network
from hubplan.scenario import Pools, PoolSpec
from hubplan.storage import STORAGE_NODE_COLUMNS

CATALOG = hubplan.load_catalog()


def _pools_table(servers, server="DGX H100"):
    row = CATALOG.server(server)
    gpus = int(row["gpus"])
    return pd.DataFrame(
        [
            {
                "level": "pool",
                "pool": "training",
                "partition": "train",
                "accelerator": row["accelerator"],
                "gpus_per_server": gpus,
                "total_servers": servers,
                "total_gpus": servers * gpus,
            }
        ]
    )


def _nodes(rows=()):
    base = {
        "tier": "hot",
        "role": "oss",
        "nodes": 2,
        "model": "Lustre OSS NVMe 24x30.72TB 2x400G",
        "nic_ports": 2,
        "nic_gbps": 400.0,
        "rack_units": 2.0,
        "max_power_kw": 1.0,
        "typical_power_kw": 0.7,
        "price_usd": np.nan,
    }
    table = pd.DataFrame([base | r for r in rows]) if rows else pd.DataFrame([base])
    for c in STORAGE_NODE_COLUMNS:
        if c not in table:
            table[c] = np.nan
    return table[STORAGE_NODE_COLUMNS]


def _run(servers, server="DGX H100", network=None, nodes=None):
    tables = {
        "pools": _pools_table(servers, server),
        "storage_nodes": _nodes() if nodes is None else nodes,
    }
    pools = Pools(training=PoolSpec(server=server))
    return run_network(catalog=CATALOG, tables=tables, network=network or Network(), pools=pools)


def _optics(result):
    return (
        result.tables["transceivers"]
        .groupby(["plane", "link_segment"])[["links", "cables", "modules"]]
        .sum()
    )


# -- optics per cage, cables per link ------------------------------------------------------


def test_one_su_of_the_reference_architecture_counts_optics_per_cage():
    # [H100-RA] 1 SU: 31 DGX H100. Node-leaf cables: 31 × 8 = 248 and the 4 UFM links
    # (2 appliances × 2 ports in the SU's free slot), 252 as in the RA; leaf-spine 256.
    opt = _optics(_run(31)).loc["compute"]
    assert opt.loc["server-leaf", "cables"] == 248 + 4
    assert opt.loc["leaf-spine", "cables"] == 256
    # Modules: each DGX fills its 4 twin-port cages [BasePOD]: 31 × 4 = 124; one per UFM
    # port (4); each leaf has 31 or 32 downlinks (a UFM link takes the free half of the
    # 16th cage) in 16 twin-port cages [QM9700]: 8 × 16 = 128. 256 in all, where counting
    # per port gave 248 + 124 = 372 (and counting each group's cages apart 260).
    assert opt.loc["server-leaf", "modules"] == 124 + 4 + 128
    # leaf-spine: 8 leaves × 16 uplink cages + 4 spines × 32 cages = 128 + 128
    assert opt.loc["leaf-spine", "modules"] == 256


def test_a_server_with_single_port_cages_takes_one_module_per_rail():
    # HGX H100 8-GPU (OEM RA): eight PCIe ConnectX-7 cards, one OSFP cage each (no row in
    # data/server_cages.csv): 32 × 8 = 256 modules on the servers, 128 on the leaves.
    opt = _optics(_run(32, "HGX H100 8-GPU (OEM RA)")).loc["compute"]
    assert opt.loc["server-leaf", "modules"] == 256 + 128
    # the DGX H100 in the same fabric: 32 × 4 + 128
    assert _optics(_run(32)).loc[("compute", "server-leaf"), "modules"] == 128 + 128


def test_modules_round_up_per_device_not_per_group():
    # two switches with three links each on twin-port cages: 2 + 2 modules, not ⌈6 / 2⌉ = 3
    ends = np.array(["a", "a", "a", "b", "b", "b"], dtype=object)
    assert modules_at(ends, 2) == 4
    assert modules_at(ends, 1) == 6


# -- media from where the two ends stand ----------------------------------------------------


@pytest.mark.parametrize(
    ("gbps", "metres", "media"),
    [
        (400, 2, "DAC"),
        (400, 3, "DAC"),
        (400, 4, "ACC"),
        (400, 5, "ACC"),
        (400, 40, "transceiver-SR4"),
        (400, 80, "transceiver-DR4"),
        (400, 400, "transceiver-DR4-500m"),
        (400, 1500, "transceiver-FR4"),
        (1, 100, "RJ45"),
        (800, 1, "DAC"),
        (800, 300, "transceiver-DR8"),
    ],
)
def test_media_is_the_cheapest_part_that_reaches(gbps, metres, media):
    # reaches from [LinkX]; 1000BASE-T 100 m (IEEE 802.3 clause 40); 800GBASE-DR8 500 m
    assert choose_media(CATALOG.optics, gbps, metres) == media


def test_no_part_reaches_is_an_error_naming_the_length():
    with pytest.raises(hubplan.HubplanError, match=r"1 Gb/s.*reaches 150 m.*longest: 100 m"):
        choose_media(CATALOG.optics, 1, 150)
    with pytest.raises(hubplan.HubplanError, match=r"1600 Gb/s"):
        choose_media(CATALOG.optics, 1600, 1)


def test_plane_endpoints_reach_their_leaves_in_another_row_not_on_dac():
    # The storage, in-band and BMC leaves stand in the shared network racks, not in the
    # servers' racks: their endpoint links are 100 m (network.leaf_spine_reach_m), on DR
    # optics (400G storage, 100G in-band) and 1000BASE-T (BMC); the old plan put them on
    # 3 m DAC. A GPU server's compute leaf stands in its unit's row: 30 m, SR multimode.
    optics = _run(32).tables["transceivers"].set_index(["plane", "link_segment"])
    assert optics.loc[("storage", "node-leaf"), "media"] == "transceiver-DR4"
    assert optics.loc[("inband", "node-leaf"), "media"] == "transceiver-DR4"
    assert optics.loc[("bmc", "node-leaf"), "media"] == "RJ45"
    assert optics.loc[("compute", "server-leaf"), "media"] == "transceiver-SR4"
    assert (optics["media"] != "DAC").all()
    # all in one rack (3 m): DAC, no module
    near = Network(server_leaf_reach_m=3.0)
    row = _run(32, network=near).tables["transceivers"].set_index(["plane", "link_segment"])
    assert row.loc[("compute", "server-leaf"), "media"] == "DAC"
    assert row.loc[("compute", "server-leaf"), "modules"] == 0


def test_optics_table_rows_carry_a_source_and_a_date():
    t = CATALOG.optics
    assert t["source"].str.len().gt(20).all() and t["as_of"].str.match(r"\d{4}-\d\d-\d\d").all()
    assert set(t["media"]) >= {"DAC", "ACC", "RJ45", "transceiver-SR4", "transceiver-DR4"}


def test_a_cage_row_naming_an_unknown_server_is_refused(tmp_path):
    from hubplan.core.catalog import SERVER_CAGE_SCHEMA, _check_cages, read_table

    path = tmp_path / "cages.csv"
    path.write_text(
        "name,compute_ports_per_cage,source,as_of,confidence\nDGX H1000,2,a sheet,2026-01-01,high\n"
    )
    with pytest.raises(hubplan.CatalogError, match=r"line 2, column name: 'DGX H1000'"):
        _check_cages(read_table(path, SERVER_CAGE_SCHEMA), path, CATALOG.servers)


# -- a link runs at the slower end's speed ------------------------------------------------


def test_hdd_nodes_are_cabled_at_their_own_100g():
    # HDD capacity node: 2 × 100G (data/storage.csv) on the 400G QM9700 storage plane
    nodes = _nodes(
        [
            {},
            {
                "tier": "warm",
                "role": "capacity",
                "nodes": 3,
                "nic_gbps": 100.0,
                "model": "HDD capacity node 60x24TB 2x100G",
            },
        ]
    )
    pm = _run(8, nodes=nodes).tables["port_map"].query("plane == 'storage'")
    hdd = pm[pm["device_a"].str.startswith("stor-warm-")]
    assert len(hdd) == 3 * 2 and (hdd["speed_gbps"] == 100).all()
    nvme = pm[pm["device_a"].str.startswith("stor-hot-")]
    assert len(nvme) == 2 * 2 and (nvme["speed_gbps"] == 400).all()


# -- partitions on InfiniBand, VLANs on Ethernet --------------------------------------------


def test_infiniband_storage_plane_has_a_partition_key_not_a_vlan():
    r = _run(8)  # QM9700 storage plane (InfiniBand)
    pm, ip = r.tables["port_map"], r.tables["ip_plan"]
    stor = pm[pm["plane"] == "storage"]
    assert (stor["vlan"] == 0).all() and (stor["pkey"] == 0x0002).all()
    assert set(ip.loc[ip["plane"] == "storage", "vlan"]) == {0}
    assert set(ip.loc[ip["plane"] == "storage", "pkey"]) == {0x0002}
    # the InfiniBand compute fabric: the default partition 0x7FFF, no VLAN
    comp = pm[pm["plane"] == "compute"]
    assert (comp["vlan"] == 0).all() and (comp["pkey"] == 0x7FFF).all()
    # in-band (SN4600C, Ethernet): VLAN 300, no partition
    inb = pm[pm["plane"] == "inband"]
    assert (inb["vlan"] == 300).all() and (inb["pkey"] == 0).all()


def test_ethernet_storage_plane_keeps_its_vlan():
    r = _run(8, network=Network(storage_switch="SN5400"))
    stor = r.tables["port_map"].query("plane == 'storage'")
    assert (stor["vlan"] == 200).all() and (stor["pkey"] == 0).all()


# -- every listed NIC is cabled, every cabled port is listed; speeds ≤ both ends ------------

#: A compute switch each server's NICs fit (QM9700 unless its ports are too slow or few).
_SWITCH = {"DGX B300": "Q3400", "GB200 NVL72 rack": "Q3400"}


def _end_gbps(devices, ports, pm, switches, nodes, server):
    """The speed of each link end: the NIC's (catalogue), the storage node's or the
    switch port's."""
    row = CATALOG.server(server)
    nic = {
        "rail": row["compute_nic_gbps"],
        "stor": row["storage_nic_gbps"],
        "mgmt": row["inband_nic_gbps"],
        "bmc": 1.0,
    }
    sw = {
        (p, r): (m, n)
        for p, r, m, n in zip(
            switches["plane"], switches["role"], switches["model"], switches["ports"], strict=True
        )
    }
    out = np.full(len(devices), np.nan)
    for i, (dev, port) in enumerate(zip(devices, ports, strict=True)):
        parts = dev.split("-")
        if port == "mgmt0":
            out[i] = 1.0  # a switch's management port: 1000BASE-T
        elif (parts[0], parts[1]) in sw and port.startswith("p"):
            model, data_ports = sw[(parts[0], parts[1])]
            cat = CATALOG.switch(model)
            # past its data ports, a port is a dedicated uplink (SN2201: 4 × 100G)
            up = int(port[1:]) > data_ports
            out[i] = float(cat["uplink_gbps"] if up else cat["port_gbps"])
        elif dev.startswith("stor-"):
            out[i] = 1.0 if port == "bmc1" else (np.nan if port == "mgmt1" else nodes)
        elif dev.startswith("train-"):
            kind = port.rstrip("0123456789")
            out[i] = float(nic[kind]) if nic[kind] == nic[kind] else np.nan
    return out


@pytest.mark.parametrize("server", CATALOG.servers["name"].tolist())
def test_every_catalogue_server_lists_what_it_cables_at_speeds_both_ends_carry(server):
    row = CATALOG.servers.set_index("name").loc[server]
    same = CATALOG.servers[
        (CATALOG.servers["kind"] == "tray") & (CATALOG.servers["accelerator"] == row["accelerator"])
    ]
    if row["kind"] == "rack" and same.empty:
        # A rack-scale system is planned as its compute trays; with no tray row for its
        # accelerator (CloudMatrix 384) the plan stops with a named catalogue error.
        with pytest.raises(CatalogError, match="needs one compute tray row"):
            _run(4, server)
        return
    network = Network(compute_switch=_SWITCH.get(server, "QM9700"))
    nodes = _nodes([{"nic_gbps": 100.0, "model": "HDD capacity node 60x24TB 2x100G"}])
    r = _run(4, server, network=network, nodes=nodes)
    pools = Pools(training=PoolSpec(server=server))
    tables = dict(r.tables) | {"pools": _pools_table(4, server), "storage_nodes": nodes}
    f = run_facility(catalog=CATALOG, tables=tables, facility=Facility(), pools=pools)
    eq, pm = f.tables["equipment_list"], r.tables["port_map"]
    # equipment-list NIC ports = port-map ports on the GPU servers' NIC planes
    listed = int(eq.loc[eq["type"] == "nic", "quantity"].sum())
    on_servers = pm["device_a"].str.startswith("train-")
    cabled = int((on_servers & pm["plane"].isin(["compute", "storage", "inband"])).sum())
    assert listed == cabled
    # and per plane: the server_nics table is what the port map holds
    nics = r.tables["server_nics"].set_index("plane")["ports"]
    per_plane = pm[on_servers & pm["plane"].ne("bmc")].groupby("plane").size()
    assert nics.sort_index().to_dict() == per_plane.sort_index().to_dict()
    # every link runs at a speed both ends carry (an unknown end speed is a finding)
    sw = r.tables["switches"]
    for end in ("a", "b"):
        g = _end_gbps(pm[f"device_{end}"], pm[f"port_{end}"], pm, sw, 100.0, server)
        known = ~np.isnan(g)
        assert (pm["speed_gbps"].to_numpy()[known] <= g[known]).all(), (server, end)
    codes = {x.code for x in r.findings}
    row = CATALOG.server(server)
    if not row["storage_nics"] > 0:  # H800 / H20 rows: no storage NIC in the catalogue
        assert "no_storage_nic" in codes
