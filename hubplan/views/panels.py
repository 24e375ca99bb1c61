"""Workshop panels: ipywidgets that bind to a Scenario section and re-render a fresh Plan.

The pattern is ipywidgets' own ``interactive.update()``: read the controls, build the
Scenario, call ``build_plan``, keep ``self.result``, show errors in the panel instead of
losing them. Results go into value-holding widgets (``HTML``, ``JupyterChart``),
not ``Output`` widgets, so a test can set ``panel.controls[name].value`` and assert on
``panel.result`` with no kernel or browser.

Panels compute nothing themselves: each turns its controls into a Scenario and shows
the Plan's tables and charts.
"""

from __future__ import annotations

import html
import math
from contextlib import contextmanager
from typing import Any

import ipywidgets as w
import pandas as pd

from ..core.catalog import Catalog, load_catalog
from ..core.errors import HubplanError
from ..core.labels import display_frame, label, normalize_language
from ..plan import Plan, build_plan
from ..scenario import Scenario, default_scenario
from . import charts
from .render import checks_table, findings_table, translate

_TABLE_CSS = (
    "<style>.hubplan-table th{white-space:nowrap;padding:2px 8px}"
    ".hubplan-table td{padding:2px 8px}</style>"
)


def _table_html(df: pd.DataFrame, lang: str, css_id: str) -> str:
    table = display_frame(df, lang).to_html(index=False, border=0, classes="hubplan-table",
                                            table_id=css_id, escape=True)  # fmt: skip
    return _TABLE_CSS + table


def _full_table(title_key: str) -> tuple[w.Accordion, w.HTML]:
    """A collapsed section holding a whole table: panels show the few columns that matter,
    the rest is a click away."""
    body = w.HTML()
    box = w.Accordion(children=[body], selected_index=None)
    box.set_title(0, title_key)
    return box, body


def _form(labels: dict[str, w.Label], controls: dict[str, w.Widget]) -> w.GridBox:
    # A label column, not widget descriptions: CJK descriptions get truncated.
    grid = w.Layout(grid_template_columns="max-content max-content", grid_gap="4px 12px",
                    min_width="max-content")  # fmt: skip
    return w.GridBox([x for name in controls for x in (labels[name], controls[name])],
                     layout=grid)  # fmt: skip


