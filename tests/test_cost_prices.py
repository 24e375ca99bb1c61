"""The price catalogue (data/prices.csv), the client's quotes and the capex range: low /
point / high, withheld while a line is unpriced, with hand-worked totals."""

import pandas as pd
import pytest
from pydantic import ValidationError

import hubplan
from hubplan.core.errors import CatalogError
from hubplan.cost import Quote
from hubplan.cost.prices import PRICE_SCHEMA, check_prices, price_table

# Illustrative quotes (round figures, not market prices) for the default plan's lines that
# data/prices.csv prices only as estimates or derived parts sums (storage nodes, UFM,
# Ethernet switches, cables, 100G modules, management servers), and 5 % installation: a
# bill whose quoted lines carry no range, to check the arithmetic of quotes and ranges on.
QUOTES = [
    {"kind": "storage", "name": "Lustre MDS NVMe mirrored 2x400G", "price_usd": 30_000},
    {"kind": "storage", "name": "HDD capacity node 60x24TB 2x100G", "price_usd": 40_000},
    {"kind": "switch", "name": "UFM Enterprise Appliance 3.1", "price_usd": 10_000},
    {"kind": "switch", "name": "SN4600C", "price_usd": 20_000},
    {"kind": "switch", "name": "SN2201", "price_usd": 5_000},
    {"kind": "optics_cable", "name": "transceiver-SR4 400 cable", "price_usd": 100},
    {"kind": "optics_cable", "name": "transceiver-DR4 400 cable", "price_usd": 100},
    {"kind": "optics_cable", "name": "transceiver-DR4 100 cable", "price_usd": 50},
    {"kind": "optics_cable", "name": "RJ45 1 cable", "price_usd": 10},
    {"kind": "optics_module", "name": "transceiver-DR4 100 module", "price_usd": 200},
    {"kind": "server", "name": "1U management server", "price_usd": 10_000},
]
QUOTES = [{**q, "source": "test quote", "as_of": "2026-12"} for q in QUOTES]


@pytest.fixture(scope="module")
def quoted():
    s = hubplan.default_scenario().with_changes(
        {"cost.quotes": QUOTES, "cost.installation_share": 0.05}
    )
    return hubplan.build_plan(s)


def test_shipped_price_table_holds_its_ranges():
    t = price_table()
    assert (t["price_low"] <= t["price"]).all()
    assert (t["price"] <= t["price_high"]).all()
    assert set(t["currency"]) <= {"USD", "CNY"}
    assert t["price_source"].str.len().gt(30).all() and t["price_as_of"].str.len().ge(4).all()


