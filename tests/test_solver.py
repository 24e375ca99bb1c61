"""Solve for the cheapest plan: every catalogue server built into a whole plan."""

import pytest

import hubplan
from hubplan.solver import cheapest_plans


@pytest.fixture(scope="module")
def ranked():
    return cheapest_plans(hubplan.default_scenario()).set_index("server")


def test_every_catalogue_server_is_tried_and_every_loser_says_why(ranked, catalog):
    servers = catalog.servers[catalog.servers["kind"] == "server"]["name"]
    assert set(ranked.index) == set(servers)
    losers = ranked[ranked["rank"] != 1]
    assert (losers["reason"] != "").all()
    # only feasible candidates with a complete bill are ranked
    ranks = ranked[ranked["rank"].notna()]
    assert sorted(ranks["rank"]) == list(range(1, len(ranks) + 1))
    assert (ranks["feasible"].astype(bool) & ranks["complete"].astype(bool)).all()


def test_cheapest_feasible_and_the_reasons_others_lost(ranked):
    # No default bill is complete (20 lines unpriced on a DGX H100 plan: test_cost.py), so
    # none is ranked: the sum of the priced lines is not a cost to rank on.
    assert ranked["rank"].isna().all()
    assert ranked.loc["DGX H100", "reason"] == "incomplete_bill"
    # MI300X used to rank first: its server row (data/servers.csv) lists no compute NICs,
    # so its plan has no compute fabric to price (17 unpriced lines against 20).
    mi = ranked.loc["Supermicro AS-8125GS-TNMR2 MI300X"]
    assert mi["reason"] == "no_fabric_nics" and not mi["complete"]
    # DGX B300 carries 800 Gb/s NICs that the default 400 Gb/s QM9700 fabric cannot take.
    assert "800 Gb/s" in ranked.loc["DGX B300", "reason"]
    # No public price for Ascend servers or cards: never ranked on cost.
    assert ranked.loc["Huawei Atlas 800T A2", "reason"] == "no_price"


def test_two_h100_servers_differ_by_their_server_price(ranked):
    # Same card, same 18 servers (17 + 1 spare): DGX H100 at US$270 000 against the HGX
    # H100 OEM reference at US$310 000 (data/servers.csv) is 18 × 40 000 = 720 000 USD of
    # hardware; the HGX row has no rated power, so its estimate (8 × 700 W / 0.55 =
    # 10.18 kW against 10.2 kW) moves the fit-out by 18 × 0.018 kW × US$11.7 k/kW ≈ 4 k.
    # The priced 400G modules (data/prices.csv, $750) move too: the HGX row has no twin-port
    # cages (data/server_cages.csv), so 8 compute modules a server, not 4: +72 × 750 =
    # +54 000; its storage NICs run at 200 Gb/s, so 54 of the 400G storage modules become
    # unpriced 200G ones: −54 × 750 = −40 500. 720 000 + 54 000 − 40 500 − 3 829 ≈ 729 671.
    dgx, hgx = ranked.loc["DGX H100"], ranked.loc["HGX H100 8-GPU (OEM RA)"]
    assert dgx["servers"] == hgx["servers"] == 18
    assert hgx["capex_usd"] - dgx["capex_usd"] == pytest.approx(729_671, abs=5)
    # both bills are incomplete (the HGX one has two more unpriced lines, 200G): unranked
    assert (dgx["reason"], hgx["reason"]) == ("incomplete_bill", "incomplete_bill")
    assert hgx["capex_unpriced_lines"] - dgx["capex_unpriced_lines"] == 2


def test_only_complete_bills_are_ranked():
    # With quotes for every line the DGX H100 plan leaves unpriced (test_cost_prices.py),
    # its bill is complete and ranked; a candidate with any other unpriced line (other
    # media, other storage NIC speeds) stays out of the ranking however cheap it looks.
    from test_cost_prices import QUOTES

    s = hubplan.default_scenario().with_changes(
        {"cost.quotes": QUOTES, "cost.installation_share": 0.05}
    )
    ranked = cheapest_plans(s).set_index("server")
    assert ranked.loc["DGX H100", "complete"] and ranked.loc["DGX H100", "rank"] >= 1
    incomplete = ranked[~ranked["complete"].fillna(False).astype(bool)]
    assert incomplete["rank"].isna().all()
    assert ranked.loc["Supermicro AS-8125GS-TNMR2 MI300X", "reason"] == "no_fabric_nics"
    # the DGX H100 bill: 10 592 361.4 USD (worked in test_cost_prices.py)
    assert ranked.loc["DGX H100", "capex_usd"] == pytest.approx(10_592_361.4, abs=1)
