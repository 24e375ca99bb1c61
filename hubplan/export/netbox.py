"""NetBox bulk-import CSV files from a Plan, so the plan can be loaded into the data
centre's source of truth.

Headers are field names of NetBox's CSV import forms (``netbox/dcim/forms/bulk_import.py``
and ``netbox/ipam/forms/bulk_import.py``, ``Meta.fields``) and every choice value is one of
the form's choices, at NetBox v4.6.8 and v4.7.3 (``tests/netbox_forms.json``, made from
NetBox's source by ``scripts/netbox_forms_snapshot.py``; ``make netbox-check`` imports the
files into a real NetBox). Related objects are given by name. DCIM objects are
``planned``; NetBox has no planned prefix, address or VLAN, so those are ``reserved``. Import
in the order of :data:`IMPORT_ORDER` (a device needs its site, rack, role and type first);
``power_cables.csv`` and ``cables.csv`` both go through NetBox's cable import.

Tables read: ``ip_plan``, ``port_map`` and ``fabric`` (network stage) for interfaces
(InfiniBand types on an InfiniBand fabric, loopbacks ``virtual``), cables, IPAM roles (one
per plane), VLANs, prefixes and addresses; ``racks``, ``rack_layout`` and
``power_allocation`` (facility stage) for racks, manufacturers (the catalogue's vendor),
device types, devices, power panels, feeds, PDUs, power ports, outlets and power cables.
Files whose tables the plan lacks are not written (the result says which).
"""

from __future__ import annotations

import csv
import io
import ipaddress
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import HubplanError
from ..core.files import write_folder_atomic
from ..core.labels import label
from ..core.names import drops_letters, name_digest

#: The NetBox release whose import forms the headers follow.
NETBOX_VERSION = "4.6.8"

HEADERS: dict[str, list[str]] = {
    "sites": ["name", "slug", "status", "description"],
    "manufacturers": ["name", "slug"],
    "device_roles": ["name", "slug", "color"],
    "racks": [
        "site",
        "name",
        "status",
        "form_factor",
        "width",
        "u_height",
        "max_weight",
        "weight_unit",
        "description",
    ],
    "device_types": ["manufacturer", "model", "slug", "u_height", "weight", "weight_unit"],
    "devices": [
        "name",
        "role",
        "manufacturer",
        "device_type",
        "status",
        "site",
        "rack",
        "position",
        "face",
    ],
    "interfaces": ["device", "name", "type", "speed", "mgmt_only", "description"],
    "cables": [
        "side_a_site",
        "side_a_device",
        "side_a_type",
        "side_a_name",
        "side_b_site",
        "side_b_device",
        "side_b_type",
        "side_b_name",
        "type",
        "status",
        "label",
        "description",
    ],
    "power_panels": ["site", "name", "description"],
    "power_feeds": [
        "site",
        "power_panel",
        "rack",
        "name",
        "status",
        "type",
        "supply",
        "phase",
        "voltage",
        "amperage",
        "max_utilization",
        "description",
    ],
    "power_ports": ["device", "name", "maximum_draw", "allocated_draw", "description"],
    "power_outlets": ["device", "name", "power_port", "feed_leg", "description"],
    "power_cables": [
        "side_a_site",
        "side_a_device",
        "side_a_power_panel",
        "side_a_type",
        "side_a_name",
        "side_b_site",
        "side_b_device",
        "side_b_type",
        "side_b_name",
        "status",
        "label",
    ],
    "ipam_roles": ["name", "slug", "weight", "description"],
    "vlans": ["site", "vid", "name", "status", "role", "description"],
    "prefixes": ["prefix", "status", "role", "vlan_site", "vlan", "description"],
    "ip_addresses": ["address", "status", "role", "device", "interface", "description"],
}

#: Import order: what a row names must exist first (a device needs its site, rack, role
#: and type; a power cable its feed, PDU and device ports; a prefix its role and VLAN).
IMPORT_ORDER = tuple(HEADERS)

#: The NetBox import form (its file in ``tests/netbox_forms.json``) each file is for:
#: power cables go through the cable import like data cables.
FORM_OF = {name: name for name in HEADERS} | {"power_cables": "cables"}