class PlanPanel:
    """What every panel shares: language toggle, error box, findings, the update loop.

    Subclasses build ``self.controls`` and implement :meth:`scenario` and
    :meth:`_render_body`, then call :meth:`_start`.

    Attributes
    ----------
    controls : dict[str, Widget]
        Inputs by scenario meaning.
    result : Plan
        The Plan for the current controls (the last valid one while an error shows).
    error : str or None
        The message shown when the controls do not make a valid scenario.
    """

    title_key = "panel.workload.title"
    #: Which stages' warnings and errors this panel lists.
    stages: tuple[str, ...] = ("workload",)
    #: The last stage whose tables the panel shows: later stages are not built.
    until = "workload"

    def __init__(self, scenario: Scenario | None, catalog: Catalog | None, lang: str):
        self.catalog = catalog if catalog is not None else load_catalog()
        self.base = scenario if scenario is not None else default_scenario()
        self.lang = normalize_language(lang)
        self.error: str | None = None
        self.controls: dict[str, w.ValueWidget] = {}
        self.labels: dict[str, w.Label] = {}
        #: control name -> label-key prefix of its options (relabelled with the language)
        self.choices: dict[str, str] = {}
        #: control name -> unit shown after its label
        self.units: dict[str, str] = {}
        self._quiet = 0  # > 0 while the panel itself sets widgets: no recompute
        charts.enable_offline()
        self.language = w.ToggleButtons(
            options=[("English", "en"), ("中文", "zh")],
            value=self.lang,
            style={"button_width": "70px"},
        )
        self.title = w.HTML()
        self.message = w.HTML()
        self.findings = w.HTML()
        self.result: Plan = build_plan(self.base, self.catalog, until=self.until)

    def _start(self) -> None:
        for widget in self.controls.values():
            widget.observe(self.update, names="value")
        self.language.observe(self._on_language, names="value")
        self.update()

    def scenario(self) -> Scenario:  # pragma: no cover - abstract
        raise NotImplementedError

    def update(self, change: object = None) -> None:
        """Recompute from the controls; on bad input keep the last plan, show the error."""
        if self._quiet:
            return
        try:
            plan = build_plan(self.scenario(), self.catalog, until=self.until)
        except HubplanError as exc:
            self.error = str(exc)
            error = translate(str(exc), self.lang)
            self.message.value = (
                f'<div id="hubplan-error" style="color:#b00020">'
                f"{html.escape(label('panel.error', self.lang, error=error))}</div>"
            )
            return
        self.error = None
        self.message.value = ""
        self.result = plan
        self._render()

    @contextmanager
    def _quietly(self):
        """Set widgets from code without each change recomputing the plan (nestable)."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    def _on_language(self, change: dict) -> None:
        self.lang = change["new"]
        self._render()

    def _render(self) -> None:
        self.title.value = f"<h3>{html.escape(label(self.title_key, self.lang))}</h3>"
        self.findings.value = self._findings_html(self.result)
        self._relabel()
        self._render_body()

    def _label_key(self, name: str) -> str:
        return f"panel.{name}"

    def _relabel(self) -> None:
        """Control labels (with units) and choice options in the current language."""
        for name, lab in self.labels.items():
            text = label(self._label_key(name), self.lang)
            lab.value = f"{text} [{self.units[name]}]" if name in self.units else text
        with self._quietly():  # new option labels, same values
            for name, prefix in self.choices.items():
                widget = self.controls[name]
                value = widget.value
                keys = [v for _, v in widget.options] if isinstance(widget.options[0], tuple) \
                    else list(widget.options)  # fmt: skip
                widget.options = [(label(f"{prefix}.{k}", self.lang), k) for k in keys]
                widget.value = value

    def _render_body(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _findings_html(self, plan: Plan) -> str:
        f = plan.findings
        shown = findings_table(
            f[f["severity"].isin(["error", "warning"]) & f["stage"].isin(self.stages)], self.lang
        )
        items = "".join(
            f'<li class="hubplan-{f["severity"]}"><b>{html.escape(f["subject"])}</b>: '
            f"{html.escape(f['message'])} → {html.escape(f['fix'])}</li>"
            for f in shown.to_dict(orient="records")
        )
        return f'<ul id="hubplan-findings">{items}</ul>' if items else ""

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


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

    def __init__(self, scenario: Scenario | None = None, catalog: Catalog | None = None,
                 lang: str = "en", job: int = 0):  # fmt: skip
        super().__init__(scenario, catalog, lang)
        if not self.base.workload.training:
            raise HubplanError("WorkloadPanel needs a scenario with at least one training job")
        self.job = job
        t = self.base.workload.training[job]
        pool = self.base.pools.training
        acc = self.catalog.accelerators
        names = acc.loc[acc["bf16_dense_tflops"].notna(), "name"].tolist()
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="260px"))
        box = w.Layout(width="120px")
        c: dict[str, w.ValueWidget] = {
            "params_b": w.BoundedFloatText(value=self._params_b(t), min=0.1, max=100_000,
                                           step=1, layout=box),
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
                                              layout=box)  # fmt: skip
        else:
            c["tokens_b"] = w.BoundedFloatText(value=t.tokens / 1e9, min=0.001, max=1e9,
                                               layout=box)  # fmt: skip
        self.controls = c
        self._base_hardware = (c["accelerator"].value, pool.gpus_per_server)
        self.labels = {name: w.Label() for name in c}
        self.units = {"params_b": "B", "data_gb": "GB", "tokens_b": "B", "days": "d"}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.full, self.full_table = _full_table("panel.full_table")
        self.chart = charts.LiveChart(self._chart(self.result).chart())
        self.widget = w.VBox([
            w.HBox([self.title, self.language]),
            w.HBox([w.VBox([_form(self.labels, c)], layout=w.Layout(min_width="380px")),
                    w.VBox([self.summary, self.message, self.findings, self.chart])]),
            self.table, self.full,
        ])  # fmt: skip
        self._start()

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

    def _chart(self, plan: Plan) -> charts.SplitChart:
        job = str(plan["training"]["job"].iloc[self.job])
        return charts.gpus_vs_deadline_split(plan["training_curve"], plan["training"],
                                             self.lang, job)  # fmt: skip

    def _label_key(self, name: str) -> str:
        return {"tokens_b": "tokens", "memory_headroom": "panel.headroom"}.get(
            name, f"panel.{name}"
        )

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        row = plan["training"].iloc[self.job]
        summary = label(
            "panel.summary", lang, gpus=int(row["gpus"]), servers=int(row["servers"]),
            per_server=self.controls["gpus_per_server"].value,
            binding=label(f"binding.{row['binding']}", lang),
            compute=int(row["compute_bound_gpus"]), memory=int(row["memory_bound_gpus"]),
            days=float(row["days_to_finish"]),
        )  # fmt: skip
        self.summary.value = f'<p id="hubplan-summary"><b>{html.escape(summary)}</b></p>'
        keys = ["job", "gpus", "servers", "binding", "compute_bound_gpus",
                "memory_bound_gpus", "days_to_finish"]  # fmt: skip
        self.table.value = _table_html(plan["training"][keys], lang, "hubplan-training")
        self.full.set_title(0, label("panel.full_table", lang))
        self.full_table.value = _table_html(plan["training"], lang, "hubplan-training-full")
        charts.show_split(self.chart, self._chart(plan))


#: The columns the panel shows; the whole comparison is in the collapsed full table.
CANDIDATE_COLUMNS = {
    "training": ["rank", "candidate", "gpus", "binding", "capex_usd", "days_on_budget",
                 "over_budget", "unranked"],
    "inference": ["rank", "candidate", "gpus", "binding", "tensor_parallel",
                  "decode_tokens_per_s", "capex_usd", "unranked"],
}  # fmt: skip


class AcceleratorPanel(PlanPanel):
    """Pick 3-6 candidate accelerators; see which wins each workload, and why, live."""

    title_key = "panel.accelerator.title"
    stages = ("accelerator",)
    until = "accelerator"

    def __init__(self, scenario: Scenario | None = None, catalog: Catalog | None = None,
                 lang: str = "en"):  # fmt: skip
        super().__init__(scenario, catalog, lang)
        sel = self.base.accelerator
        acc = self.catalog.accelerators
        names = acc.loc[acc["bf16_dense_tflops"].notna(), "name"].tolist()
        chosen = [self.catalog.accelerator(n)["name"] for n in sel.candidates]
        workloads = [j.name for j in self.base.workload.training] + [
            s.name for s in self.base.workload.inference
        ]
        if not workloads:
            raise HubplanError(
                "AcceleratorPanel needs a scenario with a training or inference workload"
            )
        self.controls = {
            "candidates": w.SelectMultiple(options=names, value=chosen, rows=10,
                                           layout=w.Layout(width="220px")),
            "budget_musd": w.BoundedFloatText(value=(sel.budget_usd or 0) / 1e6, min=0,
                                              max=100_000, step=0.5,
                                              layout=w.Layout(width="120px")),
            "rank_by": w.ToggleButtons(options=["capex", "power"], value=sel.rank_by),
            "mfu_scaling": w.ToggleButtons(options=["measured_matmul", "same"],
                                           value=sel.mfu_scaling),
            "workload": w.Dropdown(options=workloads, value=workloads[0]),
        }  # fmt: skip
        self.labels = {name: w.Label() for name in self.controls}
        self.units = {"budget_musd": "M USD"}
        self.choices = {"rank_by": "choice.rank_by", "mfu_scaling": "choice.mfu_scaling"}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.full, self.full_table = _full_table("panel.full_table")
        self.claims_chart = charts.LiveChart(charts.compute_claims(self.result["compute_claims"]))
        self.cost_chart = charts.LiveChart(
            charts.cost_vs_time(self.result["candidates"], workloads[0])
        )
        self.widget = w.VBox([
            w.HBox([self.title, self.language]),
            w.HBox([_form(self.labels, self.controls),
                    w.VBox([self.summary, self.message, self.findings])]),
            self.table, self.full, self.cost_chart, self.claims_chart,
        ])  # fmt: skip
        self._start()

    def scenario(self) -> Scenario:
        c = self.controls
        budget = c["budget_musd"].value * 1e6
        return self.base.with_changes({
            "accelerator.candidates": list(c["candidates"].value),
            "accelerator.budget_usd": budget if budget > 0 else None,
            "accelerator.rank_by": c["rank_by"].value,
            "accelerator.mfu_scaling": c["mfu_scaling"].value,
        })  # fmt: skip

    def winners(self) -> pd.DataFrame:
        """The winning candidate per workload (a view of the Plan's candidates table)."""
        cand = self.result["candidates"]
        return cand[cand["winner"]].reset_index(drop=True)

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        lines = []
        for row in self.winners().to_dict(orient="records"):
            value = (f"{row['capex_usd']:,.0f} USD" if self.controls["rank_by"].value == "capex"
                     else f"{row['power_kw']:,.1f} kW")  # fmt: skip
            lines.append(label("panel.winner", lang, workload=row["workload"],
                               candidate=row["candidate"], gpus=int(row["gpus"]), value=value,
                               binding=label(f"binding.{row['binding']}", lang)))  # fmt: skip
        self.summary.value = (
            '<ul id="hubplan-winners">'
            + "".join(f"<li>{html.escape(x)}</li>" for x in lines)
            + "</ul>"
        )
        workload = self.controls["workload"].value
        cand = plan["candidates"]
        mine = cand[cand["workload"] == workload]
        kind = mine["kind"].iloc[0] if not mine.empty else "training"
        cols = [c for c in CANDIDATE_COLUMNS[kind] if c in mine.columns]
        ordered = mine.sort_values("rank")
        self.table.value = _table_html(ordered[cols], lang, "hubplan-candidates")
        self.full.set_title(0, label("panel.full_table", lang))
        self.full_table.value = _table_html(ordered, lang, "hubplan-candidates-full")
        self.cost_chart.chart = charts.cost_vs_time(cand, workload, lang)
        self.claims_chart.chart = charts.compute_claims(plan["compute_claims"], lang)


#: ServerSpec fields the server panel edits, with their widget and limits.
_SERVER_FIELDS = {
    "gpus": (1, 72, 1), "ram_gb": (1, 65_536, 64), "cpu_cores_total": (1, 1024, 1),
    "cpu_base_ghz": (0.5, 6.0, 0.1), "compute_nics": (0, 64, 1),
    "compute_nic_gbps": (1, 1600, 100), "storage_nics": (0, 16, 1), "inband_nics": (0, 16, 1),
    "bmc_nics": (0, 4, 1), "pcie_gen": (3, 6, 1),
}  # fmt: skip


class ServerPanel(PlanPanel):
    """Choose a pool's server, or edit a configuration field by field; see the checks live.

    Picking a catalogue server fills the fields from its row; editing any field turns
    the pool's server into a custom configuration, checked the same way.
    """

    title_key = "panel.server.title"
    stages = ("server",)
    until = "server"
    CUSTOM = "custom"

    def __init__(self, scenario: Scenario | None = None, catalog: Catalog | None = None,
                 lang: str = "en", pool: str = "training"):  # fmt: skip
        super().__init__(scenario, catalog, lang)
        servers = self.catalog.servers["name"].tolist()
        spec = getattr(self.base.pools, pool)
        start = (self.catalog.server(spec.server)["name"] if spec.server
                 else self.CUSTOM if spec.custom_server else servers[0])  # fmt: skip
        acc = self.catalog.accelerators
        num = dict(layout=w.Layout(width="120px"))
        self.controls = {
            "pool": w.Dropdown(options=["training", "inference", "development"], value=pool),
            "server": w.Dropdown(options=[*servers, self.CUSTOM], value=start,
                                 layout=w.Layout(width="280px")),
            "accelerator": w.Dropdown(options=acc["name"].tolist(),
                                      layout=w.Layout(width="220px")),
            **{f: w.BoundedFloatText(min=lo, max=hi, step=st, **num)
               for f, (lo, hi, st) in _SERVER_FIELDS.items()},
            "ram_policy": w.ToggleButtons(options=[("1×", 1.0), ("2×", 2.0)],
                                          value=self.base.server.ram_to_gpu_memory
                                          if self.base.server.ram_to_gpu_memory in (1.0, 2.0)
                                          else 1.0),
        }  # fmt: skip
        self.labels = {name: w.Label() for name in self.controls}
        self.choices = {"pool": "choice.pool"}
        self.units = {"ram_gb": "GB", "cpu_base_ghz": "GHz", "compute_nic_gbps": "Gb/s"}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.pools_table = w.HTML()
        self._fill(start if start != self.CUSTOM else None, spec.custom_server)
        self.widget = w.VBox([
            w.HBox([self.title, self.language]),
            w.HBox([_form(self.labels, self.controls),
                    w.VBox([self.summary, self.message, self.findings, self.table])]),
            self.pools_table,
        ])  # fmt: skip
        self.controls["server"].observe(self._on_server, names="value")
        self.controls["pool"].observe(self._on_pool, names="value")
        self._start()

    def _fill(self, server: str | None, custom=None) -> None:
        """Set the field widgets from a catalogue row (or custom spec) without recomputing."""
        src: Any = custom if custom is not None else (
            self.catalog.server(server) if server else None)  # fmt: skip
        if src is None:
            return
        get = (lambda f: getattr(src, f)) if custom is not None else (lambda f: src[f])
        with self._quietly():
            self.controls["accelerator"].value = self.catalog.accelerator(get("accelerator"))[
                "name"
            ]
            for f, (lo, _, _) in _SERVER_FIELDS.items():
                v = get(f)
                self.controls[f].value = (
                    lo if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
                )

    def _on_pool(self, change: dict) -> None:
        spec = getattr(self.base.pools, change["new"])
        with self._quietly():
            self.controls["server"].value = (self.catalog.server(spec.server)["name"]
                                             if spec.server else self.CUSTOM)  # fmt: skip
        if spec.server or spec.custom_server:
            self._fill(spec.server, spec.custom_server)
        self.update()

    def _on_server(self, change: dict) -> None:
        if change["new"] != self.CUSTOM and not self._quiet:
            self._fill(change["new"])
            self.update()

    def update(self, change: object = None) -> None:
        if self._quiet:
            return
        owner = change["owner"] if change else None  # traitlets passes a dict-like Bunch
        edited = owner is not None and owner not in (
            self.controls["pool"],
            self.controls["server"],
            self.controls["ram_policy"],
        )
        if edited and self.controls["server"].value != self.CUSTOM:
            with self._quietly():
                self.controls["server"].value = self.CUSTOM  # an edited row is a custom server
        super().update(change)

    def scenario(self) -> Scenario:
        c = self.controls
        pool = c["pool"].value
        p = f"pools.{pool}"
        changes: dict[str, Any] = {"server.ram_to_gpu_memory": c["ram_policy"].value,
                                   f"{p}.accelerator": c["accelerator"].value,
                                   f"{p}.gpus_per_server": int(c["gpus"].value)}  # fmt: skip
        if c["server"].value == self.CUSTOM:
            spec = {f: (int(c[f].value) if f not in ("ram_gb", "cpu_base_ghz",
                                                     "compute_nic_gbps") else c[f].value)
                    for f in _SERVER_FIELDS}  # fmt: skip
            changes[f"{p}.server"] = None
            name = label("panel.custom_server", "en")
            changes[f"{p}.custom_server"] = {
                "name": name,
                "accelerator": c["accelerator"].value,
                **spec,
            }
        else:
            changes[f"{p}.server"] = c["server"].value
            changes[f"{p}.custom_server"] = None
        return self.base.with_changes(changes)

    def checks(self) -> pd.DataFrame:
        """The balance checks of the selected pool (a view of the Plan's server_checks)."""
        checks = self.result["server_checks"]
        return checks[checks["pool"] == self.controls["pool"].value].reset_index(drop=True)

    def _label_key(self, name: str) -> str:
        return f"panel.{name}" if name in ("pool", "ram_policy", "server") else name

    def _render_body(self) -> None:
        lang = self.lang
        checks = self.checks()
        counts = {
            s: int((checks["status"] == s).sum()) for s in ("pass", "warn", "fail", "unknown")
        }
        server = checks["server"].iloc[0] if not checks.empty else ""
        pool = label(f"choice.pool.{self.controls['pool'].value}", lang)
        text = label("panel.server.summary", lang, server=server, pool=pool, **counts)
        self.summary.value = f'<p id="hubplan-server-summary"><b>{html.escape(text)}</b></p>'

        cols = ["check", "status", "value", "required", "reason", "fix"]
        self.table.value = _table_html(checks_table(checks, lang)[cols], lang, "hubplan-checks")
        cols = ["level", "pool", "accelerator", "server", "servers", "spare_servers",
                "total_gpus", "new_servers", "capex_usd"]  # fmt: skip
        self.pools_table.value = _table_html(self.result["pools"][cols], lang, "hubplan-pools")
