"""The cost card's sentence as the room reads it: a complete bill shows its range, and the
comparison says whether owning breaks even inside the horizon, only beyond it, or never."""

import pytest

import hubplan
from hubplan.views import CostPanel

# The default plan (tests/test_cost.py, worked by hand): capex 11 400 226.89 USD (8 240 751
# to 14 422 179 over the price ranges), owning 4 063 897.04 USD a year, opex
# 1 650 862.44 USD a year, 152 GPUs at 70 % utilisation.
OWN, CAPEX, OPEX, GPU_HOURS = 4_063_897.04, 11_400_226.89, 1_650_862.44, 152 * 8760


def card(changes=None, lang="en"):
    scenario = hubplan.default_scenario().with_changes(changes or {})
    return CostPanel(scenario, lang=lang).summary.value


def test_complete_bill_shows_its_range_not_excluded_lines():
    text = card()
    assert "Capex 11,400,227 USD (8,240,751 to 14,422,179 over the price ranges)" in text
    assert "excluding" not in text and "floor" not in text


def test_renting_cheaper_over_the_horizon_is_said_so():
    # Owning equals renting at Hyperstack's $3.20 when 4 063 897.04 = 152 × 8 760 × u ×
    # 3.20: u = 0.9538, above the plan's 0.70: no break-even inside five years.
    assert round(OWN / (GPU_HOURS * 3.20), 4) == 0.9538
    text = card()
    assert "renting stays cheaper over the 5-year horizon (owning wins only above 95%" in text
    assert "breaks even in month" not in text
    assert "5 年规划期内租用更便宜" in card(lang="zh")


def test_break_even_inside_the_horizon():
    # At $6 an hour: renting costs 152 × 8 760 × 0.7 × 6 = 5 592 384 USD a year; owning
    # saves (5 592 384 − 1 650 862.44) ÷ 12 = 328 460.13 a month → month 11 400 226.89 ÷
    # 328 460.13 = 34.7; utilisation 4 063 897.04 ÷ (152 × 8 760 × 6) = 51 %.
    saving = (GPU_HOURS * 0.7 * 6 - OPEX) / 12
    assert round(CAPEX / saving, 1) == pytest.approx(34.7)
    text = card({"cost.cloud_usd_per_gpu_hour": 6.0})
    assert "owning breaks even in month 34.7, or above 51% utilisation" in text


def test_renting_cheaper_even_at_full_utilisation():
    # At $1 an hour owning needs 4 063 897.04 ÷ (152 × 8 760 × 1) = 305 % utilisation.
    assert OWN / GPU_HOURS > 3
    text = card({"cost.cloud_usd_per_gpu_hour": 1.0})
    assert "renting stays cheaper even at full utilisation" in text


def test_cost_breakdown_keeps_colours_across_languages_and_labels_the_legend():
    from hubplan.views.cost import cost_breakdown

    plan = hubplan.build_plan(hubplan.default_scenario())
    specs = {
        lang: cost_breakdown(plan["cost_capex"], plan["cost_opex"], lang).to_dict()
        for lang in ("en", "zh")
    }
    colours = {lang: s["encoding"]["color"] for lang, s in specs.items()}
    # the same codes in the same order in both languages, so a switch keeps every colour
    assert colours["en"]["scale"]["domain"] == colours["zh"]["scale"]["domain"]
    assert "gpu_servers" in colours["en"]["scale"]["domain"]
    # the legend shows the language's label (core/cost labels.csv), not the code
    assert '"gpu_servers": "GPU server"' in colours["en"]["legend"]["labelExpr"]
    assert '"gpu_servers": "GPU 服务器"' in colours["zh"]["legend"]["labelExpr"]
    assert '"insurance": "保险"' in colours["zh"]["legend"]["labelExpr"]


def test_chinese_cost_tables_show_no_raw_basis_or_confidence_codes():
    from hubplan.core.labels import display_frame

    plan = hubplan.build_plan(hubplan.default_scenario())
    capex = display_frame(plan["cost_capex"], "zh")
    opex = display_frame(plan["cost_opex"], "zh")
    shown = set(capex["价格依据"]) | set(capex["价格可信度"]) | set(capex["单位"])
    shown |= set(opex["成本依据"]) | set(opex["单位"])
    # every code the default plan uses has a 中文 label (cost labels.csv): 服务器目录 for
    # catalogue_server, 估算 for estimate, 台 for a server, 维保比例 for the maintenance share
    assert {"服务器目录", "价格目录", "估算", "低", "台", "维保比例", "按岗位人员"} <= shown
    codes = {
        "catalogue_server",
        "catalogue_prices",
        "estimate",
        "low",
        "server",
        "section_maintenance_share",
        "section_staff",
        "facility_power",
    }
    assert not codes & shown