#: NetBox interface types by link speed [Gb/s] (dcim/choices.py InterfaceTypeChoices).
INTERFACE_TYPES = {
    1: "1000base-t",
    10: "10gbase-x-sfpp",
    25: "25gbase-x-sfp28",
    100: "100gbase-x-qsfp28",
    200: "200gbase-x-qsfp56",
    400: "400gbase-x-osfp",
    800: "800gbase-x-osfp",
}

#: InfiniBand rates by link speed [Gb/s]: 4x EDR 100, HDR 200, NDR 400, XDR 800 Gb/s
#: (InfiniBand Trade Association roadmap; NetBox's ``infiniband-*`` choices).
INFINIBAND_TYPES = {
    100: "infiniband-edr",
    200: "infiniband-hdr",
    400: "infiniband-ndr",
    800: "infiniband-xdr",
}

#: Maker of what the catalogue lists as ``generic`` or does not list (a building block or a
#: scenario-defined server): NetBox needs a manufacturer for every device type.
GENERIC = "Generic"

#: The PDU NetBox needs between a feed and the devices' power supplies to report rack
#: power: one per feed and rack, mounted at the side of the rack (0 U).
PDU_MODEL = "Rack PDU (3-phase)"

#: NetBox's default planning limit for a feed, [%] of its capacity (PowerFeed
#: ``max_utilization`` default 80, the continuous-load limit of NEC 210.19/215.2).
MAX_UTILIZATION_PCT = 80

#: Standard rated currents of circuit breakers [A]: IEC 60898-1 preferred values up to
#: 125 A, IEC 60947-2 frame sizes above.
BREAKER_RATINGS_A = (16, 20, 25, 32, 40, 50, 63, 80, 100, 125, 160, 200, 250, 315, 400)

#: Manufacturer placeholder before hubplan read the catalogue's vendor column (kept for
#: callers that imported the name).
MANUFACTURER = GENERIC


def slugify(text: str) -> str:
    """A NetBox slug (at most 100 of lower case letters, digits, hyphens and underscores),
    unique for any name.

    Where letters a slug cannot hold are dropped (a Chinese site name), an 8-hex-digit
    SHA-256 of the name is appended (:mod:`hubplan.core.names`): two Chinese-named plans
    imported into one NetBox get different site slugs, as NetBox requires.

    >>> slugify("DGX H100"), slugify("405B pre-training on 16K H100")
    ('dgx-h100', '405b-pre-training-on-16k-h100')
    >>> slugify("智算中心推理平台"), slugify("Qwen 推理")  # printf NAME | sha256sum
    ('c1ff2d18', 'qwen-8440d6e9')
    """
    slug = re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")
    if drops_letters(text):
        digest = name_digest(text, 8)
        slug = f"{slug[: 100 - len(digest) - 1]}-{digest}" if slug else digest
    return slug[:100] or "x"


def interface_type(speed_gbps: float) -> str:
    """NetBox interface type for a link speed ('other' when NetBox has no match).

    >>> interface_type(400), interface_type(3)
    ('400gbase-x-osfp', 'other')
    """
    if speed_gbps is None or (isinstance(speed_gbps, float) and math.isnan(speed_gbps)):
        return "other"
    return INTERFACE_TYPES.get(round(float(speed_gbps)), "other")


def cable_type(media: str) -> str:
    """NetBox cable type from the port map's media ('' when it cannot tell).

    >>> cable_type("DAC"), cable_type("transceiver-SR4"), cable_type("transceiver-DR4")
    ('dac-passive', 'mmf-om4', 'smf-os2')
    >>> cable_type("ACC")
    'dac-active'

    """
    m = str(media).upper()
    if "DAC" in m:
        return "dac-passive"
    if m == "ACC":
        return "dac-active"
    if "AOC" in m:
        return "aoc"
    if "RJ45" in m:
        return "cat6a"
    if re.search(r"-(SR|VR)", m):
        return "mmf-om4"
    if re.search(r"-(DR|FR|LR|ER)", m):
        return "smf-os2"
    return ""


