"""The storage panel: checkpoints kept, guideline level, hot-tier building block, DR and
the failure-rate multipliers, live."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from ..core.catalog import FAILURE_COMPONENTS, Catalog
from ..core.labels import label
from ..scenario import Scenario
from . import charts
from .panels import PlanPanel, _form, _table_html, controls_beside, scrolls, side_by_side


def _days_to_full(plan) -> float | None:
    """The day the hot tier fills (every row of ``checkpoint_plan`` carries the tier's
    crossing), or None with no training job."""
    ck = plan["checkpoint_plan"]
    return float(ck["days_to_full"].iloc[0]) if not ck.empty else None


class StoragePanel(PlanPanel):
    """Storage per tier, bandwidth demand against supply, and the hot-tier fill over the run.

    Parameters
    ----------
    scenario : Scenario, optional
        Starting assumptions; default :func:`~hubplan.default_scenario`.
    catalog : Catalog, optional
    lang : str
        ``"en"`` or ``"zh"``.
    """

    title_key = "panel.storage.title"
    stages = ("storage",)
    until = "storage"

    def __init__(
        self, scenario: Scenario | None = None, catalog: Catalog | None = None, lang: str = "en"
    ):
        super().__init__(scenario, catalog, lang)
        st = self.base.storage
        cat = self.catalog.storage
        hot = cat.loc[
            cat["tiers"].str.split(";").apply(lambda t: "hot" in t) & (cat["role"] != "mds"), "name"
        ].tolist()
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="260px"))
        self.controls = {
            "keep_last": w.IntSlider(value=st.checkpoint_keep_last, min=1, max=50, **slider),
            "offload": w.Checkbox(value=st.checkpoint_offload, indent=False),
            "performance_level": w.Dropdown(
                options=["good", "better", "best"],
                value=st.performance_level,
                layout=w.Layout(width="280px"),
            ),
            "alert": w.FloatSlider(value=st.alert_fill, min=0.5, max=1.0, step=0.01, **slider),
            "hot_model": w.Dropdown(
                options=hot, value=st.hot_model, layout=w.Layout(width="280px")
            ),
            "dr": w.Dropdown(
                options=["none", "offsite_backup", "warm_standby"],
                value=st.dr,
                layout=w.Layout(width="180px"),
            ),
            **{
                f"failure_scale_{c}": w.FloatSlider(
                    value=getattr(st, f"failure_scale_{c}"), min=0.0, max=10.0, step=0.1, **slider
                )
                for c in FAILURE_COMPONENTS
            },
        }
        self.choices = {"dr": "choice.dr", "performance_level": "choice.performance_level"}
        self.labels = {name: w.Label() for name in self.controls}
        self.units: dict[str, str] = {}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.checkpoints = w.HTML()
        self.failures = w.HTML()
        self.capacity_chart = charts.LiveChart(
            charts.storage_capacity(self.result["storage_content"], self.lang)
        )
        self.bandwidth_chart = charts.LiveChart(
            charts.storage_bandwidth(self.result["storage_bandwidth"], self.lang)
        )
        self.fill_chart = charts.LiveChart(
            charts.hot_fill(self.result["hot_fill"], self.lang, _days_to_full(self.result))
        )
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                controls_beside(
                    _form(self.labels, self.controls), [self.summary, self.message, self.findings]
                ),
                side_by_side(self.capacity_chart, self.bandwidth_chart),
                self.fill_chart,
                scrolls(self.table),
                self.checkpoints,
                self.failures,
            ]
        )
        self._start()

    def scenario(self) -> Scenario:
        """The Scenario the controls describe (raises ScenarioError when invalid)."""
        c = self.controls
        hot_model = c["hot_model"].value
        role = self.catalog.storage_block(hot_model)["role"]
        changes: dict[str, Any] = {
            "storage.checkpoint_keep_last": c["keep_last"].value,
            "storage.checkpoint_offload": c["offload"].value,
            "storage.performance_level": c["performance_level"].value,
            "storage.alert_fill": c["alert"].value,
            "storage.hot_model": hot_model,
            "storage.dr": c["dr"].value,
            **{
                f"storage.failure_scale_{k}": c[f"failure_scale_{k}"].value
                for k in FAILURE_COMPONENTS
            },
        }
        if role != "oss":  # appliances carry their own metadata, and have their own scheme
            changes["storage.metadata_model"] = None
            changes["storage.hot_protection"] = "appliance"
        else:
            changes["storage.metadata_model"] = self.base.storage.metadata_model
            changes["storage.hot_protection"] = self.base.storage.hot_protection
        return self.base.with_changes(changes)

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        hot = plan["storage_tiers"].set_index("tier").loc["hot"]
        total = plan["storage_bandwidth"].set_index("pool").loc["total"]
        ck = plan["checkpoint_plan"]
        interval = float(ck["interval_min"].min()) if not ck.empty else float("nan")
        good = float(ck["expected_goodput"].min()) if not ck.empty else float("nan")
        text = label(
            "panel.storage.summary",
            lang,
            hot_nodes=int(hot["nodes"]),
            hot_model=hot["model"],
            hot_usable=float(hot["usable_tb"]),
            sized_by=label(f"choice.sized_by.{hot['sized_by']}", lang),
            read=float(total["read_demand_gb_s"]),
            write=float(total["write_demand_gb_s"]),
            interval=interval,
            goodput=good,
        )
        self.summary.value = f'<p id="hubplan-storage-summary"><b>{html.escape(text)}</b></p>'
        self.table.value = _table_html(plan["storage_tiers"], lang, "hubplan-storage-tiers")
        self.checkpoints.value = _table_html(ck, lang, "hubplan-checkpoints")
        self.failures.value = _table_html(plan["failure_breakdown"], lang, "hubplan-failures")
        self.capacity_chart.chart = charts.storage_capacity(plan["storage_content"], lang)
        self.bandwidth_chart.chart = charts.storage_bandwidth(plan["storage_bandwidth"], lang)
        self.fill_chart.chart = charts.hot_fill(plan["hot_fill"], lang, _days_to_full(plan))
