"""Workshop panels: ipywidgets that bind to a Scenario section and re-render a fresh Plan.

The pattern is ipywidgets' own ``interactive.update()``: read the controls, build the
Scenario, call ``build_plan``, keep ``self.result``, show errors in the panel instead of
losing them. Results go into value-holding widgets (``HTML``, ``JupyterChart``),
not ``Output`` widgets, so a test can set ``panel.controls[name].value`` and assert on
``panel.result`` with no kernel or browser.

Panels compute nothing themselves: each turns its controls into a Scenario and shows
the Plan's tables and charts. This module holds what they share (:class:`PlanPanel`, the
form and table helpers); each stage's panel has a module of its own (``workload``,
``accelerator``, ``server``, ``storage``, ``network``, ``facility``, ``cost``) and the
whole plan's is ``overview``.
"""

from __future__ import annotations

import html
from contextlib import contextmanager
from typing import Any

import ipywidgets as w
import pandas as pd

from ..core.catalog import Catalog, load_catalog
from ..core.errors import HubplanError
from ..core.labels import _entries, display_frame, label, normalize_language
from ..plan import Plan, build_plan
from ..scenario import Scenario, default_scenario
from . import charts
from .render import findings_table, translate

_TABLE_CSS = (
    "<style>.hubplan-table th{white-space:nowrap;padding:2px 8px}"
    ".hubplan-table td{padding:2px 8px}</style>"
)


def _table_html(df: pd.DataFrame, lang: str, css_id: str) -> str:
    """``df`` as the HTML table a panel shows: :func:`~hubplan.core.labels.display_frame`
    text (each column in its label's format, unknown values blank), text columns on the
    left and number columns on the right, so digits line up under their header."""
    shown = display_frame(df, lang)
    keys = [c for c in df.columns if not (c.endswith("_zh") and c[:-3] in df.columns)]
    types = pd.api.types
    numeric = [
        i
        for i, key in enumerate(keys, start=1)
        if types.is_numeric_dtype(df[key]) and not types.is_bool_dtype(df[key])
    ]
    align = "".join(
        f"#{css_id} td:nth-child({i}),#{css_id} th:nth-child({i}){{text-align:right}}"
        for i in numeric
    )
    table = shown.to_html(
        index=False, border=0, classes="hubplan-table", table_id=css_id, escape=True
    )
    return (
        _TABLE_CSS + f"<style>#{css_id} td,#{css_id} th{{text-align:left}}{align}</style>" + table
    )


#: A slider's field when the control's name is not the field's label key: control name
#: (or name prefix) -> the label key whose ``excel_format`` sets the slider's readout.
SLIDER_FIELDS = {
    "alert": "alert_fill",
    "rack_kw": "panel.rack_budget_kw",
    "failure_scale_": "failure_scale",
}


def _step_decimals(step: float) -> int:
    """Decimals a step needs to show each value it lands on (0.25 -> 2, 5.0 -> 0)."""
    text = f"{step:.10f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


def readout_format(fmt: str, step: float, integer: bool = False) -> str:
    """The d3-format string an ipywidgets slider shows its value in (``readout_format``,
    https://d3js.org/d3-format), from an Excel number format of the label catalogue.

    The decimals are those the format states, or more when the slider's step needs them
    (a deadline in quarter days shows "12.25"); a share ('0%') shows as a percent, an
    integer slider as a whole number.

    >>> readout_format("0%", 0.05), readout_format("0.0%", 0.01), readout_format("0.00", 0.01)
    ('.0%', '.1%', '.2f')
    >>> readout_format("0", 0.25), readout_format("0", 1, integer=True)
    ('.2f', 'd')
    """
    percent = fmt.endswith("%")
    body = fmt.rstrip("%")
    stated = len(body.split(".", 1)[1]) if "." in body else 0
    comma = "," if "," in body else ""
    if integer and not percent:
        return f"{comma}d"
    needed = _step_decimals(round(step * 100, 10) if percent else step)
    return f"{comma}.{max(stated, needed)}{'%' if percent else 'f'}"


def _slider_field(name: str, label_key: str) -> str:
    """The Excel format for a slider: its own label's (``panel.*``), else its field's."""
    entries = _entries()
    for key in (
        label_key,
        SLIDER_FIELDS.get(name, name),
        *(v for k, v in SLIDER_FIELDS.items() if k.endswith("_") and name.startswith(k)),
    ):
        fmt = entries.get(key, {}).get("excel_format", "")
        if fmt and fmt not in ("@", "General"):
            return fmt
    raise KeyError(
        f"slider {name!r}: no number format in the label catalogue for {label_key!r} or its "
        "field; give one of them an excel_format in its labels.csv"
    )


