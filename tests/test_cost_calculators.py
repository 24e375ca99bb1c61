"""The cost stage's calculators one by one (capex, opex, cash flow, cloud comparison,
uncertainty), each on a small fully worked input: the default plan's servers with every
other line given a round price, 200 kW of IT and a $2 cloud offer.

Every expected figure is worked by hand in the comments; the calculators' results must
match them, and ``run_cost`` must give the same figures by calling them in order."""

from types import SimpleNamespace

import pandas as pd
import pytest

import hubplan
from hubplan.cost import Assumption, Cost
from hubplan.cost.stage import (
    capex_calculator,
    cashflow_calculator,
    cloud_calculator,
    cost_base,
    opex_calculator,
    run_cost,
    uncertainty_calculator,
)

FACILITY_POWER = pd.DataFrame(
    {"scope": ["total"], "it_nameplate_kw": [250.0], "it_typical_kw": [200.0]}
)
PUE, TARIFF = 1.25, 0.088
FACILITY = SimpleNamespace(pue=PUE)  # the tariff is the cost section's (default TARIFF)

# capex: servers 18 + 2 DGX H100 × $270 000 + one 8 × L40S at card price × 1.3 = 88 400
#   → 5 488 400; storage 10 nodes × $10 000 = 100 000; 20 switch rows × $20 000 = 400 000;
#   network spares 5 % of 400 000 = 20 000; installation 5 % of the hardware
#   (5 488 400 + 100 000 + 400 000) = 299 420; fit-out 250 kW × $11 700 = 2 925 000.
#   Total 9 232 820.
CAPEX_USD = 9_232_820.0
SERVER_CAPEX_USD = 5_488_400.0
# energy: 200 kW × PUE 1.25 × 8 760 h × $0.088 = 192 720 a year; staff sized from the
# plan: systems operations 19 servers ÷ 125 → the 1-FTE minimum × $90 520, a facility
# shift max(8.42, 0.25 MW × 3 per MW = 0.75) = 8.42 FTE × $57 300 = 482 466 → 572 986;
# hardware maintenance at the section's 12 % a year (Library Technology Guides: 10-12 %
# of the purchase price) of the systems it covers, GPU servers 5 488 400 + storage
# 100 000 + switches 400 000 = 5 988 400 (not the spares, installation or fit-out)
# → 718 608; insurance at the section's 0.3 % (Hotaling, $0.15-0.50 per $100) of every
# capex line, 9 232 820 × 0.003 = 27 698.46; licences $0 a GPU.
# Opex 192 720 + 718 608 + 27 698.46 + 572 986 = 1 512 012.46.
ENERGY_USD = 192_720.0
STAFF_USD = 572_986.0
MAINTENANCE_USD = 718_608.0
INSURANCE_USD = 27_698.46
OPEX_USD = 1_512_012.46
# GPUs in service: 18 training + 1 inference DGX in the fleet (spares out) × 8, + 8 L40S
GPUS = 152
# asset classes: servers = GPU servers 5 488 400 + installation 299 420 = 5 787 820 (life
# 5 y); network = switches 400 000 + spares 20 000 = 420 000 (6 y); storage 100 000
# (5 y); fit-out 2 925 000 (15 y).
# depreciation: 5 787 820/5 + 420 000/6 + 100 000/5 + 2 925 000/15
#   = 1 157 564 + 70 000 + 20 000 + 195 000 = 1 442 564
# capital recovery factors at 8 %, CRF = r(1 + r)^L ÷ ((1 + r)^L − 1) (Brealey, Myers &
# Allen, Principles of Corporate Finance, ch. 6): 5 y 0.2504565, 6 y 0.2163154, 15 y
# 0.1168295. Capital charge 5 787 820 × 0.2504565 = 1 449 596.9; 420 000 × 0.2163154
# = 90 852.5; 100 000 × 0.2504565 = 25 045.6; 2 925 000 × 0.1168295 = 341 726.4;
# sum 1 907 221.4; owning a year 1 907 221.4 + 1 512 012.46 = 3 419 233.9
DEP_USD, CAPITAL_USD, OWN_USD = 1_442_564.0, 1_907_221.4, 3_419_233.9
# NPV over 5 years at 8 %: 9 232 820 now; opex 1 512 012.46 × annuity factor
# (1 − 1.08^−5) ÷ 0.08 = 3.992710 → 6 037 027.3; back at year 5 the book values of the
# network (1 year of 6 left: 70 000) and the fit-out (10 of 15: 1 950 000) = 2 020 000
# × 1.08^−5 (0.6805832) = 1 374 778.1;
# NPV 9 232 820 + 6 037 027.3 − 1 374 778.1 = 13 895 069.3
NPV_OWN_USD = 13_895_069.3
# a useful GPU-hour: 3 419 233.9 ÷ (152 × 8 760 × 0.7 × goodput 0.9 = 838 857.6) = 4.07606
PER_HOUR_USD = 4.07606


