"""The NetBox import files: every column and every choice value is one NetBox's own import
forms accept, and the objects carry the figures a DCIM engineer checks.

``tests/netbox_forms.json`` holds the field names and choice values of NetBox's CSV import
forms at v4.6.8 (the client's release, read from the git tag) and v4.7.3 (the release PyPI
serves, which ``make netbox-check`` runs), made by ``scripts/netbox_forms_snapshot.py`` from
NetBox's source. ``make netbox-check`` imports the files into a real NetBox.
"""

import csv
import dataclasses
import json
import math
from pathlib import Path

import pandas as pd
import pytest

import hubplan
from hubplan.core.errors import HubplanError
from hubplan.export import write_netbox
from hubplan.export.netbox import FORM_OF, IMPORT_ORDER, feed_amperage

FORMS = json.loads((Path(__file__).parent / "netbox_forms.json").read_text(encoding="utf-8"))
# What a cable may end on (dcim/constants.py CABLE_TERMINATION_MODELS) that hubplan uses.
CABLE_ENDS = {"dcim.interface", "dcim.powerport", "dcim.poweroutlet", "dcim.powerfeed"}
# Fields without which NetBox rejects the row (model fields that are not blank=True).
REQUIRED = {
    "sites": {"name", "slug", "status"},
    "racks": {"site", "name", "status"},
    "manufacturers": {"name", "slug"},
    "device_roles": {"name", "slug"},
    "device_types": {"manufacturer", "model", "slug"},
    "devices": {"role", "manufacturer", "device_type", "status", "site"},
    "interfaces": {"device", "name", "type"},
    "cables": {"side_a_type", "side_a_name", "side_b_type", "side_b_name"},
    "power_panels": {"site", "name"},
    "power_feeds": {
        "power_panel",
        "name",
        "status",
        "type",
        "supply",
        "phase",
        "voltage",
        "amperage",
        "max_utilization",
    },
    "power_ports": {"device", "name"},
    "power_outlets": {"device", "name"},
    "ipam_roles": {"name", "slug", "weight"},
    "vlans": {"vid", "name", "status"},
    "prefixes": {"prefix", "status"},
    "ip_addresses": {"address", "status"},
}


def _read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def default_plan():
    return hubplan.build_plan(hubplan.default_scenario())


@pytest.fixture(scope="module")
def default_files(default_plan, tmp_path_factory):
    return write_netbox(default_plan, tmp_path_factory.mktemp("nb"))


@pytest.fixture(scope="module")
def three_plans(tmp_path_factory):
    """The files of the default, the 16K and a Chinese-named plan."""
    root = Path(__file__).parents[1] / "templates" / "scenarios"
    scenarios = {
        "default": hubplan.default_scenario(),
        "16k": hubplan.load_scenario(root / "pretrain-16k.yaml"),
        "chinese": hubplan.default_scenario().with_changes({"name": "智算中心一期 训练集群"}),
    }
    out = tmp_path_factory.mktemp("plans")
    return {n: write_netbox(hubplan.build_plan(s), out / n) for n, s in scenarios.items()}


@pytest.mark.parametrize("version", sorted(FORMS["versions"]))
def test_every_column_and_choice_is_one_netbox_accepts(version, three_plans):
    forms = FORMS["versions"][version]
    for plan_name, files in three_plans.items():
        assert list(files) == [n for n in IMPORT_ORDER if n in files]
        assert {"prefixes", "ip_addresses", "power_feeds", "power_ports", "vlans"} <= set(files)
        for name, path in files.items():
            form = forms[FORM_OF[name]]
            with open(path, encoding="utf-8", newline="") as f:
                header = next(csv.reader(f))
            where = f"{version} {plan_name} {name}"
            assert len(set(header)) == len(header), where
            assert set(header) <= set(form["fields"]), (where, set(header) - set(form["fields"]))
            assert REQUIRED[FORM_OF[name]] <= set(header), where
            rows = _read(path)
            assert rows, where
            for field, allowed in form["choices"].items():
                if field in header:
                    bad = {r[field] for r in rows} - {str(v) for v in allowed} - {""}
                    assert not bad, (where, field, bad)
            for side in ("side_a_type", "side_b_type"):
                if side in header:
                    assert {r[side] for r in rows} <= CABLE_ENDS, where


