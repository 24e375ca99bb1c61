"""The priced equipment list (``cost_equipment``): every equipment-list row with its unit and
extended price from the capex lines, the bill-only lines after them; the extended prices
sum to the priced capex and an unpriced row is marked, never 0."""

import math

import pandas as pd
import pytest

import hubplan
from hubplan.cost.equipment import priced_equipment, priced_equipment_total


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


def test_default_plan_extended_prices_sum_to_the_priced_capex(plan):
    eq = plan["cost_equipment"]
    lst = plan["equipment_list"]
    # every equipment-list row, in order, then the bill's own lines
    assert eq["model"].tolist()[: len(lst)] == lst["model"].tolist()
    assert (eq["type"].iloc[len(lst) :] == "bill_only").all()
    rows = eq.set_index("model")
    # 20 DGX H100 (18 training + 2 inference) × US$270 000 (SemiAnalysis via Epoch AI,
    # data/servers.csv) = US$5 400 000
    assert rows.loc["DGX H100", "quantity"] == 20
    assert rows.loc["DGX H100", "unit_price_usd"] == 270_000
    assert rows.loc["DGX H100", "extended_price_usd"] == 5_400_000
    assert "SemiAnalysis" in rows.loc["DGX H100", "price_source"]
    # the fit-out: 257.878 kW of nameplate IT load (the facility tests' 257.88 kW) ×
    # US$11 700 per kW (Cushman & Wakefield 2025) = US$3 017 177.39
    fit = rows.loc["facility_fitout"]
    assert fit["extended_price_usd"] == pytest.approx(3_017_177.39, abs=0.01)
    # every line priced now (data/prices.csv): 5 400 000 + 88 400 (the L40S development
    # server) + storage 2 OSS × 184 320 + 2 MDS × 36 998 + 6 HDD nodes × 83 349 = 942 730
    # + network 13 QM9700 × 36 000 + 4 UFM × 34 000 + SN4600C 16 000 + 2 SN2201 × 5 000 =
    # 630 000 + optics 486 400G modules × 750 + 456 400G cables × 100 + 142 100G modules ×
    # 310 + 74 100G cables × 35 + 52 RJ45 × 50 = 459 310 + 3 management servers × 17 000
    # = 51 000 + spares 5 % × (630 000 + 459 310) = 54 465.5 + installation 10 % of the
    # 7 571 440 of hardware = 757 144 + fit-out 3 017 177.39 = US$11 400 226.89, the
    # summary's capex
    total, unpriced = priced_equipment_total(eq)
    assert total == pytest.approx(
        5_400_000
        + 88_400
        + 942_730
        + 630_000
        + 459_310
        + 51_000
        + 54_465.5
        + 757_144
        + 3_017_177.39,
        abs=0.01,
    )
    assert total == pytest.approx(plan["cost_summary"]["capex_usd"].iloc[0], abs=0.005)
    # no row unpriced (issue 22: 18 were), each with its unit price, date and confidence
    assert unpriced == 0 and eq["priced"].all()
    assert rows.loc["QM9700", "priced"] and rows.loc["SN4600C", "priced"]
    ufm = rows.loc["UFM Enterprise Appliance 3.1"]
    assert ufm["quantity"] == 4 and ufm["category"] == "network"  # not listed twice
    # the two UFM lines (compute 2 + storage 2) meet one row: 4 × 34 000 = 136 000, an
    # estimate (data/prices.csv: the $17 000 1U server hardware × 2 for the software)
    assert (ufm["unit_price_usd"], ufm["extended_price_usd"]) == (34_000, 136_000)
    assert ufm["price_confidence"] == "estimate" and ufm["price_as_of"] == "2025-04"
    mgmt = rows.loc["1U management server"]
    assert (mgmt["extended_price_usd"], mgmt["price_confidence"]) == (51_000, "medium")
    # a NIC inside a server is in the server's price: 0 with its basis, not a gap
    nic = eq[eq["type"] == "nic"]
    assert (nic["price_basis"] == "included_in_server").all() and nic["priced"].all()
    assert (nic["extended_price_usd"] == 0).all()


EQ = pd.DataFrame(
    {
        "type": ["gpu_server", "switch", "switch", "management_server", "nic"],
        "model": ["HGX X", "QM9700", "QM9790", "1U mgmt", "NIC 400"],
        "quantity": [4, 3, 2, 1, 32],
    }
)
CX = pd.DataFrame(
    {
        "category": ["gpu_servers", "network", "network", "network", "optics", "installation"],
        "item": [
            "train: HGX X",
            "leaf QM9700",
            "spine QM9700",
            "leaf QM9790",
            "DR4 module",
            "installation",
        ],
        "line_quantity": [4.0, 2.0, 1.0, 2.0, 10.0, 1_026_000.0],
        "line_unit": ["server", "unit", "unit", "unit", "module", "share"],
        "line_unit_usd": [250_000.0, 25_000.0, 25_000.0, math.nan, 800.0, 0.02],
        "capex_usd": [1_000_000.0, 50_000.0, 25_000.0, math.nan, 8_000.0, 20_520.0],
        "price_basis": [
            "catalogue_server",
            "catalogue_switches",
            "catalogue_switches",
            "none",
            "section_optics_prices",
            "section_installation_share",
        ],
        "price_source": ["vendor", "list", "list", "", "quote", ""],
        "priced": [True, True, True, False, True, True],
        "price_as_of": ["2025-01", "2024-06", "2024-06", "", "2025-03", ""],
    }
)


def test_lines_meet_their_rows_and_the_bill_only_lines_follow():
    t, findings = priced_equipment(EQ, CX)
    assert not findings
    rows = t.set_index("model")
    # two QM9700 lines (leaf 2 + spine 1) buy the 3 switches: 3 × 25 000 = 75 000
    assert rows.loc["QM9700", "extended_price_usd"] == 75_000
    assert rows.loc["QM9700", "unit_price_usd"] == 25_000
    assert rows.loc["QM9700", "price_as_of"] == "2024-06"
    # the QM9790 line is unpriced: the row is marked, empty, not 0
    assert not rows.loc["QM9790", "priced"] and math.isnan(rows.loc["QM9790", "extended_price_usd"])
    # no capex line buys the management server: unpriced with that reason
    assert rows.loc["1U mgmt", "price_basis"] == "no_capex_line"
    # the bill-only lines: the optics at 10 × 800; installation, a 2 % share of
    # 1 026 000, as one lot of 20 520
    assert rows.loc["DR4 module", "extended_price_usd"] == 8_000
    assert rows.loc["installation", "quantity"] == 1
    assert rows.loc["installation", "unit_price_usd"] == 20_520
    # priced: 1 000 000 + 75 000 + 8 000 + 20 520 = 1 103 520, the priced capex
    assert priced_equipment_total(t) == (1_103_520.0, 2)


def test_a_row_the_bill_counts_differently_is_a_finding():
    _, findings = priced_equipment(EQ.assign(quantity=[5, 3, 2, 1, 32]), CX)
    assert [f.code for f in findings] == ["equipment_quantity_mismatch"]
    assert findings[0].params["equipment"] == 5 and findings[0].params["capex"] == 4
    assert findings[0].message() == "The equipment list has 5 × HGX X, the capex lines buy 4."
