"""The overview dashboard and the scenario comparison, headless: set control values,
assert on ``panel.result``, ``panel.figures`` and the headline HTML."""

import pytest

import hubplan
from hubplan.views import OverviewPanel, charts, compare_scenarios
from hubplan.views.overview import headline_figures


@pytest.fixture(autouse=True)
def _fresh_cache():
    """These tests assert which stages a control reruns: start each from an empty stage
    cache, so a plan another test built earlier cannot make a stage look cached."""
    hubplan.clear_cache()


def test_dashboard_starts_on_the_worked_example():
    p = OverviewPanel()
    f = p.figures
    # Pools (tests/test_plan.py pins them): 17 + 1 spare DGX for the fine-tune (144 GPUs),
    # 1 + 1 spare for the service (16), one L40S server for development (8).
    assert f["gpus_by_pool"] == {"training": 144, "inference": 16, "development": 8}
    assert (f["gpus"], f["servers"]) == (168, 21)
    assert f["errors"] == 0
    assert p.result.stages_run == () or "review" in p.result.stages_run
    assert set(p.result.tables) >= {"cost_summary", "facility_power", "racks", "review_checklist"}
    assert 'id="hubplan-fig-gpus">168 (training 144 · inference 16 · development 8)' in (
        p.headline.value
    )


def test_electricity_price_moves_opex_and_reruns_only_what_reads_it():
    p = OverviewPanel()
    before = p.figures
    p.controls["electricity"].value = 0.176  # twice the default 0.088 USD/kWh
    f = p.figures
    # The energy line is annual MWh × 1000 × tariff (facility_power): doubling the
    # tariff doubles it, 190 220.16 USD -> 380 440.32 USD at the default 2 161.6 MWh.
    # The rest stays: maintenance 12 % (cost section, Library Technology Guides) of the
    # 7 112 130 USD of systems it covers (servers 5 488 400 + storage 942 730 + network
    # 630 000 + management servers 51 000, data/prices.csv, test_cost_prices.py) =
    # 853 455.60; insurance 0.3 % (Hotaling) of the 11 400 226.89 capex = 34 200.68;
    # staff 1 systems FTE × 90 520 (BLS) + 8.42 facility FTE (two posts around the clock,
    # Facilitiesnet; 3 per MW × 0.32 MW is less) × 57 300 (BLS) = 572 986. Opex
    # 190 220.16 + 853 455.60 + 34 200.68 + 572 986 = 1 650 862.44 -> 1 841 082.60 USD.
    assert before["opex_usd_per_year"] == pytest.approx(1_650_862.44, abs=0.01)
    assert f["opex_usd_per_year"] == pytest.approx(before["opex_usd_per_year"] + 190_220.16)
    assert f["opex_usd_per_year"] == pytest.approx(1_841_082.60, abs=0.01)
    assert f["gpus"] == before["gpus"] and f["capex_usd"] == before["capex_usd"]
    # The tariff is the cost stage's to price: racks, power and the review stand.
    assert p.result.stages_run == ("cost",)
    # shown in millions above 1 M: 1.84 M USD
    assert 'id="hubplan-fig-opex_usd_per_year">1.84 M USD' in p.headline.value


def test_utilisation_reruns_the_cost_stage_only():
    p = OverviewPanel()
    before = p.figures["cost_per_useful_gpu_hour_usd"]
    p.controls["utilisation"].value = 0.35  # half the default 0.7
    # Useful GPU-hours scale with utilisation and the yearly cost does not: the cost
    # of a useful GPU-hour doubles (2.2127 USD -> 4.4253 USD).
    assert p.figures["cost_per_useful_gpu_hour_usd"] == pytest.approx(2 * before)
    assert p.result.stages_run == ("cost",)


def test_deadline_resizes_the_whole_plan():
    p = OverviewPanel()
    p.controls["days"].value = 30
    # tests/test_views.py: 30 days -> 66 GPUs compute-bound -> 9 servers = 72, + 1 spare
    # (5 % of 9 rounds up) = 80 training GPUs; inference and development unchanged.
    assert p.figures["gpus_by_pool"] == {"training": 80, "inference": 16, "development": 8}
    assert "network" in p.result.stages_run and "facility" in p.result.stages_run
    # The chart the browser draws follows: training 9 × 8 = 72 working and 8 spare GPUs.
    spec = p.pools_chart.spec
    bars = {(r["pool"], r["part"]): r["value"] for r in spec["datasets"][spec["data"]["name"]]}
    assert bars[("training", "working")] == 72 and bars[("training", "spare")] == 8


