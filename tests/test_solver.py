"""Solve for the cheapest plan: every catalogue server built into a whole plan."""

import numpy as np
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
    # Every default bill of a priced, feasible candidate with its fabric is complete now
    # (data/prices.csv prices storage, switches, optics, cables and management servers):
    # 19 are ranked, each on a complete bill (the Supermicro MI325X, whose server price is
    # now an estimate in data/prices.csv, and the Gaudi 3 HLS-3, whose 800G Ethernet
    # switches now are, among them).
    ranks = ranked[ranked["rank"].notna()]
    assert len(ranks) == 19 and ranks["complete"].astype(bool).all()
    # the DGX H100 bill: 11 400 226.9 USD, worked by hand in test_cost_prices.py
    dgx = ranked.loc["DGX H100"]
    assert dgx["capex_usd"] == pytest.approx(11_400_226.9, abs=1)
    assert dgx["reason"] == "costlier" and dgx["capex_unpriced_lines"] == 0
    # Dell XE9680 MI300X ranks first: 14 servers of 8 MI300X at the card's $15 000 (Hugging
    # Face MSRP, data/accelerators.csv) × 1.3 platform overhead = 156 000 a server, 14 ×
    # 156 000 = 2 184 000 against the DGX H100's 18 × 270 000 = 4 860 000: 2 676 000 less
    # on the servers, 2 943 600 with its 10 % installation; fewer servers need no more of
    # anything else.
    mi = ranked.loc["Dell XE9680 MI300X"]
    assert mi["rank"] == 1 and mi["servers"] == 14 and mi["complete"]
    assert dgx["capex_usd"] - mi["capex_usd"] > 2_943_600
    # The Supermicro MI300X row (data/servers.csv) lists no compute NICs, so its plan has
    # no compute fabric to price: never ranked, however cheap it looks.
    sm = ranked.loc["Supermicro AS-8125GS-TNMR2 MI300X"]
    assert sm["reason"] == "no_fabric_nics" and np.isnan(sm["rank"])
    # DGX B300 carries 800 Gb/s NICs that the default 400 Gb/s QM9700 fabric cannot take.
    assert "800 Gb/s" in ranked.loc["DGX B300", "reason"]
    # The Atlas 800T A2 is priced in CNY (data/prices.csv: 1 480 000 CNY, Reuters-derived)
    # though the server catalogue leaves it unpriced: its complete bill is ranked, not
    # dismissed as unpriced (59 servers: 18th, below the A100 builds)
    atlas = ranked.loc["Huawei Atlas 800T A2"]
    assert atlas["complete"] and atlas["reason"] == "costlier" and atlas["rank"] == 18
    assert atlas["servers"] == 59
    # a server with no price anywhere (no server, card or catalogue price) is never ranked
    assert ranked.loc["Biren Hearten 8-OAM BR100", "reason"] == "no_price"


def test_two_h100_servers_differ_by_their_server_price(ranked):
    # Same card, same 18 servers (17 + 1 spare): DGX H100 at US$270 000 against the HGX
    # H100 OEM reference at US$310 000 (data/servers.csv) is 18 × 40 000 = 720 000 USD.
    # The bills differ elsewhere by what the two server rows list (data/servers.csv,
    # data/server_cages.csv) at data/prices.csv's prices:
    # - no twin-port cages on the HGX: 8 compute modules a server, not 4: +72 × 750 = +54 000
    # - its 2 storage NICs run at 200 Gb/s: 54 storage modules at 482 (200G estimate) in
    #   place of 400G at 750: 54 × (482 − 750) = −14 472; the 36 cables cost 100 either way
    # - no in-band NIC count: one in-band link a server, not two: 36 fewer 100G modules at
    #   310 and 18 fewer cables at 35: −11 160 − 630 = −11 790
    # Hardware: 720 000 + 54 000 − 14 472 − 11 790 = 747 738; installation 10 % of it
    # = 74 773.8; spares 5 % of the optics' 27 738 = 1 386.9; no rated power on the HGX,
    # so its estimate (8 × 700 W / 0.55 = 10.18 kW against 10.2 kW) moves the fit-out by
    # −3 829.1 (18 × 0.0182 kW × US$11 700). 747 738 + 74 773.8 + 1 386.9 − 3 829.1
    # = 820 069.6.
    dgx, hgx = ranked.loc["DGX H100"], ranked.loc["HGX H100 8-GPU (OEM RA)"]
    assert dgx["servers"] == hgx["servers"] == 18
    assert hgx["capex_usd"] - dgx["capex_usd"] == pytest.approx(820_069.6, abs=0.5)
    # both bills complete and ranked, the HGX one below
    assert dgx["capex_unpriced_lines"] == hgx["capex_unpriced_lines"] == 0
    assert hgx["rank"] > dgx["rank"] and hgx["reason"] == "costlier"


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
