"""Cloud offers in the catalogue, owning against renting like for like, and the headline
as a P10 / P50 / P90 range with the chance that owning beats renting.

The default plan's figures come from tests/test_cost.py: 152 GPUs in service, priced
capex 8 505 577.39 USD (GPU servers 5 488 400 on a 5-year life, fit-out 3 017 177.39 on
15 years), opex 190 220.16 USD a year, own cost 1 917 320.83 USD a year (capital charge
1 727 100.67 at 8 % + opex), 70 % utilisation, 90 % goodput, 838 857.6 useful GPU-hours.
"""

import math

import pytest

import hubplan
from hubplan.cli import main
from hubplan.core.errors import CatalogError
from hubplan.cost.model import capital_charge_usd_per_year
from hubplan.export import headline_figures as export_headline
from hubplan.views.overview import headline_figures, headline_text

HEADER = ("name,provider,accelerator,pricing,region,price_per_gpu_hour,currency,usd_per_unit,"
          "fx_date,usd_per_gpu_hour,term_months,price_date,source,as_of,confidence,notes\n")  # fmt: skip


def _csv(tmp_path, *rows: str):
    path = tmp_path / "cloud.csv"
    path.write_text(HEADER + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


@pytest.fixture(scope="module")
def l4_plan():
    """Every pool on L4 cards: no cloud offer lists an L4."""
    changes = {}
    for pool in ("training", "inference", "development"):
        changes |= {f"pools.{pool}.accelerator": "L4 24GB", f"pools.{pool}.server": None}
    return hubplan.build_plan(hubplan.default_scenario().with_changes(changes))


# -- the catalogue ---------------------------------------------------------------------


def test_cloud_offers_join_the_catalogue():
    offers = hubplan.load_catalog().cloud_offers.set_index("name")
    # Lambda 8x H100 SXM: $3.99 per GPU-hour (lambda.ai/instances, read 2026-09)
    assert offers.loc["Lambda H100 SXM on-demand", "usd_per_gpu_hour"] == 3.99
    # CoreWeave HGX H100: $49.24 an hour for 8 GPUs (coreweave.com/pricing) = 6.155
    assert offers.loc["CoreWeave HGX H100 on-demand", "usd_per_gpu_hour"] == pytest.approx(6.155)
    # Azure's $6.98 is one H100 NVL (Standard_NC40ads_H100_v5), not an SXM H100
    assert offers.loc["Azure NC40ads H100 v5 on-demand", "accelerator"] == "H100 NVL 94GB"
    # every offer is dated and sourced
    assert offers["price_date"].str.match(r"^\d{4}").all()
    assert offers["source"].str.len().gt(40).all()
    assert offers.loc["AWS p5 1-year reserved", "term_months"] == 12


def test_a_cny_offer_is_converted_at_its_stated_rate(tmp_path):
    # a client's quote of 28.80 CNY per GPU-hour at 0.1389 USD per CNY (the rate written
    # in the row): 28.80 × 0.1389 = 4.00032 USD
    path = _csv(tmp_path, "Quote H100,Some cloud,H100,reserved,cn-north,28.80,CNY,0.1389,"
                          "2026-11-30,,36,2026-11,client quote,2026-12,low,")  # fmt: skip
    offers = hubplan.load_catalog(cloud=path).cloud_offers.set_index("name")
    assert offers.loc["Quote H100", "usd_per_gpu_hour"] == pytest.approx(4.00032)
    assert offers.loc["Quote H100", "accelerator"] == "H100 SXM5 80GB"  # alias resolved
    assert offers.loc["Quote H100", "term_months"] == 36


@pytest.mark.parametrize(("row", "message"), [
    ("X,P,H999,on_demand,,2,USD,,,,,2026,s,2026,low,",
     r"line 2, column accelerator: 'H999' is not in the accelerator catalogue"),
    ("X,P,H100,on_demand,,28.8,CNY,,,,,2026,s,2026,low,",
     r"line 2, column usd_per_unit: a CNY price needs the exchange rate"),
    ("X,P,H100,on_demand,,2,USD,,,2.5,,2026,s,2026,low,",
     r"column usd_per_gpu_hour: 2.5 but price_per_gpu_hour x usd_per_unit = 2 x 1"),
    ("X,P,H100,on_demand,,2,USD,,,,12,2026,s,2026,low,",
     r"column term_months: an on_demand offer has no term"),
    ("X,P,H100,spot,,2,USD,,,,,2026,s,2026,low,",
     r"column pricing: 'spot' is not one of capacity_block, on_demand, reserved"),
    ("X,P,H100,on_demand,,2,EUR,,,,,2026,s,2026,low,",
     r"column currency: 'EUR' is not one of CNY, USD"),
    ("X,P,H100,on_demand,,2,USD,,,,,last year,s,2026,low,",
     r"column price_date: 'last year' is not a date"),
    ("X,P,H100,on_demand,,0,USD,,,,,2026,s,2026,low,",
     r"column price_per_gpu_hour: 0 must be above 0"),
])  # fmt: skip
def test_a_bad_offer_names_file_line_and_column(tmp_path, row, message):
    path = _csv(tmp_path, row)
    with pytest.raises(CatalogError, match=message) as err:
        hubplan.load_catalog(cloud=path)
    assert str(path) in str(err.value)


def test_the_plan_uses_the_catalogues_offers(tmp_path, default):
    # a user's offer under 3.99 becomes the one compared against: 152 × 8 760 × 0.7
    # × 2.00 = 1 864 128 USD a year
    path = _csv(tmp_path, "Own quote H100,Broker,H100 SXM5 80GB,on_demand,,2.00,USD,,,,,"
                          "2026-11,broker quote,2026-12,low,")  # fmt: skip
    plan = hubplan.build_plan(default, hubplan.load_catalog(cloud=path))
    s = plan["cost_summary"].iloc[0]
    assert s["cloud_offer"] == "Own quote H100"
    assert s["cloud_usd_per_year"] == pytest.approx(1_864_128.0)


def test_catalog_cloud_listing_and_flag(capsys, tmp_path):
    main(["catalog", "cloud"])
    out = capsys.readouterr().out
    assert "Lambda H100 SXM on-demand" in out and "AWS p5 1-year reserved" in out
    path = _csv(tmp_path, "Own quote H100,Broker,H100,on_demand,,2.00,USD,,,,,2026-11,"
                          "broker quote,2026-12,low,")  # fmt: skip
    assert main(["catalog", "cloud", "--cloud-csv", str(path)]) == 0
    assert "Own quote H100" in capsys.readouterr().out


# -- like for like ---------------------------------------------------------------------


def test_reserved_capacity_is_compared_by_total_cost_over_its_term(default):
    plan = hubplan.build_plan(default.with_changes({"cost.cloud_offer": "AWS p5 1-year reserved"}))
    s = plan["cost_summary"].iloc[0]
    assert s["cloud_basis"] == "term_total"
    # paid whether used or not: no break-even utilisation
    assert math.isnan(s["breakeven_utilisation"])
    # over its 12-month term: 152 × 8 760 × 6.50 = 8 654 880 USD, owning 2 762 717.65 (a
    # year's capital charge and opex, tests/test_cost.py)
    assert s["cloud_term_years"] == 1.0
    assert s["cloud_term_usd"] == pytest.approx(8_654_880.0)
    assert s["own_term_usd"] == pytest.approx(2_762_717.65, abs=0.01)
    # per useful GPU-hour: 6.50 / (0.7 × 0.9) = 10.3175 against owning's 3.2934
    assert s["cloud_usd_per_useful_gpu_hour"] == pytest.approx(10.3175, abs=1e-4)
    assert "cloud_cheaper_over_term" not in set(plan.findings["code"])
    cheap = hubplan.build_plan(
        default.with_changes(
            {"cost.cloud_offer": "AWS p5 1-year reserved", "cost.cloud_usd_per_gpu_hour": 1.0}
        )
    )
    # at $1.00: 152 × 8 760 × 1.00 = 1 331 520 USD a year, under owning's 2 762 717.65
    f = cheap.findings[cheap.findings["code"] == "cloud_cheaper_over_term"]
    assert len(f) == 1 and f.iloc[0]["data"]["cloud_usd"] == pytest.approx(1_331_520.0)
    assert "cloud_cheaper_over_horizon" not in set(cheap.findings["code"])


def test_a_card_without_an_offer_shows_no_offer_to_compare(l4_plan, capsys, tmp_path):
    s = l4_plan["cost_summary"].iloc[0]
    assert s["cloud_basis"] == "no_offer" and math.isnan(s["breakeven_utilisation"])
    assert math.isnan(s["own_beats_cloud_probability"])
    # the dashboard: "no offer to compare", never "never (renting stays cheaper)"
    text = headline_text(headline_figures(l4_plan))["breakeven_month"]
    assert text == "no offer to compare"
    assert headline_text(headline_figures(l4_plan), "zh")["breakeven_month"] == "无可对比的云报价"
    # the summary sheet and the CLI read the same row
    h = export_headline(l4_plan)
    assert h[h["figure"] == "cloud_basis"]["value"].tolist() == ["no_offer"]
    from hubplan.cli.main import _headlines

    rows = [r for r in _headlines(l4_plan, "en") if r["value"] == "no_offer"]
    assert [r["text"] for r in rows] == ["no offer to compare"]
    # the xlsx Summary sheet writes the words in the chosen language
    from openpyxl import load_workbook

    out = hubplan.export.write_appendix(l4_plan, tmp_path / "l4.xlsx", "zh")
    first = load_workbook(out).worksheets[0]  # the Summary sheet
    assert "无可对比的云报价" in [c.value for row in first.iter_rows() for c in row]


def test_cost_panel_says_no_offer(l4_plan):
    from hubplan.views import CostPanel

    changes = {}
    for pool in ("training", "inference", "development"):
        changes |= {f"pools.{pool}.accelerator": "L4 24GB", f"pools.{pool}.server": None}
    p = CostPanel(hubplan.default_scenario().with_changes(changes))
    assert "no offer to compare for this accelerator" in p.summary.value
    assert "break" not in p.summary.value


# -- the tornado and the headline range ------------------------------------------------


def test_capital_charge_is_the_annuity():
    # Brealey, Myers & Allen, ch. 2: $1 000 over 5 years at 8 %: 1 000 × 0.08 /
    # (1 − 1.08^−5) = 1 000 × 0.08 / 0.319417 = 250.46; with 20 % back at the end its
    # present value 200 / 1.08^5 = 136.12 comes off first: (1 000 − 136.12) × 0.250456
    # = 216.37; at 0 % straight-line (1 000 − 200) / 5 = 160
    assert float(capital_charge_usd_per_year(1000.0, 5, 0.0, 0.08)) == pytest.approx(
        250.46, abs=0.01
    )
    assert float(capital_charge_usd_per_year(1000.0, 5, 0.2, 0.08)) == pytest.approx(
        216.37, abs=0.01
    )
    assert float(capital_charge_usd_per_year(1000.0, 5, 0.2, 0.0)) == pytest.approx(160.0)


def test_tornado_covers_fitout_staff_and_the_cost_of_capital(default):
    # the staff sized from the plan: 572 986 USD a year (tests/test_cost.py)
    plan = hubplan.build_plan(default)
    t = plan["cost_tornado"]
    t = t[t["metric"] == "cost_per_useful_gpu_hour_usd"].set_index("assumption")
    assert {"fitout_usd_per_kw", "staff_cost", "discount_rate"} <= set(t.index)
    # fit-out at $15 000 instead of $11 700 a kW: 3 300 × 257.8784 kW = 850 998.7 USD more
    # capex, annuitised over the fit-out's 15 years at 8 %: CRF 0.08 / (1 − 1.08^−15)
    # = 0.116830, 99 422.2 a year ÷ 838 857.6 useful GPU-hours = 0.11852
    fit = t.loc["fitout_usd_per_kw"]
    assert fit["at_high"] - fit["base"] == pytest.approx(0.11852, abs=1e-5)
    # staff at 1.5 ×: 286 493 USD a year more ÷ 838 857.6 = 0.34153
    st = t.loc["staff_cost"]
    assert st["at_high"] - st["base"] == pytest.approx(0.34153, abs=1e-5)
    # capital at 12 % instead of 8 %, each class on its life (Brealey, Myers & Allen ch. 6):
    # servers 5 488 400 × (CRF(12 %, 5) 0.277410 − CRF(8 %, 5) 0.250456) = 147 930.4,
    # network 832 500 × (CRF(12 %, 6) 0.243226 − CRF(8 %, 6) 0.216315) = 22 402.9,
    # storage 368 640 × (0.277410 − 0.250456) = 9 936.1, fit-out 3 017 177.4 ×
    # (CRF(12 %, 15) 0.146824 − CRF(8 %, 15) 0.116830) = 90 499.3; 270 768.6 a year more
    # ÷ 838 857.6 = 0.32278
    cap = t.loc["discount_rate"]
    assert cap["base_value"] == 0.08
    assert cap["at_high"] - cap["base"] == pytest.approx(0.32278, abs=1e-4)


def test_headline_range_and_the_chance_owning_wins(default, plan):
    s = plan["cost_summary"].iloc[0]
    mc = plan["cost_monte_carlo"].set_index("metric").loc["cost_per_useful_gpu_hour_usd"]
    assert (
        s["cost_per_useful_gpu_hour_p10_usd"],
        s["cost_per_useful_gpu_hour_p50_usd"],
        s["cost_per_useful_gpu_hour_p90_usd"],
    ) == (mc["p10"], mc["p50"], mc["p90"])
    assert 0 < s["own_beats_cloud_probability"] <= 1
    # Only utilisation varying, triangular(0.3, 0.7, 0.8), against Hyperstack's $3.20 on
    # demand (the cheapest H100 SXM, tests/test_cost.py): owning wins when
    # u > 2 762 717.65 / (152 × 8 760 × 3.20) = 0.64839; the triangle's CDF there is
    # (0.64839 − 0.3)² / ((0.8 − 0.3)(0.7 − 0.3)) = 0.60689, so owning wins in 39.31 % of
    # draws (one standard error at 10 000 draws is √(0.393 × 0.607 / 10 000) = 0.49 %:
    # held to three)
    only_u = [{"name": "utilisation", "low": 0.3, "high": 0.8}]
    one = hubplan.build_plan(default.with_changes({"cost.ranges": only_u}))
    u = one["cost_summary"].iloc[0]
    assert u["own_beats_cloud_probability"] == pytest.approx(0.39311, abs=0.015)
    # and its median cost is the cost at the median u, 0.3 + √(0.5 × 0.5 × 0.4) = 0.61623:
    # 2 762 717.65 / (152 × 8 760 × 0.61623 × 0.9 = 738 470.8) = 3.7411
    assert u["cost_per_useful_gpu_hour_p50_usd"] == pytest.approx(3.7411, rel=0.01)


def test_cost_panel_shows_the_range(plan):
    from hubplan.views import CostPanel

    p = CostPanel()
    s = plan["cost_summary"].iloc[0]
    shown = (f"P10 / P50 / P90: {s['cost_per_useful_gpu_hour_p10_usd']:.2f} / "
             f"{s['cost_per_useful_gpu_hour_p50_usd']:.2f} / "
             f"{s['cost_per_useful_gpu_hour_p90_usd']:.2f} USD")  # fmt: skip
    assert shown in p.summary.value
    assert f"owning beats renting in {s['own_beats_cloud_probability']:.0%}" in p.summary.value
    p.language.value = "zh"
    assert "自建优于租用的样本占" in p.summary.value


def test_cli_compare_says_no_offer(capsys, tmp_path):
    # the default plan against the same plan on L4 cards: the L4 column says there is no
    # offer to compare, the H100 one the break-even month 52.5 (tests/test_cost.py)
    path = hubplan.default_scenario().save(tmp_path / "client.yaml")
    sets = [a for pool in ("training", "inference", "development")
            for a in ("--set", f"pools.{pool}.accelerator=L4 24GB",
                      "--set", f"pools.{pool}.server=null")]  # fmt: skip
    # exit 1: the 70B fine-tune does not fit a 24 GB card (an error finding), but the
    # table is printed
    assert main(["compare", str(path), *sets]) == 1
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("Break-even month"))  # fmt: skip
    assert "52.5" in row and row.endswith("no offer to compare")