def feed_amperage(
    supply_kw: float, voltage: float = 400.0, max_utilization_pct: float = MAX_UTILIZATION_PCT
) -> int:
    """Rated current [A] of a three-phase feed that carries ``supply_kw`` at unity power
    factor within ``max_utilization_pct`` of its capacity: the smallest standard breaker
    rating (:data:`BREAKER_RATINGS_A`) with P / (√3 × V × u) ≤ I.

    NetBox plans a feed at 80 % (``max_utilization``): 40 kW needs 40 000 / (√3 × 400 ×
    0.8) = 72.2 A, so an 80 A feed.

    >>> feed_amperage(40), feed_amperage(30.6), feed_amperage(132)
    (80, 63, 250)
    """
    need = supply_kw * 1000 / (math.sqrt(3) * voltage * max_utilization_pct / 100)
    for rating in BREAKER_RATINGS_A:
        if rating >= need - 1e-9:
            return rating
    raise HubplanError(
        f"supply_kw = {supply_kw:g}: a {voltage:g} V three-phase feed at "
        f"{max_utilization_pct:g} % needs {need:.0f} A, above the largest rating exported "
        f"({BREAKER_RATINGS_A[-1]} A); split the rack's supply"
    )


def feed_available_w(
    amperage: float, voltage: float = 400.0, max_utilization_pct: float = MAX_UTILIZATION_PCT
) -> float:
    """Power NetBox counts as available on a three-phase feed [W]: V × I × √3 × u
    (``PowerFeed.available_power``, dcim/models/power.py).

    >>> round(feed_available_w(80))
    44341
    """
    return voltage * amperage * math.sqrt(3) * max_utilization_pct / 100


def _csv_safe(value: object) -> object:
    """CSV cells that would start a formula in a spreadsheet get a leading quote
    (OWASP ASVS 1.2.10); booleans are NetBox's ``true`` / ``false``."""
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


def _vendors(catalog) -> dict[str, str]:
    """Model name (and alias) -> maker, from the catalogue's ``vendor`` columns."""
    out: dict[str, str] = {}
    for table in (catalog.servers, catalog.switches, catalog.storage):
        for name, aliases, vendor in zip(
            table["name"], table["aliases"].fillna(""), table["vendor"].fillna(""), strict=True
        ):
            maker = GENERIC if str(vendor).strip().lower() in ("", "generic") else str(vendor)
            for key in [name, *str(aliases).split(";")]:
                out.setdefault(key.strip(), maker)
    # a rack-scale system's switch trays and power shelves are its maker's
    from ..facility import rack_system_parts

    parts = rack_system_parts()
    for system, model in zip(parts["system"], parts["model"], strict=True):
        if model and system in out:
            out.setdefault(model, out[system])
    return out


def _technology(catalog, fabric: pd.DataFrame | None) -> dict[str, str]:
    """Plane -> switch technology (``infiniband`` / ``ethernet``) of its fabric model."""
    if fabric is None:
        return {}
    tech = dict(zip(catalog.switches["name"], catalog.switches["technology"], strict=True))
    return {p: str(tech.get(m, "")) for p, m in zip(fabric["plane"], fabric["model"], strict=True)}


def _interface_types(speed: pd.Series, plane: pd.Series, tech: dict[str, str]) -> list[str]:
    out = []
    for s, p in zip(speed, plane, strict=True):
        if p == "loopback":
            out.append("virtual")  # a loopback is a virtual interface, never cabled
        elif tech.get(p) == "infiniband" and not pd.isna(s):
            out.append(INFINIBAND_TYPES.get(round(float(s)), "other"))
        else:
            out.append(interface_type(s))
    return out


