"""Spare servers on the compute fabric: the fabric is sized for the working servers.

NVIDIA DGX SuperPOD H100 RA, RA-11333-001 V11, "Network Fabrics": the fabric is built
for the full SU (leaves and leaf-spine cables) and unused node slots stay empty; Table 4:
4 SUs = 32 leaves, 16 spines; 5 SUs of 64-port switches need 40 leaves and, with 32
uplinks per leaf spread evenly, ⌈40 × 32 / 64⌉ = 20 → 32 spines (a divisor of 32).
Spares: ⌈servers × ratio⌉ (hubplan.server.spare_servers): 5 % of 128 = 7.
"""

import pandas as pd

import hubplan
from hubplan.network import Network
from hubplan.network.stage import run_network
from hubplan.scenario import Pools, PoolSpec
from hubplan.storage import STORAGE_NODE_COLUMNS

DGX = Pools(training=PoolSpec(server="DGX H100"))


def _run(working, spares, network=None):
    pools = pd.DataFrame(
        [
            {
                "level": "pool",
                "pool": "training",
                "partition": "train",
                "gpus_per_server": 8,
                "servers": working,
                "spare_servers": spares,
                "total_servers": working + spares,
                "total_gpus": (working + spares) * 8,
            }
        ]
    )
    tables = {"pools": pools, "storage_nodes": pd.DataFrame(columns=STORAGE_NODE_COLUMNS)}
    return run_network(
        catalog=hubplan.load_catalog(), tables=tables, network=network or Network(), pools=DGX
    )


def _compute(r):
    sw = r.tables["switches"]
    c = sw[sw["plane"] == "compute"].groupby("role")["count"].sum()
    return int(c.get("leaf", 0)), int(c.get("spine", 0))


def _finding(r, code):
    (f,) = [f for f in r.findings if f.code == code]
    return f.params


def test_four_sus_with_five_percent_spares_keep_four_sus():
    r = _run(128, 7)
    assert _compute(r) == (32, 16)  # RA Table 4, 4 SU; was 40 / 32 (a fifth SU)
    pm = r.tables["port_map"]
    assert (pm["purpose"].str.startswith("compute rail")).sum() == 128 * 8
    p = _finding(r, "spares_past_su")
    assert (p["cold"], p["free_slots"], p["extra_units"]) == (7, 0, 1)
    assert (p["extra_leaves"], p["extra_spines"], p["extra_cores"]) == (8, 16, 0)
    # the cold spares stay on the in-band and BMC planes: 135 servers × 2 and × 1
    inband = pm[(pm["plane"] == "inband") & (pm["device_a"].str.startswith("train-"))]
    assert len(inband) == 135 * 2
    bmc = r.tables["ip_plan"]
    assert (bmc["plane"].eq("bmc") & bmc["device"].str.startswith("train-")).sum() == 135


def test_spares_in_free_slots_are_cabled_without_a_finding():
    # 120 working servers fill 3¾ SUs: 8 free slots in the fourth take the 7 spares.
    r = _run(120, 7)
    assert _compute(r) == (32, 16)
    pm = r.tables["port_map"]
    assert (pm["purpose"].str.startswith("compute rail")).sum() == 127 * 8
    assert not {"spares_past_su", "spares_cabled"} & {f.code for f in r.findings}


def test_extra_units_cables_every_spare_and_says_what_it_costs():
    r = _run(128, 7, Network(spare_cabling="extra_units"))
    assert _compute(r) == (40, 32)
    p = _finding(r, "spares_cabled")
    assert (p["extra_leaves"], p["extra_spines"]) == (8, 16)
    pm = r.tables["port_map"]
    assert (pm["purpose"].str.startswith("compute rail")).sum() == 135 * 8


def test_no_spares_no_change():
    assert _compute(_run(128, 0)) == (32, 16)
    assert _compute(_run(64, 0)) == (16, 8)  # RA Table 4, 2 SU
