"""Time value of money in the cost stage: the capital recovery factor, annuitised capex
with residual values, lives per asset class, refresh at the end of a life and the
``cost_cashflow`` table, against figures worked by hand.

Formulas: present value of an annuity (1 − (1 + r)^−T) ÷ r and the equivalent annual
cost C × r(1 + r)^L ÷ ((1 + r)^L − 1) (Brealey, Myers & Allen, Principles of Corporate
Finance, ch. 2 and 6); discount factor 1 ÷ (1 + r)^t and residual values counted in the
last year of the appraisal (HM Treasury, The Green Book 2022, Annex 6)."""

import pytest

import hubplan
from hubplan.core.errors import ScenarioError
from hubplan.cost.cashflow import (
    annuity_factor,
    capital_charge_usd,
    capital_recovery_factor,
    cashflow_table,
    purchase_years,
)

# The default plan's complete bill, line by line (unit prices from data/prices.csv with
# the source each row cites; device counts from the storage and network stages' tables,
# the same counts tests/test_cost.py's IT-load comment lists):
#   GPU servers: 20 DGX H100 × $270 000 (SemiAnalysis via Epoch AI) + one 8 × L40S server
#     at card price × 1.3 = 88 400 → 5 488 400;
#   storage: 2 Lustre OSS × $184 320 (infra-economics.com, $250 per raw TB × 737.28 TB)
#     = 368 640; 2 MDS × $36 998 (parts sum) = 73 996; 6 HDD capacity nodes (3 warm,
#     3 cold) × $83 349 (parts sum) = 500 094 → 942 730;
#   switches: 13 QM9700 × $36 000 (FS.com) = 468 000; 4 UFM appliances × $34 000, one
#     SN4600C $16 000, 2 SN2201 × $5 000 (the three estimates) = 162 000 → 630 000;
#   optics: 486 400G modules × $750 (infra-economics.com) = 364 500; 456 400G cables
#     (148 + 256 + 52) × $100 (luxoptx) = 45 600; 142 100G modules (18 + 116 + 8) × $310
#     (Ascent Optics) = 44 020; 74 100G cables (12 + 58 + 4) × $35 = 2 590; 52 RJ45
#     cables × $50 (NM Cabling) = 2 600 → 459 310;
#   management: 3 × 1U management server $17 000 (Tufts RT price list) = 51 000;
#   hardware 5 488 400 + 942 730 + 630 000 + 459 310 + 51 000 = 7 571 440;
#   network spares 5 % of 630 000 + 459 310 = 54 465.5; installation 10 % of the
#   hardware = 757 144; fit-out 257.8784 kW × $11 700 (Cushman & Wakefield) = 3 017 177.4.
#   Capex 7 571 440 + 54 465.5 + 757 144 + 3 017 177.4 = 11 400 226.9, no unpriced line.
# Opex a year: energy 190 220.16 (tests/test_cost.py); maintenance 12 % of the systems
#   it covers, 5 488 400 + 942 730 + 630 000 + 51 000 = 7 112 130 → 853 455.6; insurance
#   0.3 % of 11 400 226.9 = 34 200.68; staff 1 FTE × $90 520 + 8.42 FTE (two posts around
#   the clock; 0.2579 MW × 3 per MW is fewer) × $57 300 = 572 986 → 1 650 862.44.
# Asset classes: servers 5 488 400 + installation 757 144 + management 51 000
#   = 6 296 544 (5 years); network 630 000 + 459 310 + 54 465.5 = 1 143 775.5 (6 years);
#   storage 942 730 (5 years); fit-out 3 017 177.4 (15 years).
DEFAULT_CAPEX_USD = 11_400_226.9
DEFAULT_OPEX_USD = 1_650_862.44


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


