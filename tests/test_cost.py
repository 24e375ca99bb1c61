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
FACILITY = SimpleNamespace(pue=1.25, electricity_usd_per_kwh=0.088)

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
# capex: servers 4 860 000 + 540 000 + 88 400 = 5 488 400, + fit-out = 8 505 577.4
CAPEX_USD = 8_505_577.4
# energy: 197.4057 kW × 1.0 duty × 8 760 h × PUE 1.25 = 2 161 592.7 kWh × $0.088
ENERGY_USD = 190_220.16
# owning a year: each asset class's capex annuitised over its life at the 8 % discount
# rate (capital recovery factor CRF = r(1 + r)^L ÷ ((1 + r)^L − 1), Brealey, Myers & Allen,
# Principles of Corporate Finance, ch. 6): servers 5 488 400 × CRF(8 %, 5 y) 0.2504565
# = 1 374 605.2; fit-out 3 017 177.4 × CRF(8 %, 15 y) 0.1168295 = 352 495.5; capital
# charge 1 727 100.7 + 190 220.16 energy = 1 917 320.8 (straight line was 1 891 335.6)
CAPITAL_USD = 1_727_100.7
OWN_USD = 1_917_320.8


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
    # 4 860 000 + 540 000 + 88 400 + 3 017 177.4
    assert summary["capex_usd"] == pytest.approx(CAPEX_USD, abs=1)


def test_unpriced_lines_are_kept_flagged_and_excluded(plan, summary):
    capex = plan["cost_capex"]
    storage = capex[capex["category"] == "storage"]
    # storage prices are not in data/storage.csv yet: four lines, none counted as 0
    assert len(storage) == 4 and not storage["priced"].any()
    assert storage["capex_usd"].isna().all()
    gaps = int((~capex["priced"]).sum())
    assert summary["capex_unpriced_lines"] == gaps > 0
    f = plan.findings
    ex = f[f["code"] == "capex_excludes_unpriced"]
    assert len(ex) == 1 and ex.iloc[0]["data"]["lines"] == gaps
    per_cat = f[(f["code"] == "capex_unpriced") & (f["subject"] == "storage")]
    assert per_cat.iloc[0]["data"]["lines"] == 4


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


def test_default_cost_per_useful_gpu_hour(summary):
    # In service (spares excluded): 18 H100 servers × 8 + 1 L40S server × 8 = 152 GPUs.
    assert summary["gpus"] == 152
    # 152 × 8 760 × 0.7 × 0.9 (the fine-tune's goodput) = 838 857.6 useful GPU-hours
    assert summary["useful_gpu_hours"] == pytest.approx(838_857.6)
    # depreciation, each class over its own life: servers $5 488 400 / 5 = 1 097 680,
    # fit-out $3 017 177.4 / 15 = 201 145.2 → $1 298 825.2 a year; priced opex: energy
    # $190 220.16 (licences $0); staff and maintenance unpriced
    assert summary["depreciation_usd_per_year"] == pytest.approx(1_298_825.2, abs=1)
    assert summary["opex_usd_per_year"] == pytest.approx(ENERGY_USD, abs=0.01)
    assert summary["capital_charge_usd_per_year"] == pytest.approx(CAPITAL_USD, abs=1)
    assert summary["own_usd_per_year"] == pytest.approx(OWN_USD, abs=1)
    # 1 917 320.8 / 838 857.6 = 2.2856 USD per useful GPU-hour (straight line: 2.2547)
    assert summary["cost_per_useful_gpu_hour_usd"] == pytest.approx(2.2856, abs=1e-4)


def test_energy_is_priced_from_the_facility_power(plan, summary):
    # The facility stage's total: 197.4057 kW typical, 257.8784 kW nameplate (worked above)
    power = plan["facility_power"].set_index("scope").loc["total"]
    assert power["it_typical_kw"] == pytest.approx(IT_TYPICAL_KW, abs=1e-3)
    assert power["it_nameplate_kw"] == pytest.approx(IT_NAMEPLATE_KW, abs=1e-3)
    # 197.4057 kW × 1.0 duty × 8 760 h × 1.25 PUE = 2 161 592.7 kWh = 2 161.59 MWh;
    # × $0.088 a kWh (facility.electricity_usd_per_kwh) = $190 220.16 a year
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
    # The cheapest H100 on demand is Lambda's $3.99 (lambda.ai/instances, 8x H100 SXM,
    # 2026-09): renting 152 GPUs at 70 % = 152 × 8 760 × 0.7 × 3.99 = 932 064 × 3.99
    assert summary["cloud_offer"] == "Lambda H100 SXM on-demand"
    assert summary["cloud_basis"] == "utilisation"
    assert summary["cloud_usd_per_year"] == pytest.approx(3_718_935.36)
    # rent saves 3 718 935.36 − 190 220.16 energy = 3 528 715.20 a year over owning's opex:
    # break-even at 12 × 8 505 577.4 / 3 528 715.20 = 28.925 months
    assert summary["breakeven_month"] == pytest.approx(28.925, abs=1e-3)
    # owning costs 1 917 320.8 a year (the capital charge) = renting at u:
    # 152 × 8 760 × 3.99 × u = 5 312 764.8 u → u = 0.36089
    assert summary["breakeven_utilisation"] == pytest.approx(0.36089, abs=1e-5)
    # like for like, per useful GPU-hour: the rented hour loses goodput too,
    # 3.99 / 0.9 = 4.4333 against owning's 1 917 320.8 / 838 857.6 = 2.2856
    assert summary["cloud_usd_per_useful_gpu_hour"] == pytest.approx(4.4333, abs=1e-4)
    # NPV of 5 years of rent at 8 %: annuity factor (1 − 1.08^−5) / 0.08 = 3.99271
    assert summary["npv_cloud_usd"] == pytest.approx(3_718_935.36 * 3.99271, rel=1e-5)


