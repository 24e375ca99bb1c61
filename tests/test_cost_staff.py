"""Staff by role sized from the plan (cost.staff_ratios), worked by hand on the default
plan: 19 GPU servers in service (18 DGX H100 + 1 L40S server, spares out), 12 racks and
257.8784 kW of critical IT load (tests/test_cost.py, README)."""

import pytest

import hubplan
from hubplan.cost import StaffRatio


def _staff(changes):
    plan = hubplan.build_plan(hubplan.default_scenario().with_changes(changes))
    opex = plan["cost_opex"]
    return opex[opex["category"] == "staff"].set_index("item")


def test_default_team_scales_with_the_plan():
    staff = _staff({})
    # systems operations: 19 servers ÷ 125 = 0.152 → the 1-FTE minimum (Roskies &
    # Zacharia 2006: one systems FTE per ~250 processors, two a server)
    assert staff.loc["systems_operations", "line_quantity"] == 1
    # an own building keeps two people on every shift: 2 × 8 760 h ÷ 2 080 h = 8.42 FTE
    assert staff.loc["facility_shift", "line_quantity"] == pytest.approx(8.42)
    big = hubplan.build_plan(hubplan.load_scenario("templates/scenarios/pretrain-16k.yaml"))
    opex = big["cost_opex"].set_index("item")
    # 2 048 GPU servers in service ÷ 125 = 16.384 FTE × $90 520 = $1 483 079.68
    assert opex.loc["systems_operations", "line_quantity"] == pytest.approx(16.384)
    assert opex.loc["systems_operations", "usd_per_year"] == pytest.approx(1_483_079.68)


def test_colocation_has_no_facility_shift():
    staff = _staff({"cost.site": "colocation"})
    # the provider runs power and cooling: only systems operations, 1 × $90 520
    assert staff.index.tolist() == ["systems_operations"]
    assert staff["usd_per_year"].sum() == pytest.approx(90_520)


def test_racks_and_mw_bases():
    ratios = [
        StaffRatio(role="remote_hands", basis="racks", units_per_fte=4, usd_per_year=50_000),
        StaffRatio(role="electrical", basis="mw", units_per_fte=0.1, usd_per_year=60_000),
    ]
    staff = _staff({"cost.staff_ratios": [r.model_dump() for r in ratios]})
    # 12 racks ÷ 4 = 3 FTE × $50 000 = $150 000
    assert staff.loc["remote_hands", "line_quantity"] == pytest.approx(3)
    assert staff.loc["remote_hands", "usd_per_year"] == pytest.approx(150_000)
    # 0.2578784 MW ÷ 0.1 = 2.578784 FTE × $60 000 = $154 727.04
    assert staff.loc["electrical", "usd_per_year"] == pytest.approx(154_727.04, abs=0.01)


def test_a_listed_team_replaces_the_ratios():
    staff = _staff({"cost.staff": [{"role": "ops", "headcount": 3, "usd_per_year": 70_000}]})
    assert staff.index.tolist() == ["ops"]
    assert staff.loc["ops", "usd_per_year"] == pytest.approx(210_000)
