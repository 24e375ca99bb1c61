"""Currency and taxes in the cost stage: CNY twins of every USD column at the dated CFETS
rate, import duty on imported hardware and VAT the buyer cannot recover, worked by hand
on the default plan (a complete bill of 11 400 226.9 USD capex: GPU servers 5 488 400,
storage 942 730, switches 630 000, optics 459 310, management servers 51 000, network
spares 54 465.5, installation 757 144, fit-out 3 017 177.4; opex a year: energy
190 220.16, maintenance 853 455.6, insurance 34 200.68, staff 572 986; capital charge
2 413 034.6 a year at 8 %; tests/test_cost_cashflow.py and tests/test_cost_cloud.py work
these figures line by line), and a price the catalogue lists in CNY."""

import math

import pytest

import hubplan
from hubplan.core import labels
from hubplan.core.errors import ScenarioError

RATE = 7.1884  # CNY per USD, CFETS central parity of 31 Dec 2024 (the section's default)


@pytest.fixture(scope="module")
def cny_plan():
    return hubplan.build_plan(hubplan.default_scenario().with_changes({"cost.currency": "CNY"}))


def test_usd_plan_has_no_cny_columns_and_no_taxes():
    plan = hubplan.build_plan(hubplan.default_scenario())
    for name in plan.tables:
        if name.startswith("cost_"):
            assert not [
                c
                for c in plan[name].columns
                if "cny" in c and c != "cny_per_usd" and c != "cny_per_usd_date"
            ], name
    # VAT is recovered as input VAT by default and the IT Agreement duty is 0: no line
    assert "taxes" not in set(plan["cost_capex"]["category"])
    s = plan["cost_summary"].iloc[0]
    assert (s["currency"], s["cny_per_usd"], s["cny_per_usd_date"]) == ("USD", RATE, "2024-12-31")


def test_cny_twins_at_the_dated_rate(cny_plan):
    s = cny_plan["cost_summary"].iloc[0]
    # 11 400 226.9 USD (the complete bill) × 7.1884 = 81 949 391.0 CNY
    assert s["capex_cny"] == pytest.approx(81_949_391.0, abs=1)
    # staff at their Chinese pay (NBS): systems 1 FTE × 231 810 + facility shift 8.42 ×
    # 120 698 = 1 248 087.2 CNY (173 625.2 USD at the rate); owning a year: capital
    # 2 413 034.6 + energy 190 220.16 + maintenance 853 455.6 + insurance 34 200.68
    # + staff 173 625.2 = 3 664 536.2 USD × 7.1884 ÷ 838 857.6 useful GPU-hours
    # = 31.4024 CNY
    staff = cny_plan["cost_opex"].groupby("category")["cny_per_year"].sum()["staff"]
    assert staff == pytest.approx(1_248_087.2, abs=0.1)
    assert s["cost_per_useful_gpu_hour_cny"] == pytest.approx(31.4024, abs=1e-4)
    # Hyperstack's 3.20 USD an hour (the cheapest H100 SXM on demand in data/cloud.csv,
    # hyperstack.cloud/gpu-pricing 2026-08-26) × 7.1884 = 23.0029 CNY
    assert s["cloud_cny_per_gpu_hour"] == pytest.approx(23.0029, abs=1e-4)
    # the USD columns stay beside them
    assert s["capex_usd"] == pytest.approx(11_400_226.9, abs=1)
    flow = cny_plan["cost_cashflow"]
    assert flow["present_cny"].sum() == pytest.approx(s["npv_own_cny"])
    # a share stays a share: the network spares line's 5 % is no money
    capex = cny_plan["cost_capex"].set_index("category")
    assert capex.loc["network_spares", "line_unit_cny"] == pytest.approx(0.05)
    # the tornado converts money metrics only: own-to-cloud is a ratio
    t = cny_plan["cost_tornado"]
    ratio = t[t["metric"] == "own_to_cloud"]
    assert ratio["at_low_cny"].isna().all()
    money = t[t["metric"] == "cost_per_useful_gpu_hour_usd"].iloc[0]
    assert money["at_low_cny"] == pytest.approx(money["at_low"] * RATE)


def test_every_cny_column_has_a_label(cny_plan):
    cat = labels.catalog()
    for name, df in cny_plan.tables.items():
        missing = [c for c in df.columns if c not in cat.index and not c.endswith("_zh")]
        assert not missing, f"table {name}: no label for {missing}"


