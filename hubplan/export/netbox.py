"""NetBox bulk-import CSV files from a Plan, so the plan can be loaded into the data
centre's source of truth.

Headers are field names of NetBox's CSV import forms (``netbox/dcim/forms/bulk_import.py``
and ``netbox/ipam/forms/bulk_import.py``, ``Meta.fields``) at NetBox v4.6.8; related
objects are given by name. Every object is imported with status ``planned``. Import in
the order of :data:`IMPORT_ORDER` (a device needs its site, rack, role and type first).

Tables read: ``ip_plan`` and ``port_map`` (network stage) for interfaces, cables,
prefixes and addresses; ``racks``, ``rack_layout`` and ``power_allocation`` (facility
stage) for racks, device types, devices, power panels and feeds. Files whose tables the
plan lacks are not written (the result says which).
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

from ..core.files import write_folder_atomic
from ..core.labels import label

#: The NetBox release whose import forms the headers follow.
NETBOX_VERSION = "4.6.8"

HEADERS: dict[str, list[str]] = {
    "sites": ["name", "slug", "status", "description"],
    "manufacturers": ["name", "slug"],
    "device_roles": ["name", "slug", "color"],
    "racks": ["site", "name", "status", "form_factor", "width", "u_height", "max_weight",
              "weight_unit", "description"],
    "device_types": ["manufacturer", "model", "slug", "u_height", "weight", "weight_unit"],
    "devices": ["name", "role", "manufacturer", "device_type", "status", "site", "rack",
                "position", "face"],
    "interfaces": ["device", "name", "type", "speed", "mgmt_only", "description"],
    "cables": ["side_a_site", "side_a_device", "side_a_type", "side_a_name", "side_b_site",
               "side_b_device", "side_b_type", "side_b_name", "type", "status", "label",
               "description"],
    "prefixes": ["prefix", "status", "description"],
    "ip_addresses": ["address", "status", "device", "interface", "description"],
    "power_panels": ["site", "name", "description"],
    "power_feeds": ["site", "power_panel", "rack", "name", "status", "type", "supply",
                    "phase", "voltage", "amperage", "description"],
}  # fmt: skip

IMPORT_ORDER = tuple(HEADERS)

#: NetBox interface types by link speed (dcim/choices.py InterfaceTypeChoices, v4.6.8).
INTERFACE_TYPES = {1: "1000base-t", 10: "10gbase-x-sfpp", 25: "25gbase-x-sfp28",
                   100: "100gbase-x-qsfp28", 200: "200gbase-x-qsfp56",
                   400: "400gbase-x-osfp", 800: "800gbase-x-osfp"}  # fmt: skip

#: Placeholder manufacturer: the plan names models, not their makers.
MANUFACTURER = "Unspecified"


def slugify(text: str) -> str:
    """A NetBox slug: lower case letters, digits, hyphens and underscores.

    >>> slugify("DGX H100"), slugify("405B pre-training on 16K H100")
    ('dgx-h100', '405b-pre-training-on-16k-h100')
    """
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")[:100] or "x"


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
    """
    m = str(media).upper()
    if "DAC" in m:
        return "dac-passive"
    if "AOC" in m:
        return "aoc"
    if "RJ45" in m:
        return "cat6a"
    if re.search(r"-(SR|VR)", m):
        return "mmf-om4"
    if re.search(r"-(DR|FR|LR|ER)", m):
        return "smf-os2"
    return ""


def feed_amperage(supply_kw: float, voltage: float = 400.0) -> int:
    """Current rating [A] of a three-phase feed that carries ``supply_kw`` at unity power
    factor, rounded up: I = P / (√3 × V).

    >>> feed_amperage(40), feed_amperage(43.6)
    (58, 63)
    """
    return math.ceil(supply_kw * 1000 / (math.sqrt(3) * voltage) - 1e-9)


def _csv_safe(value: object) -> object:
    """CSV cells that would start a formula in a spreadsheet get a leading quote
    (OWASP ASVS 1.2.10); booleans are NetBox's ``true`` / ``false``."""
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