def test_peak_qps_and_rack_budget_reach_their_sections():
    p = OverviewPanel()
    p.controls["peak_qps"].value = 40
    p.controls["rack_kw"].value = 20
    s = p.result.scenario
    assert s.workload.inference[0].peak_qps == 40
    assert s.facility.rack_budget_kw == 20
    assert p.figures["gpus_by_pool"]["inference"] > 16
    # 20 kW racks hold at most two DGX H100 (10.2 kW each) where 40 kW racks hold three.
    assert p.figures["racks"] > 11


def test_another_accelerator_drops_the_scenarios_server():
    p = OverviewPanel()
    p.controls["accelerator"].value = "H200 SXM 141GB"
    assert p.error is None
    pools = p.result["pools"]
    row = pools[(pools["level"] == "pool") & (pools["pool"] == "training")].iloc[0]
    assert row["accelerator"] == "H200 SXM 141GB"


def test_language_toggle():
    p = OverviewPanel()
    p.language.value = "zh"
    assert "规划总览" in p.title.value
    assert "GPU 数（按资源池）" in p.headline.value and "训练 144" in p.headline.value
    assert "待处理发现" in p.headline.value and "警告" in p.headline.value
    assert p.labels["electricity"].value == "电价 [USD/kWh]"
    assert p.pools_chart.spec["encoding"]["y"]["title"] == "GPU 数"
    assert p.cost_chart.spec["title"] == "累计成本：自建、租用、混合"


def test_bad_input_shows_in_the_dashboard_and_keeps_the_last_figures():
    p = OverviewPanel()
    before = p.figures
    # 100 000 B parameters in 15 days needs ~24 640 servers: more than three tiers of
    # 64-port switches reach (8 192 servers at 1:1), so the network stage refuses.
    p.controls["params_b"].value = 100_000
    assert p.error is not None and "three tiers" in p.error
    assert "hubplan-error" in p.message.value
    assert p.figures == before
    p.controls["params_b"].value = 70
    assert p.error is None and p.message.value == ""


def test_a_rack_budget_below_one_server_is_an_error_card():
    p = OverviewPanel()
    p.controls["rack_kw"].value = 5  # a DGX H100 draws 10.2 kW: no rack can take one
    assert p.figures["errors"] > 0
    assert 'class="hubplan-card bad"' in p.headline.value


def test_headline_figures_read_the_tables(default):
    plan = hubplan.build_plan(default)
    f = headline_figures(plan)
    # facility_power total: 257.88 kW nameplate (tests/test_cost.py) × PUE 1.25 = 322.35 kW
    assert f["it_mw"] == pytest.approx(0.25788, abs=1e-5)
    assert f["facility_mw"] == pytest.approx(0.32235, abs=1e-5)
    # against Hyperstack's $3.20 on demand (the cheapest H100 SXM, hyperstack.cloud, 2026-08):
    # 12 × 11 400 226.89 capex (test_cost_prices.py) / (152 × 8 760 × 0.7 × 3.20 =
    # 2 982 604.80 rent − 1 650 862.44 opex (the test above) = 1 331 742.36 a year)
    # = 136 802 722.6 / 1 331 742.36 = 102.72 months
    assert f["breakeven_month"] == pytest.approx(102.72, abs=0.01)
    assert f["cloud_basis"] == "utilisation"
    assert f["findings"] == plan.findings["severity"].value_counts().to_dict() | {"error": 0}


def test_compare_two_saved_scenarios(default):
    big = hubplan.load_scenario("templates/scenarios/pretrain-16k.yaml")
    cmp = compare_scenarios(
        {"70B fine-tune": hubplan.build_plan(default), "405B pre-train": hubplan.build_plan(big)}
    )
    t = cmp.table.set_index("figure")
    assert list(t.columns[-2:]) == ["70B fine-tune", "405B pre-train"]
    assert t.loc["gpus", "70B fine-tune"] == 168
    # The pre-training run is sized to 2 048 DGX = 16 384 working GPUs (its YAML's note).
    assert t.loc["gpus", "405B pre-train"] > 16_384
    spec = cmp.chart.to_dict()
    assert spec["resolve"]["scale"]["y"] == "independent"
    assert spec["facet"]["field"] == "what"
    zh = compare_scenarios({"a": hubplan.build_plan(default)}, "zh")
    assert zh.table.set_index("figure").loc["racks", "label"] == "机柜数"


def test_static_chart_is_an_offline_picture(default):
    plan = hubplan.build_plan(default, until="server")
    bundle = charts.static(charts.pool_gpus(plan["pools"]))._repr_mimebundle_()
    assert bundle["image/png"][:4] == b"\x89PNG"
    assert bundle["image/svg+xml"].lstrip().startswith("<svg")
    assert bundle["text/plain"] == "<chart: GPUs per pool>"
