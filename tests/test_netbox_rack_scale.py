"""A GB200 NVL72 plan's NetBox import set: every device a file names is defined once, in a
free unit of its rack, and the rack layout lists the trays the port map cables.

NetBox refuses an interface, cable, address or power port on a device it does not have,
two devices in one unit, a device past the top of its rack and a 0 U device type at a
position (dcim/models/devices.py, Device.clean, NetBox 4.7.3); ``make netbox-check``
(``--plans gb200-nvl72``) imports the set into a real NetBox.
"""

import csv

import pytest

import hubplan
from hubplan.export import write_netbox
from hubplan.export.xlsx import _power_formulas

# The default scenario's training pool on GB200 NVL72 racks (data/servers.csv alias).
NVL72 = {
    "pools.training.accelerator": "GB200 186GB",
    "pools.training.gpus_per_server": 72,
    "pools.training.server": "GB200 NVL72",
}


def _read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def nvl72_plan(default):
    return hubplan.build_plan(default.with_changes(NVL72))


@pytest.fixture(scope="module")
def nvl72_files(nvl72_plan, tmp_path_factory):
    files = write_netbox(nvl72_plan, tmp_path_factory.mktemp("nb-nvl72"))
    return {name: _read(path) for name, path in files.items()}


@pytest.fixture(scope="module")
def default_files(default, tmp_path_factory):
    files = write_netbox(hubplan.build_plan(default), tmp_path_factory.mktemp("nb-default"))
    return {name: _read(path) for name, path in files.items()}


def _named(files) -> set[str]:
    """Every device name the files other than devices.csv refer to."""
    names = {
        r["device"]
        for f in ("interfaces", "ip_addresses", "power_ports", "power_outlets")
        for r in files.get(f, [])
    }
    for f in ("cables", "power_cables"):
        for r in files.get(f, []):
            names |= {r["side_a_device"], r["side_b_device"]}
    return names - {""}


def test_every_device_named_in_the_set_is_defined_once(nvl72_files):
    # Before: devices.csv defined the rack-scale system as train-0001 and train-0002 while
    # the interfaces, cables and addresses were on their trays train-0001-t01 ... -t18:
    # 36 trays NetBox did not have (every interface, cable and address of them rejected).
    devices = [r["name"] for r in nvl72_files["devices"]]
    assert len(devices) == len(set(devices))
    assert _named(nvl72_files) - set(devices) == set()
    # 2 racks × (18 trays + 9 NVLink switch trays + 8 power shelves + the system's own row)
    nvl = [d for d in devices if d.startswith("train-")]
    assert len(nvl) == 2 * (18 + 9 + 8 + 1) == 72
    assert {f"train-0001-t{t:02d}" for t in range(1, 19)} <= set(devices)


def _check_positions(files):
    """Each positioned device lies inside its rack and shares no unit; 0 U types have no
    position and no face. Returns the units taken per rack."""
    height = {r["name"]: int(r["u_height"]) for r in files["racks"]}
    type_u = {r["model"]: float(r["u_height"]) for r in files["device_types"]}
    taken: dict[str, dict[int, str]] = {}
    for r in files["devices"]:
        units = type_u[r["device_type"]]
        if units == 0:
            assert (r["position"], r["face"]) == ("", ""), r["name"]
            continue
        first = int(r["position"])
        assert 1 <= first and first + units - 1 <= height[r["rack"]], r["name"]
        for u in range(first, first + int(units)):
            other = taken.setdefault(r["rack"], {}).setdefault(u, r["name"])
            assert other == r["name"], f"{r['name']} and {other} in {r['rack']} U{u}"
    return taken


def test_nvl72_rack_elevation_is_free_and_in_range(nvl72_plan, nvl72_files):
    taken = _check_positions(nvl72_files)
    rack = nvl72_plan["rack_layout"].set_index("device").loc["train-0001", "rack"]
    # data/rack_systems.csv bottom up: 4 power shelves (BCM power-shelf docs: 8 of 1 RU),
    # 8 compute trays, the 9 NVLink switch trays, 10 compute trays (DGX GB200 user guide:
    # 18 + 9 trays of 1 RU; ServeTheHome's GTC photos: ten above the switch trays), 4
    # power shelves: units 1-4, 5-12, 13-21, 22-31, 32-35 of the 42 U rack.
    units = taken[rack]
    assert sorted(units) == list(range(1, 36))
    assert [units[u] for u in (1, 4, 5, 12, 13, 21, 22, 31, 32, 35)] == [
        "train-0001-ps01",
        "train-0001-ps04",
        "train-0001-t01",
        "train-0001-t08",
        "train-0001-nvsw01",
        "train-0001-nvsw09",
        "train-0001-t09",
        "train-0001-t18",
        "train-0001-ps05",
        "train-0001-ps08",
    ]
    makers = {r["model"]: r["manufacturer"] for r in nvl72_files["device_types"]}
    # the system's parts are its maker's (data/servers.csv: vendor NVIDIA)
    assert makers["GB200 NVL72 NVLink switch tray"] == makers["DGX GB200 compute tray"] == "NVIDIA"
    system = next(r for r in nvl72_files["devices"] if r["name"] == "train-0001")
    assert (system["rack"], system["position"], system["device_type"]) == (
        rack,
        "",
        "GB200 NVL72 rack",
    )