def test_capital_recovery_factor_loan_example():
    # A $1 000 loan at 10 % repaid in 10 equal yearly payments: 1.1^10 = 2.5937425;
    # CRF = 0.1 × 2.5937425 ÷ 1.5937425 = 0.1627454 → $162.75 a year (the textbook
    # example: "a loan of $1 000 at 10 % will be paid back with 10 payments of $163").
    assert 1000 * capital_recovery_factor(0.10, 10) == pytest.approx(162.75, abs=0.01)
    # the figure: at 8 % over five years a year's capital costs 0.2504565 of the
    # price instead of straight-line 0.2, a quarter more on the capital part of the bill
    assert capital_recovery_factor(0.08, 5) == pytest.approx(0.2504565, abs=1e-7)
    # no interest: straight line
    assert capital_recovery_factor(0.0, 4) == 0.25
    assert annuity_factor(0.08, 5) == pytest.approx(3.992710, abs=1e-6)


def test_capital_charge_with_a_residual_value():
    # $270 000 server, 5 years, 8 %, resold for 20 % at the end: 54 000 × 1.08^−5
    # (0.6805832) = 36 751.5 today; (270 000 − 36 751.5) × 0.2504565 = 58 418.6 a year
    assert capital_charge_usd(270_000.0, 0.08, 5, 0.2) == pytest.approx(58_418.6, abs=0.1)
    # at 0 % it is straight-line depreciation: 270 000 × 0.8 ÷ 5 = 43 200
    assert capital_charge_usd(270_000.0, 0.0, 5, 0.2) == pytest.approx(43_200)


def test_refresh_years():
    # a 5-year server over a 12-year horizon is bought at 0, 5 and 10; a 15-year fit-out
    # once; a life equal to the horizon is not refreshed in the last year
    assert purchase_years(5, 12) == [0, 5, 10]
    assert purchase_years(15, 12) == [0]
    assert purchase_years(5, 5) == [0]


def test_cashflow_table_hand_npv():
    # $1 000 of servers on a 2-year life, $100 of energy a year, 3 years at 10 %, prices
    # falling by half a year: year 0 buys 1 000; year 2 refreshes at 1 000 × 0.5² = 250;
    # at year 3 the refresh is 1 of 2 years old, worth 125.
    # NPV = 1 000 + 100/1.1 + (250 + 100)/1.21 + (100 − 125)/1.331
    #     = 1 000 + 90.909 + 289.256 − 18.783 = 1 361.382
    t = cashflow_table(
        {"servers": 1000.0}, {"servers": 2}, {"servers": 0.0}, {"energy": 100.0}, 3, 0.10, 0.5
    )
    assert t["present_usd"].sum() == pytest.approx(1361.382, abs=1e-3)
    refresh = t[t["flow"] == "refresh"].iloc[0]
    assert (refresh["year"], refresh["usd"]) == (2, 250.0)
    assert t.loc[t["flow"] == "residual", "usd"].tolist() == [-125.0]
    # a fit-out does not get cheaper: the same with the class named fitout refreshes at
    # 1 000 and is worth 500 at the end → 1 000 + 90.909 + 1 100/1.21 + (100 − 500)/1.331
    t = cashflow_table(
        {"fitout": 1000.0}, {"fitout": 2}, {"fitout": 0.0}, {"energy": 100.0}, 3, 0.10, 0.5
    )
    assert t["present_usd"].sum() == pytest.approx(1000 + 90.909 + 909.091 - 300.526, abs=1e-3)


