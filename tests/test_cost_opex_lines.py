"""Opex lines a finance reviewer asks about: colocation rent in CNY, insurance on the
capex but not on its taxes, maintenance on the systems a contract covers."""

import pytest

import hubplan

# The default plan's critical IT load: 257.8784 kW (tests/test_cost.py, fit-out line).
CRITICAL_KW = 257.8784


def opex(changes):
    plan = hubplan.build_plan(hubplan.default_scenario().with_changes(changes))
    return plan, plan["cost_opex"].set_index("item")


def test_colocation_rent_in_cny_is_the_chinese_rate():
    # 257.8784 kW × 1 300 CNY per kW a month × 12 = 4 022 903.0 CNY (vidaamax 2023: the
    # national average cabinet rent, about 1 300 CNY per kW a month)
    _, o = opex({"cost.site": "colocation", "cost.currency": "CNY"})
    rent = o.loc["colocation"]
    assert rent["cost_basis"] == "section_colocation_cny_per_kw_month"
    assert rent["cny_per_year"] == pytest.approx(CRITICAL_KW * 1300 * 12, abs=1)
    # in USD the CBRE rate: 257.8784 × 163.44 × 12 = 505 771.8 USD
    _, o = opex({"cost.site": "colocation"})
    assert o.loc["colocation", "usd_per_year"] == pytest.approx(CRITICAL_KW * 163.44 * 12, abs=1)
    # a colocation provider staffs its own facility: no facility shift
    assert "facility_shift" not in o.index


def test_insurance_is_on_the_capex_not_on_its_taxes():
    # A buyer that cannot recover VAT adds a 13 % taxes line (tests/test_cost_currency.py);
    # insurance stays 0.3 % of the capex before it: 0.003 × 11 400 226.89 = 34 200.68
    plan, o = opex({"cost.vat_recoverable": False})
    capex = plan["cost_capex"]
    assert (capex["category"] == "taxes").any()
    assert o.loc["insurance", "line_quantity"] == pytest.approx(11_400_226.89, abs=0.01)
    assert o.loc["insurance", "usd_per_year"] == pytest.approx(34_200.68, abs=0.01)


def test_maintenance_covers_the_systems_not_optics_spares_installation_or_fit_out():
    # GPU servers 5 488 400 + storage 942 730 + switches and appliances 630 000 +
    # management servers 51 000 = 7 112 130 (tests/test_cost_cashflow.py, line by line);
    # × 0.12 = 853 455.6
    _, o = opex({})
    assert o.loc["maintenance", "line_quantity"] == pytest.approx(7_112_130)
    assert o.loc["maintenance", "usd_per_year"] == pytest.approx(853_455.6)
