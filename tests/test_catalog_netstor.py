"""The switch and storage catalogues (data/switches.csv, data/storage.csv): coverage across
vendors and the figures of new rows checked against their documents by hand."""

from __future__ import annotations

import json
import math

import pytest

import hubplan
from hubplan.cli.main import main
from hubplan.core.catalog import load_catalog
from hubplan.core.errors import HubplanError
from hubplan.facility.devices import sheet_weights
from hubplan.network import ports_at
from hubplan.storage.section import Storage
from hubplan.storage.tiers import node_figures

GIB_TB = 2**30 / 1e12  # one GiB in TB


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_switch_coverage(catalog):
    sw = catalog.switches
    vendors = set(sw["vendor"])
    assert len(sw) >= 20
    assert len(vendors) >= 5 and {"Huawei", "H3C"} <= vendors
    # a Tomahawk 5 white box: the Celestica DS5000 (Hedgehog switch profile, SiliconBroadcomTH5)
    ds5000 = catalog.switch("Celestica DS5000")
    assert "Tomahawk 5" in ds5000["notes"] and ds5000["vendor"] == "Celestica"
    # management switches at 1G and 25G, and InfiniBand NDR and XDR
    assert {1, 25} <= set(sw.loc[sw["technology"] == "ethernet", "port_gbps"])
    assert {400, 800} <= set(sw.loc[sw["technology"] == "infiniband", "port_gbps"])


def test_storage_coverage(catalog):
    st = catalog.storage
    assert len(st) >= 15
    assert len(set(st["vendor"])) >= 8
    # domestic parallel file systems next to the foreign appliances
    assert {"Inspur", "YanRong", "Huawei"} <= set(st["vendor"])


def test_breakout_is_data_64x800g_as_128x400g(catalog):
    # Arista 7060X6 datasheet, 'Model Comparison' (via InfraLens 7060X6.ts): 64 x 800G OSFP,
    # 128 x 400G, 256 x 100G; 2RU, 640 W typical / 2,218 W maximum.
    a = catalog.switch("DCS-7060X6-64PE")
    assert ports_at(a["ports"], a["port_gbps"], a["max_breakout"], 400) == 128
    assert ports_at(a["ports"], a["port_gbps"], a["max_breakout"], 100) == 256
    assert (a["rack_units"], a["typical_power_kw"], a["max_power_kw"]) == (2, 0.64, 2.218)
    # Hedgehog's DS5000 profile: 8 x 100G a port but MaxPorts 320 for the box, so 4 a port:
    # 64 x 4 = 256 <= 320 logical ports at 100G, and 128 x 400G.
    d = catalog.switch("Celestica DS5000")
    assert ports_at(d["ports"], d["port_gbps"], d["max_breakout"], 100) == 256 <= 320
    assert ports_at(d["ports"], d["port_gbps"], d["max_breakout"], 400) == 128
    # Cisco N9364E-SG2 data sheet (one transcription): 64 x 800G OSFP, 2RU, 995 / 2,270 W.
    c = catalog.switch("N9364E-SG2-O")
    assert ports_at(c["ports"], c["port_gbps"], c["max_breakout"], 400) == 128
    assert (c["rack_units"], c["typical_power_kw"], c["max_power_kw"]) == (2, 0.995, 2.27)


def test_management_and_domestic_switch_ports(catalog):
    # Huawei V300 hardware description, CE8851-32CQ8DQ-P: 32 x 100GE + 8 x 400GE QSFP-DD.
    h = catalog.switch("CE8851-32CQ8DQ-P")
    assert (h["ports"], h["port_gbps"], h["uplink_ports"], h["uplink_gbps"]) == (32, 100, 8, 400)
    # H3C S9855-48CD8D (network-switch.com, quoting H3C): 48 x 100G + 8 x 400G, 1RU.
    s = catalog.switch("S9855-48CD8D")
    assert (s["ports"], s["port_gbps"], s["uplink_ports"], s["uplink_gbps"]) == (48, 100, 8, 400)
    assert s["rack_units"] == 1 and s["confidence"] == "low"
    # Arista 7010TX-48 (NetBox device type): 48 x 1000BASE-T + 4 x 25G SFP28, 106 W per PSU.
    m = catalog.switch("DCS-7010TX-48")
    assert (m["ports"], m["port_gbps"], m["uplink_ports"], m["uplink_gbps"]) == (48, 1, 4, 25)
    assert m["max_power_kw"] == 0.106 and math.isnan(m["typical_power_kw"])


def test_new_switch_weights_from_their_sheets():
    w = sheet_weights().set_index("model")["weight_kg"]
    # Arista 7060X6 datasheet: '46 lbs (20.8 kg)'; Huawei CE5855 NetBox type: 8.4 kg
    assert w["Arista 7060X6-64PE"] == 20.8
    assert w["Huawei CE5855-48T4S2Q-EI"] == 8.4


