"""The cost stage: capex by line, opex, depreciation, the cost of a useful GPU-hour, own
versus cloud, phasing, tornado, Monte Carlo and carbon, with hand-worked numbers."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import hubplan
from hubplan.core.errors import CatalogError, ScenarioError
from hubplan.core.paths import templates_dir
from hubplan.cost import (
    Cost,
    cloud_offers,
    cost_per_useful_gpu_hour,
    npv_usd,
    useful_gpu_hours,
)
from hubplan.cost.stage import run_cost
from hubplan.scenario import load_scenario


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


@pytest.fixture(scope="module")
def summary(plan):
    return plan["cost_summary"].iloc[0]


def _inputs(plan):
    names = ("pools", "training", "storage_nodes", "switches", "transceivers")
    return {n: plan[n] for n in names}


# A facility as the facility stage will provide it: 200 kW of IT at typical draw.
FACILITY_POWER = pd.DataFrame(
    {
        "scope": ["gpu_server", "total"],
        "it_nameplate_kw": [230.0, 250.0],
        "it_typical_kw": [180.0, 200.0],
    }
)
FACILITY = SimpleNamespace(pue=1.25)  # the tariff: Cost()'s default 0.088 USD/kWh

# The default plan's IT load, worked from the catalogue and the facility section (the
# figures the facility stage totals in ``facility_power``):
#   GPU servers: 20 DGX H100 (18 training + 2 inference, spares included) × 10.2 kW
#     (NVIDIA DGX H100 user guide) = 204 kW, plus one 8 × L40S server the catalogue does
#     not rate: 8 × 350 W ÷ 0.55 GPU share = 5.0909 kW → 209.0909 kW nameplate; typical
#     0.8 × that = 167.2727 kW (facility.server_typical_ratio);
#   storage: 10 nodes (2 OSS, 2 MDS, three replicas on each of warm and cold) on the 2.0 kW
#     stand-in (facility.unknown_storage_kw) = 20 kW; 16 typical;
#   switches: 13 QM9700 × 1.72 kW (max) / 0.747 kW (typical) (NVIDIA QM97x0 manual), one
#     SN4600C (0.466 kW typical, maximum 0.466 ÷ 0.8 = 0.5825) and two SN2201 (0.098 kW,
#     maximum 0.1225; the second for the ports kept for rack PDUs) and 4 UFM appliances
#     (a pair per InfiniBand fabric; unrated, on the 0.8 kW management-server stand-in,
#     0.64 typical) = 22.36 + 0.5825 + 0.245 + 3.2 = 26.3875 kW; 9.711 + 0.466 + 0.196
#     + 2.56 = 12.933 kW typical;
#   management: 3 × 0.8 kW nameplate, 3 × 0.4 kW typical = 2.4 / 1.2 kW.
# IT nameplate 209.0909 + 20 + 26.3875 + 2.4 = 257.8784 kW;
# IT typical 167.2727 + 16 + 12.933 + 1.2 = 197.4057 kW.
IT_NAMEPLATE_KW = 257.8784
IT_TYPICAL_KW = 197.4057
# fit-out: 257.8784 kW × $11 700 (Cushman & Wakefield 2025) = $3 017 177.4
FITOUT_USD = 3_017_177.4
# The default plan's bill, every line priced from data/prices.csv (each row's source in
# that file) at (low / point / high) USD each:
#   GPU servers: 20 DGX H100 × (199 000 / 270 000 / 317 000) (SemiAnalysis via Epoch AI;
#     supercluster.blog; Thinkmate) + one 8 × L40S server at card price × 1.3 = 88 400
#     (0.74-1.17 of it, the gpu_price range) → 5 488 400 point;
#   storage: 2 Lustre OSS × (66 223 / 184 320 / 230 400) + 2 MDS × (33 998 / 36 998 /
#     48 376) + 6 HDD capacity nodes (3 warm, 3 cold) × (61 070 / 83 349 / 110 549)
#     → 368 640 + 73 996 + 500 094 = 942 730 point;
#   network: 13 QM9700 (8 leaf, 4 spine, 1 storage leaf) × (21 000 / 36 000 / 50 000)
#     (ITCT Shop 2025; FS.com Aug 2024; NVIDIA) + 4 UFM appliances × (17 000 / 34 000 /
#     85 000) + 1 SN4600C × (8 000 / 16 000 / 32 000) + 2 SN2201 × (2 000 / 5 000 /
#     16 000), the last three estimates → 468 000 + 136 000 + 16 000 + 10 000 = 630 000;
#   optics: 486 400G modules (152 SR4 + 256 + 78 DR4) × (500 / 750 / 1 000)
#     (infra-economics.com), 456 400G cables (148 + 256 + 52) × (50 / 100 / 150)
#     (luxoptx), 142 100G modules (18 + 116 + 8) × (80 / 310 / 1 200) (Ascent Optics, an
#     estimate), 74 100G cables (12 + 58 + 4) × (20 / 35 / 50) (luxoptx), 52 BMC RJ45
#     cables × (50 / 50 / 69) (NM Cabling, an estimate) → 364 500 + 45 600 + 44 020 + 2 590
#     + 2 600 = 459 310;
#   management: 3 × 1U server (12 000 / 17 000 / 21 000) (Tufts RT price list) = 51 000;
#   hardware 5 488 400 + 942 730 + 630 000 + 459 310 + 51 000 = 7 571 440;
#   network spares 5 % of network and optics 1 089 310 = 54 465.5;
#   installation 10 % (cost.installation_share) of the hardware = 757 144;
#   fit-out 3 017 177.4 (above).
# capex 7 571 440 + 54 465.5 + 757 144 + 3 017 177.4 = 11 400 226.9
CAPEX_USD = 11_400_226.9
# low: hardware 4 045 416 + 566 862 + 353 000 + 281 240 + 36 000 = 5 282 518; spares 5 % ×
# 634 240 = 31 712; installation 10 % × 5 282 518 = 528 251.8; fit-out 257.8784 × 9 300
# = 2 398 269.1 → 8 240 751.0
CAPEX_LOW_USD = 8_240_751.0
# high: hardware 6 443 428 + 1 220 846 + 1 054 000 + 732 088 + 63 000 = 9 513 362; spares
# 5 % × 1 786 088 = 89 304.4; installation 951 336.2; fit-out 257.8784 × 15 000
# = 3 868 176.1 → 14 422 178.7
CAPEX_HIGH_USD = 14_422_178.7
# energy: 197.4057 kW × 1.0 duty × 8 760 h × PUE 1.25 = 2 161 592.7 kWh × $0.088
ENERGY_USD = 190_220.16
# maintenance 12 % a year (Library Technology Guides, 10-12 %) of the hardware it covers
# (GPU servers, storage, network, management servers: 5 488 400 + 942 730 + 630 000
# + 51 000 = 7 112 130) = 853 455.6; insurance 0.3 % (Hotaling, $0.15-0.50 per $100) of
# every capex line 11 400 226.9 = 34 200.68
MAINTENANCE_USD = 853_455.6
INSURANCE_USD = 34_200.68
# owning a year: each asset class's capex annuitised over its life at the 8 % discount
# rate (capital recovery factor CRF = r(1 + r)^L ÷ ((1 + r)^L − 1), Brealey, Myers & Allen,
# Principles of Corporate Finance, ch. 6): servers (GPU servers, installation and the
# management servers, the classes hubplan.cost.cashflow.CATEGORY_CLASS gives) 5 488 400
# + 757 144 + 51 000 = 6 296 544 × CRF(8 %, 5 y) 0.2504565 = 1 577 010.1; network
# (switches, optics, spares) 630 000 + 459 310 + 54 465.5 = 1 143 775.5 × CRF(8 %, 6 y)
# 0.2163154 = 247 416.2; storage 942 730 × CRF(8 %, 5 y) = 236 112.8; fit-out 3 017 177.4
# × CRF(8 %, 15 y) 0.1168295 = 352 495.5; capital charge 2 413 034.6 a year.
# staff sized from the plan (cost.staff_ratios): systems operations 19 GPU servers in
# service ÷ 125 = 0.15 → the 1-FTE minimum × $90 520 (BLS) = 90 520; facility staff
# max(8.42 FTE (2 posts × 8 760 h ÷ 2 080 h, Facilitiesnet), 0.2579 MW × 3 per MW
# (Broadstaff) = 0.77) = 8.42 × $57 300 (BLS) = 482 466; staff 572 986.
# opex 190 220.16 + 853 455.6 + 34 200.68 + 572 986 = 1 650 862.44; owning a year
# 2 413 034.6 + 1 650 862.44 = 4 063 897.0
CAPITAL_USD = 2_413_034.6
STAFF_USD = 572_986.0
OPEX_USD = 1_650_862.44
OWN_USD = 4_063_897.0


def test_useful_gpu_hours_issue_example():
    # The issue's worked number: 1 000 GPUs × 8 760 h × 0.7 = 6.132 M GPU-hours a year.
    assert useful_gpu_hours(1000, 0.7) == pytest.approx(6.132e6)
    # and $6.132 M a year over them is $1 a useful GPU-hour; with goodput 0.9, $1.111.
    assert cost_per_useful_gpu_hour(6.132e6, 1000, 0.7, 0.9) == pytest.approx(1 / 0.9)


def test_default_capex_prices_servers_from_the_catalogue(plan, summary):
    capex = plan["cost_capex"]
    servers = capex[capex["category"] == "gpu_servers"].set_index("item")
    # 18 training DGX H100 (17 + 1 spare) and 2 inference (1 + 1 spare) at the catalogue's
    # $270 000 (SemiAnalysis via Epoch AI); one 8 × L40S server at card price × 1.3 overhead.
    assert servers.loc["training: DGX H100", "capex_usd"] == 18 * 270_000
    assert servers.loc["inference: DGX H100", "capex_usd"] == 2 * 270_000
    assert servers["price_source"].str.len().gt(10).all()
    # fit-out on the critical (nameplate) IT load, worked above: 257.8784 kW × $11 700
    fit = capex.set_index("category").loc["facility_fitout"]
    assert fit["line_quantity"] == pytest.approx(IT_NAMEPLATE_KW, abs=1e-3)
    assert fit["capex_usd"] == pytest.approx(FITOUT_USD, abs=1)
    # every line, worked above
    assert summary["capex_usd"] == pytest.approx(CAPEX_USD, abs=1)


def test_default_bill_is_complete_each_line_with_source_date_range_confidence(plan, summary):
    # Issue 22: the default plan has no unpriced line (it had 20 capex lines and
    # maintenance unpriced): capex 8 240 751.0 / 11 400 226.9 / 14 422 178.7, worked above
    capex, opex = plan["cost_capex"], plan["cost_opex"]
    assert capex["priced"].all() and opex["priced"].all()
    assert summary["capex_unpriced_lines"] == 0 and summary["opex_unpriced_lines"] == 0
    assert summary["capex_low_usd"] == pytest.approx(CAPEX_LOW_USD, abs=1)
    assert summary["capex_point_usd"] == pytest.approx(CAPEX_USD, abs=1)
    assert summary["capex_high_usd"] == pytest.approx(CAPEX_HIGH_USD, abs=1)
    codes = set(plan.findings["code"])
    assert not codes & {
        "capex_unpriced",
        "capex_excludes_unpriced",
        "capex_point_withheld",
        "opex_unpriced",
        "opex_excludes_unpriced",
    }
    # every line carries its range around its amount and a confidence; every line priced
    # from a catalogue row (all but the L40S server at card price × 1.3 and the section's
    # shares) carries that row's source, date and confidence
    assert (capex["capex_low_usd"] <= capex["capex_usd"]).all()
    assert (capex["capex_usd"] <= capex["capex_high_usd"]).all()
    assert capex["price_confidence"].str.len().gt(0).all()
    rows = capex[capex["price_basis"].isin(["catalogue_server", "catalogue_prices"])]
    assert len(rows) == 27
    assert rows["price_source"].str.len().gt(10).all() and rows["price_as_of"].str.len().gt(0).all()
    assert set(rows["price_confidence"]) == {"low", "medium", "estimate"}
    by_item = capex.set_index("item")
    # data/prices.csv: the DGX H100 "low" (three secondary sources), the 1U management
    # server "medium" (a published price list), the SN4600C an "estimate" (priced by
    # analogy with the H3C S9855), the fit-out "medium" (Cushman & Wakefield)
    assert by_item.loc["training: DGX H100", "price_confidence"] == "low"
    assert by_item.loc["management: 1U management server", "price_confidence"] == "medium"
    assert by_item.loc["inband leaf SN4600C", "price_confidence"] == "estimate"
    assert by_item.loc["facility_fitout", "price_confidence"] == "medium"
    # the storage nodes the old catalogue left unpriced: 2 MDS × $36 998 and 6 HDD nodes
    # × $83 349 (parts sums in data/prices.csv)
    storage = capex[capex["category"] == "storage"].set_index("item")
    assert storage.loc["hot mds Lustre MDS NVMe mirrored 2x400G", "capex_usd"] == 73_996
    assert storage.loc["warm capacity HDD capacity node 60x24TB 2x100G", "capex_usd"] == 250_047
    # the L40S server is priced by a rule (card price × 1.3), not a source: an estimate
    assert by_item.loc["development: Supermicro SYS-521GE-TNRT L40S", "price_confidence"] == (
        "estimate"
    )
    # estimates: the L40S server 88 400 + 4 UFM × 34 000 + SN4600C 16 000 + 2 SN2201
    # × 5 000 + 142 100G modules × 310 + 52 RJ45 cables × 50 = 88 400 + 136 000 + 16 000
    # + 10 000 + 44 020 + 2 600 = 297 020 over 9 lines, 297 020 / 11 400 226.9 = 2.61 % of
    # the capex
    est = plan.findings.set_index("code").loc["capex_estimated_lines"]
    assert est["severity"] == "warning"
    assert est["data"]["lines"] == 9
    assert est["data"]["capex_usd"] == pytest.approx(297_020)
    assert est["data"]["share"] == pytest.approx(0.02605, abs=1e-5)
    # the yearly shares, worked above
    lines = opex.set_index("item")
    assert lines.loc["maintenance", "line_quantity"] == pytest.approx(7_112_130)
    assert lines.loc["maintenance", "usd_per_year"] == pytest.approx(MAINTENANCE_USD)
    assert lines.loc["insurance", "usd_per_year"] == pytest.approx(INSURANCE_USD, abs=0.01)


# A client's warm and cold tiers on a storage block data/prices.csv does not price (the
# MinIO node of data/storage.csv, no price row): those two lines stay unpriced.
MINIO = {
    "storage.warm_model": "MinIO NVMe node (i3en.24xlarge)",
    "storage.cold_model": "MinIO NVMe node (i3en.24xlarge)",
}


def test_unpriced_lines_are_kept_flagged_and_excluded(default):
    plan = hubplan.build_plan(default.with_changes(MINIO))
    capex, summary = plan["cost_capex"], plan["cost_summary"].iloc[0]
    storage = capex[capex["category"] == "storage"].set_index("item")
    # data/prices.csv prices the hot tier's OSS and MDS nodes only: the MinIO nodes of the
    # warm and cold tiers stay unpriced, none counted as 0
    assert len(storage) == 4 and storage["priced"].sum() == 2
    assert storage[~storage["priced"]]["capex_usd"].isna().all()
    # the installation share rests on every hardware line, so it is unpriced too (a share
    # of an unknown is unknown): 3 lines
    gaps = int((~capex["priced"]).sum())
    assert gaps == 3 and summary["capex_unpriced_lines"] == gaps
    assert not capex.set_index("category").loc["installation", "priced"]
    f = plan.findings
    ex = f[f["code"] == "capex_excludes_unpriced"]
    assert len(ex) == 1 and ex.iloc[0]["data"]["lines"] == gaps
    per_cat = f[(f["code"] == "capex_unpriced") & (f["subject"] == "storage")]
    assert per_cat.iloc[0]["data"]["lines"] == 2
    # maintenance (on the hardware) and insurance (on every line) rest on the unpriced
    # lines, so they are unpriced too; energy and staff stay priced
    opex = plan["cost_opex"].set_index("item")
    assert not opex.loc["maintenance", "priced"] and not opex.loc["insurance", "priced"]
    assert summary["opex_unpriced_lines"] == 2
    # the priced sum leaves them out, flagged: 11 400 226.9 less the 2 × 3 HDD nodes
    # × $83 349 = 500 094, less the installation 757 144, less the 9 100G storage modules
    # and 6 cables the MinIO nodes' NICs no longer need (18 → 9 × $310, 12 → 6 × $35 =
    # 2 790 + 210 = 3 000, and 5 % spares on them, 150) = 10 139 838.9
    assert summary["capex_usd"] == pytest.approx(10_139_838.9, abs=1)
    assert np.isnan(summary["capex_point_usd"])


# The default plan without an installation share (cost.installation_share empty: an
# unpriced line until the integrator's quote).
NO_INSTALLATION = {"cost.installation_share": None}


def test_capex_range_is_withheld_while_a_line_is_unpriced(default, plan):
    s = hubplan.build_plan(default.with_changes(NO_INSTALLATION))
    summary = s["cost_summary"].iloc[0]
    # one line unpriced: the priced lines' low ends are a floor, the default's low
    # 8 240 751.0 less the installation's 528 251.8 (worked above) = 7 712 499.2; no
    # point and no high (an unpriced line costs something not yet known), while capex_usd
    # keeps the priced lines' sum, 11 400 226.9 − 757 144 = 10 643 082.9, flagged.
    assert summary["capex_unpriced_lines"] == 1
    assert summary["capex_low_usd"] == pytest.approx(7_712_499.2, abs=1)
    assert np.isnan(summary["capex_point_usd"]) and np.isnan(summary["capex_high_usd"])
    assert summary["capex_usd"] == pytest.approx(10_643_082.9, abs=1)
    withheld = s.findings.set_index("code").loc["capex_point_withheld", "data"]
    assert withheld["lines"] == 1
    assert withheld["capex_low_usd"] == pytest.approx(7_712_499.2, abs=1)
    # every priced line carries its source, date and range around its point
    capex = plan["cost_capex"]
    qm = capex[capex["item"] == "compute spine QM9700"].iloc[0]
    # 4 spines × $21 000 / $36 000 / $50 000 (ITCT Shop 2025; FS.com; NVIDIA)
    assert (qm["capex_low_usd"], qm["capex_usd"], qm["capex_high_usd"]) == (
        84_000,
        144_000,
        200_000,
    )
    assert qm["price_as_of"] == "2024-08" and "fs.com" in qm["price_source"]
    assert qm["price_confidence"] == "low"


def test_capex_low_point_high_when_every_line_is_priced(plan):
    # The test below's fully priced bill, with the range: the servers at the DGX H100
    # sources' $199 000-317 000 (data/prices.csv), the L40S server (card price × 1.3, no
    # sourced range) at the gpu_price factors 0.74-1.17, the quoted storage and switch
    # prices (no range: the point at both ends), installation 5 % of each end.
    t = _inputs(plan)
    t["storage_nodes"] = t["storage_nodes"].assign(price_usd=10_000.0)
    t["switches"] = t["switches"].assign(price_usd=20_000.0)
    t["transceivers"] = t["transceivers"].iloc[0:0]
    r = run_cost(
        catalog=hubplan.load_catalog(),
        tables={**t, "facility_power": FACILITY_POWER},
        cost=Cost(installation_share=0.05),
        facility=FACILITY,
    )
    s = r.tables["cost_summary"].iloc[0]
    # point: 5 488 400 servers + 100 000 storage + 400 000 switches + 20 000 spares
    # + 299 420 installation + 2 925 000 fit-out (250 kW × $11 700) = 9 232 820
    assert s["capex_point_usd"] == pytest.approx(9_232_820)
    # low: 20 × 199 000 + 88 400 × 0.74 = 4 045 416; + 100 000 + 400 000; spares 20 000;
    # installation 5 % × (4 045 416 + 500 000) = 227 270.8; fit-out 250 × 9 300 = 2 325 000
    # → 7 117 686.8
    assert s["capex_low_usd"] == pytest.approx(7_117_686.8)
    # high: 20 × 317 000 + 88 400 × 1.17 = 6 443 428; + 500 000; 20 000; installation
    # 5 % × 6 943 428 = 347 171.4; fit-out 250 × 15 000 = 3 750 000 → 11 060 599.4
    assert s["capex_high_usd"] == pytest.approx(11_060_599.4)


def test_capex_total_is_not_flagged_when_everything_is_priced(plan):
    t = _inputs(plan)
    t["storage_nodes"] = t["storage_nodes"].assign(price_usd=10_000.0)
    t["switches"] = t["switches"].assign(price_usd=20_000.0)
    t["transceivers"] = t["transceivers"].iloc[0:0]
    cost = Cost(installation_share=0.05)
    r = run_cost(
        catalog=hubplan.load_catalog(),
        tables={**t, "facility_power": FACILITY_POWER},
        cost=cost,
        facility=FACILITY,
    )
    codes = {f.code for f in r.findings}
    assert "capex_excludes_unpriced" not in codes and "capex_unpriced" not in codes
    lines = r.tables["cost_capex"].set_index("category")
    # network: 8 + 4 + 1 + 1 + 2 switches and 4 UFM appliances (rows of the switches
    # table) = 20 × $20 000 = $400 000; spares 5 % = $20 000
    assert lines.loc["network_spares", "capex_usd"] == pytest.approx(20_000)
    # storage 10 nodes × $10 000; fit-out for the 250 kW critical (nameplate) load ×
    # $11 700 = $2.925 M
    assert lines.loc["facility_fitout", "capex_usd"] == pytest.approx(2_925_000)
    # installation 5 % of hardware: (5 488 400 + 100 000 + 400 000) × 0.05 = 299 420
    assert lines.loc["installation", "capex_usd"] == pytest.approx(299_420)


def test_default_cost_per_useful_gpu_hour(plan, summary):
    # In service (spares excluded): 18 H100 servers × 8 + 1 L40S server × 8 = 152 GPUs.
    assert summary["gpus"] == 152
    # 152 × 8 760 × 0.7 × 0.9 (the fine-tune's goodput) = 838 857.6 useful GPU-hours
    assert summary["useful_gpu_hours"] == pytest.approx(838_857.6)
    # depreciation, each class over its own life (classes worked above): servers
    # 6 296 544 / 5 = 1 259 308.8, network 1 143 775.5 / 6 = 190 629.25, storage
    # 942 730 / 5 = 188 546, fit-out 3 017 177.4 / 15 = 201 145.2 → 1 839 629.2 a year;
    # opex: energy 190 220.16, maintenance 853 455.6, insurance 34 200.68, staff 572 986
    # (licences 0), worked above
    assert summary["depreciation_usd_per_year"] == pytest.approx(1_839_629.2, abs=1)
    assert summary["opex_usd_per_year"] == pytest.approx(OPEX_USD, abs=0.01)
    staff = plan["cost_opex"].set_index("item")
    assert staff.loc["systems_operations", "line_quantity"] == 1
    # the facility staff by MW: 0.2579 MW × 3 = 0.77 FTE is under the 8.42 floor
    assert staff.loc["facility_shift", "line_quantity"] == pytest.approx(8.42)
    assert staff.loc["facility_shift", "usd_per_year"] == pytest.approx(482_466)
    assert staff.loc["maintenance", "usd_per_year"] == pytest.approx(MAINTENANCE_USD)
    assert staff.loc["insurance", "usd_per_year"] == pytest.approx(INSURANCE_USD, abs=0.01)
    assert summary["capital_charge_usd_per_year"] == pytest.approx(CAPITAL_USD, abs=1)
    assert summary["own_usd_per_year"] == pytest.approx(OWN_USD, abs=1)
    # 4 063 897.0 / 838 857.6 = 4.8446 USD per useful GPU-hour on the complete bill
    assert summary["cost_per_useful_gpu_hour_usd"] == pytest.approx(4.8446, abs=1e-4)


def test_energy_is_priced_from_the_facility_power(plan, summary):
    # The facility stage's total: 197.4057 kW typical, 257.8784 kW nameplate (worked above)
    power = plan["facility_power"].set_index("scope").loc["total"]
    assert power["it_typical_kw"] == pytest.approx(IT_TYPICAL_KW, abs=1e-3)
    assert power["it_nameplate_kw"] == pytest.approx(IT_NAMEPLATE_KW, abs=1e-3)
    # 197.4057 kW × 1.0 duty × 8 760 h × 1.25 PUE = 2 161 592.7 kWh = 2 161.59 MWh;
    # × $0.088 a kWh (cost.electricity_usd_per_kwh) = $190 220.16 a year
    opex = plan["cost_opex"].set_index("category")
    assert opex.loc["energy", "priced"] and opex.loc["energy", "cost_basis"] == "facility_power"
    assert opex.loc["energy", "line_quantity"] == pytest.approx(IT_TYPICAL_KW, abs=1e-3)
    assert opex.loc["energy", "usd_per_year"] == pytest.approx(ENERGY_USD, abs=0.01)
    assert summary["energy_mwh_per_year"] == pytest.approx(2161.5927, abs=1e-3)
    # the facility stage's annual energy at the tariff: 2 161.59 MWh × $88 a MWh
    assert power["annual_mwh"] * 88 == pytest.approx(ENERGY_USD, abs=0.01)
    # 2 161.59 MWh on China's 2022 grid (0.5366 kg/kWh, MEE/NBS) = 1 159.91 t CO2
    assert summary["co2_t_per_year"] == pytest.approx(1159.911, abs=1e-3)
    f = plan.findings
    unpriced = f[f["code"] == "opex_unpriced"]
    assert "energy" not in set(unpriced["subject"])


def test_energy_and_carbon_with_facility_power(plan):
    r = run_cost(
        catalog=hubplan.load_catalog(),
        tables={**_inputs(plan), "facility_power": FACILITY_POWER},
        cost=Cost(),
        facility=FACILITY,
    )
    opex = r.tables["cost_opex"].set_index("category")
    # 200 kW × 1.25 × 8 760 h = 2 190 000 kWh × $0.088 = $192 720 a year
    assert opex.loc["energy", "usd_per_year"] == pytest.approx(192_720)
    s = r.tables["cost_summary"].iloc[0]
    # 2 190 MWh on China's 2022 grid (0.5366 kg/kWh, MEE/NBS) = 1 175.154 t
    assert s["co2_t_per_year"] == pytest.approx(1175.154)
    half = run_cost(
        catalog=hubplan.load_catalog(),
        tables={**_inputs(plan), "facility_power": FACILITY_POWER},
        cost=Cost(green_share=0.5),
        facility=FACILITY,
    )
    assert half.tables["cost_summary"].iloc[0]["co2_t_per_year"] == pytest.approx(587.577)
    # the tornado now moves on PUE: 1.58 / 1.25 of the energy line
    t = r.tables["cost_tornado"]
    pue = t[(t["assumption"] == "pue") & (t["metric"] == "cost_per_useful_gpu_hour_usd")].iloc[0]
    extra = 192_720 * (1.58 / 1.25 - 1) / 838_857.6
    assert pue["at_high"] - pue["base"] == pytest.approx(extra)


def test_breakeven_against_the_cheapest_h100_offer(summary):
    # The cheapest H100 SXM on demand is Hyperstack's $3.20 a GPU-hour
    # (hyperstack.cloud/gpu-pricing, read 2026-08-26; data/cloud.csv), under Lambda's
    # $3.99 (lambda.ai/instances, 8x H100 SXM, 2026-09): renting 152 GPUs at 70 %
    # = 152 × 8 760 × 0.7 × 3.20 = 932 064 × 3.20
    assert summary["cloud_offer"] == "Hyperstack H100 SXM on-demand"
    assert summary["cloud_basis"] == "utilisation"
    assert summary["cloud_usd_per_year"] == pytest.approx(2_982_604.80)
    # rent saves 2 982 604.80 − 1 650 862.44 opex = 1 331 742.36 a year over owning's
    # opex: break-even at 12 × 11 400 226.9 / 1 331 742.36 = 102.725 months, past the
    # 5-year horizon
    assert summary["breakeven_month"] == pytest.approx(102.725, abs=1e-3)
    # owning costs 4 063 897.0 a year = renting at u: 152 × 8 760 × 3.20 × u
    # = 4 260 864 u → u = 0.95377
    assert summary["breakeven_utilisation"] == pytest.approx(0.95377, abs=1e-5)
    # like for like, per useful GPU-hour: the rented hour loses goodput too,
    # 3.20 / 0.9 = 3.5556 against owning's 4 063 897.0 / 838 857.6 = 4.8446
    assert summary["cloud_usd_per_useful_gpu_hour"] == pytest.approx(3.5556, abs=1e-4)
    # NPV of 5 years of rent at 8 %: annuity factor (1 − 1.08^−5) / 0.08 = 3.99271
    assert summary["npv_cloud_usd"] == pytest.approx(2_982_604.80 * 3.99271, rel=1e-5)


def test_npv_hand_example():
    # $1 000 up front, $100 a year for 3 years at 10 %, $200 back at the end:
    # 1 000 + 90.909 + 82.645 + 75.131 − 150.263 = 1 098.422
    assert npv_usd(1000.0, 100.0, 0.10, 3, 200.0) == pytest.approx(1098.422, abs=1e-3)


def test_cheap_cloud_finding(default):
    s = default.with_changes({"cost.cloud_usd_per_gpu_hour": 0.5})
    plan = hubplan.build_plan(s)
    f = plan.findings[plan.findings["code"] == "cloud_cheaper_over_horizon"]
    # 4 063 897.0 / (152 × 8 760 × 0.5) = 4 063 897.0 / 665 760 = 6.1041: renting is
    # cheaper at any use
    assert len(f) == 1 and f.iloc[0]["data"]["breakeven_utilisation"] == pytest.approx(
        6.1041, abs=1e-4
    )
    # the rent of 152 × 8 760 × 0.7 × 0.5 = 466 032 a year is less than the 1 650 862.44
    # opex owning pays: owning never catches up (no break-even month)
    assert np.isnan(plan["cost_summary"].iloc[0]["breakeven_month"])


def test_cloud_cheaper_finding_on_the_default_plan(default, plan):
    # With the whole bill priced, owning breaks even with Hyperstack's $3.20 in month
    # 102.7 (test_breakeven_against_the_cheapest_h100_offer), past the 60 months of the
    # 5-year horizon: the default plan warns that renting is cheaper over it.
    f = plan.findings.set_index("code").loc["cloud_cheaper_over_horizon", "data"]
    assert f["offer"] == "Hyperstack H100 SXM on-demand" and f["horizon_years"] == 5
    assert f["breakeven_utilisation"] == pytest.approx(0.95377, abs=1e-5)
    # at $5 a GPU-hour the rent, 152 × 8 760 × 0.7 × 5 = 4 660 320 a year, saves
    # 4 660 320 − 1 650 862.44 = 3 009 457.56 a year over owning's opex: break-even at
    # 12 × 11 400 226.9 / 3 009 457.56 = 45.46 months, inside the horizon: no finding
    dear = hubplan.build_plan(default.with_changes({"cost.cloud_usd_per_gpu_hour": 5.0}))
    assert dear["cost_summary"].iloc[0]["breakeven_month"] == pytest.approx(45.458, abs=1e-3)
    assert "cloud_cheaper_over_horizon" not in set(dear.findings["code"])


def test_manual_allocation_finding(default, plan):
    assert "manual_allocation_utilisation" not in set(plan.findings["code"])
    low = hubplan.build_plan(default.with_changes({"cost.utilisation": 0.4}))
    assert "manual_allocation_utilisation" in set(low.findings["code"])
    # cost per useful GPU-hour scales with 0.7 / 0.4 (energy is billed on the typical
    # draw all year, whatever the allocation): 4 063 897.0 / (152 × 8 760 × 0.4 × 0.9)
    # = 4 063 897.0 / 479 347.2 = 8.4780
    assert low["cost_summary"].iloc[0]["cost_per_useful_gpu_hour_usd"] == pytest.approx(
        8.4780, abs=1e-4
    )


def test_no_cloud_offer_finding(plan):
    t = _inputs(plan)
    t["pools"] = t["pools"].assign(accelerator="Ascend 910B 64GB")
    r = run_cost(catalog=hubplan.load_catalog(), tables=t, cost=Cost())
    assert "no_cloud_offer" in {f.code for f in r.findings}
    assert "no_cloud_offer" not in set(plan.findings["code"])


def test_tornado_utilisation_and_mfu(plan):
    t = plan["cost_tornado"]
    head = t[t["metric"] == "cost_per_useful_gpu_hour_usd"]
    # utilisation swings it most: at 0.30, 4 063 897.0 / (152 × 8 760 × 0.3 × 0.9)
    # = 4 063 897.0 / 359 510.4 = 11.3040
    assert head.iloc[0]["assumption"] == "utilisation"
    assert head.iloc[0]["at_low"] == pytest.approx(11.3040, abs=1e-4)
    # the hardware maintenance share at 10 % and 20 % against 12 % (0.83-1.67 of the
    # 853 455.6 line): −0.17 × 853 455.6 / 838 857.6 = −0.1730 and +0.67 × 853 455.6
    # / 838 857.6 = +0.6817 a useful GPU-hour
    m = head.set_index("assumption").loc["maintenance"]
    assert m["at_low"] - m["base"] == pytest.approx(-0.1730, abs=1e-4)
    assert m["at_high"] - m["base"] == pytest.approx(0.6817, abs=1e-4)
    # MFU does not change the price of a GPU-hour, only how many the run takes:
    # training cost at MFU 0.35 = base × 0.45 / 0.35
    mfu = t[t["assumption"] == "mfu"].set_index("metric")
    assert mfu.loc["cost_per_useful_gpu_hour_usd", "swing"] == 0
    run = mfu.loc["training_cost_usd"]
    assert run["at_low"] == pytest.approx(run["base"] * 0.45 / 0.35)
    # the run's cost: 1 516.2637 GPU-days × 24 h = 36 390.33 GPU-hours at
    # 4 063 897.0 / (152 × 8 760 × 0.7) = $4.36011 an allocated GPU-hour = $158 666
    assert run["base"] == pytest.approx(158_666, abs=1)


def test_monte_carlo_quantiles(plan):
    mc = plan["cost_monte_carlo"].set_index("metric")
    row = mc.loc["cost_per_useful_gpu_hour_usd"]
    assert row["samples"] == 10_000 and row["p10"] < row["p50"] < row["p90"]
    # Only utilisation varying, triangular(0.3, 0.7, 0.8): the median of u is
    # 0.3 + √(0.5 × 0.5 × 0.4) = 0.61623, and cost falls with u, so P50 of cost is the
    # cost at that u: 4 063 897.0 / (152 × 8 760 × 0.61623 × 0.9) = 5.5031.
    from hubplan.cost import Assumption

    only_u = (Assumption(name="utilisation", low=0.3, high=0.8),)
    s = hubplan.default_scenario().with_changes({"cost.ranges": [a.model_dump() for a in only_u]})
    p50 = (
        hubplan.build_plan(s)["cost_monte_carlo"]
        .set_index("metric")
        .loc["cost_per_useful_gpu_hour_usd", "p50"]
    )
    assert p50 == pytest.approx(5.5031, rel=0.01)


def test_phasing_default(plan):
    ph = plan["cost_phasing"]
    totals = ph.groupby("strategy")["capex_usd"].sum()
    # all now: 2 × 152 GPUs at 11 400 226.9 / 152 per GPU (fit-out included) = $22.80 M
    assert totals["all_now"] == pytest.approx(22_800_453.8, abs=1)
    # phased: 1.3 × now + 0.7 × in year 2, the IT hardware at (1 − 0.285)² = 0.511225
    # of today's price, the fit-out at today's (its price does not follow the GPUs'):
    # everything but the fit-out 11 400 226.9 − 3 017 177.4 = 8 383 049.5 × (1.3 +
    # 0.3578575) = 13 897 901.5, fit-out 3 017 177.4 × 2 = 6 034 354.8 → $19 932 256.3
    assert totals["phased"] == pytest.approx(19_932_256.3, abs=1)


def test_pretrain_16k_headline():
    s = load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml")
    row = hubplan.build_plan(s)["cost_summary"].iloc[0]
    # 2 048 DGX H100 + 103 spares (5 %, rounded up) = 2 151 × $270 000 = $580.77 M.
    # IT load (same sources as the default plan above):
    #   2 151 DGX H100 × 10.2 / 8.16 kW                            = 21 940.2 / 17 552.16
    #   1 660 QM9700 × 1.72 / 0.747 kW (compute 512 + 512 + 256 for the 64 working SUs,
    #   the 103 spares in the cold pool; storage 140 + 144 + 96) =  2 855.2 / 1 240.02
    #   147 SN4600C × 0.5825 / 0.466 kW (the in-band plane from its ports: 91 leaves, 37
    #   spines, 19 cores; test_network_planes.py), 123 SN2201 × 0.1225 / 0.098
    #                                                               = 100.695 / 80.556
    #   4 UFM appliances × 0.8 / 0.64 kW (management-server stand-in) =   3.2 / 2.56
    #   78 storage nodes × 2.0 / 1.6 kW (stand-in; test_facility.py) =   156 / 124.8
    #   3 management servers × 0.8 / 0.4 kW                        =    2.4 / 1.2
    #   IT nameplate 25 057.695 kW, typical 19 001.296 kW.
    # fit-out 25 057.695 × $11 700 = $293 175 031.5.
    # data/prices.csv prices every other line (sources as in the default plan above):
    #   storage 56 Lustre OSS × 184 320 + 2 MDS × 36 998 + 20 HDD nodes (10 warm, 10 cold)
    #     × 83 349 = 10 321 920 + 73 996 + 1 666 980 = 12 062 896;
    #   network 1 660 QM9700 × 36 000 + 4 UFM × 34 000 + 147 SN4600C × 16 000 + 123 SN2201
    #     × 5 000 = 59 760 000 + 136 000 + 2 352 000 + 615 000 = 62 863 000;
    #   optics (the network stage's transceivers table): 400G SR4 and DR4 modules 16 384
    #     + 16 384 + 6 633 + 4 480 = 43 881 × 750 = 32 910 750; DR4-500m spine-core
    #     modules (an 800G twin-port DR8, luxoptx) 16 384 + 4 640 = 21 024 × 1 250
    #     = 26 280 000; 400G cables 16 384 + 16 384 + 4 422 + 4 480 + 16 384 + 4 608
    #     = 62 662 × 100 = 6 266 200; 100G modules 60 + 8 774 + 2 858 + 2 368 = 14 060 × 310
    #     = 4 358 600; 100G cables 40 + 4 387 + 1 429 + 1 184 = 7 040 × 35 = 246 400; RJ45
    #     4 043 × 50 = 202 150 → 70 264 100;
    #   management 3 × 17 000 = 51 000;
    #   hardware 580 770 000 + 12 062 896 + 62 863 000 + 70 264 100 + 51 000 = 726 010 996;
    #   spares 5 % × (62 863 000 + 70 264 100) = 6 656 355; installation 10 % × 726 010 996
    #   = 72 601 099.6
    # → 726 010 996 + 6 656 355 + 72 601 099.6 + 293 175 031.5 = 1 098 443 482.1
    assert row["capex_usd"] == pytest.approx(1_098_443_482.1, abs=1)
    assert row["capex_unpriced_lines"] == 0 and row["opex_unpriced_lines"] == 0
    # opex: energy 19 001.296 kW × 8 760 × 1.25 × $0.088 = 18 309 648.83; maintenance
    # 12 % × (580 770 000 + 12 062 896 + 62 863 000 + 51 000 = 655 746 896) = 78 689 627.52;
    # insurance 0.3 % × 1 098 443 482.1 = 3 295 330.45; staff: systems 2 048 servers ÷ 125
    # = 16.384 FTE × $90 520 = 1 483 079.68, facility 25.057695 MW × 3 per MW
    # (Broadstaff) = 75.173 FTE (above the 8.42 floor) × $57 300 = 4 307 417.77
    # → 106 085 104.24 a year
    assert row["opex_usd_per_year"] == pytest.approx(106_085_104.24, abs=0.1)
    # 16 384 GPUs × 8 760 × 0.7 × 0.9 = 90 420 019.2 useful GPU-hours;
    # capital charge: servers (GPU servers, installation, management) 653 422 099.6 ×
    # CRF(8 %, 5 y) 0.2504565 = 163 653 782.4, network (switches, optics, spares)
    # 139 783 455 × CRF(8 %, 6 y) 0.2163154 = 30 237 312.1, storage 12 062 896 × 0.2504565
    # = 3 021 230.2, fit-out 293 175 031.5 × CRF(8 %, 15 y) 0.1168295 = 34 251 505.5
    # → 231 163 830.1; + opex 106 085 104.2 = 337 248 934.4 a year → $3.7298
    assert row["useful_gpu_hours"] == pytest.approx(90_420_019.2)
    assert row["capital_charge_usd_per_year"] == pytest.approx(231_163_830.1, abs=1)
    assert row["cost_per_useful_gpu_hour_usd"] == pytest.approx(3.7298, abs=1e-4)


def test_cloud_catalogue_is_sourced():
    offers = cloud_offers()
    assert offers["source"].str.len().gt(20).all()
    assert offers["pricing"].isin(["on_demand", "reserved", "capacity_block"]).all()
    # AWS capacity block p5.48xlarge: $39.33 an instance-hour ÷ 8 GPUs
    aws = offers.set_index("name").loc["AWS p5 capacity block", "usd_per_gpu_hour"]
    assert aws == pytest.approx(39.33 / 8, abs=1e-3)
    names = set(hubplan.load_catalog().accelerators["name"])
    assert set(offers["accelerator"]) <= names


def test_bad_input_names_the_field(default):
    with pytest.raises(CatalogError, match=r"cost.cloud_offer = 'AWS p9'.*closest"):
        hubplan.build_plan(default.with_changes({"cost.cloud_offer": "AWS p9"}))
    with pytest.raises(ScenarioError, match=r"cost\.utilisation"):
        default.with_changes({"cost.utilisation": 1.5})
    with pytest.raises(ScenarioError, match=r"low \(0.9\) must be <= high"):
        default.with_changes({"cost.ranges": [{"name": "mfu", "low": 0.9, "high": 0.5}]})


def test_scenarios_side_by_side(plan, default):
    manual = hubplan.build_plan(default.with_changes({"cost.utilisation": 0.4}))
    table = hubplan.cost.side_by_side(
        {"scheduler": plan["cost_summary"], "manual": manual["cost_summary"]}
    )
    assert table["scenario"].tolist() == ["scheduler", "manual"]
    ratio = (
        table["cost_per_useful_gpu_hour_usd"].iloc[1]
        / table["cost_per_useful_gpu_hour_usd"].iloc[0]
    )
    assert ratio == pytest.approx(0.7 / 0.4)
    assert np.isfinite(table["capex_usd"]).all()


def test_cost_panel_headless():
    from hubplan.views import CostPanel

    p = CostPanel()
    # the complete bill: capex 11 400 226.9, opex 1 650 862.44 a year (worked above);
    # 4 063 897.0 / 838 857.6 = 4.84 USD per useful GPU-hour; no line unpriced, so the
    # card states the figures, not a floor
    assert "Capex 11,400,227 USD" in p.summary.value
    assert "opex 1,650,862 USD a year" in p.summary.value
    assert "4.84 USD per useful GPU-hour" in p.summary.value
    assert "A floor" not in p.summary.value
    # manual allocation at 40 %: 4.8446 × 0.7 / 0.4 = 8.48, and the finding shows
    p.controls["utilisation"].value = 0.4
    assert "8.48 USD per useful GPU-hour" in p.summary.value
    assert "manual-allocation range" in p.findings.value
    p.controls["cloud_offer"].value = "AWS p5 capacity block"
    assert p.result["cost_summary"].iloc[0]["cloud_pricing"] == "capacity_block"
    p.language.value = "zh"
    assert "每有效 GPU 小时" in p.summary.value
    spec = p.curve_chart.chart.to_dict()
    assert spec["layer"][1]["mark"]["type"] == "rule"
    tornado = p.tornado_chart.chart.to_dict()
    assert tornado["layer"][0]["mark"]["type"] == "bar"
    assert p.breakdown_chart.chart.to_dict()["mark"]["type"] == "bar"


def test_cost_panel_shows_a_floor_while_a_line_is_unpriced(default):
    from hubplan.views import CostPanel

    # without an installation share, 1 capex line (installation) and 1 opex line
    # (insurance, a share of every capex line) have no price: the card says it shows a
    # floor, the capex at the low prices of the priced lines, 7 712 499 USD
    # (test_capex_range_is_withheld_while_a_line_is_unpriced)
    p = CostPanel(default.with_changes(NO_INSTALLATION))
    assert (
        "A floor, not the plan&#x27;s cost: 1 capex and 1 opex lines have no price yet "
        "(capex at least 7,712,499 USD"
    ) in p.summary.value
