"""What a room reads in the panels' tables, the sliders' readouts and the hot-tier fill chart.

Tables are text in each column's catalogue format (``excel_format`` of the labels.csv
files): no "nan", the stated decimals, thousands separators, yes / no for booleans.
"""

from html.parser import HTMLParser

import pytest

from hubplan.core.labels import display_frame, format_value, label
from hubplan.views import CostPanel, NetworkPanel, StoragePanel


class _Table(HTMLParser):
    """The header and body cells of the first ``<table>`` of an HTML string."""

    def __init__(self, text: str):
        super().__init__()
        self.header: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._tag = ""
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        if tag in ("th", "td"):
            self._cell, self._tag = [], tag

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            text = "".join(self._cell).strip()
            (self.header if self._tag == "th" else self.rows[-1]).append(text)
            self._cell = None

    def column(self, header: str) -> list[str]:
        i = self.header.index(header)
        return [r[i] for r in self.rows if r]


_RAW = ("nan", "none", "<na>", "nat", "inf", "undefined")


@pytest.fixture(scope="module")
def panels():
    return {"cost": CostPanel(), "storage": StoragePanel(), "network": NetworkPanel()}


_TABLES = {
    "cost": ("summary_table", "capex_table"),
    "storage": ("table", "checkpoints", "failures"),
    "network": ("fabric_table", "switch_table"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("panel", sorted(_TABLES))
def test_panel_tables_show_no_raw_missing_values(panels, panel, lang):
    p = panels[panel]
    p.language.value = lang
    try:
        for name in _TABLES[panel]:
            table = _Table(getattr(p, name).value)
            assert table.rows, name
            cells = [c for row in table.rows for c in row]
            raw = [c for c in cells if c.lower() in _RAW or "nan" in c.lower().split()]
            assert not raw, (panel, name, raw)
    finally:
        p.language.value = "en"


def test_cost_tables_show_the_labels_formats(panels):
    p = panels["cost"]
    summary = _Table(p.summary_table.value)
    # discount_rate is '0.0%': the default scenario's 8 % reads "8.0%" (it read "8%")
    assert summary.column(label("discount_rate", "en")) == ["8.0%"]
    capex = _Table(p.capex_table.value)
    # Worked example: the training pool's 144 GPUs in DGX H100 of 8 GPUs each are
    # 144 / 8 = 18 servers; line_quantity is '#,##0.##' (optional decimals), so "18",
    # not "18.00"; the DGX H100's US$270 000 (line_unit_usd '#,##0.00') "270,000.00".
    row = capex.column(label("item", "en")).index("training: DGX H100")
    assert capex.column(label("line_quantity", "en"))[row] == "18"
    assert capex.column("Unit price [USD]")[row] == "270,000.00"
    priced = {*capex.column(label("priced", "en"))}
    assert priced <= {"yes", "no"}, priced


def test_storage_tables_show_the_labels_formats(panels):
    p = panels["storage"]
    ck = _Table(p.checkpoints.value)
    # Worked example, Young/Daly first order (hubplan.storage.checkpoint.goodput): the
    # default fine-tune writes a 0.98 TB checkpoint in δ = 7.98 s, every P = 77.28 min
    # = 4 637 s, with a job MTBF M = 374.47 h = 1 348 078 s and R = 15 min = 900 s
    # restarts: 1 − 7.98/4 637 − (4 637/2 + 900)/1 348 078 = 1 − 0.00172 − 0.00239
    # = 0.99589. expected_goodput is '0.0%': "99.6%" (it read "100%", a perfect run).
    assert ck.column(label("expected_goodput", "en")) == ["99.6%"]
    failures = _Table(p.failures.value)
    shares = failures.column(label("failure_share", "en"))
    assert all(s.endswith("%") and len(s.split(".")[-1]) == 2 for s in shares), shares


def test_network_tables_show_the_labels_formats(panels):
    p = panels["network"]
    switches = _Table(p.switch_table.value)
    # NVIDIA QM9700 data sheet: 1 720 W maximum; max_power_kw is '#,##0.0': "1.7"
    models = switches.column(label("model", "en"))
    power = switches.column(label("max_power_kw", "en") + " [kW]")
    assert power[models.index("QM9700")] == "1.7"
    fabric = _Table(p.fabric_table.value)
    # 144 training GPUs, one compute NIC each: 144 endpoints ('#,##0')
    assert fabric.column(label("endpoints", "en"))[0] == "144"


def test_display_frame_keeps_the_table_unchanged_and_blanks_missing_values():
    import pandas as pd

    df = pd.DataFrame(
        {
            "expected_goodput": [0.99589, float("nan")],
            "fits": [True, False],
            "line_quantity": [1234.5, pd.NA],
            "gpus": [pd.NA, 16_384],
        }
    )
    df["gpus"] = df["gpus"].astype("Int64")
    before = df.copy()
    shown = display_frame(df, "zh")
    pd.testing.assert_frame_equal(df, before)  # views format a copy, never the table
    assert shown.iloc[:, 0].tolist() == ["99.6%", ""]
    assert shown.iloc[:, 1].tolist() == [label("value.yes", "zh"), label("value.no", "zh")]
    # '#,##0.##': 1 234.5 keeps its one decimal and its separator
    assert shown.iloc[:, 2].tolist() == ["1,234.5", ""]
    assert shown.iloc[:, 3].tolist() == ["", "16,384"]


def test_format_value_numbers_with_no_stated_format():
    # A key with no label or no number format: whole numbers whole, fractions to four
    # significant digits, never "1.23e+04" for 12 345.6
    assert format_value("no_such_column", 12_345.6) == "12,346"
    assert format_value("no_such_column", 0.53656) == "0.5366"
    assert format_value("no_such_column", float("inf")) == "∞"
    assert format_value("expected_goodput", -0.0001) == "0.0%"  # no "-0.0%"


# -- slider readouts -------------------------------------------------------------------------

#: Each slider's readout (d3-format) as worked out from its field's catalogue format and
#: its step: a share is a percent ('0%' utilisation 0.70 -> "70%"), a count a whole
#: number, a factor the format's decimals, more only when the step needs them.
_READOUTS = {
    "CostPanel": {
        "utilisation": ".0%",
        "depreciation_years": ".1f",
        "horizon_years": "d",
        "discount_rate": ".1%",
    },
    "StoragePanel": {
        "keep_last": "d",
        "alert": ".0%",
        **{
            f"failure_scale_{c}": ".2f" for c in ("gpu", "hbm", "nic", "switch", "host", "software")
        },
    },
    "NetworkPanel": {"oversubscription": ".2f", "days": ".2f"},  # quarter-day steps
    "FacilityPanel": {"rack_budget_kw": ".0f", "max_servers_per_rack": "d"},
    "WorkloadPanel": {
        "days": ".0f",
        "mfu": ".2f",
        "goodput": ".2f",
        "time_margin": ".0%",
        "memory_headroom": ".1f",
    },
    "OverviewPanel": {"days": ".0f", "mfu": ".2f", "rack_kw": ".0f", "utilisation": ".0%"},
}


@pytest.mark.parametrize("panel", sorted(_READOUTS))
def test_every_slider_reads_in_its_fields_format(panel, panels):
    import ipywidgets as w

    import hubplan.views

    p = panels.get(panel.removesuffix("Panel").lower()) or getattr(hubplan.views, panel)()
    sliders = {
        n: c.readout_format
        for n, c in p.controls.items()
        if isinstance(c, w.IntSlider | w.FloatSlider)
    }
    assert sliders == _READOUTS[panel]


def test_a_share_slider_reads_as_a_percent(panels):
    # d3-format '.0%' multiplies by 100: the default 70 % utilisation reads "70%", where
    # the FloatSlider default '.2f' read "0.70"; the 8 % discount rate "8.0%" ('0.0%')
    c = panels["cost"].controls
    assert (c["utilisation"].value, c["utilisation"].readout_format) == (0.7, ".0%")
    assert (c["discount_rate"].value, c["discount_rate"].readout_format) == (0.08, ".1%")


# -- the hot-tier fill axis ------------------------------------------------------------------


def _fill_layers(chart) -> tuple[list, dict]:
    spec = chart.to_dict()
    line = spec["layer"][0]["encoding"]["y"]
    return spec["layer"], {
        "domain": line["scale"]["domain"],
        "clamp": line["scale"]["clamp"],
        "title": spec["title"],
    }


def test_fill_axis_runs_to_full_when_the_tier_never_fills():
    from hubplan.views import charts

    plan = hubplan_default_storage()
    # the default hot tier: 19.7 TB of checkpoints on 1 180 TB usable, 1.7 % at most,
    # alert at 85 %: the axis is 0-100 %, not stretched and not auto-scaled to 90 %
    layers, y = _fill_layers(charts.hot_fill(plan["hot_fill"]))
    assert y["domain"] == [0, 1.0] and len(layers) == 2
    assert y["title"] == "Hot-tier fill over the run"


def test_fill_axis_stops_at_125_percent_and_says_when_the_tier_fills():
    import pandas as pd

    from hubplan.views import charts

    # A run whose fill passes 100 % on day 2 and reaches 25 times the usable capacity
    curve = pd.DataFrame(
        {
            "day": [0.0, 1.0, 2.0, 3.0],
            "used_tb": [50.0, 90, 120, 2500],
            "usable_tb": 100.0,
            "fill": [0.5, 0.9, 1.2, 25.0],
            "alert_fill": 0.85,
        }
    )
    for lang, note in (
        (
            "en",
            "Full on day 2.0: by day 3.0 the run would need 2,500% of "
            "the usable capacity (axis stops at 125 %)",
        ),
        ("zh", "第 2.0 天写满：至第 3.0 天需要可用容量的 2,500%（纵轴截至 125%）"),
    ):
        layers, y = _fill_layers(charts.hot_fill(curve, lang))
        assert y["domain"] == [0, 1.25] and y["clamp"] is True  # was auto: 0-2 500 %
        assert y["title"]["subtitle"] == note
        # the 100 % rule and the day-2 rule
        assert [lay["mark"]["type"] for lay in layers] == ["line", "rule", "rule", "rule"]


def test_the_16k_run_keeping_every_checkpoint_reads_on_a_capped_axis():
    import hubplan
    from hubplan.core.paths import templates_dir
    from hubplan.views import charts

    pretrain = hubplan.load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml")
    keep_all = hubplan.build_plan(
        pretrain.with_changes({"storage.checkpoint_offload": False, "storage.hot_nodes": 4}),
        until="storage",
    )
    # notebook 04, section 4: "alert on day 2.8, full on day 3.3 of 75.2"; by day 75.2
    # the checkpoints would need 51 972 TB of 4 × 24 × 30.72 × 0.8 = 2 359 TB usable, 2 203 %
    days = keep_all["checkpoint_plan"]["days_to_full"].iloc[0]
    _, y = _fill_layers(charts.hot_fill(keep_all["hot_fill"], "en", days))
    assert y["domain"] == [0, 1.25]
    assert y["title"]["subtitle"].startswith(
        "Full on day 3.3: by day 75.2 the run would need 2,203% of the usable capacity"
    )


def hubplan_default_storage():
    import hubplan

    return hubplan.build_plan(hubplan.default_scenario(), until="storage")


# -- the scenario comparison -----------------------------------------------------------------


def test_scenario_comparison_shows_each_figure_in_its_format():
    import hubplan
    from hubplan.views import compare_scenarios

    s = hubplan.default_scenario()
    # every pool on L4 cards: no cloud offer lists an L4 (test_cost_cloud.py), so no
    # break-even to show
    l4 = s.with_changes(
        {
            f"pools.{pool}.{k}": v
            for pool in ("training", "inference", "development")
            for k, v in (("accelerator", "L4 24GB"), ("server", None))
        }
    )
    cmp = compare_scenarios({"H100": hubplan.build_plan(s), "L4": hubplan.build_plan(l4)})
    shown = cmp.display_table()
    cells = shown.to_numpy().ravel().tolist()
    assert not [c for c in cells if str(c).lower() in _RAW], cells
    h100 = shown["H100"].droplevel("unit")
    # capex 11 400 226.9 USD (worked line by line in test_cost_prices.py), '#,##0';
    # 168 GPUs (144 training, 16 inference, 8 development), '#,##0'; before, the table
    # showed 11400226.9 and 168
    assert h100[label("overview.capex_usd", "en")] == "11,400,227"
    assert h100[label("overview.gpus", "en")] == "168"
    # break-even month 102.72 (test_overview.py), breakeven_month '0.0'
    assert h100[label("overview.breakeven_month", "en")] == "102.7"
    assert shown["L4"].droplevel("unit")[label("overview.breakeven_month", "en")] == label(
        "overview.no_offer", "en"
    )


def test_number_columns_line_up_on_the_right(panels):
    import pandas as pd

    from hubplan.views.panels import _table_html

    df = pd.DataFrame({"item": ["a"], "line_quantity": [18.0], "priced": [True]})
    html = _table_html(df, "en", "t")
    # the quantity (2nd column) right, the item and the yes / no left
    assert "#t td:nth-child(2),#t th:nth-child(2){text-align:right}" in html
    assert "nth-child(1){" not in html and "nth-child(3){" not in html