def _frames(plan, site: str, catalog=None) -> dict[str, pd.DataFrame]:
    if catalog is None:
        from ..core.catalog import load_catalog

        catalog = load_catalog()
    t = plan.tables
    desc = label("netbox.site_description", "en")
    out: dict[str, pd.DataFrame] = {
        "sites": pd.DataFrame(
            [{"name": site, "slug": slugify(site), "status": "planned", "description": desc}]
        ),
    }
    roles: set[str] = set()
    if "ip_plan" in t:
        roles |= set(t["ip_plan"]["device_role"])
    layout = t.get("rack_layout")
    power = layout is not None and "power_allocation" in t and "racks" in t
    if layout is not None:
        roles |= set(layout["device_type"])
    if power:
        roles.add("pdu")
    if roles:
        out["device_roles"] = pd.DataFrame(
            {"name": sorted(roles), "slug": [slugify(r) for r in sorted(roles)], "color": "9e9e9e"}
        )
    if "racks" in t:
        r = t["racks"]
        out["racks"] = pd.DataFrame(
            {
                "site": site,
                "name": r["rack"],
                "status": "planned",
                "form_factor": "4-post-cabinet",
                "width": 19,
                "u_height": r["u_total"],
                # NetBox's Rack.max_weight is a whole number (PositiveIntegerField): round
                # the load limit down, never above what the floor carries
                "max_weight": np.floor(r["max_kg"].astype(float)).astype("Int64"),
                "weight_unit": "kg",
                "description": r["kind"],
            }
        )
    if layout is not None:
        vendors = _vendors(catalog)
        models = layout.drop_duplicates("model")
        makers = models["model"].map(lambda m: vendors.get(m, GENERIC))
        types = pd.DataFrame(
            {
                "manufacturer": makers,
                "model": models["model"],
                "slug": models["model"].map(slugify),
                "u_height": models["u_height"],
                "weight": models["weight_kg"] if "weight_kg" in models else "",
                "weight_unit": "kg",
            }
        )
        devices = pd.DataFrame(
            {
                "name": layout["device"],
                "role": layout["device_type"],
                "manufacturer": layout["model"].map(lambda m: vendors.get(m, GENERIC)),
                "device_type": layout["model"],
                "status": "planned",
                "site": site,
                # a 0 U device (a rack-scale system's own row) has no position and no face:
                # NetBox refuses a 0 U device type at a rack position
                "rack": layout["rack"],
                "position": layout["u_position"],
                "face": np.where(layout["u_position"].isna(), "", "front"),
            }
        )
        if power:
            types = pd.concat(
                [
                    types,
                    pd.DataFrame(
                        [
                            {
                                "manufacturer": GENERIC,
                                "model": PDU_MODEL,
                                "slug": slugify(PDU_MODEL),
                                "u_height": 0,
                                "weight": "",
                                "weight_unit": "kg",
                            }
                        ]
                    ),
                ]
            )
        out["manufacturers"] = pd.DataFrame(
            {
                "name": sorted(set(types["manufacturer"])),
                "slug": [slugify(m) for m in sorted(set(types["manufacturer"]))],
            }
        )
        out["device_types"] = types
        out["devices"] = devices
    tech = _technology(catalog, t.get("fabric"))
    if "port_map" in t:
        pm = t["port_map"]
        ends = pd.concat(
            [
                pm[["device_a", "port_a", "speed_gbps", "plane"]].set_axis(
                    ["device", "name", "speed_gbps", "plane"], axis=1
                ),
                pm[["device_b", "port_b", "speed_gbps", "plane"]].set_axis(
                    ["device", "name", "speed_gbps", "plane"], axis=1
                ),
            ]
        )
        if "ip_plan" in t:
            ip = t["ip_plan"][["device", "interface", "plane"]].rename(
                columns={"interface": "name"}
            )
            ends = pd.concat([ends, ip.assign(speed_gbps=float("nan"))])
        ends = ends.drop_duplicates(["device", "name"], keep="first")
        out["interfaces"] = pd.DataFrame(
            {
                "device": ends["device"],
                "name": ends["name"],
                "type": _interface_types(ends["speed_gbps"], ends["plane"], tech),
                "speed": (ends["speed_gbps"] * 1_000_000).round().astype("Int64"),  # NetBox: kbps
                "mgmt_only": ends["plane"].eq("bmc"),
                "description": ends["plane"],
            }
        )
        out["cables"] = pd.DataFrame(
            {
                "side_a_site": site,
                "side_a_device": pm["device_a"],
                "side_a_type": "dcim.interface",
                "side_a_name": pm["port_a"],
                "side_b_site": site,
                "side_b_device": pm["device_b"],
                "side_b_type": "dcim.interface",
                "side_b_name": pm["port_b"],
                "type": pm["media"].map(cable_type),
                "status": "planned",
                "label": pm["link_id"].astype(str),
                "description": pm["purpose"],
            }
        )
    if "ip_plan" in t:
        ip = t["ip_plan"]
        planes = sorted(set(ip["plane"]))
        out["ipam_roles"] = pd.DataFrame(
            # weight: NetBox's form requires it; 1000 is its model default (ipam Role)
            {
                "name": planes,
                "slug": [slugify(p) for p in planes],
                "weight": 1000,
                "description": planes,
            }
        )
        vid = pd.to_numeric(ip["vlan"], errors="coerce").fillna(0).astype(int)
        vl = pd.DataFrame({"vid": vid, "plane": ip["plane"]})
        vl = vl[vl["vid"] > 0].drop_duplicates("vid")
        if len(vl):
            out["vlans"] = pd.DataFrame(
                {
                    "site": site,
                    "vid": vl["vid"],
                    "name": vl["plane"],
                    "status": "reserved",
                    "role": vl["plane"],
                    "description": vl["plane"],
                }
            )
        iface = [f"{a}/{p}" for a, p in zip(ip["address"], ip["prefix"], strict=True)]
        nets = pd.Series(iface).drop_duplicates()
        at = nets.index.to_numpy()
        prefixes = pd.DataFrame(
            {
                "prefix": [str(ipaddress.ip_interface(x).network) for x in nets],
                "plane": ip["plane"].to_numpy()[at],
                "vid": vid.to_numpy()[at],
            }
        ).drop_duplicates("prefix")
        # NetBox has no 'planned' prefix or address: 'reserved' is set aside, not yet live.
        out["prefixes"] = pd.DataFrame(
            {
                "prefix": prefixes["prefix"],
                "status": "reserved",
                "role": prefixes["plane"],
                "vlan_site": np.where(prefixes["vid"] > 0, site, ""),
                "vlan": prefixes["vid"].where(prefixes["vid"] > 0).astype("Int64"),
                "description": prefixes["plane"],
            }
        )
        out["ip_addresses"] = pd.DataFrame(
            {
                "address": iface,
                "status": "reserved",
                "role": np.where(ip["plane"].eq("loopback"), "loopback", ""),
                "device": ip["device"].to_numpy(),
                "interface": ip["interface"].to_numpy(),
                "description": ip["plane"].to_numpy(),
            }
        )
    if power:
        out.update(_power_frames(t, layout, site))
    elif "power_allocation" in t and "racks" in t:
        out.update(
            {
                k: v
                for k, v in _power_frames(t, None, site).items()
                if k in ("power_panels", "power_feeds")
            }
        )
    return out