def test_default_plan_cashflow_and_npv(plan):
    t = plan["cost_cashflow"]
    s = plan["cost_summary"].iloc[0]
    # the complete bill worked above: every line priced
    assert s["capex_usd"] == pytest.approx(DEFAULT_CAPEX_USD, abs=0.1)
    assert (s["capex_unpriced_lines"], s["opex_unpriced_lines"]) == (0, 0)
    assert s["opex_usd_per_year"] == pytest.approx(DEFAULT_OPEX_USD, abs=0.01)
    # each line says how far its price can be trusted (data/prices.csv's confidence):
    # 9 lines rest on estimates, the L40S server at card price × 1.3 (a rule, not a
    # price of the server) 88 400 + the 4 UFM appliances 136 000 + SN4600C 16 000
    # + 2 SN2201 10 000 + the 100G modules 44 020 (3 lines) + the RJ45 cables 2 600
    # = 297 020 USD, 297 020 / 11 400 226.9 = 2.605 % of the capex; the DGX H100 lines'
    # price is "low" (one secondary source), the management servers' "medium" (a
    # published price list)
    conf = plan["cost_capex"].set_index("item")["price_confidence"]
    assert (conf["training: DGX H100"], conf["management: 1U management server"]) == (
        "low",
        "medium",
    )
    f = plan.findings
    est = f[f["code"] == "capex_estimated_lines"].iloc[0]["data"]
    assert est["lines"] == 9 and est["capex_usd"] == pytest.approx(297_020)
    assert est["share"] == pytest.approx(0.02605, abs=1e-5)
    # year 0: each class at its capex (worked above)
    year0 = t[t["year"] == 0].set_index("category")["usd"]
    assert year0["servers"] == pytest.approx(6_296_544)
    assert year0["network"] == pytest.approx(1_143_775.5)
    assert year0["storage"] == pytest.approx(942_730)
    assert year0["fitout"] == pytest.approx(3_017_177.4, abs=0.1)
    # years 1-5: energy $190 220.16 and maintenance $853 455.6 each; no refresh (server
    # life 5 = horizon 5)
    assert (t["flow"] == "refresh").sum() == 0
    energy = t[(t["category"] == "energy")]
    assert energy["year"].tolist() == [1, 2, 3, 4, 5]
    maint = t[(t["category"] == "maintenance")]
    assert maint["usd"].tolist() == pytest.approx([853_455.6] * 5)
    # year 5: the fit-out has 10 of its 15 years left: 3 017 177.4 × 10/15 = 2 011 451.6;
    # the network 1 of its 6: 1 143 775.5 / 6 = 190 629.25 → 2 202 080.8
    assert s["residual_usd"] == pytest.approx(2_202_080.8, abs=0.1)
    # NPV = 11 400 226.9 + 1 650 862.44 × 3.992710 − 2 202 080.8 × 1.08^−5 (0.6805832)
    #     = 11 400 226.9 + 6 591 415.0 − 1 498 699.2 = 16 492 942.7
    assert s["npv_own_usd"] == pytest.approx(16_492_942.7, abs=1)
    assert t["present_usd"].sum() == pytest.approx(s["npv_own_usd"])


def test_refresh_over_a_ten_year_horizon(plan):
    s10 = hubplan.default_scenario().with_changes({"cost.horizon_years": 10})
    p = hubplan.build_plan(s10)
    t = p["cost_cashflow"]
    # the servers (with their installation and the management servers) are bought again
    # in year 5 at (1 − 0.285)^5 = 0.1868660 of the price: 6 296 544 × 0.1868660
    # = 1 176 609.8, the storage 942 730 × 0.1868660 = 176 164.2; the network in year 6
    # at 0.715^6 = 0.1336092: 1 143 775.5 × 0.1336092 = 152 818.9; the fit-out is not
    # (15-year life)
    refresh = t[t["flow"] == "refresh"]
    assert refresh["category"].tolist() == ["servers", "storage", "network"]
    assert refresh["year"].tolist() == [5, 5, 6]
    assert refresh["usd"].iloc[0] == pytest.approx(1_176_609.8, abs=0.1)
    assert refresh["usd"].iloc[2] == pytest.approx(152_818.9, abs=0.1)
    # NPV = 11 400 226.9 + (1 176 609.8 + 176 164.2) × 1.08^−5 (920 675.2) + 152 818.9 ×
    # 1.08^−6 (96 301.8) + opex 1 650 862.44 × (1 − 1.08^−10)/0.08 = 6.7100814
    # (11 077 421.4) − residuals (fit-out 5 of 15 years left 1 005 725.8, network 2 of 6
    # 50 939.6) 1 056 665.4 × 1.08^−10 (489 440.5) = 23 005 184.7 (from the unrounded terms)
    assert p["cost_summary"].iloc[0]["npv_own_usd"] == pytest.approx(23_005_184.7, abs=1)


def test_lives_are_scenario_fields_with_bounds():
    s = hubplan.default_scenario()
    assert s.cost.fitout_life_years == 15 and s.cost.network_life_years == 6
    with pytest.raises(ScenarioError, match=r"cost\.fitout_life_years"):
        s.with_changes({"cost.fitout_life_years": 80})
