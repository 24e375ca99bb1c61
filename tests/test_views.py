"""Panels and charts, headless: set control values, assert on results and chart specs."""

import re

import pandas as pd
import pytest

import hubplan
from hubplan.views import AcceleratorPanel, ServerPanel, WorkloadPanel, charts


def test_panel_starts_on_the_worked_example():
    p = WorkloadPanel()
    row = p.result["training"].iloc[0]
    assert (row["gpus"], row["binding"]) == (136, "compute")
    assert "136 GPUs (17 servers of 8), bound by compute" in p.summary.value
    assert p.error is None


def test_moving_the_deadline_recomputes():
    p = WorkloadPanel()
    p.controls["days"].value = 30
    # 1 516.3 GPU-days over 30/1.3 = 23.08 days → 65.7 → 66 GPUs → 9 servers = 72
    row = p.result["training"].iloc[0]
    assert (row["compute_bound_gpus"], row["gpus"]) == (66, 72)
    assert "72 GPUs (9 servers of 8)" in p.summary.value


def test_changing_accelerator_and_headroom():
    p = WorkloadPanel()
    p.controls["accelerator"].value = "H200 SXM 141GB"
    p.controls["memory_headroom"].value = 3.0
    row = p.result["training"].iloc[0]
    # 1 120 GB × 3 / 141 GB = 23.8 → 24 GPUs (memory); compute unchanged (same 989.5 peak)
    assert row["memory_bound_gpus"] == 24
    assert row["compute_bound_gpus"] == 132


def test_language_toggle_switches_every_label():
    p = WorkloadPanel()
    p.language.value = "zh"
    assert "张 GPU" in p.summary.value and "瓶颈在算力" in p.summary.value
    assert "负载规模测算" in p.title.value
    assert "GPU 数" in p.table.value
    assert p.chart.spec["layer"][0]["encoding"]["y"]["title"] == "GPU 数"


def test_bad_input_shows_in_the_panel_and_keeps_the_last_plan(default):
    fp8 = default.with_changes({"workload.training.0.precision": "fp8"})
    p = WorkloadPanel(fp8)
    before = p.result
    p.controls["accelerator"].value = "A100 SXM4 80GB"  # A100 has no FP8 peak
    assert p.error is not None and "fp8_dense_tflops is empty" in p.error
    assert "hubplan-error" in p.message.value
    assert p.result is before
    p.controls["accelerator"].value = "H100 SXM5 80GB"  # recovering clears the error
    assert p.error is None and p.message.value == ""


def test_panel_shows_warnings():
    p = WorkloadPanel()
    p.controls["mfu"].value = 0.6
    assert "0.35–0.55" in p.findings.value


def test_deadline_chart_spec(default):
    plan = hubplan.build_plan(default)
    spec = charts.gpus_vs_deadline(plan["training_curve"], plan["training"]).to_dict()
    lines = spec["layer"][0]
    assert lines["mark"]["type"] == "line"
    assert lines["encoding"]["x"]["field"] == "deadline_days"
    assert lines["encoding"]["x"]["title"] == "Deadline [d]"
    assert spec["title"] == "GPUs needed against deadline — industry-70b-finetune"
    # the chosen point sits at the scenario's 15 days and 136 GPUs
    point_data = spec["datasets"][spec["layer"][2]["data"]["name"]]
    assert point_data == [{"deadline_days": 15.0, "value": 136, "what": "Chosen deadline: 136 GPU"}]
    assert "Noto Sans CJK SC" in spec["config"]["font"]


def test_pool_chart_spec(default):
    spec = charts.pool_gpus(hubplan.build_plan(default)["pools"], "zh").to_dict()
    data = spec["datasets"][spec["data"]["name"]]
    # working GPUs then spares: training 17 × 8 + 1 × 8, inference 1 × 8 + 1 × 8, dev 8 + 0
    assert [(d["pool"], d["value"]) for d in data] == [
        ("training", 136),
        ("inference", 8),
        ("development", 8),
        ("training", 8),
        ("inference", 8),
        ("development", 0),
    ]
    assert spec["encoding"]["y"]["title"] == "GPU 数"