def _power_frames(t, layout, site: str) -> dict[str, pd.DataFrame]:
    """Power panels (one per row), an A (and B) feed per rack sized at NetBox's 80 %
    planning limit, and, with a rack layout: a PDU per feed and rack cabled to its feed,
    each device's power supplies (one per feed it draws from) on a PDU outlet.

    A device on A+B feeds has a supply on each; either must carry the whole device (2N),
    so each port's maximum and allocated draw is the device's figure: the plan's nameplate
    power and its allocation (× the inrush factor when the plan sizes for it). NetBox's rack
    power utilisation is then the rack's allocated power over one feed's 80 % capacity.
    """
    alloc = t["power_allocation"]
    rows = alloc["row"] if "row" in alloc else pd.Series("A", index=alloc.index)
    panels = sorted(set(rows.astype(str)))
    out = {
        "power_panels": pd.DataFrame(
            {
                "site": site,
                "name": [f"PP-{r}" for r in panels],
                "description": [f"row {r}" for r in panels],
            }
        )
    }
    ab = layout is None or "feed" not in layout or (layout["feed"] == "A+B").any()
    sides = (("A", "primary"), ("B", "redundant"))[: 2 if ab else 1]
    feeds = []
    for rack, row, supply in zip(alloc["rack"], rows.astype(str), alloc["supply_kw"], strict=True):
        amps = feed_amperage(float(supply))
        for side, kind in sides:
            feeds.append(
                {
                    "site": site,
                    "power_panel": f"PP-{row}",
                    "rack": rack,
                    "name": f"{rack}-{side}",
                    "status": "planned",
                    "type": kind,
                    "supply": "ac",
                    "phase": "three-phase",
                    "voltage": 400,
                    "amperage": amps,
                    "max_utilization": MAX_UTILIZATION_PCT,
                    "description": f"{float(supply):g} kW",
                }
            )
    out["power_feeds"] = pd.DataFrame(feeds)
    if layout is None:
        return out
    panel_of = dict(zip(alloc["rack"], rows.astype(str), strict=True))
    ratio = (alloc["allocated_kw"] / alloc["device_power_kw"]).where(
        alloc["device_power_kw"] > 0, 1.0
    )
    factor = dict(zip(alloc["rack"], ratio, strict=True))
    pdus, ports, outlets, cables = [], [], [], []
    for rack in alloc["rack"]:
        for side, _ in sides:
            pdu = f"{rack}-PDU-{side}"
            pdus.append(
                {
                    "name": pdu,
                    "role": "pdu",
                    "manufacturer": GENERIC,
                    "device_type": PDU_MODEL,
                    "status": "planned",
                    "site": site,
                    "rack": rack,
                    "position": "",
                    "face": "",
                }
            )
            # No draw on the PDU's input: NetBox then adds up what its outlets feed.
            ports.append(
                {
                    "device": pdu,
                    "name": "input",
                    "maximum_draw": "",
                    "allocated_draw": "",
                    "description": f"feed {rack}-{side}",
                }
            )
            cables.append(
                {
                    "side_a_site": site,
                    "side_a_device": "",
                    "side_a_power_panel": f"PP-{panel_of[rack]}",
                    "side_a_type": "dcim.powerfeed",
                    "side_a_name": f"{rack}-{side}",
                    "side_b_site": site,
                    "side_b_device": pdu,
                    "side_b_type": "dcim.powerport",
                    "side_b_name": "input",
                    "status": "planned",
                    "label": f"{rack}-{side}",
                }
            )
    count: dict[str, int] = {}
    for dev, rack, kw, feed in zip(
        layout["device"],
        layout["rack"],
        layout["max_power_kw"],
        layout["feed"] if "feed" in layout else ["A"] * len(layout),
        strict=True,
    ):
        if rack not in factor or pd.isna(kw) or round(float(kw) * 1000) < 1:
            # NetBox's draws are whole watts of at least 1: a part drawing nothing of its
            # own (a rack-scale system's switch tray or power shelf) gets no power port
            continue
        for side in ("A", "B") if feed == "A+B" else ("A",):
            pdu = f"{rack}-PDU-{side}"
            count[pdu] = count.get(pdu, 0) + 1
            outlet = f"outlet-{count[pdu]:02d}"
            ports.append(
                {
                    "device": dev,
                    "name": f"PSU-{side}",
                    "maximum_draw": round(float(kw) * 1000),
                    "allocated_draw": round(float(kw) * factor[rack] * 1000),
                    "description": f"feed {rack}-{side}",
                }
            )
            outlets.append(
                {
                    "device": pdu,
                    "name": outlet,
                    "power_port": "input",
                    "feed_leg": "",
                    "description": dev,
                }
            )
            cables.append(
                {
                    "side_a_site": site,
                    "side_a_device": pdu,
                    "side_a_power_panel": "",
                    "side_a_type": "dcim.poweroutlet",
                    "side_a_name": outlet,
                    "side_b_site": site,
                    "side_b_device": dev,
                    "side_b_type": "dcim.powerport",
                    "side_b_name": f"PSU-{side}",
                    "status": "planned",
                    "label": f"{dev} PSU-{side}",
                }
            )
    out["pdus"] = pd.DataFrame(pdus)
    out["power_ports"] = pd.DataFrame(ports)
    out["power_outlets"] = pd.DataFrame(outlets)
    out["power_cables"] = pd.DataFrame(cables)
    return out


