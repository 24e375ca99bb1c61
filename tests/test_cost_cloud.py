"""Cloud offers in the catalogue, owning against renting like for like, and the headline
as a P10 / P50 / P90 range with the chance that owning beats renting.

The default plan's figures are worked line by line in tests/test_cost_cashflow.py: 152
GPUs in service, a complete bill of 11 400 226.9 USD capex (asset classes: servers
6 296 544 on 5 years, network 1 143 775.5 on 6, storage 942 730 on 5, fit-out 3 017 177.4
on 15) and 1 650 862.44 USD opex a year (energy 190 220.16, maintenance 853 455.6,
insurance 34 200.68, staff 572 986); capital charge at 8 % (CRF = r(1 + r)^L ÷
((1 + r)^L − 1), Brealey, Myers & Allen ch. 6): 6 296 544 × 0.2504565 + 1 143 775.5 ×
0.2163154 + 942 730 × 0.2504565 + 3 017 177.4 × 0.1168295 = 1 577 010.1 + 247 416.2
+ 236 112.8 + 352 495.5 = 2 413 034.6 a year; own cost 2 413 034.6 + 1 650 862.44
= 4 063 897.0 USD a year; 70 % utilisation, 90 % goodput, 838 857.6 useful GPU-hours,
4 063 897.0 ÷ 838 857.6 = 4.84456 USD a useful GPU-hour.
"""

import math

import pytest

import hubplan
from hubplan.cli import main
from hubplan.core.errors import CatalogError
from hubplan.cost.model import capital_charge_usd_per_year
from hubplan.export import headline_figures as export_headline
from hubplan.views.overview import headline_figures, headline_text

# owning a year: capital charge 2 413 034.6 + opex 1 650 862.44 (worked above)
OWN_USD = 4_063_897.0

HEADER = (
    "name,provider,accelerator,pricing,region,price_per_gpu_hour,currency,usd_per_unit,"
    "fx_date,usd_per_gpu_hour,term_months,price_date,source,as_of,confidence,notes\n"
)


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
    path = _csv(
        tmp_path,
        "Quote H100,Some cloud,H100,reserved,cn-north,28.80,CNY,0.1389,"
        "2026-11-30,,36,2026-11,client quote,2026-12,low,",
    )
    offers = hubplan.load_catalog(cloud=path).cloud_offers.set_index("name")
    assert offers.loc["Quote H100", "usd_per_gpu_hour"] == pytest.approx(4.00032)
    assert offers.loc["Quote H100", "accelerator"] == "H100 SXM5 80GB"  # alias resolved
    assert offers.loc["Quote H100", "term_months"] == 36


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "X,P,H999,on_demand,,2,USD,,,,,2026,s,2026,low,",
            r"line 2, column accelerator: 'H999' is not in the accelerator catalogue",
        ),
        (
            "X,P,H100,on_demand,,28.8,CNY,,,,,2026,s,2026,low,",
            r"line 2, column usd_per_unit: a CNY price needs the exchange rate",
        ),
        (
            "X,P,H100,on_demand,,2,USD,,,2.5,,2026,s,2026,low,",
            r"column usd_per_gpu_hour: 2.5 but price_per_gpu_hour x usd_per_unit = 2 x 1",
        ),
        (
            "X,P,H100,on_demand,,2,USD,,,,12,2026,s,2026,low,",
            r"column term_months: an on_demand offer has no term",
        ),
        (
            "X,P,H100,spot,,2,USD,,,,,2026,s,2026,low,",
            r"column pricing: 'spot' is not one of capacity_block, on_demand, reserved",
        ),
        (
            "X,P,H100,on_demand,,2,EUR,,,,,2026,s,2026,low,",
            r"column currency: 'EUR' is not one of CNY, USD",
        ),
        (
            "X,P,H100,on_demand,,2,USD,,,,,last year,s,2026,low,",
            r"column price_date: 'last year' is not a date",
        ),
        (
            "X,P,H100,on_demand,,0,USD,,,,,2026,s,2026,low,",
            r"column price_per_gpu_hour: 0 must be above 0",
        ),
    ],
)
def test_a_bad_offer_names_file_line_and_column(tmp_path, row, message):
    path = _csv(tmp_path, row)
    with pytest.raises(CatalogError, match=message) as err:
        hubplan.load_catalog(cloud=path)
    assert str(path) in str(err.value)