def _row(**changes):
    row = {
        "item_kind": "switch",
        "name": "X",
        "unit": "switch",
        "currency": "USD",
        "price": 5.0,
        "price_low": 4.0,
        "price_high": 7.0,
        "price_source": "s",
        "price_as_of": "2024",
        "confidence": "low",
        "notes": "",
    }
    return {**row, **changes}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([_row(price_low=6.0)], "line 2, column price_low: 6 is above price (5)"),
        ([_row(price_high=4.0)], "line 2, column price_high: 4 is below price (5)"),
        ([_row(currency="EUR")], "line 2, column currency: 'EUR' is not one of USD, CNY"),
        ([_row(item_kind="router")], "line 2, column item_kind: 'router' is not one of server"),
        ([_row(), _row(name="x")], "line 3, column name: 'x' is priced twice as switch"),
    ],
)
def test_bad_price_rows_name_the_line_and_column(rows, message):
    assert set(rows[0]) == set(PRICE_SCHEMA)
    with pytest.raises(CatalogError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_prices(pd.DataFrame(rows))


def test_quote_outside_its_range_is_refused():
    with pytest.raises(ValidationError, match=r"low \(9\) <= price_usd \(5\)"):
        Quote(kind="switch", name="X", price_usd=5, low_usd=9, source="s", as_of="2026")


def test_default_plan_with_quotes_is_complete_and_carries_its_range(quoted):
    s = quoted["cost_summary"].iloc[0]
    capex = quoted["cost_capex"]
    assert s["capex_unpriced_lines"] == 0 and capex["priced"].all()
    # Hardware: servers 5 488 400; storage 368 640 (2 OSS) + 2 MDS × 30 000 + 6 HDD nodes
    # × 40 000 = 668 640; network 13 QM9700 × 36 000 + 4 UFM × 10 000 + 20 000 + 2 × 5 000
    # = 538 000; optics 486 × 750 (400G modules) + 148 + 256 + 52 = 456 400G cables × 100
    # + 74 100G cables × 50 + 52 RJ45 × 10 + 142 100G modules × 200 = 364 500 + 45 600
    # + 3 700 + 520 + 28 400 = 442 720; 3 management servers × 10 000 = 30 000 → 7 167 760.
    # Spares 5 % of network + optics (980 720) = 49 036; installation 5 % of the hardware
    # = 358 388; fit-out 3 017 177.4 (test_cost.py) → 10 592 361.4
    assert s["capex_point_usd"] == pytest.approx(10_592_361.4, abs=1)
    assert s["capex_usd"] == pytest.approx(s["capex_point_usd"])
    # Low (data/prices.csv low ends; a quote has no range, so its point is both ends):
    # servers 20 × 199 000 + 88 400 × 0.74 = 4 045 416; storage 2 × 66 223 (the OSS parts
    # sum) + 300 000 = 432 446; network 13 × 21 000 (QM9700, ITCT Shop 2025) + 70 000 =
    # 343 000; optics 486 × 500 + 78 220 = 321 220; management 30 000 → 5 172 082; spares
    # 5 % × (343 000 + 321 220) = 33 211; installation 5 % × 5 172 082 = 258 604.1;
    # fit-out 257.8784 kW × 9 300 = 2 398 269.1 → 7 862 166.2
    assert s["capex_low_usd"] == pytest.approx(7_862_166.2, abs=1)
    # High: 20 × 317 000 + 88 400 × 1.17 = 6 443 428; 2 × 230 400 + 300 000; 13 × 50 000
    # + 70 000; 486 × 1 000 + 78 220; 30 000 → 8 518 448; spares 5 % × 1 284 220 = 64 211;
    # installation 5 % × 8 518 448 = 425 922.4; fit-out 257.8784 × 15 000 = 3 868 176
    # → 12 876 757.4
    assert s["capex_high_usd"] == pytest.approx(12_876_757.4, abs=1)
    ufm = capex[capex["item"] == "compute ufm UFM Enterprise Appliance 3.1"].iloc[0]
    assert ufm["price_basis"] == "section_quotes" and ufm["price_source"] == "quote: test quote"
    assert ufm["price_as_of"] == "2026-12"
    codes = set(quoted.findings["code"])
    assert "capex_unpriced" not in codes and "capex_excludes_unpriced" not in codes
    assert "capex_point_withheld" not in codes


def test_default_plan_is_a_complete_bill_with_its_range():
    plan = hubplan.build_plan(hubplan.default_scenario())
    s, capex = plan["cost_summary"].iloc[0], plan["cost_capex"]
    # Every line priced, each with its source, date, range and confidence (issue 22: the
    # default plan had 18 unpriced capex lines and withheld its point).
    assert s["capex_unpriced_lines"] == 0 and s["opex_unpriced_lines"] == 0
    assert capex["priced"].all() and capex["capex_usd"].notna().all()
    assert (capex["capex_low_usd"] <= capex["capex_usd"]).all()
    assert (capex["capex_usd"] <= capex["capex_high_usd"]).all()
    catalogue = capex[capex["price_basis"] == "catalogue_prices"]
    assert (catalogue["price_source"].str.len() > 30).all()
    assert catalogue["price_as_of"].str.len().ge(4).all()
    assert set(capex["price_confidence"]) <= {"medium", "low", "estimate", "section"}
    # Point, by hand from data/prices.csv and the bill's counts: servers 20 DGX H100 ×
    # 270 000 + the L40S development server 88 400 = 5 488 400; storage 2 OSS × 184 320 +
    # 2 MDS × 36 998 + 6 HDD nodes × 83 349 = 942 730; network 13 QM9700 × 36 000 + 4 UFM
    # × 34 000 + 1 SN4600C × 16 000 + 2 SN2201 × 5 000 = 630 000; optics 486 400G modules
    # × 750 + 456 400G cables × 100 + 142 100G modules × 310 + 74 100G cables × 35 + 52
    # RJ45 × 50 = 459 310; 3 management servers × 17 000 = 51 000 → hardware 7 571 440.
    # Spares 5 % × (630 000 + 459 310) = 54 465.5; installation 10 % × 7 571 440 =
    # 757 144; fit-out 257.8784 kW × 11 700 = 3 017 177.4 → 11 400 226.9
    assert s["capex_point_usd"] == pytest.approx(11_400_226.9, abs=1)
    assert s["capex_usd"] == pytest.approx(s["capex_point_usd"])
    # Low: 20 × 199 000 + 88 400 × 0.74 = 4 045 416; 2 × 66 223 + 2 × 33 998 + 6 × 61 070
    # = 566 862; 13 × 21 000 + 4 × 17 000 + 8 000 + 2 × 2 000 = 353 000; 486 × 500 + 456 ×
    # 50 + 142 × 80 + 74 × 20 + 52 × 50 = 281 240; 3 × 12 000 = 36 000 → 5 282 518;
    # spares 5 % × 634 240 = 31 712; installation 528 251.8; fit-out 257.8784 × 9 300 =
    # 2 398 269.1 → 8 240 750.9
    assert s["capex_low_usd"] == pytest.approx(8_240_750.9, abs=1)
    # High: 20 × 317 000 + 88 400 × 1.17 = 6 443 428; 2 × 230 400 + 2 × 48 376 + 6 ×
    # 110 549 = 1 220 846; 13 × 50 000 + 4 × 85 000 + 32 000 + 2 × 16 000 = 1 054 000;
    # 486 × 1 000 + 456 × 150 + 142 × 1 200 + 74 × 50 + 52 × 69 = 732 088; 3 × 21 000 =
    # 63 000 → 9 513 362; spares 5 % × 1 786 088 = 89 304.4; installation 951 336.2;
    # fit-out 257.8784 × 15 000 = 3 868 176 → 14 422 178.6
    assert s["capex_high_usd"] == pytest.approx(14_422_178.6, abs=1)
    codes = set(plan.findings["code"])
    assert not codes & {"capex_point_withheld", "capex_unpriced", "capex_excludes_unpriced"}


def test_a_line_no_source_prices_withholds_the_point():
    # A management server model neither data/prices.csv nor a quote names: its line is
    # unpriced, and so is installation (10 % of a hardware sum with an unknown in it).
    # Same power and height as the default's, so every other line is the default's.
    s = hubplan.default_scenario().with_changes(
        {"facility.management_server_model": "Acme 2U controller"}
    )
    plan = hubplan.build_plan(s)
    summary = plan["cost_summary"].iloc[0]
    assert summary["capex_unpriced_lines"] == 2
    assert pd.isna(summary["capex_point_usd"]) and pd.isna(summary["capex_high_usd"])
    f = plan.findings[plan.findings["code"] == "capex_point_withheld"]
    # the floor: the default's low 8 240 750.9 (test above) less the management servers'
    # 3 × 12 000 and installation's 528 251.8 = 7 676 499.1
    assert len(f) == 1 and f.iloc[0]["data"]["lines"] == 2
    assert f.iloc[0]["data"]["capex_low_usd"] == pytest.approx(7_676_499.1, abs=1)


def test_a_quote_replaces_the_catalogue_price(quoted):
    quote = {
        "kind": "switch",
        "name": "qm9700",
        "price_usd": 30_000,
        "source": "reseller",
        "as_of": "2026-11",
    }
    s = hubplan.default_scenario().with_changes({"cost.quotes": [quote]})
    capex = hubplan.build_plan(s)["cost_capex"].set_index("item")
    spine = capex.loc["compute spine QM9700"]
    # 4 spines × the quoted 30 000 (not the catalogue's 36 000), no range: 120 000 each end
    assert (spine["capex_low_usd"], spine["capex_usd"], spine["capex_high_usd"]) == (
        120_000,
        120_000,
        120_000,
    )


@pytest.mark.parametrize("pools", [("training", "inference"), ("inference",)])
def test_ascend_and_mixed_plans_are_complete_bills_in_cny_prices(pools):
    # The Atlas 800T A2 is priced in CNY (data/prices.csv, derived from Reuters, early
    # 2024: 8 × 120 000 CNY for the 910B cards + 520 000 CNY host share = 1 480 000 CNY,
    # range 960 000-1 850 000 CNY), converted at the plan's 7.1884 CNY per USD:
    # 1 480 000 / 7.1884 = 205 887.26 USD, 960 000 / 7.1884 = 133 548.49, 1 850 000 /
    # 7.1884 = 257 359.08. An all-Ascend plan and a mixed plan (H100 training, Ascend
    # inference) are complete bills with a point and its range; before, the Ascend lines
    # were unpriced and the point withheld.
    changes = {}
    for pool in pools:
        changes[f"pools.{pool}.accelerator"] = "Ascend 910B 64GB"
        changes[f"pools.{pool}.server"] = "Huawei Atlas 800T A2"
    plan = hubplan.build_plan(hubplan.default_scenario().with_changes(changes))
    capex, s = plan["cost_capex"], plan["cost_summary"].iloc[0]
    ascend = capex[capex["item"].str.endswith("Huawei Atlas 800T A2")]
    assert len(ascend) == len(pools) and ascend["priced"].all()
    assert ascend["line_unit_usd"].to_numpy() == pytest.approx(205_887.26, abs=0.01)
    assert ascend["price_low_usd"].to_numpy() == pytest.approx(133_548.49, abs=0.01)
    assert ascend["price_high_usd"].to_numpy() == pytest.approx(257_359.08, abs=0.01)
    assert ascend["capex_usd"].to_numpy() == pytest.approx(
        ascend["line_quantity"].to_numpy() * 205_887.26, abs=0.01 * 64
    )
    assert set(ascend["price_as_of"]) == {"2024-02"} and set(ascend["price_confidence"]) == {"low"}
    assert ascend["price_source"].str.contains("Reuters").all()
    assert s["capex_unpriced_lines"] == 0 and capex["priced"].all()
    assert s["capex_low_usd"] < s["capex_point_usd"] < s["capex_high_usd"]
    assert s["capex_usd"] == pytest.approx(s["capex_point_usd"])
    assert "capex_point_withheld" not in set(plan.findings["code"])


# The estimate rows of data/prices.csv and the rule each states, worked by hand:
# (point, low, high) in USD.
ESTIMATES = {
    # 100G QSFP28 modules $80-1 200 (Ascent Optics 2026-04): geometric middle
    # sqrt(80 × 1 200) = sqrt(96 000) = 309.8 → 310
    ("optics_module", "transceiver-DR4 100 module"): (310, 80, 1_200),
    ("optics_module", "transceiver-DR4-500m 100 module"): (310, 80, 1_200),
    # 200G: sqrt(310 × 750) = sqrt(232 500) = 482.2 → 482; 100G low to 400G high
    ("optics_module", "transceiver-DR4 200 module"): (482, 80, 1_000),
    ("optics_module", "transceiver-SR4 200 module"): (482, 80, 1_000),
    # 25G: the 100G range / 4 = 20-300; sqrt(20 × 300) = sqrt(6 000) = 77.5 → 78
    ("optics_module", "transceiver-DR4 25 module"): (78, 20, 300),
    # SN4600C at the H3C S9855's USD 16 000 (ITCT Shop 2025-12), half to twice
    ("switch", "SN4600C"): (16_000, 8_000, 32_000),
    # 64 × 400G Ethernet at the QM9700 row's 36 000 / 21 000 / 50 000
    ("switch", "SN5400"): (36_000, 21_000, 50_000),
    ("switch", "Arista 7060DX5-64S"): (36_000, 21_000, 50_000),
    # below the 16 000 data-centre switch (the high end); point and low a judgement
    ("switch", "SN2201"): (5_000, 2_000, 16_000),
    # the 1U server hardware $17 000 (Tufts RT 2025-04) as the floor, × 2, × 5
    ("switch", "UFM Enterprise Appliance 3.1"): (34_000, 17_000, 85_000),
    # £40-55 per installed Cat6 point (NM Cabling 2020) × 1.25 USD/GBP = 50-68.75 → 69
    ("optics_cable", "RJ45 1 cable"): (50, 50, 69),
}


def test_every_estimate_states_its_rule_and_the_default_plan_names_them():
    t = price_table()
    est = t[t["confidence"] == "estimate"]
    # every estimate row says so in its notes and states the rule it is derived by
    rule = r"=|taken at|priced as|as the .* row|converted at|judgement|scaled|interpolat"
    assert est["notes"].str.startswith("ESTIMATE").all(), est["name"].tolist()
    assert est["notes"].str.contains(rule).all()
    assert est["price_source"].str.len().gt(30).all()
    # the figures hold the rule each states
    rows = est.set_index(["item_kind", "name"])
    for key, (point, low, high) in ESTIMATES.items():
        assert tuple(rows.loc[key, ["price", "price_low", "price_high"]]) == (point, low, high)
    # The default plan's estimated lines: the L40S development server priced by the
    # card-price rule (8 × 8 500 × 1.3 = 88 400), 4 UFM × 34 000 = 136 000 (two lines),
    # SN4600C 16 000, 2 SN2201 × 5 000 = 10 000, 142 100G modules × 310 = 44 020 (three
    # lines), 52 RJ45 cables × 50 = 2 600 → 9 lines, 297 020 USD, 297 020 / 11 400 226.9
    # (the priced capex, test_default_plan_is_a_complete_bill_with_its_range) = 2.605 %
    plan = hubplan.build_plan(hubplan.default_scenario())
    capex = plan["cost_capex"]
    mine = capex[capex["price_confidence"] == "estimate"]
    assert len(mine) == 9 and mine["capex_usd"].sum() == pytest.approx(297_020)
    f = plan.findings[plan.findings["code"] == "capex_estimated_lines"]
    assert len(f) == 1 and f.iloc[0]["severity"] == "warning"
    data = f.iloc[0]["data"]
    assert data["lines"] == 9 and data["capex_usd"] == pytest.approx(297_020)
    assert data["share"] == pytest.approx(297_020 / 11_400_226.9, rel=1e-6)
    assert data["share"] == pytest.approx(0.02605, abs=5e-6)
    # the first five estimated items by name, in line order, the rest behind an ellipsis
    assert data["items"] == (
        "development: Supermicro SYS-521GE-TNRT L40S; compute ufm UFM Enterprise Appliance "
        "3.1; storage ufm UFM Enterprise Appliance 3.1; inband leaf SN4600C; bmc leaf SN2201 (+4)"
    )