def _full_table(title_key: str) -> tuple[w.Accordion, w.HTML]:
    """A collapsed section holding a whole table: panels show the few columns that matter,
    the rest is a click away."""
    body = w.HTML()
    box = w.Accordion(children=[body], selected_index=None)
    box.set_title(0, title_key)
    return box, body


def controls_beside(form: w.Widget, figures: list[w.Widget]) -> w.HBox:
    """The controls beside the figures, or the figures below the controls when the window
    is too narrow for both (a flex row that wraps): nothing is clipped or drawn over the
    controls, at 1280 px as at 1440 px. The controls take the width their labels and
    sliders need (``max-content``), the figures the rest, at least 380 px."""
    return w.HBox(
        [
            w.VBox([form], layout=w.Layout(min_width="max-content")),
            w.VBox(figures, layout=w.Layout(flex="1 1 380px", min_width="380px")),
        ],
        layout=w.Layout(flex_flow="row wrap", grid_gap="0 12px", align_items="flex-start"),
    )


def side_by_side(*items: w.Widget) -> w.HBox:
    """Charts side by side while they fit, one below the other when they do not."""
    return w.HBox(list(items), layout=w.Layout(flex_flow="row wrap", grid_gap="8px 12px"))


def scrolls(widget: w.Widget) -> w.Widget:
    """A wide table scrolls inside the panel instead of running off the right edge."""
    widget.layout.max_width = "100%"
    widget.layout.overflow = "auto"
    return widget


def _form(labels: dict[str, w.Label], controls: dict[str, w.Widget]) -> w.GridBox:
    # A label column, not widget descriptions: CJK descriptions get truncated.
    # align_content flex-start: in a row beside a taller column the grid is stretched, and its
    # rows must stay together at the top rather than spread over that height
    grid = w.Layout(
        grid_template_columns="max-content max-content",
        grid_gap="4px 12px",
        min_width="max-content",
        align_content="flex-start",
    )
    return w.GridBox([x for name in controls for x in (labels[name], controls[name])], layout=grid)


#: While an input error shows, what the panel displays is the last valid input's plan:
#: its figure cards, tables and charts are dimmed (the error message itself is not).
STALE_CSS = (
    "<style>.hubplan-stale .hubplan-headline,.hubplan-stale table,.hubplan-stale "
    ".vega-embed,.hubplan-stale .hubplan-card{opacity:.35;filter:grayscale(1)}</style>"
)


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
        self._set_readouts()
        for widget in self.controls.values():
            widget.observe(self.update, names="value")
        self.language.observe(self._on_language, names="value")
        self.update()

    def _set_readouts(self) -> None:
        """Every slider's readout in its field's format from the label catalogue
        (:func:`readout_format`): 70 % utilisation reads "70%", not "0.70"."""
        for name, widget in self.controls.items():
            if isinstance(widget, w.IntSlider | w.FloatSlider):
                fmt = _slider_field(name, self._label_key(name))
                widget.readout_format = readout_format(
                    fmt, widget.step, isinstance(widget, w.IntSlider)
                )

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
            self._show_error()
            self._mark_stale(True)
            return
        self.error = None
        self.message.value = ""
        self._mark_stale(False)
        self.result = plan
        self._render()

    def _show_error(self) -> None:
        """The input error in place, and that the figures shown are the last valid
        input's (they are dimmed: :data:`STALE_CSS`)."""
        error = translate(self.error or "", self.lang)
        self.message.value = (
            STALE_CSS + '<div id="hubplan-error" style="color:#b00020">'
            f"{html.escape(label('panel.error', self.lang, error=error))}<br>"
            f'<span id="hubplan-stale">{html.escape(label("panel.stale", self.lang))}</span></div>'
        )

    def _mark_stale(self, stale: bool) -> None:
        """Dim the figures, tables and charts while they do not answer the inputs."""
        box = getattr(self, "widget", None)
        if box is not None:
            (box.add_class if stale else box.remove_class)("hubplan-stale")

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
        if self.error:
            self._show_error()

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
                keys = (
                    [v for _, v in widget.options]
                    if isinstance(widget.options[0], tuple)
                    else list(widget.options)
                )
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


def _new_hardware_and_text(
    controls: dict[str, w.ValueWidget], job: str, hardware_changed: bool
) -> dict[str, Any]:
    """Scenario changes the workload and overview panels share: the training text (as
    ``data_gb`` or ``tokens_b``) of job path ``job``, and, when the card or server size
    changed, no named server for the training pool (the scenario's no longer applies)."""
    changes: dict[str, Any] = {}
    if hardware_changed:
        changes["pools.training.server"] = None
        changes["pools.training.custom_server"] = None
    if "data_gb" in controls:
        changes[f"{job}.data_bytes"] = controls["data_gb"].value * 1e9
    else:
        changes[f"{job}.tokens"] = controls["tokens_b"].value * 1e9
    return changes
