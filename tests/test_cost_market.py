"""The market view: what a dense PFLOP, a GB of accelerator memory and a kW of accelerator
power cost across vendors, per priced catalogue server."""

import pytest

import hubplan
from hubplan.cost import market_view


@pytest.fixture(scope="module")
def market():
    return market_view(hubplan.load_catalog()).set_index("server")


def test_dgx_h100_per_pflop_gb_and_kw(market):
    r = market.loc["DGX H100"]
    # $270 000 (SemiAnalysis via Epoch AI) over 8 × 989.5 dense BF16 TFLOPS = 7.916 PFLOPS
    # → 34 108.14; over 8 × 80 GB = 640 GB → 421.875; over 8 × 0.7 kW TDP = 5.6 kW → 48 214.29
    assert r["usd_per_dense_pflop"] == pytest.approx(34_108.14, abs=0.01)
    assert r["usd_per_hbm_gb"] == pytest.approx(421.875)
    assert r["usd_per_accelerator_kw"] == pytest.approx(48_214.29, abs=0.01)
    assert r["price_confidence"] == "low" and r["price_basis"] == "server_catalogue"


def test_ascend_server_is_priced_from_its_cny_market_price(market):
    r = market.loc["Huawei Atlas 800T A2"]
    # 1 480 000 CNY (data/prices.csv) ÷ 7.1884 CNY/USD = 205 887.26 USD, over 8 × 294.9
    # dense TFLOPS (Huawei's ATLAS_800_A2_313T profile) = 2.3592 PFLOPS → 87 269.95 USD
    assert r["server_price_usd"] == pytest.approx(205_887.26, abs=0.01)
    assert r["usd_per_dense_pflop"] == pytest.approx(87_269.95, abs=0.01)
    assert r["price_basis"] == "price_catalogue"


def test_rows_are_cheapest_per_pflop_first_and_unpriced_servers_are_left_out(market):
    per = market["usd_per_dense_pflop"].to_numpy()
    assert (per[:-1] <= per[1:]).all()
    # The Gaudi 3 kit ($125 000 list) + a $28 000 host = $153 000 over 8 × 1 677 TFLOPS
    # = 13.416 PFLOPS → 11 404.29 USD: the cheapest dense PFLOP in the catalogue.
    assert market.index[0] == "Intel Gaudi 3 HLS-3"
    assert per[0] == pytest.approx(11_404.29, abs=0.01)
    assert "DGX H200" not in market.index  # no price in either catalogue