def _frames(plan, site: str) -> dict[str, pd.DataFrame]:
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
    if layout is not None:
        roles |= set(layout["device_type"])
    if roles:
        out["device_roles"] = pd.DataFrame(
            {"name": sorted(roles), "slug": [slugify(r) for r in sorted(roles)], "color": "9e9e9e"}
        )
    if "racks" in t:
        r = t["racks"]
        out["racks"] = pd.DataFrame({
            "site": site, "name": r["rack"], "status": "planned",
            "form_factor": "4-post-cabinet", "width": 19, "u_height": r["u_total"],
            "max_weight": r["max_kg"], "weight_unit": "kg", "description": r["kind"],
        })  # fmt: skip
    if layout is not None:
        models = layout.drop_duplicates("model")
        out["manufacturers"] = pd.DataFrame([{"name": MANUFACTURER,
                                              "slug": slugify(MANUFACTURER)}])  # fmt: skip
        out["device_types"] = pd.DataFrame({
            "manufacturer": MANUFACTURER, "model": models["model"],
            "slug": models["model"].map(slugify), "u_height": models["u_height"],
            "weight": models["weight_kg"] if "weight_kg" in models else "",
            "weight_unit": "kg",
        })  # fmt: skip
        out["devices"] = pd.DataFrame({
            "name": layout["device"], "role": layout["device_type"],
            "manufacturer": MANUFACTURER, "device_type": layout["model"],
            "status": "planned", "site": site, "rack": layout["rack"],
            "position": layout["u_position"], "face": "front",
        })  # fmt: skip
    if "port_map" in t:
        pm = t["port_map"]
        ends = pd.concat([
            pm[["device_a", "port_a", "speed_gbps", "plane"]].set_axis(
                ["device", "name", "speed_gbps", "plane"], axis=1),
            pm[["device_b", "port_b", "speed_gbps", "plane"]].set_axis(
                ["device", "name", "speed_gbps", "plane"], axis=1),
        ])  # fmt: skip
        if "ip_plan" in t:
            ip = t["ip_plan"][["device", "interface", "plane"]].rename(
                columns={"interface": "name"}
            )
            ends = pd.concat([ends, ip.assign(speed_gbps=float("nan"))])
        ends = ends.drop_duplicates(["device", "name"], keep="first")
        out["interfaces"] = pd.DataFrame({
            "device": ends["device"], "name": ends["name"],
            "type": ends["speed_gbps"].map(interface_type),
            "speed": (ends["speed_gbps"] * 1_000_000).round().astype("Int64"),  # NetBox: kbps
            "mgmt_only": ends["plane"].eq("bmc"), "description": ends["plane"],
        })  # fmt: skip
        out["cables"] = pd.DataFrame({
            "side_a_site": site, "side_a_device": pm["device_a"],
            "side_a_type": "dcim.interface", "side_a_name": pm["port_a"],
            "side_b_site": site, "side_b_device": pm["device_b"],
            "side_b_type": "dcim.interface", "side_b_name": pm["port_b"],
            "type": pm["media"].map(cable_type), "status": "planned",
            "label": pm["link_id"].astype(str), "description": pm["purpose"],
        })  # fmt: skip
    if "ip_plan" in t:
        ip = t["ip_plan"]
        iface = [f"{a}/{p}" for a, p in zip(ip["address"], ip["prefix"], strict=True)]
        nets = pd.Series(iface).drop_duplicates()
        prefixes = pd.DataFrame({
            "prefix": [str(ipaddress.ip_interface(x).network) for x in nets],
            "plane": ip["plane"].to_numpy()[nets.index.to_numpy()],
        }).drop_duplicates("prefix")  # fmt: skip
        out["prefixes"] = pd.DataFrame({"prefix": prefixes["prefix"], "status": "planned",
                                        "description": prefixes["plane"]})  # fmt: skip
        out["ip_addresses"] = pd.DataFrame({
            "address": iface, "status": "planned", "device": ip["device"].to_numpy(),
            "interface": ip["interface"].to_numpy(), "description": ip["plane"].to_numpy(),
        })  # fmt: skip
    if "power_allocation" in t and "racks" in t:
        alloc = t["power_allocation"]
        rows = alloc["row"] if "row" in alloc else pd.Series("A", index=alloc.index)
        panels = sorted(set(rows.astype(str)))
        out["power_panels"] = pd.DataFrame({
            "site": site, "name": [f"PP-{r}" for r in panels],
            "description": [f"row {r}" for r in panels],
        })  # fmt: skip
        feeds = []
        ab = layout is None or "feed" not in layout or (layout["feed"] == "A+B").any()
        for rack, row, supply in zip(alloc["rack"], rows.astype(str), alloc["supply_kw"],
                                     strict=True):  # fmt: skip
            for side, kind in (("A", "primary"), ("B", "redundant"))[: 2 if ab else 1]:
                feeds.append({"site": site, "power_panel": f"PP-{row}", "rack": rack,
                              "name": f"{rack}-{side}", "status": "planned", "type": kind,
                              "supply": "ac", "phase": "three-phase", "voltage": 400,
                              "amperage": feed_amperage(float(supply)),
                              "description": f"{float(supply):g} kW"})  # fmt: skip
        out["power_feeds"] = pd.DataFrame(feeds)
    return out


def write_netbox(plan, folder: str | Path, *, site: str | None = None) -> dict[str, Path]:
    """Write NetBox import CSVs for ``plan`` into ``folder`` (created if missing).

    Returns ``{name: path}`` of the files written, in import order. The set is written
    all or nothing (:func:`hubplan.core.files.write_folder_atomic`): a failed export
    leaves the folder as it was and raises :class:`~hubplan.core.errors.ExportError`.
    In a folder that already holds an earlier export, a ``<table>.csv`` of
    :data:`IMPORT_ORDER` the new plan does not produce is removed with the swap (it would
    be imported with the new files); files of any other name are never touched.
    """
    frames = _frames(plan, site or plan.scenario.name)
    texts: dict[str, str] = {}
    for name in IMPORT_ORDER:
        if name not in frames:
            continue
        df = frames[name][HEADERS[name]]
        f = io.StringIO(newline="")
        w = csv.writer(f)
        w.writerow(HEADERS[name])
        for row in df.itertuples(index=False):
            w.writerow(["" if v is None or v is pd.NA or (isinstance(v, float)
                        and math.isnan(v)) else _csv_safe(v) for v in row])  # fmt: skip
        texts[f"{name}.csv"] = f.getvalue()
    paths = write_folder_atomic(folder, texts, owned=[f"{n}.csv" for n in IMPORT_ORDER],
                                what="netbox")  # fmt: skip
    return {p.stem: p for p in paths}
