"""The workload panel: a training job's size, deadline and efficiency against GPUs,
servers and the binding constraint, live."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from ..core.catalog import Catalog
from ..core.labels import label
from ..plan import Plan
from ..scenario import Scenario
from . import charts
from .panels import (
    PlanPanel,
    _form,
    _full_table,
    _new_hardware_and_text,
    _table_html,
    controls_beside,
    scrolls,
)


class WorkloadPanel(PlanPanel):
    """Live workload sizing: move a control, see GPUs, servers and the binding constraint.

    Parameters
    ----------
    scenario : Scenario, optional
        Starting assumptions; default :func:`~hubplan.default_scenario`.
    catalog : Catalog, optional
        Hardware and models; default the shipped catalogue.
    lang : str
        ``"en"`` or ``"zh"``; the language toggle in the panel changes it live.
    job : int
        Which training job the controls edit.
    """

    title_key = "panel.workload.title"
    stages = ("workload",)

    def __init__(
        self,
        scenario: Scenario | None = None,
        catalog: Catalog | None = None,
        lang: str = "en",
        job: int = 0,
    ):
        super().__init__(scenario, catalog, lang)
        self.job = job
        if not self.base.workload.training:  # serving and development only: no controls
            self._start_without_training()
            return
        t = self.base.workload.training[job]
        pool = self.base.pools.training
        acc = self.catalog.accelerators
        names = acc.loc[acc["bf16_dense_tflops"].notna(), "name"].tolist()
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="260px"))
        box = w.Layout(width="120px")
        c: dict[str, w.ValueWidget] = {
            "params_b": w.BoundedFloatText(
                value=self._params_b(t), min=0.1, max=100_000, step=1, layout=box
            ),
            "days": w.FloatSlider(value=t.days, min=1, max=max(120.0, t.days), step=1, **slider),
            "mfu": w.FloatSlider(value=t.mfu, min=0.2, max=0.6, step=0.01, **slider),
            "goodput": w.FloatSlider(value=t.goodput, min=0.5, max=1.0, step=0.01, **slider),
            "time_margin": w.FloatSlider(value=t.time_margin, min=0, max=1, step=0.05, **slider),
            "memory_headroom": w.FloatSlider(
                value=t.memory_headroom, min=1, max=4, step=0.1, **slider
            ),
            "accelerator": w.Dropdown(
                options=names,
                layout=w.Layout(width="220px"),
                value=self.catalog.accelerator(pool.accelerator)["name"],
            ),
            "gpus_per_server": w.Dropdown(
                options=[1, 2, 4, 8, 16], value=pool.gpus_per_server, layout=w.Layout(width="80px")
            ),
        }
        if t.data_bytes is not None:
            c["data_gb"] = w.BoundedFloatText(
                value=t.data_bytes / 1e9, min=0.001, max=1e9, layout=box
            )
        else:
            c["tokens_b"] = w.BoundedFloatText(value=t.tokens / 1e9, min=0.001, max=1e9, layout=box)
        self.controls = c
        self._base_hardware = (c["accelerator"].value, pool.gpus_per_server)
        self.labels = {name: w.Label() for name in c}
        self.units = {"params_b": "B", "data_gb": "GB", "tokens_b": "B", "days": "d"}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.full, self.full_table = _full_table("panel.full_table")
        self.chart = charts.LiveChart(self._chart(self.result).chart())
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                controls_beside(
                    _form(self.labels, c), [self.summary, self.message, self.findings, self.chart]
                ),
                scrolls(self.table),
                self.full,
            ]
        )
        self._start()

    def _start_without_training(self) -> None:
        """A centre with no training job: no job to edit, the pools it carries shown."""
        self.controls, self.labels = {}, {}
        self._base_hardware = None
        self.summary, self.table = w.HTML(), w.HTML()
        self.full, self.full_table = _full_table("panel.full_table")
        self.chart = None
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                self.summary,
                self.message,
                self.findings,
                self.table,
                self.full,
            ]
        )
        self._start()

    def _params_b(self, t) -> float:
        if t.params is not None:
            return t.params / 1e9
        if t.architecture is not None:
            return t.architecture.total_params / 1e9
        return float(self.catalog.model(t.model)["total_params"]) / 1e9

    def scenario(self) -> Scenario:
        """The Scenario the controls describe (raises ScenarioError when invalid)."""
        if not self.controls:
            return self.base
        c, j = self.controls, f"workload.training.{self.job}"
        changes: dict[str, Any] = {
            f"{j}.params": c["params_b"].value * 1e9,
            f"{j}.days": c["days"].value,
            f"{j}.mfu": c["mfu"].value,
            f"{j}.goodput": c["goodput"].value,
            f"{j}.time_margin": c["time_margin"].value,
            f"{j}.memory_headroom": c["memory_headroom"].value,
            "pools.training.accelerator": c["accelerator"].value,
            "pools.training.gpus_per_server": c["gpus_per_server"].value,
        }
        hardware = (c["accelerator"].value, c["gpus_per_server"].value)
        changes |= _new_hardware_and_text(c, j, hardware != self._base_hardware)
        return self.base.with_changes(changes)

    def _chart(self, plan: Plan) -> charts.SplitChart:
        job = str(plan["training"]["job"].iloc[self.job])
        return charts.gpus_vs_deadline_split(
            plan["training_curve"], plan["training"], self.lang, job
        )

    def _label_key(self, name: str) -> str:
        return {"tokens_b": "tokens", "memory_headroom": "panel.headroom"}.get(
            name, f"panel.{name}"
        )

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        if plan["training"].empty:
            text = html.escape(label("panel.no_training", lang))
            self.summary.value = f'<p id="hubplan-summary"><b>{text}</b></p>'
            pools = plan["pool_demand"]
            keys = ["pool", "accelerator", "workloads", "gpus_required", "gpus", "servers"]
            shown = pools.loc[pools["level"] == "pool", keys]
            self.table.value = _table_html(shown, lang, "hubplan-training")
            self.full.set_title(0, label("panel.full_table", lang))
            self.full_table.value = _table_html(plan["inference"], lang, "hubplan-training-full")
            return
        row = plan["training"].iloc[self.job]
        summary = label(
            "panel.summary",
            lang,
            gpus=int(row["gpus"]),
            servers=int(row["servers"]),
            per_server=self.controls["gpus_per_server"].value,
            binding=label(f"binding.{row['binding']}", lang),
            compute=int(row["compute_bound_gpus"]),
            memory=int(row["memory_bound_gpus"]),
            days=float(row["days_to_finish"]),
        )
        self.summary.value = f'<p id="hubplan-summary"><b>{html.escape(summary)}</b></p>'
        keys = [
            "job",
            "gpus",
            "servers",
            "binding",
            "compute_bound_gpus",
            "memory_bound_gpus",
            "days_to_finish",
        ]
        self.table.value = _table_html(plan["training"][keys], lang, "hubplan-training")
        self.full.set_title(0, label("panel.full_table", lang))
        self.full_table.value = _table_html(plan["training"], lang, "hubplan-training-full")
        charts.show_split(self.chart, self._chart(plan))
