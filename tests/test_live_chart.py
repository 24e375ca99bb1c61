"""LiveChart: altair's chart widget with the Vega bundle sent once per kernel.

The browser side (every chart draws, one bundle on the page) is tested in
tests/test_browser.py; these tests hold the kernel side: what each widget sends.
"""

from __future__ import annotations

import json

import altair as alt
import ipywidgets as widgets
import pandas as pd
import pytest
from ipywidgets.widgets.widget import _instances as open_widgets  # Widget.widgets, undeprecated

import hubplan.views
from hubplan.views import charts
from hubplan.views.charts import LiveChart, VegaLoader, bundle_key, vega_bundle, vega_loader

#: Occurs once in vl-convert's bundle (its last line: ``export{__default as default}``).
BUNDLE_MARKER = "__default as default"


@pytest.fixture(scope="module")
def chart():
    df = pd.DataFrame({"pool": ["train", "infer"], "gpus": [512, 64]})
    return alt.Chart(df).mark_bar().encode(x="pool:N", y="gpus:Q")


def _state_bytes(widget: widgets.Widget) -> int:
    """Bytes of the state a widget sends the page when its model opens."""
    return len(json.dumps(widget.get_state()).encode())


def _open(kind: type) -> list[widgets.Widget]:
    return [w for w in open_widgets.values() if isinstance(w, kind) and w.comm]


def test_live_chart_is_a_drop_in_for_jupyter_chart(chart):
    live, plain = LiveChart(chart), alt.JupyterChart(chart)
    assert isinstance(live, alt.JupyterChart)
    assert live.chart is chart
    assert live.spec == plain.spec
    assert live.spec["mark"] == {"type": "bar"}
    # a new chart replaces the spec as it does for JupyterChart
    other = chart.mark_line()
    live.chart, plain.chart = other, other
    assert live.spec == plain.spec
    assert live.spec["mark"] == {"type": "line"}
    with_options = LiveChart(chart, debounce_wait=50, embed_options={"actions": False})
    assert (with_options.debounce_wait, with_options.embed_options) == (50, {"actions": False})


def test_charts_share_one_bundle(chart):
    hubplan.views.setup()
    plain = alt.JupyterChart(chart)
    lives = [LiveChart(chart) for _ in range(5)]
    # An offline JupyterChart sends vl-convert's whole bundle (904 570 characters with
    # vl-convert 1.9) with every model; a LiveChart a stub of under 2 kB and its spec.
    assert _state_bytes(plain) > 800_000
    assert all(_state_bytes(live) < 5_000 for live in lives)
    assert all(BUNDLE_MARKER not in live._esm for live in lives)
    # ...and one loader per kernel carries the bundle, once, for all of them
    loaders = _open(VegaLoader)
    assert len(loaders) == 1
    assert json.dumps(loaders[0].get_state()).count(BUNDLE_MARKER) == 1
    assert {live._vega_key for live in lives} == {loaders[0].key}


def test_loader_is_the_bundle_altair_ships_offline():
    loader = vega_loader()
    alt.JupyterChart.enable_offline()
    assert loader.bundle == alt.JupyterChart._esm == vega_bundle()
    assert loader.bundle.count(BUNDLE_MARKER) == 1
    assert loader.key == bundle_key(loader.bundle)
    assert vega_loader() is loader


def test_loader_opens_before_the_first_chart(chart):
    # its model reaches the page first; the charts wait for it either way (the registry)
    live = LiveChart(chart)
    order = list(open_widgets)
    assert order.index(vega_loader().model_id) < order.index(live.model_id)


def test_a_closed_loader_is_replaced(chart):
    first = vega_loader()
    widgets.Widget.close_all()  # what tests and "restart and clear" do to every widget
    assert first.comm is None
    live = LiveChart(chart)
    second = vega_loader()
    assert second is not first
    assert second.comm is not None
    assert live._vega_key == second.key == first.key


def test_javascript_reads_the_traits_python_sends():
    # the stub and the loader name their traits in JavaScript; a rename must be made twice
    assert 'model.get("_vega_key")' in LiveChart._esm
    assert 'model.get("_vega_notes")' in LiveChart._esm
    assert {"_vega_key", "_vega_notes"} <= set(LiveChart.class_trait_names(sync=True))
    assert 'model.get("key")' in VegaLoader._esm
    assert 'model.get("bundle")' in VegaLoader._esm
    assert {"key", "bundle"} <= set(VegaLoader.class_trait_names(sync=True))
    # both look the bundle up in the same page-global registry
    assert LiveChart._esm.count("globalThis.__hubplanVega") == 1
    assert VegaLoader._esm.count("globalThis.__hubplanVega") == 1


def test_enable_offline_leaves_the_stub_alone():
    stub = LiveChart._esm
    LiveChart.enable_offline()
    alt.JupyterChart.enable_offline()
    assert LiveChart._esm == stub


def test_bare_chart_in_a_cell_is_a_live_chart(chart):
    hubplan.views.setup()
    assert alt.renderers.active == "hubplan"
    data, _ = chart._repr_mimebundle_()
    model_id = data["application/vnd.jupyter.widget-view+json"]["model_id"]
    shown = open_widgets[model_id]
    assert isinstance(shown, LiveChart)
    assert shown.spec["mark"] == {"type": "bar"}


def test_waiting_and_failure_notes_in_both_languages(chart):
    notes = LiveChart(chart)._vega_notes
    assert notes["waiting"] == (
        "Waiting for the chart engine (Vega) from the kernel … / 正在从内核加载图表引擎（Vega）…"
    )
    # the page puts the browser's error in place of {error}, in both languages
    assert notes["failed"].count("{error}") == 2


def test_bundle_key_tells_bundles_apart():
    # the key is the SHA-256 of the text; `printf 'export default {};' | sha256sum`
    # starts 9f085b1079ab38f7
    assert bundle_key("export default {};") == "vega-9f085b1079ab38f7"
    assert bundle_key("export default {}; ") != bundle_key("export default {};")


def test_panels_use_live_charts():
    from hubplan.views import OverviewPanel

    panel = OverviewPanel(hubplan.default_scenario())
    assert isinstance(panel.pools_chart, charts.LiveChart)
    assert isinstance(panel.cost_chart, charts.LiveChart)