def test_the_plan_uses_the_catalogues_offers(tmp_path, default):
    # a user's offer under 3.99 becomes the one compared against: 152 × 8 760 × 0.7
    # × 2.00 = 1 864 128 USD a year
    path = _csv(
        tmp_path,
        "Own quote H100,Broker,H100 SXM5 80GB,on_demand,,2.00,USD,,,,,"
        "2026-11,broker quote,2026-12,low,",
    )
    plan = hubplan.build_plan(default, hubplan.load_catalog(cloud=path))
    s = plan["cost_summary"].iloc[0]
    assert s["cloud_offer"] == "Own quote H100"
    assert s["cloud_usd_per_year"] == pytest.approx(1_864_128.0)


def test_catalog_cloud_listing_and_flag(capsys, tmp_path):
    main(["catalog", "cloud"])
    out = capsys.readouterr().out
    assert "Lambda H100 SXM on-demand" in out and "AWS p5 1-year reserved" in out
    path = _csv(
        tmp_path,
        "Own quote H100,Broker,H100,on_demand,,2.00,USD,,,,,2026-11,broker quote,2026-12,low,",
    )
    assert main(["catalog", "cloud", "--cloud-csv", str(path)]) == 0
    assert "Own quote H100" in capsys.readouterr().out


# -- like for like ---------------------------------------------------------------------


def test_reserved_capacity_is_compared_by_total_cost_over_its_term(default):
    plan = hubplan.build_plan(default.with_changes({"cost.cloud_offer": "AWS p5 1-year reserved"}))
    s = plan["cost_summary"].iloc[0]
    assert s["cloud_basis"] == "term_total"
    # paid whether used or not: no break-even utilisation
    assert math.isnan(s["breakeven_utilisation"])
    # over its 12-month term: 152 × 8 760 × 6.50 = 8 654 880 USD, owning 4 063 897.0 (a
    # year's capital charge and opex, worked above)
    assert s["cloud_term_years"] == 1.0
    assert s["cloud_term_usd"] == pytest.approx(8_654_880.0)
    assert s["own_term_usd"] == pytest.approx(OWN_USD, abs=0.1)
    # per useful GPU-hour: 6.50 / (0.7 × 0.9) = 10.3175 against owning's 4.84456
    assert s["cloud_usd_per_useful_gpu_hour"] == pytest.approx(10.3175, abs=1e-4)
    assert "cloud_cheaper_over_term" not in set(plan.findings["code"])
    cheap = hubplan.build_plan(
        default.with_changes(
            {"cost.cloud_offer": "AWS p5 1-year reserved", "cost.cloud_usd_per_gpu_hour": 1.0}
        )
    )
    # at $1.00: 152 × 8 760 × 1.00 = 1 331 520 USD a year, under owning's 4 063 897.0
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
    assert {"fitout_usd_per_kw", "staff_cost", "discount_rate", "maintenance"} <= set(t.index)
    # fit-out at $15 000 instead of $11 700 a kW: 3 300 × 257.8784 kW = 850 998.7 USD more
    # capex, annuitised over the fit-out's 15 years at 8 %: CRF 0.08 / (1 − 1.08^−15)
    # = 0.116830 → 99 421.8 a year, and insured at 0.3 % → 2 553.0 a year; 101 974.8
    # ÷ 838 857.6 useful GPU-hours = 0.12156
    fit = t.loc["fitout_usd_per_kw"]
    assert fit["at_high"] - fit["base"] == pytest.approx(0.12156, abs=1e-5)
    # staff at 1.5 ×: 286 493 USD a year more ÷ 838 857.6 = 0.34153
    st = t.loc["staff_cost"]
    assert st["at_high"] - st["base"] == pytest.approx(0.34153, abs=1e-5)
    # capital at 12 % instead of 8 %, each class on its life (Brealey, Myers & Allen ch. 6):
    # servers 6 296 544 × (CRF(12 %, 5) 0.277410 − CRF(8 %, 5) 0.250456) = 169 712.5,
    # network 1 143 775.5 × (CRF(12 %, 6) 0.243226 − CRF(8 %, 6) 0.216315) = 30 779.4,
    # storage 942 730 × (0.277410 − 0.250456) = 25 409.7, fit-out 3 017 177.4 ×
    # (CRF(12 %, 15) 0.146824 − CRF(8 %, 15) 0.116830) = 90 499.3; 316 400.9 a year more
    # ÷ 838 857.6 = 0.37718
    cap = t.loc["discount_rate"]
    assert cap["base_value"] == 0.08
    assert cap["at_high"] - cap["base"] == pytest.approx(0.37718, abs=1e-4)
    # hardware maintenance from 10 % to 20 % a year against the section's 12 % (factors
    # 0.83-1.67: Library Technology Guides' 10-12 %, supercluster.blog's ~20 % for DGX
    # support): the 853 455.6 USD a year (12 % of 7 112 130, tests/test_cost_cashflow.py)
    # × 0.67 = 571 815.3 more ÷ 838 857.6 = 0.68166; × 0.17 = 145 087.5 less = 0.17296
    m = t.loc["maintenance"]
    assert (m["low_value"], m["high_value"]) == (0.83, 1.67)
    assert m["at_high"] - m["base"] == pytest.approx(0.68166, abs=1e-5)
    assert m["base"] - m["at_low"] == pytest.approx(0.17296, abs=1e-5)