def test_npv_hand_example():
    # $1 000 up front, $100 a year for 3 years at 10 %, $200 back at the end:
    # 1 000 + 90.909 + 82.645 + 75.131 − 150.263 = 1 098.422
    assert npv_usd(1000.0, 100.0, 0.10, 3, 200.0) == pytest.approx(1098.422, abs=1e-3)


def test_cheap_cloud_finding(default):
    s = default.with_changes({"cost.cloud_usd_per_gpu_hour": 0.5})
    plan = hubplan.build_plan(s)
    f = plan.findings[plan.findings["code"] == "cloud_cheaper_over_horizon"]
    # 1 917 320.8 / (152 × 8 760 × 0.5) = 1 917 320.8 / 665 760 = 2.8799: renting is
    # cheaper at any use
    assert len(f) == 1 and f.iloc[0]["data"]["breakeven_utilisation"] == pytest.approx(
        2.8799, abs=1e-4
    )
    # the rent of 152 × 8 760 × 0.7 × 0.5 = 466 032 a year, less the 190 220.16 energy
    # owning pays, saves 275 811.84 a year: it repays 8 505 577.4 only after
    # 12 × 8 505 577.4 / 275 811.84 = 370.06 months, beyond the 60-month horizon
    assert plan["cost_summary"].iloc[0]["breakeven_month"] == pytest.approx(370.06, abs=0.01)


def test_no_cheap_cloud_finding_by_default(plan):
    assert "cloud_cheaper_over_horizon" not in set(plan.findings["code"])