def test_curve_table_is_monotone(default):
    curve = hubplan.build_plan(default)["training_curve"]
    assert curve["compute_bound_gpus"].is_monotonic_decreasing
    assert (curve["memory_bound_gpus"] == 28).all()
    assert (curve["gpus"] % 8 == 0).all()


# -- accelerator and server panels -------------------------------------------------------------


def test_accelerator_panel_picks_winners_live():
    p = AcceleratorPanel()
    winners = p.winners().set_index("workload")["candidate"]
    assert winners["industry-70b-finetune"] == "MI300X 192GB"
    p.controls["candidates"].value = ("H100 SXM5 80GB", "H200 SXM 141GB", "B200 180GB")
    winners = p.winners().set_index("workload")["candidate"]
    # hand-worked in test_selection: B200 64 GPUs, 3.328 M USD
    assert winners["industry-70b-finetune"] == "B200 180GB"
    assert "B200 180GB wins — 64 GPUs, 3,328,000 USD" in p.summary.value
    assert set(p.result["candidates"]["candidate"]) == {
        "H100 SXM5 80GB",
        "H200 SXM 141GB",
        "B200 180GB",
    }


def test_accelerator_panel_budget_and_language():
    p = AcceleratorPanel()
    p.controls["budget_musd"].value = 2.5
    h100 = (
        p.result["candidates"]
        .set_index(["workload", "candidate"])
        .loc[("industry-70b-finetune", "H100 SXM5 80GB")]
    )
    # 2.5 M / (8 × 39 000) = 8.01 → 8 servers = 64 GPUs → 1 516.3 / 64 = 23.7 days
    assert h100["budget_gpus"] == 64
    assert h100["days_on_budget"] == pytest.approx(23.69, abs=0.01)
    p.language.value = "zh"
    assert "胜出" in p.summary.value and "加速卡选型" in p.title.value
    spec = p.claims_chart.chart.to_dict()
    assert spec["encoding"]["y"]["field"] == "candidate"


def test_server_panel_edits_become_a_custom_server():
    p = ServerPanel()
    assert p.controls["server"].value == "DGX H100"
    assert "9 pass, 0 warn, 0 fail" in p.summary.value
    p.controls["ram_gb"].value = 256  # below 8 × 80 GB
    assert p.controls["server"].value == "custom"
    checks = p.checks().set_index("check")
    assert checks.loc["ram_vs_gpu_memory", "status"] == "fail"
    assert "host RAM 256 GB is below 1 × GPU memory = 640 GB" in p.findings.value
    p.controls["ram_policy"].value = 2.0
    assert p.checks().set_index("check").loc["ram_vs_gpu_memory", "required"] == 1280


def test_server_panel_catalogue_pick_and_pool_switch():
    p = ServerPanel()
    p.controls["server"].value = "DGX A100"
    assert p.controls["accelerator"].value == "A100 SXM4 80GB"
    assert p.controls["ram_gb"].value == 2048 and p.controls["pcie_gen"].value == 4
    assert p.checks().set_index("check").loc["compute_nic_gbps", "status"] == "warn"
    p.controls["pool"].value = "development"
    assert p.controls["server"].value == "Supermicro SYS-521GE-TNRT L40S"
    assert "development pool" in p.summary.value


def test_choices_and_booleans_follow_the_language():
    p = AcceleratorPanel()
    assert p.controls["rank_by"].options == (("hardware cost", "capex"), ("power", "power"))
    p.language.value = "zh"
    assert p.controls["rank_by"].options == (("硬件投资", "capex"), ("功耗", "power"))
    assert p.controls["rank_by"].value == "capex"  # relabelling keeps the choice
    assert p.labels["budget_musd"].value == "预算 [M USD]"
    assert "<td>是</td>" in p.table.value  # the "fits" column reads 是 / 否