def test_the_snapshot_knows_netboxs_ipam_statuses():
    # ipam/choices.py at v4.6.8: PrefixStatusChoices and IPAddressStatusChoices; 'planned' is
    # in neither (the defect: every prefix and address was rejected).
    forms = FORMS["versions"]["4.6.8"]
    assert forms["prefixes"]["choices"]["status"] == [
        "container",
        "active",
        "reserved",
        "deprecated",
    ]
    assert forms["ip_addresses"]["choices"]["status"] == [
        "active",
        "reserved",
        "deprecated",
        "dhcp",
        "slaac",
    ]
    assert "max_utilization" in forms["power_feeds"]["fields"]


def test_prefixes_and_addresses_are_reserved_with_roles_and_vlans(default_files):
    prefixes = {r["prefix"]: r for r in _read(default_files["prefixes"])}
    # The storage plane runs on QM9700 (InfiniBand): a partition (P_Key), no VLAN, so
    # 10.16.0.0/25 has none; the in-band plane (SN4600C, Ethernet): 10.20.0.0/25 on VLAN 300
    storage = prefixes["10.16.0.0/25"]
    assert (storage["status"], storage["role"], storage["vlan"]) == ("reserved", "storage", "")
    inband = prefixes["10.20.0.0/25"]
    assert (inband["status"], inband["role"], inband["vlan"]) == ("reserved", "inband", "300")
    assert inband["vlan_site"] == "70B industry model — fine-tune, serve, develop"
    assert prefixes["10.0.0.0/26"]["vlan"] == ""  # the compute rails are untagged (vlan 0)
    vlans = {r["vid"]: r["name"] for r in _read(default_files["vlans"])}
    assert vlans == {"300": "inband", "400": "bmc"}
    roles = [r["name"] for r in _read(default_files["ipam_roles"])]
    assert roles == ["bmc", "compute", "inband", "loopback", "storage"]
    ips = {(r["device"], r["interface"]): r for r in _read(default_files["ip_addresses"])}
    assert ips[("compute-leaf-01", "lo0")]["role"] == "loopback"
    assert ips[("compute-leaf-01", "lo0")]["address"] == "10.31.0.0/32"
    assert {r["status"] for r in ips.values()} == {"reserved"}


def test_device_types_name_the_catalogues_maker(default_files):
    types = {r["model"]: r["manufacturer"] for r in _read(default_files["device_types"])}
    # data/servers.csv and data/switches.csv vendor column: DGX H100 and QM9700 by NVIDIA,
    # the L40S server by Supermicro; the Lustre blocks are 'generic' building blocks and the
    # management server comes from the scenario, so 'Generic'.
    assert types["DGX H100"] == "NVIDIA" and types["QM9700"] == "NVIDIA"
    assert types["SN2201"] == "NVIDIA"
    assert types["Supermicro SYS-521GE-TNRT L40S"] == "Supermicro"
    assert types["Lustre OSS NVMe 24x30.72TB 2x400G"] == "Generic"
    assert types["1U management server"] == "Generic"
    makers = {r["name"] for r in _read(default_files["manufacturers"])}
    assert makers == {"NVIDIA", "Supermicro", "Generic"}
    devices = {r["name"]: r for r in _read(default_files["devices"])}
    assert devices["train-0001"]["manufacturer"] == "NVIDIA"


def test_interfaces_loopbacks_are_virtual_and_infiniband_is_infiniband(default_files):
    iface = {(r["device"], r["name"]): r for r in _read(default_files["interfaces"])}
    assert iface[("compute-leaf-01", "lo0")]["type"] == "virtual"
    # The compute and storage fabrics are QM9700 switches: InfiniBand NDR, 400 Gb/s
    # (NVIDIA QM97XX user manual); speed in NetBox's kbps.
    assert iface[("train-0001", "rail1")]["type"] == "infiniband-ndr"
    assert iface[("train-0001", "rail1")]["speed"] == "400000000"
    assert iface[("train-0001", "mgmt1")]["type"] == "100gbase-x-qsfp28"  # SN4600C Ethernet
    assert iface[("train-0001", "bmc1")]["type"] == "1000base-t"
    assert iface[("train-0001", "bmc1")]["mgmt_only"] == "true"