@pytest.fixture(scope="module")
def inputs():
    plan = hubplan.build_plan(hubplan.default_scenario())
    names = ("pools", "training", "storage_nodes", "switches", "transceivers")
    t = {n: plan[n] for n in names}
    t["storage_nodes"] = t["storage_nodes"].assign(price_usd=10_000.0)
    t["switches"] = t["switches"].assign(price_usd=20_000.0)
    t["transceivers"] = t["transceivers"].iloc[0:0]
    t["facility_power"] = FACILITY_POWER
    cost = Cost(installation_share=0.05, cloud_usd_per_gpu_hour=2.0)
    return t, cost


def _chain(t, cost):
    capex = capex_calculator(catalog=hubplan.load_catalog(), tables=t, cost=cost, critical_kw=250.0)
    opex = opex_calculator(
        tables=t, cost=cost, capex=capex, it_kw=200.0, critical_kw=250.0, pue=PUE, tariff=TARIFF
    )
    base = cost_base(
        tables=t,
        cost=cost,
        capex=capex,
        opex=opex,
        it_kw=200.0,
        pue=PUE,
        tariff=TARIFF,
        price=2.0,
        kind="on_demand",
    )
    flow = cashflow_calculator(cost=cost, capex=capex, opex=opex, base=base)
    return capex, opex, base, flow


def test_capex_calculator(inputs):
    capex, *_ = _chain(*inputs)
    assert capex.capex_usd == pytest.approx(CAPEX_USD)
    assert capex.unpriced == 0
    assert capex.server_capex_usd == pytest.approx(SERVER_CAPEX_USD)
    assert capex.install["capex_usd"] == pytest.approx(299_420)
    assert capex.lines["capex_usd"].sum() == pytest.approx(CAPEX_USD)


def test_opex_calculator(inputs):
    _, opex, *_ = _chain(*inputs)
    assert opex.opex_usd_per_year == pytest.approx(OPEX_USD)
    # a complete bill: maintenance and insurance are priced (before, maintenance had no
    # share and was the one unpriced line)
    assert opex.unpriced == 0
    assert opex.maintenance_usd_per_year == pytest.approx(MAINTENANCE_USD)
    lines = opex.table.set_index("item")
    assert lines.loc["maintenance", "line_quantity"] == pytest.approx(5_988_400)
    assert lines.loc["insurance", "usd_per_year"] == pytest.approx(INSURANCE_USD)
    assert lines.loc["energy", "usd_per_year"] == pytest.approx(ENERGY_USD)
    assert opex.gpus == GPUS and opex.goodput == pytest.approx(0.9)
    assert opex.fixed_usd_per_year == pytest.approx(STAFF_USD)  # staff, space, licences