def test_import_duty_and_unrecoverable_vat():
    s = hubplan.default_scenario().with_changes(
        {"cost.import_duty_rate": 0.10, "cost.vat_recoverable": False}
    )
    plan = hubplan.build_plan(s)
    taxes = plan["cost_capex"].set_index("item")
    # duty on the imported hardware only (the fit-out, installation and the management
    # servers are bought locally): GPU servers 5 488 400 + switches 630 000 + optics
    # 459 310 + network spares 54 465.5 + storage 942 730 = 7 574 905.5 × 10 % = 757 490.55
    assert taxes.loc["import_duty", "capex_usd"] == pytest.approx(757_490.55, abs=0.01)
    # VAT on everything bought plus the duty: (11 400 226.9 + 757 490.55) × 13 %
    # = 1 580 503.3
    assert taxes.loc["vat", "capex_usd"] == pytest.approx(1_580_503.3, abs=0.1)
    summary = plan["cost_summary"].iloc[0]
    # 11 400 226.9 + 757 490.55 + 1 580 503.3 = 13 738 220.7
    assert summary["capex_usd"] == pytest.approx(13_738_220.7, abs=0.1)
    # and 13 % on the energy and maintenance bills: (190 220.16 + 853 455.6) × 0.13
    # = 135 677.85 a year; the maintenance and insurance shares rest on the hardware
    # and the insured lines, not on the taxes: 853 455.6 and 34 200.68 as without them
    opex = plan["cost_opex"].set_index("category")
    assert opex.loc["taxes", "usd_per_year"] == pytest.approx(135_677.85, abs=0.01)
    assert opex.loc["maintenance", "usd_per_year"] == pytest.approx(853_455.6, abs=0.01)
    assert opex.loc["insurance", "usd_per_year"] == pytest.approx(34_200.68, abs=0.01)
    # staff (572 986) is payroll: no VAT on it; 190 220.16 + 853 455.6 + 34 200.68
    # + 572 986 + 135 677.85 = 1 786 540.29
    assert summary["opex_usd_per_year"] == pytest.approx(1_786_540.29, abs=0.01)
    assert not math.isnan(summary["cost_per_useful_gpu_hour_usd"])


def test_bad_currency_names_the_field():
    with pytest.raises(ScenarioError, match=r"cost\.currency"):
        hubplan.default_scenario().with_changes({"cost.currency": "EUR"})
    with pytest.raises(ScenarioError, match=r"cost\.cny_per_usd_date"):
        hubplan.default_scenario().with_changes({"cost.cny_per_usd_date": "31/12/2024"})


def test_charts_in_the_chosen_currency(cny_plan):
    from hubplan.views.cost import cost_breakdown, own_vs_cloud, tornado_chart

    spec = cost_breakdown(cny_plan["cost_capex"], cny_plan["cost_opex"]).to_dict()
    assert spec["encoding"]["x"]["title"] == "CNY"
    rows = next(iter(spec["datasets"].values()))
    # the capex bars add up to 81 949 391.0 CNY (11 400 226.9 USD × 7.1884)
    capex = sum(r["usd"] for r in rows if r["what"] != "Opex per year")
    assert capex == pytest.approx(81_949_391.0, abs=1)
    curve = own_vs_cloud(cny_plan["cost_curve"], cny_plan["cost_summary"]).to_dict()
    assert curve["layer"][0]["encoding"]["y"]["title"] == "CNY"
    bars = tornado_chart(cny_plan["cost_tornado"]).to_dict()
    rule = next(v for k, v in bars["datasets"].items() if len(v) == 1)
    # the plan's figure: 31.4024 CNY a useful GPU-hour (worked above)
    assert rule[0]["base"] == pytest.approx(31.4024, abs=1e-4)


def test_a_cny_listed_server_keeps_its_chinese_price():
    # data/prices.csv lists the Huawei Atlas 800T A2 in CNY: 1 480 000 a server (derived
    # from Reuters, early 2024: 8 Ascend 910B cards × 120 000 CNY + the 520 000 CNY
    # non-accelerator share of an 8-card H20 server, 1 400 000 − 8 × 110 000), range
    # 960 000 (the cards alone) to 1 850 000 (+25 %), dated 2024-02, confidence low
    ascend = {}
    for pool in ("training", "inference"):
        ascend[f"pools.{pool}.accelerator"] = "Ascend 910B 64GB"
        ascend[f"pools.{pool}.server"] = "Huawei Atlas 800T A2"
    base = hubplan.default_scenario().with_changes(ascend)

    def line(plan):
        capex = plan["cost_capex"]
        return capex[capex["item"] == "training: Huawei Atlas 800T A2"].iloc[0]

    # budgeted in CNY at the section's rate: the Chinese price itself, whatever the rate
    # (the stage prices in USD, 1 480 000 ÷ 7.1884, and the CNY column multiplies back:
    # exact to the float rounding of that round trip, a millionth of a yuan at most)
    cny = line(hubplan.build_plan(base.with_changes({"cost.currency": "CNY"})))
    assert cny["line_unit_cny"] == pytest.approx(1_480_000, abs=1e-6)
    assert cny["price_low_cny"] == pytest.approx(960_000, abs=1e-6)
    assert cny["price_high_cny"] == pytest.approx(1_850_000, abs=1e-6)
    assert cny["capex_cny"] == pytest.approx(cny["line_quantity"] * 1_480_000, abs=0.01)
    # in USD at a client's rate of 7.0 CNY per USD: 1 480 000 ÷ 7.0 = 211 428.571 USD,
    # 960 000 ÷ 7.0 = 137 142.857, 1 850 000 ÷ 7.0 = 264 285.714 (not the section's
    # 1 480 000 ÷ 7.1884 = 205 887.263)
    usd = line(hubplan.build_plan(base.with_changes({"cost.cny_per_usd": 7.0})))
    assert usd["line_unit_usd"] == pytest.approx(211_428.571, abs=1e-3)
    assert usd["price_low_usd"] == pytest.approx(137_142.857, abs=1e-3)
    assert usd["price_high_usd"] == pytest.approx(264_285.714, abs=1e-3)
    # the line says where the price comes from, when, and how far it can be trusted:
    # the catalogue row's source, date and confidence (low: one secondary source)
    assert usd["price_basis"] == "catalogue_prices" and "Reuters" in usd["price_source"]
    assert (usd["price_as_of"], usd["price_confidence"]) == ("2024-02", "low")
