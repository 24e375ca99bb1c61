"""The cloud offers catalogue (data/cloud.csv): its coverage, a few rows checked against
the documents they cite, and the offer each accelerator is compared against by default.

Every figure below is worked out from the cited price page, not read back from the code.
"""

import pytest

from hubplan.cost.cloud import cheapest_offer, cloud_offers

#: Clouds run from mainland China, whose list prices are in CNY.
DOMESTIC = (
    "Alibaba Cloud",
    "Volcano Engine",
    "Tencent Cloud",
    "Huawei Cloud",
    "Baidu AI Cloud",
    "AutoDL",
)


@pytest.fixture(scope="module")
def offers():
    return cloud_offers().set_index("name")


# -- coverage -----------------------------------------------------------------------------


def test_thirty_offers_over_eight_accelerators_and_every_kind():
    o = cloud_offers()
    assert len(o) >= 30
    assert o["accelerator"].nunique() >= 8
    assert set(o["pricing"]) == {"on_demand", "reserved", "capacity_block"}
    # hyperscalers and GPU clouds both
    assert {"AWS", "Microsoft Azure", "Google Cloud", "Oracle Cloud"} <= set(o["provider"])
    assert {"CoreWeave", "Lambda", "RunPod", "Nebius", "Crusoe"} <= set(o["provider"])


def test_every_offer_is_dated_sourced_and_graded():
    o = cloud_offers()
    assert o["price_date"].str.match(r"^\d{4}(-\d{2}(-\d{2})?)?$").all()
    # each names its page, file or site (a URL, or a name like disintermediate.global)
    assert o["source"].str.contains(r"[\w-]\.[a-z]{2,}").all()
    assert o["confidence"].isin(["high", "medium", "low"]).all()
    # a low-confidence row says why
    low = o[o["confidence"] == "low"]
    assert low["notes"].str.len().gt(20).all()


def test_a_domestic_cloud_lists_in_cny():
    o = cloud_offers()
    cny = o[o["currency"] == "CNY"]
    assert set(cny["provider"]) & set(DOMESTIC) == {"Alibaba Cloud"}


@pytest.mark.xfail(
    strict=True,
    reason="only Alibaba Cloud's CNY list price was found in a "
    "citable source; Volcano Engine, Tencent Cloud, Huawei Cloud, Baidu and "
    "AutoDL prices are still to be added (data/README.md)",
)
def test_four_domestic_clouds_list_in_cny():
    o = cloud_offers()
    cny = o[o["currency"] == "CNY"]
    assert len(set(cny["provider"]) & set(DOMESTIC)) >= 4


def test_no_peer_marketplace_offer_is_shipped():
    # the default comparison is the cheapest on-demand offer, like for like with a
    # data-centre build: peer-hosted capacity (RunPod Community Cloud, Vast.ai) is left to
    # a user's --cloud-csv
    o = cloud_offers()
    assert not o["name"].str.contains("Community").any()
    assert "Vast.ai" not in set(o["provider"])


# -- rows against their documents ---------------------------------------------------------


def test_gpu_cloud_rows_match_their_price_pages(offers):
    # hyperstack.cloud/gpu-pricing (read 2026-08-26): H100 SXM $3.20 a GPU-hour on demand,
    # reserved from $2.72
    assert offers.loc["Hyperstack H100 SXM on-demand", "usd_per_gpu_hour"] == 3.20
    assert offers.loc["Hyperstack H100 SXM reserved", "pricing"] == "reserved"
    assert offers.loc["Hyperstack H100 SXM reserved", "usd_per_gpu_hour"] == 2.72
    # coreweave.com/pricing (read 2026-09-20): HGX B200, 8 GPUs, $68.80 an hour = 8.60 a GPU;
    # GB200 NVL72, 4 GPUs, $42.00 an hour = 10.50 a GPU
    assert offers.loc["CoreWeave HGX B200 on-demand", "usd_per_gpu_hour"] == pytest.approx(8.60)
    assert offers.loc["CoreWeave GB200 NVL72 on-demand", "usd_per_gpu_hour"] == 10.50
    assert offers.loc["CoreWeave GB200 NVL72 on-demand", "accelerator"] == "GB200 186GB"
    # nebius.com/prices (read 2026-10-07): HGX H100 $4.50 from 2026-10-01 (was $3.85)
    assert offers.loc["Nebius HGX H100 on-demand", "usd_per_gpu_hour"] == 4.50
    # crusoe.ai/cloud/pricing (read 2026-09-20): AMD MI300X 192GB $3.45/GPU-hr
    assert offers.loc["Crusoe MI300X on-demand", "accelerator"] == "MI300X 192GB"
    assert offers.loc["Crusoe MI300X on-demand", "usd_per_gpu_hour"] == 3.45