def test_cashflow_calculator(inputs):
    *_, flow = _chain(*inputs)
    assert flow.depreciation_usd_per_year == pytest.approx(DEP_USD)
    assert flow.own_usd_per_year == pytest.approx(OWN_USD)
    assert flow.capital_charge_usd_per_year == pytest.approx(CAPITAL_USD, abs=1)
    assert flow.residual_usd == pytest.approx(2_020_000)  # network 70 000 + fit-out
    assert flow.npv_own_usd == pytest.approx(NPV_OWN_USD, abs=1)
    assert flow.cost_per_useful_gpu_hour_usd == pytest.approx(PER_HOUR_USD, abs=1e-4)


def test_cloud_calculator(inputs):
    t, cost = inputs
    capex, opex, _, flow = _chain(t, cost)
    cloud = cloud_calculator(
        cost=cost, capex=capex, opex=opex, flow=flow, offer="custom", kind="on_demand", price=2.0
    )
    # on demand: 152 GPUs × 8 760 h × 0.7 × $2 = 1 864 128 a year
    assert cloud.cloud_usd_per_year == pytest.approx(1_864_128)
    # break-even month: 12 × 9 232 820 ÷ (1 864 128 − 1 512 012.46 = 352 115.54)
    # = 314.65, far past 60 months
    assert cloud.breakeven_month == pytest.approx(314.652, abs=1e-3)
    # break-even use: 3 419 233.9 ÷ (152 × 8 760 × $2 = 2 663 040) = 1.28396 (above 1:
    # renting every hour of the year still costs less)
    assert cloud.breakeven_utilisation == pytest.approx(1.28396, abs=1e-5)
    # NPV of renting: 1 864 128 × 3.992710 = 7 442 922.6; hybrid 0.7 × own + 0.3 × cloud
    # = 0.7 × 13 895 069.3 + 0.3 × 7 442 922.6 = 9 726 548.5 + 2 232 876.8 = 11 959 425.3
    assert cloud.npv_cloud_usd == pytest.approx(7_442_922.6, abs=1)
    assert cloud.npv_hybrid_usd == pytest.approx(11_959_425.3, abs=1)
    assert [f.code for f in cloud.findings] == ["cloud_cheaper_over_horizon"]
    # 9 232 820 + 5 × 1 512 012.46 = 16 792 882.3
    assert cloud.curve["own_usd"].iloc[-1] == pytest.approx(16_792_882.3)


def test_uncertainty_calculator(inputs):
    t, cost = inputs
    *_, base, _ = _chain(t, cost)
    one = cost.model_copy(
        update={"ranges": (Assumption(name="utilisation", low=0.35, high=0.7),), "samples": 100}
    )
    out = uncertainty_calculator(cost=one, base=base)
    row = out["cost_tornado"].set_index("metric").loc["cost_per_useful_gpu_hour_usd"]
    # half the use, twice the cost: 3 419 233.9 ÷ (152 × 8 760 × 0.35 × 0.9) = 8.15212
    assert row["at_low"] == pytest.approx(8.15212, abs=1e-4)
    assert row["at_high"] == pytest.approx(PER_HOUR_USD, abs=1e-4)
    mc = out["cost_monte_carlo"].set_index("metric").loc["capex_usd"]
    assert mc["p10"] == mc["p90"] == pytest.approx(CAPEX_USD)  # utilisation moves no capex


def test_run_cost_calls_the_calculators_in_order(inputs):
    t, cost = inputs
    r = run_cost(catalog=hubplan.load_catalog(), tables=t, cost=cost, facility=FACILITY)
    s = r.tables["cost_summary"].iloc[0]
    assert s["capex_usd"] == pytest.approx(CAPEX_USD)
    assert s["own_usd_per_year"] == pytest.approx(OWN_USD)
    assert s["npv_own_usd"] == pytest.approx(NPV_OWN_USD, abs=1)
    assert s["cost_per_useful_gpu_hour_usd"] == pytest.approx(PER_HOUR_USD, abs=1e-4)