def test_feeds_are_sized_at_netboxs_80_percent():
    # 40 kW at 400 V three-phase, 80 %: 40 000 / (√3 × 400 × 0.8) = 72.2 A -> 80 A breaker;
    # 30.6 kW -> 55.2 A -> 63 A; 132 kW (an NVL72 rack) -> 238 A -> 250 A (IEC ratings).
    assert feed_amperage(40) == 80 and feed_amperage(30.6) == 63 and feed_amperage(132) == 250
    assert feed_amperage(27.7) == 50  # 49.98 A fits a 50 A feed
    with pytest.raises(HubplanError, match="supply_kw = 300"):
        feed_amperage(300)  # 541 A: above the 400 A exported


def test_rack_power_in_netbox_reads_the_plans_allocation(default_plan, default_files):
    feeds = {r["name"]: r for r in _read(default_files["power_feeds"])}
    assert feeds["A01-A"]["amperage"] == "80" and feeds["A01-A"]["max_utilization"] == "80"
    assert feeds["A01-B"]["type"] == "redundant"
    ports = {(r["device"], r["name"]): r for r in _read(default_files["power_ports"])}
    # DGX H100: 10.2 kW nameplate (data/servers.csv) on each of its A and B supplies (2N)
    assert ports[("train-0001", "PSU-A")]["maximum_draw"] == "10200"
    assert ports[("train-0001", "PSU-B")]["allocated_draw"] == "10200"
    assert ports[("A01-PDU-A", "input")]["allocated_draw"] == ""  # NetBox adds the outlets up
    # NetBox's Rack.get_power_utilization: the allocated draw of the ports cabled to the
    # rack's feeds over their available power. Follow the exported cables as NetBox would.
    cables = _read(default_files["power_cables"])
    pdu_of_feed = {
        c["side_a_name"]: c["side_b_device"] for c in cables if c["side_a_type"] == "dcim.powerfeed"
    }
    draw = 0
    for feed in ("A01-A", "A01-B"):
        pdu = pdu_of_feed[feed]
        for c in cables:
            if c["side_a_device"] == pdu and c["side_a_type"] == "dcim.poweroutlet":
                draw += int(ports[(c["side_b_device"], c["side_b_name"])]["allocated_draw"])
    available = 2 * 400 * 80 * math.sqrt(3) * 0.80  # two 80 A feeds, W
    # Rack A01: 3 DGX H100, 30.6 kW allocated (power_allocation); 30 600 / 44 341 = 69.0 %
    assert draw == 2 * 30_600
    assert round(draw / available * 100, 1) == 69.0
    alloc = default_plan["power_allocation"].set_index("rack")
    assert alloc.loc["A01", "allocated_kw"] == pytest.approx(30.6)


def test_every_device_supply_has_a_pdu_outlet_and_cable(default_plan, default_files):
    layout = default_plan["rack_layout"]
    ports = [r for r in _read(default_files["power_ports"]) if r["name"].startswith("PSU")]
    # 54 devices on A+B feeds (49 with the 10 storage nodes, the 4 UFM appliances and a
    # second SN2201)
    assert len(ports) == 2 * len(layout) == 108
    outlets = _read(default_files["power_outlets"])
    cables = _read(default_files["power_cables"])
    assert len(outlets) == 108 and len(cables) == 108 + 2 * 12  # + a PDU input per feed
    devices = _read(default_files["devices"])
    pdus = [d for d in devices if d["role"] == "pdu"]
    assert len(pdus) == 24 and {d["position"] for d in pdus} == {""}  # 0 U, at the side