def test_default_plan_positions_are_free_and_in_range(default_files):
    assert _check_positions(default_files)


def test_rack_layout_lists_the_nodes_the_port_map_and_ip_plan_name(nvl72_plan):
    layout = set(nvl72_plan["rack_layout"]["device"])
    pm = nvl72_plan["port_map"]
    named = set(pm["device_a"]) | set(pm["device_b"]) | set(nvl72_plan["ip_plan"]["device"])
    assert named - layout == set()


def test_nvl72_rack_power_is_counted_once(nvl72_plan, nvl72_files):
    layout = nvl72_plan["rack_layout"].set_index("device")
    rack = layout.loc["train-0001", "rack"]
    # data/servers.csv: tray 6.667 kW (NVIDIA DPS), rack 132 kW; the system's own row
    # carries the rest: 132 − 18 × 6.667 = 11.994 kW (switch trays, shelf losses).
    assert layout.loc["train-0001-t01", "max_power_kw"] == pytest.approx(6.667)
    assert layout.loc["train-0001", "max_power_kw"] == pytest.approx(11.994)
    assert layout.loc["train-0001", "weight_kg"] == 1360  # the rack's, once
    assert layout.loc["train-0001-nvsw01", "max_power_kw"] == 0
    alloc = nvl72_plan["power_allocation"].set_index("rack").loc[rack]
    assert alloc["device_power_kw"] == pytest.approx(132.0)
    assert alloc["devices"] == 36
    racks = nvl72_plan["racks"].set_index("rack").loc[rack]
    assert (racks["devices"], racks["u_used"], racks["weight_kg"]) == (36, 35.0, 1360.0)
    # the xlsx power sheet can sum the layout sheet again (no 'layout mismatch' fallback)
    assert (
        "device_power_kw"
        in _power_formulas(nvl72_plan, nvl72_plan["power_allocation"], "en").columns
    )
    # NetBox: a power port per supply of what draws power; NetBox's draws are whole
    # watts ≥ 1, so a switch tray or power shelf (0 kW of its own) has none.
    ports = {(r["device"], r["name"]): r for r in nvl72_files["power_ports"]}
    assert ports[("train-0001-t01", "PSU-A")]["maximum_draw"] == "6667"
    assert ports[("train-0001", "PSU-B")]["maximum_draw"] == "11994"
    assert not any(d == "train-0001-nvsw01" for d, _ in ports)
    drawn = sum(
        int(r["maximum_draw"])
        for (d, n), r in ports.items()
        if n == "PSU-A" and d.startswith("train-0001")
    )
    assert drawn == 132_000


def test_a_rack_scale_system_without_listed_parts_lays_out_its_trays_and_says_so(default, tmp_path):
    # A user's own catalogue row for an NVL72 under another name: data/rack_systems.csv
    # has no parts for it, so its 18 trays fill units 1-18 and a warning says the switch
    # trays and power shelves are missing; the rack still sums to 132 kW.
    from hubplan.core.catalog import load_catalog
    from hubplan.core.paths import data_dir

    rows = _read(data_dir() / "servers.csv")
    rack = next(r for r in rows if r["name"] == "GB200 NVL72 rack")
    path = tmp_path / "servers.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerow(rack | {"name": "Our NVL72", "aliases": ""})
    plan = hubplan.build_plan(
        default.with_changes(NVL72 | {"pools.training.server": "Our NVL72"}),
        catalog=load_catalog(servers=path),
    )
    f = plan.findings
    assert f.loc[f["code"] == "rack_parts_unlisted", "subject"].tolist() == ["Our NVL72"]
    layout = plan["rack_layout"].set_index("device")
    assert layout.loc["train-0001-t18", "u_position"] == 18
    assert layout.loc["train-0001", "max_power_kw"] == pytest.approx(11.994)
    rack_name = layout.loc["train-0001", "rack"]
    assert plan["power_allocation"].set_index("rack").loc[rack_name, "device_power_kw"] == (
        pytest.approx(132.0)
    )