def test_oracle_rows_match_the_price_list_parts(offers):
    # Oracle's price-list API (2026-01-05): B111758 MI355X $8.60, B109485 MI300X $6.00,
    # B110979 GB200 $16.00 per GPU per hour
    assert offers.loc["Oracle OCI MI355X on-demand", "usd_per_gpu_hour"] == 8.60
    assert offers.loc["Oracle OCI MI355X on-demand", "accelerator"] == "MI355X 288GB"
    assert offers.loc["Oracle OCI MI300X on-demand", "usd_per_gpu_hour"] == 6.0
    assert offers.loc["Oracle OCI GB200 on-demand", "usd_per_gpu_hour"] == 16.0
    assert "B111758" in offers.loc["Oracle OCI MI355X on-demand", "source"]


def test_alibaba_cny_rows_convert_at_their_stated_rate(offers):
    # ecs-buy.aliyun.com, cn-shanghai, 2023-06 (ArthurChiao's transcription):
    # ecs.gn7e-c16g1.32xlarge, 8 × A100 80G, 277.93 CNY an hour → 34.74125 CNY a GPU-hour;
    # at 7.1884 CNY per USD (CFETS, 2024-12-31) that is 34.74125 / 7.1884 = 4.83296 USD
    od = offers.loc["Alibaba Cloud gn7e on-demand"]
    assert (od["currency"], od["accelerator"]) == ("CNY", "A100 SXM4 80GB")
    assert od["price_per_gpu_hour"] == pytest.approx(34.74125)
    assert od["usd_per_gpu_hour"] == pytest.approx(4.83296, abs=1e-4)
    # the month's subscription, 133 408 CNY for 8 GPUs: 16 676 CNY a GPU over 730 hours
    # (8 760 / 12) = 22.8438 CNY a GPU-hour, paid for the whole month
    sub = offers.loc["Alibaba Cloud gn7e 1-month subscription"]
    assert (sub["pricing"], sub["term_months"]) == ("reserved", 1)
    assert sub["price_per_gpu_hour"] == pytest.approx(22.8438, abs=1e-4)
    assert sub["usd_per_gpu_hour"] == pytest.approx(22.843836 / 7.1884, abs=1e-4)


# -- the default comparison ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("accelerator", "name", "usd"),
    [
        # the cheapest on-demand offer per card, read off the price pages above
        ("H100 SXM5 80GB", "Hyperstack H100 SXM on-demand", 3.20),  # < Crusoe 3.90, Lambda 3.99
        ("H200 SXM 141GB", "Hyperstack H200 SXM on-demand", 3.99),  # < Crusoe 4.29, RunPod 4.59
        ("B200 180GB", "Hyperstack B200 on-demand", 6.00),  # < Lambda 6.69, RunPod 6.79
        ("B300 288GB", "Hyperstack B300 on-demand", 7.40),  # < Nebius 9.50
        ("GB200 186GB", "CoreWeave GB200 NVL72 on-demand", 10.50),  # < OCI 16.00
        ("A100 SXM4 80GB", "Hyperstack A100 SXM on-demand", 1.60),  # < RunPod Secure 1.79
        ("MI300X 192GB", "Crusoe MI300X on-demand", 3.45),  # < OCI 6.00
        ("MI355X 288GB", "Oracle OCI MI355X on-demand", 8.60),  # the only one
    ],
)
def test_the_offer_a_plan_compares_against(accelerator, name, usd):
    offer = cheapest_offer(accelerator)
    assert offer["name"] == name
    assert offer["usd_per_gpu_hour"] == pytest.approx(usd)
