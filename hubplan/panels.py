"""Workshop panels: ipywidgets that bind to a Scenario section and re-render a fresh Plan.

The pattern is ipywidgets' own ``interactive.update()``: read the controls, build the
Scenario, call ``build_plan``, keep ``self.result``, show errors in the panel instead of
losing them (STYLE.md). Results go into value-holding widgets (``HTML``, ``JupyterChart``),
not ``Output`` widgets, so a test can set ``panel.controls[name].value`` and assert on
``panel.result`` with no kernel or browser.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import altair as alt
import ipywidgets as w
import pandas as pd

from . import charts
from .catalog import Catalog, load_catalog
from .errors import HubplanError
from .labels import display_frame, label, normalize_language
from .plan import Plan, build_plan
from .scenario import Scenario, default_scenario


def _table_html(df: pd.DataFrame, lang: str, css_id: str) -> str:
    return display_frame(df, lang).to_html(index=False, border=0, classes="hubplan-table",
                                           table_id=css_id, escape=True)  # fmt: skip


class WorkloadPanel:
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

    Attributes
    ----------
    controls : dict[str, Widget]
        Inputs by scenario meaning (``days``, ``mfu``, ``accelerator`` ...).
    result : Plan
        The Plan for the current controls (the last valid one while an error shows).
    error : str or None
        The message shown when the controls do not make a valid scenario.
    """

    def __init__(self, scenario: Scenario | None = None, catalog: Catalog | None = None,
                 lang: str = "en", job: int = 0):  # fmt: skip
        self.catalog = catalog if catalog is not None else load_catalog()
        self.base = scenario if scenario is not None else default_scenario()
        if not self.base.workload.training:
            raise HubplanError("WorkloadPanel needs a scenario with at least one training job")
        self.job = job
        self.lang = normalize_language(lang)
        self.error: str | None = None
        charts.enable_offline()
        t = self.base.workload.training[job]
        pool = self.base.pools.training
        acc = self.catalog.accelerators
        names = acc.loc[acc["bf16_dense_tflops"].notna(), "name"].tolist()
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="260px"))
        c: dict[str, w.ValueWidget] = {
            "params_b": w.BoundedFloatText(value=self._params_b(t), min=0.1, max=100_000,
                                           step=1, layout=w.Layout(width="120px")),
            "days": w.FloatSlider(value=t.days, min=1, max=max(120.0, t.days), step=1,
                                  **slider),
            "mfu": w.FloatSlider(value=t.mfu, min=0.2, max=0.6, step=0.01, **slider),
            "goodput": w.FloatSlider(value=t.goodput, min=0.5, max=1.0, step=0.01, **slider),
            "time_margin": w.FloatSlider(value=t.time_margin, min=0, max=1, step=0.05,
                                         **slider),
            "memory_headroom": w.FloatSlider(value=t.memory_headroom, min=1, max=4, step=0.1,
                                             **slider),
            "accelerator": w.Dropdown(options=names, layout=w.Layout(width="220px"),
                                      value=self.catalog.accelerator(pool.accelerator)["name"]),
            "gpus_per_server": w.Dropdown(options=[1, 2, 4, 8, 16], value=pool.gpus_per_server,
                                          layout=w.Layout(width="80px")),
        }  # fmt: skip
        if t.data_bytes is not None:
            c["data_gb"] = w.BoundedFloatText(value=t.data_bytes / 1e9, min=0.001, max=1e9,
                                              layout=w.Layout(width="120px"))  # fmt: skip
        else:
            c["tokens_b"] = w.BoundedFloatText(value=t.tokens / 1e9, min=0.001, max=1e9,
                                               layout=w.Layout(width="120px"))  # fmt: skip
        self.controls = c
        self._base_hardware = (c["accelerator"].value, pool.gpus_per_server)
        self.language = w.ToggleButtons(
            options=[("English", "en"), ("中文", "zh")],
            value=self.lang,
            style={"button_width": "70px"},
        )
        self.title = w.HTML()
        self.findings = w.HTML()
        self.summary = w.HTML()
        self.table = w.HTML()
        self.message = w.HTML()
        self._labels = {name: w.Label() for name in c}
        self.result: Plan = build_plan(self.base, self.catalog)
        self.chart = alt.JupyterChart(self._chart(self.result))
        for widget in c.values():
            widget.observe(self.update, names="value")
        self.language.observe(self._on_language, names="value")
        self.update()
        # A label column, not widget descriptions: CJK descriptions get truncated.
        grid = w.Layout(grid_template_columns="max-content 1fr", grid_gap="4px 12px")
        form = w.GridBox([x for name in c for x in (self._labels[name], c[name])], layout=grid)
        self.widget = w.VBox([
            w.HBox([self.title, self.language]),
            w.HBox([w.VBox([form], layout=w.Layout(min_width="380px")),
                    w.VBox([self.summary, self.message, self.findings, self.chart])]),
            self.table,
        ])  # fmt: skip

    # -- wiring -----------------------------------------------------------------------
    def _params_b(self, t) -> float:
        if t.params is not None:
            return t.params / 1e9
        if t.architecture is not None:
            return t.architecture.total_params / 1e9
        return float(self.catalog.model(t.model)["total_params"]) / 1e9

    def scenario(self) -> Scenario:
        """The Scenario the controls describe (raises ScenarioError when invalid)."""
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
        if (c["accelerator"].value, c["gpus_per_server"].value) != self._base_hardware:
            # another card or server size: the scenario's server no longer applies
            changes["pools.training.server"] = None
            changes["pools.training.custom_server"] = None
        if "data_gb" in c:
            changes[f"{j}.data_bytes"] = c["data_gb"].value * 1e9
        else:
            changes[f"{j}.tokens"] = c["tokens_b"].value * 1e9
        return self.base.with_changes(changes)

    def update(self, change: object = None) -> None:
        """Recompute from the controls; on bad input keep the last plan, show the error."""
        try:
            plan = build_plan(self.scenario(), self.catalog)
        except HubplanError as exc:
            self.error = str(exc)
            self.message.value = (
                f'<div id="hubplan-error" style="color:#b00020">'
                f"{html.escape(label('panel.error', self.lang, error=exc))}</div>"
            )
            return
        self.error = None
        self.message.value = ""
        self.result = plan
        self._render()

    def _on_language(self, change: dict) -> None:
        self.lang = change["new"]
        self._render()

    # -- rendering ----------------------------------------------------------------------
    def _chart(self, plan: Plan) -> alt.TopLevelMixin:
        job = str(plan["training"]["job"].iloc[self.job])
        return charts.gpus_vs_deadline(plan["training_curve"], plan["training"], self.lang, job)

    def _render(self) -> None:
        lang, plan = self.lang, self.result
        units = {"params_b": "B", "data_gb": "GB", "tokens_b": "B", "days": "d"}
        for name, lab in self._labels.items():
            key = {"tokens_b": "tokens", "memory_headroom": "panel.headroom"}.get(name)
            text = label(key or f"panel.{name}", lang)
            lab.value = f"{text} [{units[name]}]" if name in units else text
        self.title.value = f"<h3>{html.escape(label('panel.workload.title', lang))}</h3>"
        row = plan["training"].iloc[self.job]
        summary = label(
            "panel.summary", lang, gpus=int(row["gpus"]), servers=int(row["servers"]),
            per_server=self.controls["gpus_per_server"].value,
            binding=label(f"binding.{row['binding']}", lang),
            compute=int(row["compute_bound_gpus"]), memory=int(row["memory_bound_gpus"]),
            days=float(row["days_to_finish"]),
        )  # fmt: skip
        self.summary.value = f'<p id="hubplan-summary"><b>{html.escape(summary)}</b></p>'
        keys = ["job", "accelerator", "params", "tokens", "flops", "peak_tflops", "gpu_days",
                "compute_bound_gpus", "model_state_gb", "gpus_to_hold_state",
                "memory_bound_gpus", "gpus", "servers", "binding", "days_to_finish",
                "days_on_memory_bound"]  # fmt: skip
        self.table.value = _table_html(
            plan["training"][keys], lang, "hubplan-training"
        ) + _table_html(plan["pools"], lang, "hubplan-pools")
        self.findings.value = self._findings_html(plan)
        self.chart.chart = self._chart(plan)

    def _findings_html(self, plan: Plan) -> str:
        suffix = "" if self.lang == "en" else "_zh"
        shown = plan.findings[plan.findings["severity"].isin(["error", "warning"])]
        items = "".join(
            f'<li class="hubplan-{f["severity"]}"><b>{html.escape(f["subject"])}</b>: '
            f"{html.escape(f['message' + suffix])} → {html.escape(f['fix' + suffix])}</li>"
            for f in shown.to_dict(orient="records")
        )
        return f'<ul id="hubplan-findings">{items}</ul>' if items else ""

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


def on_change(panel: WorkloadPanel, callback: Callable[[Plan], None]) -> None:
    """Call ``callback(plan)`` after every successful recompute (for linked views)."""
    for widget in panel.controls.values():
        widget.observe(lambda _: panel.error is None and callback(panel.result), names="value")