def write_netbox(
    plan, folder: str | Path, *, site: str | None = None, catalog=None
) -> dict[str, Path]:
    """Write NetBox import CSVs for ``plan`` into ``folder`` (created if missing).

    Returns ``{name: path}`` of the files written, in import order. The set is written
    all or nothing (:func:`hubplan.core.files.write_folder_atomic`): a failed export
    leaves the folder as it was and raises :class:`~hubplan.core.errors.ExportError`.
    In a folder that already holds an earlier export, a ``<table>.csv`` of
    :data:`IMPORT_ORDER` the new plan does not produce is removed with the swap (it would
    be imported with the new files); files of any other name are never touched.
    """
    frames = _frames(plan, site or plan.scenario.name, catalog)
    if "pdus" in frames:
        frames["devices"] = pd.concat([frames["devices"], frames.pop("pdus")])
    texts: dict[str, str] = {}
    for name in IMPORT_ORDER:
        if name not in frames:
            continue
        df = frames[name][HEADERS[name]]
        f = io.StringIO(newline="")
        w = csv.writer(f)
        w.writerow(HEADERS[name])
        for row in df.itertuples(index=False):
            w.writerow(
                [
                    ""
                    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))
                    else _csv_safe(v)
                    for v in row
                ]
            )
        texts[f"{name}.csv"] = f.getvalue()
    paths = write_folder_atomic(
        folder, texts, owned=[f"{n}.csv" for n in IMPORT_ORDER], what="netbox"
    )
    return {p.stem: p for p in paths}
