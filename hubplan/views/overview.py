"""The overview dashboard and the scenario comparison: the few assumptions a room argues
about, and the headline figures of the whole plan, updating as the controls move.

Every figure is read from a Plan table (``pools``, ``racks``, ``facility_power``,
``cost_summary``) or the findings; nothing is computed here but sums of table rows.
A control change rebuilds the plan through the stage cache, so only the stages the
change touches rerun (electricity price and utilisation: cost; rack budget: facility,
cost and review).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

import altair as alt
import ipywidgets as w
import pandas as pd

from ..core.catalog import Catalog
from ..core.labels import format_value, label, normalize_language
from ..plan import Plan, build_plan, stage_names
from ..scenario import Scenario
from . import charts
from .cost import own_vs_cloud_split
from .panels import PlanPanel, _form, _new_hardware_and_text

#: The headline figures, in the order the dashboard and the comparison show them.
FIGURES = (
    "gpus",
    "servers",
    "racks",
    "it_mw",
    "facility_mw",
    "capex_usd",
    "opex_usd_per_year",
    "cost_per_useful_gpu_hour_usd",
    "breakeven_month",
    "errors",
    "warnings",
)

_SEVERITIES = ("error", "warning", "info")


def headline_figures(plan: Plan) -> dict[str, Any]:
    """The dashboard's figures from a whole Plan (built through the review stage).

    Returns
    -------
    dict
        ``gpus_by_pool`` (pool → working + spare GPUs), ``gpus`` (their sum), ``servers``
        (fleet servers, spares included), ``racks`` (all racks: compute, storage,
        network), ``it_mw`` (IT nameplate [MW]), ``facility_mw`` (IT nameplate × PUE
        [MW]), ``capex_usd``, ``capex_unpriced_lines``, ``opex_usd_per_year``,
        ``cost_per_useful_gpu_hour_usd``, ``breakeven_month`` (inf when owning never
        pays back), ``cloud_offer``, ``cloud_usd_per_gpu_hour`` and ``findings`` (severity →
        count), with every figure of :meth:`hubplan.plan.Plan.headline` at the top level.

    >>> from hubplan import build_plan, default_scenario
    >>> f = headline_figures(build_plan(default_scenario()))
    >>> f["gpus_by_pool"], f["servers"], round(f["facility_mw"], 3)
    ({'training': 144, 'inference': 16, 'development': 8}, 21, 0.322)
    """
    figures = plan.headline()  # the plan's own headline: one definition of each figure
    pools = plan["pools"]
    pool_rows = pools[pools["level"] == "pool"]
    by_pool = {
        str(p): int(g) for p, g in zip(pool_rows["pool"], pool_rows["total_gpus"], strict=True)
    }
    cost = plan["cost_summary"].iloc[0]
    findings = {
        "error": figures["errors"],
        "warning": figures["warnings"],
        "info": figures["infos"],
    }
    return {
        "gpus_by_pool": by_pool,
        **figures,
        "cloud_offer": str(cost["cloud_offer"]),
        "cloud_basis": str(cost["cloud_basis"]),
        "cloud_usd_per_gpu_hour": float(cost["cloud_usd_per_gpu_hour"]),
        "findings": findings,
    }


def _money(usd: float) -> str:
    if not math.isfinite(usd):
        return "—"
    return f"{usd / 1e6:,.2f} M USD" if abs(usd) >= 1e6 else f"{usd:,.0f} USD"


def _breakeven(f: dict[str, Any], lang: str) -> str:
    month = f["breakeven_month"]
    if f.get("cloud_basis") == "no_offer":  # nothing to compare: not a "never"
        return label("overview.no_offer", lang)
    if not math.isfinite(month):
        return label("overview.never", lang)
    return label(
        "overview.breakeven_value",
        lang,
        month=month,
        offer=f["cloud_offer"],
        cloud=f["cloud_usd_per_gpu_hour"],
    )


def _figure_text(key: str, f: dict[str, Any], lang: str) -> str:
    """One headline figure as a comparison cell: its label's number format, megawatts to
    two decimals, a break-even with no offer or none in sight in words."""
    value = f[key]
    if key == "breakeven_month" and (
        f.get("cloud_basis") == "no_offer" or not math.isfinite(value)
    ):
        return _breakeven(f, lang)
    if key in ("it_mw", "facility_mw"):
        return f"{value:,.2f}" if math.isfinite(value) else ""
    return format_value(key, value)


def headline_text(f: dict[str, Any], lang: str = "en") -> dict[str, str]:
    """Each figure of :func:`headline_figures` as the dashboard shows it, by figure key."""
    lang = normalize_language(lang)
    pools = " · ".join(
        f"{label(f'choice.pool.{p}', lang)} {g:,}" for p, g in f["gpus_by_pool"].items()
    )
    sev = f["findings"]
    n = f["capex_unpriced_lines"]
    unpriced = label("overview.unpriced", lang, n=n) if n else ""
    return {
        "gpus": f"{f['gpus']:,} ({pools})",
        "servers": f"{f['servers']:,}",
        "racks": f"{f['racks']:,}",
        "it_mw": f"{f['it_mw']:,.2f} MW",
        "facility_mw": f"{f['facility_mw']:,.2f} MW",
        "capex_usd": _money(f["capex_usd"]) + unpriced,
        "opex_usd_per_year": _money(f["opex_usd_per_year"]),
        "cost_per_useful_gpu_hour_usd": f"{f['cost_per_useful_gpu_hour_usd']:,.2f} USD",
        "breakeven_month": _breakeven(f, lang),
        "findings": " · ".join(f"{label(f'severity.{s}', lang)} {sev[s]}" for s in _SEVERITIES),
    }


_CARD_CSS = (
    "<style>.hubplan-headline{display:grid;grid-template-columns:repeat(auto-fill,"
    "minmax(180px,1fr));gap:8px;margin:4px 0}.hubplan-card{border:1px solid #ccd;"
    "border-radius:6px;padding:6px 10px;background:#f7f8fb}.hubplan-card .k{font-size:12px;"
    "color:#556}.hubplan-card .v{font-size:17px;font-weight:600;color:#112}"
    ".hubplan-card.bad .v{color:#b00020}</style>"
)


def headline_html(f: dict[str, Any], lang: str = "en") -> str:
    """The headline figures as cards; each value sits in ``#hubplan-fig-<figure>``."""
    text = headline_text(f, lang)
    cards = []
    for key, value in text.items():
        bad = " bad" if key == "findings" and f["errors"] else ""
        cards.append(
            f'<div class="hubplan-card{bad}"><div class="k">'
            f"{html.escape(label(f'overview.{key}', lang))}</div>"
            f'<div class="v" id="hubplan-fig-{key}">{html.escape(value)}</div></div>'
        )
    return _CARD_CSS + f'<div class="hubplan-headline" id="hubplan-headline">{"".join(cards)}</div>'