def test_headline_range_and_the_chance_owning_wins(default, plan):
    s = plan["cost_summary"].iloc[0]
    mc = plan["cost_monte_carlo"].set_index("metric").loc["cost_per_useful_gpu_hour_usd"]
    assert (
        s["cost_per_useful_gpu_hour_p10_usd"],
        s["cost_per_useful_gpu_hour_p50_usd"],
        s["cost_per_useful_gpu_hour_p90_usd"],
    ) == (mc["p10"], mc["p50"], mc["p90"])
    assert 0 < s["own_beats_cloud_probability"] <= 1
    # Only utilisation varying against Hyperstack's $3.20 on demand (the cheapest H100
    # SXM, data/cloud.csv): owning wins when u > 4 063 897.0 / (152 × 8 760 × 3.20
    # = 4 260 864) = 0.95377. Over the default range, triangular(0.3, 0.7, 0.8), u never
    # gets there: owning wins in no draw.
    only_u = [{"name": "utilisation", "low": 0.3, "high": 0.8}]
    one = hubplan.build_plan(default.with_changes({"cost.ranges": only_u}))
    assert one["cost_summary"].iloc[0]["own_beats_cloud_probability"] == 0.0
    # Up to full use, triangular(0.3, 0.7, 1.0): above the mode the CDF is
    # 1 − (1 − u)² / ((1.0 − 0.3)(1.0 − 0.7)), so P(u > 0.95377) = 0.04623² / 0.21
    # = 0.01018 (one standard error at 10 000 draws √(0.0102 × 0.9898 / 10 000) = 0.10 %:
    # held to three)
    up_to_1 = [{"name": "utilisation", "low": 0.3, "high": 1.0}]
    one = hubplan.build_plan(default.with_changes({"cost.ranges": up_to_1}))
    u = one["cost_summary"].iloc[0]
    assert u["own_beats_cloud_probability"] == pytest.approx(0.01018, abs=0.003)
    # and its median cost is the cost at the median u (below the mode, as the CDF there
    # is 0.4 / 0.7 = 0.571 > 0.5): 0.3 + √(0.5 × 0.7 × 0.4) = 0.67417;
    # 4 063 897.0 / (152 × 8 760 × 0.67417 × 0.9 = 807 898.6) = 5.0302
    assert u["cost_per_useful_gpu_hour_p50_usd"] == pytest.approx(5.0302, rel=0.01)


def test_cost_panel_shows_the_range(plan):
    from hubplan.views import CostPanel

    p = CostPanel()
    s = plan["cost_summary"].iloc[0]
    shown = (
        f"P10 / P50 / P90: {s['cost_per_useful_gpu_hour_p10_usd']:.2f} / "
        f"{s['cost_per_useful_gpu_hour_p50_usd']:.2f} / "
        f"{s['cost_per_useful_gpu_hour_p90_usd']:.2f} USD"
    )
    assert shown in p.summary.value
    assert f"owning beats renting in {s['own_beats_cloud_probability']:.0%}" in p.summary.value
    p.language.value = "zh"
    assert "自建优于租用的样本占" in p.summary.value


def test_cli_compare_says_no_offer(capsys, tmp_path):
    # the default plan against the same plan on L4 cards: the L4 column says there is no
    # offer to compare, the H100 one the break-even month: the capex 11 400 226.9 over
    # what renting at Hyperstack's $3.20 (152 × 8 760 × 0.7 × 3.20 = 2 982 604.8 a year)
    # saves on the opex 1 650 862.44: 12 × 11 400 226.9 / 1 331 742.36 = 102.7 months
    path = hubplan.default_scenario().save(tmp_path / "client.yaml")
    sets = [
        a
        for pool in ("training", "inference", "development")
        for a in (
            "--set",
            f"pools.{pool}.accelerator=L4 24GB",
            "--set",
            f"pools.{pool}.server=null",
        )
    ]
    # exit 1: the 70B fine-tune does not fit a 24 GB card (an error finding), but the
    # table is printed
    assert main(["compare", str(path), *sets]) == 1
    row = next(
        line for line in capsys.readouterr().out.splitlines() if line.startswith("Break-even month")
    )
    assert "102.7" in row and row.endswith("no offer to compare")