def test_mlperf_storage_rows_per_node(catalog):
    # MLCommons Storage v1.0, IEI AS13000: unet3d-h100 362,523.94 MB/s from 3 storage nodes
    # = 120.841 GB/s a node; 16 x 7,864 GiB = 125,824 GiB = 135.10 TB a node; 4 x NDR400.
    a = catalog.storage_block("AS13000")
    assert a["read_gb_s"] == pytest.approx(362_523.94 / 3 / 1000, abs=1e-3)
    assert a["raw_tb"] == pytest.approx(16 * 7864 * GIB_TB, abs=0.01)
    assert (a["nic_ports"], a["nic_gbps"]) == (4, 400)
    # YanRong F9000X: 160,887.84 MB/s from 3 nodes = 53.629 GB/s; 10 x 7,000 GiB = 75.16 TB.
    y = catalog.storage_block("F9000X")
    assert y["read_gb_s"] == pytest.approx(160_887.84 / 3 / 1000, abs=1e-3)
    assert y["raw_tb"] == pytest.approx(10 * 7000 * GIB_TB, abs=0.01)
    # Clyso's Ceph cluster: 1.025 TiB/s over 68 nodes = 16.574 GB/s a node; 10 x 15.36 TB.
    c = catalog.storage_block("ceph-nvme")
    assert c["read_gb_s"] == pytest.approx(1.025 * 2**40 / 68 / 1e9, abs=1e-3)
    assert c["raw_tb"] == 153.6


def test_stated_storage_figures(catalog):
    # Blocks & Files 2023-08-30: A310 5RU chassis, 400 GB/s read, 208 GB/s write, capacity
    # not revealed (so raw_tb stays empty).
    a310 = catalog.storage_block("OceanStor A310")
    assert (a310["read_gb_s"], a310["write_gb_s"], a310["rack_units"]) == (400, 208, 5)
    assert math.isnan(a310["raw_tb"])
    # NetApp AIPod sizing guidance: 'up to 300 GBps' for 12 HA pairs = 25 GB/s a pair;
    # validated with 2 x NS224 of 24 x 1.9 TB a pair = 91.2 TB.
    n = catalog.storage_block("AFF A900")
    assert n["read_gb_s"] == 300 / 12 and n["raw_tb"] == pytest.approx(2 * 24 * 1.9)


def test_block_without_a_read_figure_stops_naming_the_column(catalog):
    # WEKApod: the one MLPerf read was a single client's limit, so read_gb_s is empty.
    row = catalog.storage_block("WEKApod")
    assert math.isnan(row["read_gb_s"]) and row["rack_units"] == 1
    with pytest.raises(HubplanError, match=r"column read_gb_s is empty"):
        node_figures(row, "storage.hot_model", "appliance", Storage())


def test_every_new_row_is_sourced_and_unpriced(catalog):
    for df in (catalog.switches, catalog.storage):
        assert df["source"].str.len().gt(20).all()
        assert df["confidence"].isin(["high", "medium", "low"]).all()
        assert df["price_usd"].isna().all()  # prices go to the price catalogue, not here
    # the new 'low' rows say why (one secondary source) in their notes
    for df in (catalog.switches, catalog.storage):
        low = df[(df["confidence"] == "low") & (df["as_of"] >= "2026-12-03")]
        assert len(low) and low["notes"].str.contains("secondary", case=False).all()


def test_cli_lists_new_rows(capsys):
    # Juniper QFX5241 hardware guide, 'Ports Panel': 64 x 800GbE OSFP.
    assert main(["catalog", "switches", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert (rows["Juniper QFX5241-64OD"]["ports"], rows["Juniper QFX5241-64OD"]["port_gbps"]) == (
        64,
        800,
    )
    assert main(["catalog", "storage", "--json"]) == 0
    names = {r["name"] for r in json.loads(capsys.readouterr().out)}
    assert {"YanRong YRCloudFile F8000X node", "VAST Ceres DBox"} <= names


def test_appliance_keeps_the_usable_capacity_its_source_reports(catalog):
    # IEI AS13000 MLPerf Storage v1.0 system JSON: usable_capacity_GiB 172,032 for 3 nodes
    # = 57,344 GiB = 61.573 TB a node (two copies), not 79.2 % of its 135.1 TB raw (107.0 TB).
    row = catalog.storage_block("AS13000")
    fig = node_figures(row, "storage.hot_model", "appliance", Storage())
    assert fig.usable_tb == pytest.approx(172_032 / 3 * GIB_TB, abs=1e-3)
    # On a k + m scheme the scenario chose, the scheme's share applies: 135.1 x 8/10.
    assert node_figures(row, "f", "ec_8+2", Storage()).usable_tb == pytest.approx(135.1 * 0.8)
    # A block without a reported figure keeps the OceanStor A800 share, 362,723 / 457,764.
    ddn = node_figures(catalog.storage_block("ai400x2t"), "f", "appliance", Storage())
    assert ddn.usable_tb == pytest.approx(369.4 * 362_723 / 457_764)


def test_usable_above_raw_is_refused(tmp_path):
    bad = tmp_path / "storage.csv"
    bad.write_text(
        "name,vendor,form,role,tiers,read_gb_s,raw_tb,usable_tb,source,as_of,confidence\n"
        "Box,X,appliance,appliance,hot,10,100,120,a quote,2026-12-03,low\n",
        encoding="utf-8",
    )
    with pytest.raises(
        hubplan.CatalogError, match=r"line 2, column usable_tb: 120 is more than raw_tb 100"
    ):
        load_catalog(storage=bad)