class OverviewPanel(PlanPanel):
    """The workshop dashboard: the assumptions people argue about against the whole plan.

    Controls: model size, training text (or tokens), deadline, accelerator and MFU of
    the first training job; peak QPS of the first inference service; rack power budget;
    electricity price; utilisation. Figures: GPUs by pool, servers, racks, IT and
    facility MW, capex, opex a year, cost per useful GPU-hour, break-even against the
    cloud, open findings by severity (see :func:`headline_figures`).

    Parameters
    ----------
    scenario : Scenario, optional
        Starting assumptions; default :func:`~hubplan.default_scenario`. The
        training controls appear when there is a training job, the QPS control when there
        is an inference service; any mix of workloads shows the whole plan.
    catalog : Catalog, optional
    lang : str
        ``"en"`` or ``"zh"``; the toggle in the panel changes it live.

    Attributes
    ----------
    figures : dict
        :func:`headline_figures` of the current plan.
    """

    title_key = "panel.overview.title"
    stages = stage_names()
    until = "review"

    def __init__(
        self, scenario: Scenario | None = None, catalog: Catalog | None = None, lang: str = "en"
    ):
        super().__init__(scenario, catalog, lang)
        self.form = w.VBox(layout=w.Layout(min_width="max-content"))
        self._build_controls()
        self.headline = w.HTML()
        self.figures: dict[str, Any] = {}
        plan = self.result
        self.pools_chart = charts.LiveChart(charts.pool_gpus(plan["pools"], self.lang))
        self.cost_chart = charts.LiveChart(
            own_vs_cloud_split(plan["cost_curve"], plan["cost_summary"], self.lang).chart()
        )
        self._shown: dict[str, Any] = {}
        #: Where :func:`hubplan.workshop.dashboard` puts its scenario bar (empty here).
        self.bar_slot = w.VBox()
        #: Called after the language changes (the scenario bar relabels itself).
        self.language_hooks: list[Callable[[], None]] = []
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                self.bar_slot,
                # The figures sit beside the controls, or below them when the window is too
                # narrow for both (nothing is clipped).
                w.HBox(
                    [
                        self.form,
                        w.VBox(
                            [self.headline, self.message],
                            layout=w.Layout(flex="1 1 380px", min_width="380px"),
                        ),
                    ],
                    layout=w.Layout(flex_flow="row wrap", grid_gap="0 12px"),
                ),
                w.HBox([self.pools_chart, self.cost_chart], layout=w.Layout(flex_flow="row wrap")),
                self.findings,
            ],
            layout=w.Layout(width="100%"),
        )
        self.widget.add_class("hubplan-root")  # the page's handle on the dashboard
        self._start()

    def _build_controls(self) -> None:
        """The controls of :attr:`base` (those of its workloads), laid out in :attr:`form`."""
        s = self.base
        acc = self.catalog.accelerators
        names = acc.loc[acc["bf16_dense_tflops"].notna(), "name"].tolist()
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="240px"))
        box = w.Layout(width="120px")
        c: dict[str, w.ValueWidget] = {}
        # The first training job's controls when there is one; a centre that only serves
        # or develops has none of them, and the rest of the dashboard stays.
        if s.workload.training:
            t = s.workload.training[0]
            params = (
                t.params
                if t.params is not None
                else t.architecture.total_params
                if t.architecture is not None
                else float(self.catalog.model(t.model)["total_params"])
            )
            c["params_b"] = w.BoundedFloatText(
                value=params / 1e9, min=0.1, max=100_000, step=1, layout=box
            )
            if t.data_bytes is not None:
                c["data_gb"] = w.BoundedFloatText(
                    value=t.data_bytes / 1e9, min=0.001, max=1e9, step=10, layout=box
                )
            else:
                c["tokens_b"] = w.BoundedFloatText(
                    value=t.tokens / 1e9, min=0.001, max=1e9, step=10, layout=box
                )
            c |= {
                "days": w.FloatSlider(
                    value=t.days, min=1, max=max(120.0, t.days), step=1, **slider
                ),
                "accelerator": w.Dropdown(
                    options=names,
                    layout=w.Layout(width="200px"),
                    value=self.catalog.accelerator(s.pools.training.accelerator)["name"],
                ),
                "mfu": w.FloatSlider(value=t.mfu, min=0.2, max=0.6, step=0.01, **slider),
            }
        if s.workload.inference:
            c["peak_qps"] = w.BoundedFloatText(
                value=s.workload.inference[0].peak_qps, min=0.1, max=100_000, step=1, layout=box
            )
        c |= {
            "rack_kw": w.FloatSlider(
                value=s.facility.rack_budget_kw, min=5, max=150, step=1, **slider
            ),
            "electricity": w.BoundedFloatText(
                value=s.cost.electricity_usd_per_kwh, min=0, max=2, step=0.005, layout=box
            ),
            "utilisation": w.FloatSlider(
                value=s.cost.utilisation, min=0.1, max=1.0, step=0.05, **slider
            ),
        }
        self.controls = c
        self._base_accelerator = c["accelerator"].value if "accelerator" in c else None
        self.labels = {name: w.Label() for name in c}
        self.units = {
            "params_b": "B",
            "data_gb": "GB",
            "tokens_b": "B",
            "days": "d",
            "peak_qps": "1/s",
            "rack_kw": "kW",
            "electricity": "USD/kWh",
        }
        self.form.children = [_form(self.labels, c)]

    def load(self, scenario: Scenario) -> None:
        """Show ``scenario``: its controls (a centre without training has none of the
        training ones) and its plan, as if the dashboard had been opened on it."""
        for widget in self.controls.values():
            widget.unobserve(self.update, names="value")
        self.base = scenario
        self.result = build_plan(scenario, self.catalog, until=self.until)
        self._build_controls()
        self._set_readouts()
        for widget in self.controls.values():
            widget.observe(self.update, names="value")
        self.update()

    def _on_language(self, change: dict) -> None:
        super()._on_language(change)
        for hook in self.language_hooks:
            hook()

    def _label_key(self, name: str) -> str:
        return (
            {"tokens_b": "tokens"}.get(name, f"panel.{name}")
            if name in ("params_b", "data_gb", "tokens_b", "days", "accelerator", "mfu")
            else f"panel.overview.{name}"
        )

    def scenario(self) -> Scenario:
        """The Scenario the controls describe (raises ScenarioError when invalid)."""
        c, j = self.controls, "workload.training.0"
        changes: dict[str, Any] = {
            "facility.rack_budget_kw": c["rack_kw"].value,
            "cost.electricity_usd_per_kwh": c["electricity"].value,
            "cost.utilisation": c["utilisation"].value,
        }
        if "days" in c:  # the scenario has a training job
            changes |= {
                f"{j}.params": c["params_b"].value * 1e9,
                f"{j}.days": c["days"].value,
                f"{j}.mfu": c["mfu"].value,
                "pools.training.accelerator": c["accelerator"].value,
            }
            moved = c["accelerator"].value != self._base_accelerator
            changes |= _new_hardware_and_text(c, j, moved)
        if "peak_qps" in c:
            changes["workload.inference.0.peak_qps"] = c["peak_qps"].value
        # only what moved: an unchanged value must not become a new (uncached) section
        base = self.base
        changes = {k: v for k, v in changes.items() if _get(base, k) != v}
        return base.with_changes(changes) if changes else base

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        self.figures = headline_figures(plan)
        self.headline.value = headline_html(self.figures, lang)
        # A chart is re-shown only when its tables (shared with the stage cache, so the
        # same object while the stage did not rerun) or the language changed; then only its
        # data is new (charts.SplitChart): the structure was validated once per language.
        for name, chart, make, keys in (
            (
                "pools",
                self.pools_chart,
                lambda: charts.pool_gpus_split(plan["pools"], lang),
                ("pools",),
            ),
            (
                "cost",
                self.cost_chart,
                lambda: own_vs_cloud_split(plan["cost_curve"], plan["cost_summary"], lang),
                ("cost_curve", "cost_summary"),
            ),
        ):
            shown = self._shown.get(name)
            tables = [plan[k] for k in keys]
            if (
                shown is None
                or shown[0] != lang
                or any(a is not b for a, b in zip(shown[1], tables, strict=True))
            ):
                charts.show_split(chart, make())
                self._shown[name] = (lang, tables)  # the tables themselves, not their ids


