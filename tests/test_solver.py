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
    feasible = ranked[ranked["feasible"].astype(bool)]
    assert sorted(feasible["rank"]) == list(range(1, len(feasible) + 1))


def test_cheapest_feasible_and_the_reasons_others_lost(ranked):
    # MI300X meets the fine-tune with the fewest dollars (the accelerator stage's ranking).
    assert ranked["rank"].idxmin() == "Supermicro AS-8125GS-TNMR2 MI300X"
    # DGX B300 carries 800 Gb/s NICs that the default 400 Gb/s QM9700 fabric cannot take.
    assert "800 Gb/s" in ranked.loc["DGX B300", "reason"]
    # No public price for Ascend servers or cards: never ranked on cost.
    assert ranked.loc["Huawei Atlas 800T A2", "reason"] == "no_price"


def test_two_h100_servers_differ_by_their_server_price(ranked):
    # Same card, same 18 servers (17 + 1 spare): DGX H100 at US$270 000 against the HGX
    # H100 OEM reference at US$310 000 (data/servers.csv) is 18 × 40 000 = 720 000 USD of
    # hardware; the HGX row has no rated power, so its estimate (8 × 700 W / 0.55 =
    # 10.18 kW against 10.2 kW) moves the fit-out by 18 × 0.018 kW × US$11.7 k/kW ≈ 4 k.
    dgx, hgx = ranked.loc["DGX H100"], ranked.loc["HGX H100 8-GPU (OEM RA)"]
    assert dgx["servers"] == hgx["servers"] == 18
    assert hgx["capex_usd"] - dgx["capex_usd"] == pytest.approx(720_000, abs=5_000)
    assert dgx["rank"] < hgx["rank"]