def test_without_the_facility_stage_the_network_files_are_written(default_plan, tmp_path):
    plan = hubplan.build_plan(default_plan.scenario, until="network")
    files = write_netbox(plan, tmp_path / "nb")
    assert list(files) == [
        "sites",
        "device_roles",
        "interfaces",
        "cables",
        "ipam_roles",
        "vlans",
        "prefixes",
        "ip_addresses",
    ]


def test_power_files_follow_a_given_layout(default_plan, tmp_path):
    layout = pd.DataFrame(
        {
            "device": ["train-0001", "sw-1"],
            "device_type": ["gpu_server", "switch"],
            "model": ["DGX H100", "QM9700"],
            "rack": ["A01", "A01"],
            "u_position": [1, 40],
            "u_height": [8, 1],
            "max_power_kw": [10.2, 1.72],
            "feed": ["A", "A"],
        }
    )
    alloc = pd.DataFrame(
        {
            "rack": ["A01"],
            "row": ["A"],
            "kind": ["compute"],
            "devices": [2],
            "device_power_kw": [11.92],
            "allocated_kw": [11.92 * 1.5],
            "supply_kw": [20.0],
        }
    )
    racks = pd.DataFrame({"rack": ["A01"], "kind": "compute", "u_total": 42, "max_kg": 1200.0})
    plan = dataclasses.replace(
        default_plan,
        tables={
            **default_plan.tables,
            "rack_layout": layout,
            "power_allocation": alloc,
            "racks": racks,
        },
    )
    files = write_netbox(plan, tmp_path / "nb")
    feeds = _read(files["power_feeds"])
    # One feed (no A+B): 20 kW / (√3 × 400 × 0.8) = 36.1 A -> 40 A
    assert [(f["name"], f["amperage"]) for f in feeds] == [("A01-A", "40")]
    ports = {(r["device"], r["name"]): r for r in _read(files["power_ports"])}
    # inrush 'sized' allocation: 1.5 × nameplate, 10.2 kW -> 15 300 W allocated
    assert ports[("train-0001", "PSU-A")]["allocated_draw"] == "15300"
    assert ports[("train-0001", "PSU-A")]["maximum_draw"] == "10200"
    assert ("train-0001", "PSU-B") not in ports


def test_netbox_text_is_csv_safe(tmp_path):
    evil = hubplan.default_scenario().with_changes({"name": "=cmd|' /C calc'!A0"})
    files = write_netbox(hubplan.build_plan(evil), tmp_path / "nb")
    assert _read(files["sites"])[0]["name"] == "'=cmd|' /C calc'!A0"


def test_chinese_site_names_get_distinct_valid_slugs(tmp_path):
    # NetBox requires a unique site slug matching ^[-a-zA-Z0-9_]+$ (SlugField). A Chinese
    # name used to slug to "x" for every plan, so a second Chinese-named plan imported
    # into the same NetBox collided. The digests are `printf NAME | sha256sum`: 智算中心一期
    # 训练集群 → daf16cf9…, 智算中心二期 推理集群 → 5c644419….
    slugs = {}
    for name in ("智算中心一期 训练集群", "智算中心二期 推理集群"):
        plan = hubplan.build_plan(hubplan.default_scenario().with_changes({"name": name}))
        files = write_netbox(plan, tmp_path / name, site=name)
        (site,) = _read(files["sites"])
        assert site["name"] == name
        slugs[name] = site["slug"]
    assert slugs == {"智算中心一期 训练集群": "daf16cf9", "智算中心二期 推理集群": "5c644419"}


def test_rack_max_weight_is_a_whole_number_netbox_accepts(default_files):
    # NetBox's Rack.max_weight is a PositiveIntegerField: a real NetBox 4.7.3 refused every
    # rack with "max_weight: Enter a whole number." when the plan wrote 746.91 kg (881 kg
    # the 12 kPa floor carries on 0.6 × 1.2 m, less the 134.09 kg cabinet), and every
    # device, feed, interface and cable after them. Rounded down: 746.
    racks = {r["name"]: r for r in _read(default_files["racks"])}
    assert racks["A01"]["max_weight"] == "746"
    assert all(r["max_weight"].isdigit() for r in racks.values())