def _get(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
    return obj


# ---------------------------------------------------------------------------------------
# Scenario comparison


def comparison_table(plans: dict[str, Plan], lang: str = "en") -> pd.DataFrame:
    """Headline figures of several plans side by side: one row per figure, one column per
    scenario (the dict's keys), plus the figure's label and unit.

    >>> from hubplan import build_plan, default_scenario
    >>> s = default_scenario()
    >>> t = comparison_table({"15 d": build_plan(s),
    ...     "30 d": build_plan(s.with_changes({"workload.training.0.days": 30}))})
    >>> [int(x) for x in t.set_index("figure").loc["gpus", ["15 d", "30 d"]]]
    [168, 104]
    """
    if len(plans) < 1:
        raise ValueError("compare_scenarios needs at least one plan")
    lang = normalize_language(lang)
    figs = {name: headline_figures(p) for name, p in plans.items()}
    units = {
        "it_mw": "MW",
        "facility_mw": "MW",
        "capex_usd": "USD",
        "opex_usd_per_year": "USD/yr",
        "cost_per_useful_gpu_hour_usd": "USD",
        "breakeven_month": label("month", lang),
    }
    rows = []
    for key in FIGURES:
        row = {"figure": key, "label": label(f"overview.{key}", lang), "unit": units.get(key, "")}
        row |= {name: f[key] for name, f in figs.items()}
        rows.append(row)
    return pd.DataFrame(rows)


#: The figures the comparison chart draws (one small panel each, own scale).
_CHARTED = (
    "gpus",
    "racks",
    "facility_mw",
    "capex_usd",
    "opex_usd_per_year",
    "cost_per_useful_gpu_hour_usd",
)


def comparison_chart(table: pd.DataFrame, lang: str = "en") -> alt.FacetChart:
    """One bar per scenario for each charted figure, each figure on its own scale, from
    :func:`comparison_table`."""
    lang = normalize_language(lang)
    names = [c for c in table.columns if c not in ("figure", "label", "unit")]
    rows = table[table["figure"].isin(_CHARTED)]
    long = rows.melt(
        id_vars=["figure", "label", "unit"],
        value_vars=names,
        var_name="scenario",
        value_name="value",
    )
    long["what"] = [
        f"{lab} [{u}]" if u else lab for lab, u in zip(long["label"], long["unit"], strict=True)
    ]
    order = [x for x in dict.fromkeys(long["what"])]
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X(
                "scenario:N", title="", sort=names, axis=alt.Axis(labelAngle=0, labelLimit=160)
            ),
            y=alt.Y("value:Q", title=""),
            color=alt.Color(
                "scenario:N",
                title=label("overview.scenario", lang),
                sort=names,
                legend=alt.Legend(orient="bottom", labelLimit=400),
            ),
            tooltip=["scenario:N", "what:N", alt.Tooltip("value:Q", format=",.2f")],
        )
        .properties(width=150, height=140)
    )
    faceted = (
        chart.facet(
            facet=alt.Facet("what:N", title="", sort=order, header=alt.Header(labelLimit=200)),
            columns=3,
        )
        .resolve_scale(y="independent")
        .properties(title=label("chart.compare.title", lang))
    )
    return faceted.configure(font=charts.FONT)