def test_manual_allocation_finding(default, plan):
    assert "manual_allocation_utilisation" not in set(plan.findings["code"])
    low = hubplan.build_plan(default.with_changes({"cost.utilisation": 0.4}))
    assert "manual_allocation_utilisation" in set(low.findings["code"])
    # cost per useful GPU-hour scales with 0.7 / 0.4 (energy is billed on the typical
    # draw all year, whatever the allocation): 1 917 320.8 / (152 × 8 760 × 0.4 × 0.9)
    # = 1 917 320.8 / 479 347.2 = 3.9999
    assert low["cost_summary"].iloc[0]["cost_per_useful_gpu_hour_usd"] == pytest.approx(
        3.9999, abs=1e-4
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
    # utilisation swings it most: at 0.30, 1 917 320.8 / (152 × 8 760 × 0.3 × 0.9)
    # = 1 917 320.8 / 359 510.4 = 5.3331
    assert head.iloc[0]["assumption"] == "utilisation"
    assert head.iloc[0]["at_low"] == pytest.approx(5.3331, abs=1e-4)
    # MFU does not change the price of a GPU-hour, only how many the run takes:
    # training cost at MFU 0.35 = base × 0.45 / 0.35
    mfu = t[t["assumption"] == "mfu"].set_index("metric")
    assert mfu.loc["cost_per_useful_gpu_hour_usd", "swing"] == 0
    run = mfu.loc["training_cost_usd"]
    assert run["at_low"] == pytest.approx(run["base"] * 0.45 / 0.35)
    # the run's cost: 1 516.2637 GPU-days × 24 h = 36 390.33 GPU-hours at
    # 1 917 320.8 / (152 × 8 760 × 0.7) = $2.05707 an allocated GPU-hour = $74 857
    assert run["base"] == pytest.approx(74_857, abs=1)


def test_monte_carlo_quantiles(plan):
    mc = plan["cost_monte_carlo"].set_index("metric")
    row = mc.loc["cost_per_useful_gpu_hour_usd"]
    assert row["samples"] == 10_000 and row["p10"] < row["p50"] < row["p90"]
    # Only utilisation varying, triangular(0.3, 0.7, 0.8): the median of u is
    # 0.3 + √(0.5 × 0.5 × 0.4) = 0.61623, and cost falls with u, so P50 of cost is the
    # cost at that u: 1 917 320.8 / (152 × 8 760 × 0.61623 × 0.9) = 2.5964.
    from hubplan.cost import Assumption

    only_u = (Assumption(name="utilisation", low=0.3, high=0.8),)
    s = hubplan.default_scenario().with_changes({"cost.ranges": [a.model_dump() for a in only_u]})
    p50 = (
        hubplan.build_plan(s)["cost_monte_carlo"]
        .set_index("metric")
        .loc["cost_per_useful_gpu_hour_usd", "p50"]
    )
    assert p50 == pytest.approx(2.5964, rel=0.01)


def test_phasing_default(plan):
    ph = plan["cost_phasing"]
    totals = ph.groupby("strategy")["capex_usd"].sum()
    # all now: 2 × 152 GPUs at 8 505 577.4 / 152 per GPU (fit-out included) = $17.01 M
    assert totals["all_now"] == pytest.approx(17_011_155, abs=1)
    # phased: 1.3 × now + 0.7 × in year 2, the IT hardware at (1 − 0.285)² = 0.511225
    # of today's price, the fit-out at today's (its price does not follow the GPUs'):
    # servers 5 488 400 × (1.3 + 0.3578575) = 9 098 985.1, fit-out 3 017 177.4 × 2
    # = 6 034 354.8 → $15 133 339.9 (with the fit-out declining too it was $14 101 035)
    assert totals["phased"] == pytest.approx(15_133_339.9, abs=1)


def test_pretrain_16k_headline():
    s = load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml")
    row = hubplan.build_plan(s)["cost_summary"].iloc[0]
    # 2 048 DGX H100 + 103 spares (5 %, rounded up) = 2 151 × $270 000 = $580.77 M.
    # IT load (same sources as the default plan above):
    #   2 151 DGX H100 × 10.2 / 8.16 kW                            = 21 940.2 / 17 552.16
    #   1 660 QM9700 × 1.72 / 0.747 kW (compute 512 + 512 + 256 for the 64 working SUs,
    #   the 103 spares in the cold pool; storage 140 + 144 + 96) =  2 855.2 / 1 240.02
    #   156 SN4600C × 0.5825 / 0.466 kW, 123 SN2201 × 0.1225 / 0.098 = 105.9375 / 84.75
    #   4 UFM appliances × 0.8 / 0.64 kW (management-server stand-in) =   3.2 / 2.56
    #   78 storage nodes × 2.0 / 1.6 kW (stand-in; test_facility.py) =   156 / 124.8
    #   3 management servers × 0.8 / 0.4 kW                        =    2.4 / 1.2
    #   IT nameplate 25 062.9375 kW, typical 19 005.49 kW.
    # fit-out 25 062.9375 × $11 700 = $293 236 368.75; capex 580 770 000 + that
    assert row["capex_usd"] == pytest.approx(874_006_368.75, abs=1)
    # energy 19 005.49 kW × 8 760 × 1.25 × $0.088 = $18 313 690.16 a year
    assert row["opex_usd_per_year"] == pytest.approx(18_313_690.16, abs=0.1)
    # 16 384 GPUs × 8 760 × 0.7 × 0.9 = 90 420 019.2 useful GPU-hours;
    # capital charge: servers 580 770 000 × CRF(8 %, 5 y) 0.2504565 = 145 457 595.1,
    # fit-out 293 236 368.75 × CRF(8 %, 15 y) 0.1168295 = 34 258 671.5; + 18 313 690.16
    # energy = 198 029 956.8 a year → $2.1901 (straight line over 5 years: $2.1358)
    assert row["useful_gpu_hours"] == pytest.approx(90_420_019.2)
    assert row["cost_per_useful_gpu_hour_usd"] == pytest.approx(2.1901, abs=1e-4)


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
    # 1 917 320.8 / 838 857.6 = 2.29 USD per useful GPU-hour; 26 unpriced capex lines
    # (4 storage, 7 switch and UFM rows, 13 optics: modules and cables per plane, segment
    # and speed, compute 4, storage 4, in-band 4, BMC RJ45 1; spares, installation; the
    # fit-out is priced)
    assert "2.29 USD per useful GPU-hour" in p.summary.value
    assert "excluding 26 unpriced lines" in p.summary.value
    # manual allocation at 40 %: 2.2856 × 0.7 / 0.4 = 4.00, and the finding shows
    p.controls["utilisation"].value = 0.4
    assert "4.00 USD per useful GPU-hour" in p.summary.value
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