def test_workload_chart_legend_sits_below_and_names_every_curve(default):
    # At the right, the legend was clipped by narrow panels to "GPUs / GPUs / GPUs".
    plan = hubplan.build_plan(default, until="workload")
    spec = charts.gpus_vs_deadline(plan["training_curve"], plan["training"]).to_dict()
    color = spec["layer"][0]["encoding"]["color"]
    assert color["legend"]["orient"] == "bottom"
    # coloured by the curve's code in a fixed order; the legend names each curve
    assert color["scale"]["domain"] == ["compute_bound_gpus", "memory_bound_gpus", "gpus"]
    for name in ("GPUs (compute)", "GPUs (memory)", "GPUs"):
        assert f'"{name}"' in color["legend"]["labelExpr"]


def test_cost_chart_uses_a_log_axis_when_one_candidate_is_an_outlier(default):
    # H20 at US$16.0 M beside H100 at 5.3 M and B200 at 3.3 M: spread 4.8× → log axis.
    s = default.with_changes(
        {"accelerator.candidates": ["H100 SXM5 80GB", "B200 180GB", "H20 96GB"]}
    )
    cand = hubplan.build_plan(s)["candidates"]
    spec = charts.cost_vs_time(cand, "industry-70b-finetune").to_dict()
    assert spec["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"


def test_panel_table_shows_the_columns_that_matter_and_the_rest_a_click_away(default):
    p = WorkloadPanel(default)
    headers = re.compile(r"<th[\s>]")
    assert len(headers.findall(p.table.value)) == 7
    assert len(headers.findall(p.full_table.value)) == len(p.result["training"].columns)
    p.language.value = "zh"
    assert p.full.get_title(0) == "完整表格"


# ---- Network panel (issue 10): headless, set control values and read panel.result ----


def test_network_panel_default_is_one_superpod_unit():
    from hubplan.views import NetworkPanel

    p = NetworkPanel()
    comp = p.result["fabric"].set_index("plane").loc["compute"]
    # 18 DGX H100 on QM9700 at 1:1: one SU (<= 32 DGX), 8 leaves (one per rail) and
    # 4 spines: DGX SuperPOD H100 RA (RA-11333-001) Table 2, 1 SU = 8 leaves / 4 spines.
    assert (comp["units"], comp["leaves"], comp["spines"], comp["cores"]) == (1, 8, 4, 0)
    assert "8 leaves, 4 spines, 0 cores at 1:1" in p.summary.value
    assert p.diagram.chart.to_dict()["title"]["text"] == "Compute fabric: QM9700, 2 tiers"


def test_network_panel_controls_change_the_plan():
    from hubplan.views import NetworkPanel

    p = NetworkPanel()
    # 2:1 on a 64-port leaf: 42 down + 21 up (63 <= 64); 8 leaves x 21 uplinks = 168 spine
    # ports = ceil(168 / 64) = 3 spines; and the 2:1 policy limit is not exceeded.
    p.controls["oversubscription"].value = 2.0
    comp = p.result["fabric"].set_index("plane").loc["compute"]
    assert (comp["servers_per_unit"], comp["spines"]) == (42, 3)
    assert "oversubscription_above_policy" not in set(p.result.findings["code"])
    p.controls["oversubscription"].value = 3.0  # above the 2:1 policy: a finding
    assert "oversubscription_above_policy" in set(p.result.findings["code"])
    assert "Training fabric oversubscribed" in p.findings.value
    # SN5600 at 400G: 64 x 800G broken out to 128 x 400G, 64 servers per unit at 1:1;
    # 8 leaves x 64 uplinks = 512 / 128 = 4 spines
    p.controls["oversubscription"].value = 1.0
    p.controls["compute_switch"].value = "SN5600"
    comp = p.result["fabric"].set_index("plane").loc["compute"]
    assert (comp["servers_per_unit"], comp["leaves"], comp["spines"]) == (64, 8, 4)
    assert set(p.result["rdma_settings"]["transport"]) == {"roce"}


def test_network_panel_nic_speed_and_gpus():
    from hubplan.views import NetworkPanel

    p = NetworkPanel()
    p.controls["nic_gbps"].value = 200.0  # a custom copy of the DGX H100 with 200G NICs
    assert p.result["fabric"].set_index("plane").loc["compute", "port_gbps"] == 200
    assert p.base.pools.training.server == "DGX H100"  # the starting scenario is kept
    before = p.result
    p.controls["nic_gbps"].value = 800.0  # QM9700 ports are 400G: an error, plan kept
    assert "below the 800 Gb/s compute NICs" in p.error
    assert p.result is before
    p.controls["nic_gbps"].value = 400.0
    assert p.error is None
    gpus = int(p.result["pools"].query("pool == 'training'")["total_gpus"].iloc[0])
    p.controls["days"].value = p.controls["days"].value / 4  # a quarter of the time
    more = int(p.result["pools"].query("pool == 'training'")["total_gpus"].iloc[0])
    assert more > 3 * gpus
    assert f"{more:,} GPUs" in p.summary.value


def test_network_panel_large_fabric_draws_one_unit():
    from hubplan.core.paths import templates_dir
    from hubplan.views import NetworkPanel, charts

    p = NetworkPanel(
        hubplan.load_scenario(templates_dir() / "scenarios/pretrain-16k.yaml"), lang="zh"
    )
    comp = p.result["fabric"].set_index("plane").loc["compute"]
    # 2 151 DGX (2 048 + 5 % spares): the fabric is sized for the 2 048 working servers,
    # 2 048 / 32 = 64 SUs, 3 tiers (the spares wait in a cold pool)
    assert (comp["units"], comp["tiers"], comp["leaves"]) == (64, 3, 64 * 8)
    d = p.diagram.chart.to_dict()
    assert d["title"]["subtitle"][0].startswith("图示一个可扩展单元；共 64 个单元")
    # one unit drawn: 32 servers, 8 leaves, 512 / 64 = 8 spines, cores capped at 32
    nodes = pd.DataFrame(d["datasets"][d["layer"][1]["data"]["name"]])
    assert nodes.groupby("tier_label").size().to_dict() == {
        "服务器": 32,
        "叶交换机": 8,
        "脊交换机": 8,
        "核心交换机": charts.DIAGRAM_MAX_NODES,
    }
    # > 64 switches: the port-use chart bins the share of ports used
    assert p.port_chart.chart.to_dict()["encoding"]["x"]["bin"] == {"step": 0.05}


def _boxes(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _boxes(child)


@pytest.mark.parametrize(
    "name",
    [
        "WorkloadPanel",
        "AcceleratorPanel",
        "ServerPanel",
        "StoragePanel",
        "NetworkPanel",
        "FacilityPanel",
        "CostPanel",
    ],
)
def test_every_panel_wraps_its_figures_below_its_controls_when_narrow(name):
    """At 1440 px the cost panel's figures drew over its sliders' readouts and its tornado
    ran off the right edge: the controls' row and the chart rows must wrap, the controls
    keep the width they need, and wide tables scroll inside the panel."""
    import ipywidgets as w

    import hubplan.views

    panel = getattr(hubplan.views, name)()
    boxes = list(_boxes(panel.widget))
    form = next(b for b in boxes if isinstance(b, w.GridBox))
    row = next(
        b
        for b in boxes
        if isinstance(b, w.HBox) and any(form in list(_boxes(c)) for c in b.children)
    )
    assert row.layout.flex_flow == "row wrap"
    assert row.children[0].layout.min_width == "max-content"
    assert row.children[1].layout.min_width == "380px"
    for box in boxes:  # every row of charts wraps too
        if (
            isinstance(box, w.HBox)
            and box is not row
            and len(box.children) > 1
            and any("Chart" in type(c).__name__ for c in box.children)
        ):
            assert box.layout.flex_flow == "row wrap", box
    tables = [b for b in boxes if isinstance(b, w.HTML) and b.layout.overflow == "auto"]
    assert tables, "no table scrolls inside the panel"