class ScenarioComparison:
    """Several saved scenarios side by side: :attr:`table` and :attr:`chart`.

    Shows as an HTML table and a static chart (PNG and SVG rendered offline by
    vl-convert), so a saved notebook shows it with no kernel and no widget state.
    """

    def __init__(self, plans: dict[str, Plan], lang: str = "en"):
        self.plans = plans
        self.lang = normalize_language(lang)
        self.table = comparison_table(plans, self.lang)
        self.chart = comparison_chart(self.table, self.lang)

    def display_table(self) -> pd.DataFrame:
        """The table as shown: figure labels as the index, each figure as text in its
        label's number format (thousands separators, the stated decimals; megawatts to
        two decimals), a break-even that never comes or has no offer to compare against
        said in words, never ``inf`` or ``nan``."""
        figs = {name: headline_figures(p) for name, p in self.plans.items()}
        shown = self.table[["label", "unit"]].copy()
        for name, f in figs.items():
            shown[name] = [_figure_text(key, f, self.lang) for key in self.table["figure"]]
        return shown.set_index(["label", "unit"])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.display_table())
        display(charts.static(self.chart))


def compare_scenarios(plans: dict[str, Plan], lang: str = "en") -> ScenarioComparison:
    """Compare two or more plans: headline figures side by side (table and chart).

    Parameters
    ----------
    plans : dict[str, Plan]
        Scenario name → its whole Plan (``build_plan(load_scenario(path))``).
    lang : str
        ``"en"`` or ``"zh"``.
    """
    return ScenarioComparison(plans, lang)
