"""The cost panel and its charts: prices, utilisation and horizon → capex and opex by
category, cost per useful GPU-hour, own versus cloud with the break-even point, tornado.

Charts read the Plan's cost tables only; they compute nothing.
"""

from __future__ import annotations

import html
import math

import altair as alt
import ipywidgets as w
import pandas as pd

from ..core.catalog import Catalog
from ..core.labels import label, normalize_language
from ..scenario import Scenario
from . import charts
from .charts import SplitChart, _style, coded_color, names_of
from .panels import PlanPanel, _form, _table_html, controls_beside, scrolls, side_by_side


def money(df: pd.DataFrame, column: str) -> tuple[str, str]:
    """(the column a chart shows, its currency): the CNY twin of a USD column when the
    plan's cost section chose CNY (the stage then adds ``*_cny`` columns), else itself.

    >>> money(pd.DataFrame({"capex_usd": [1.0], "capex_cny": [7.2]}), "capex_usd")
    ('capex_cny', 'CNY')
    >>> money(pd.DataFrame({"capex_usd": [1.0]}), "capex_usd")
    ('capex_usd', 'USD')
    """
    twin = column.replace("usd", "cny")
    return (twin, "CNY") if twin in df.columns else (column, "USD")


def cost_breakdown(capex: pd.DataFrame, opex: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """Priced capex and opex a year by category (unpriced lines are absent, and said so in
    the panel's findings), from ``cost_capex`` and ``cost_opex``, in the plan's currency."""
    lang = normalize_language(lang)
    capex_col, unit = money(capex, "capex_usd")
    a = capex[capex["priced"]].groupby("category", sort=False)[capex_col].sum()
    b = opex[opex["priced"]].groupby("category", sort=False)[money(opex, "usd_per_year")[0]].sum()
    df = pd.concat(
        [
            pd.DataFrame(
                {"what": label("capex_usd", lang), "category": a.index, "usd": a.to_numpy()}
            ),
            pd.DataFrame(
                {"what": label("opex_usd_per_year", lang), "category": b.index, "usd": b.to_numpy()}
            ),
        ],
        ignore_index=True,
    )
    # colour by the stable code, so a language switch keeps each category's colour and
    # order; the legend and the tooltip show its label in the language
    names = names_of(df["category"], "choice.category", lang)
    df["category_label"] = df["category"].map(names)
    chart = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            y=alt.Y("what:N", title=""),
            x=alt.X("sum(usd):Q", title=unit),
            # 20 colours even for ten categories or fewer: a plan that adds one keeps the rest
            color=coded_color(
                "category", names, label("category", lang), scale=dict(scheme="tableau20")
            ),
            tooltip=[
                "what:N",
                alt.Tooltip("category_label:N", title=label("category", lang)),
                alt.Tooltip("usd:Q", format=",.0f"),
            ],
        )
        .properties(title=label("chart.cost_breakdown.title", lang))
    )
    return _style(chart, width=420, height=120)


def own_vs_cloud(curve: pd.DataFrame, summary: pd.DataFrame, lang: str = "en") -> alt.LayerChart:
    """Cumulative cost of owning, renting and a hybrid by month, with the break-even
    month as a rule, from ``cost_curve`` and ``cost_summary``."""
    return own_vs_cloud_split(curve, summary, lang).chart()


_PATHS = ("own_usd", "cloud_usd", "hybrid_usd")


def own_vs_cloud_split(curve: pd.DataFrame, summary: pd.DataFrame, lang: str = "en") -> SplitChart:
    """:func:`own_vs_cloud` as a :class:`~hubplan.views.charts.SplitChart` (in the plan's
    currency: the ``*_cny`` paths when the stage added them; the field keeps its name)."""
    lang = normalize_language(lang)
    codes = {money(curve, c)[0]: c for c in _PATHS}  # the shown column → its USD code
    long = curve.melt("month", list(codes), var_name="key", value_name="usd")
    long["what"] = long["key"].map(codes)
    long["what_label"] = [label(c, lang) for c in long["what"]]
    month = float(summary["breakeven_month"].iloc[0])
    shown = month if math.isfinite(month) and month <= curve["month"].max() else None
    rule = pd.DataFrame({"month": [shown] if shown is not None else []}, dtype=float)
    unit = money(curve, "own_usd")[1]
    return SplitChart(_own_vs_cloud, (lang, unit), {"paths": long, "breakeven": rule})


def _own_vs_cloud(lang: str, unit: str = "USD") -> alt.LayerChart:
    x = alt.X("month:Q", title=label("month", lang))
    lines = (
        alt.Chart(alt.NamedData("paths"))
        .mark_line()
        .encode(
            x=x,
            y=alt.Y("usd:Q", title=unit),
            color=coded_color("what", {c: label(c, lang) for c in _PATHS}, "", order=_PATHS),
            tooltip=[
                alt.Tooltip("what_label:N", title=""),
                "month:Q",
                alt.Tooltip("usd:Q", format=",.0f"),
            ],
        )
    )
    rule = (
        alt.Chart(alt.NamedData("breakeven")).mark_rule(strokeDash=[4, 4], color="#444").encode(x=x)
    )
    chart = alt.layer(lines, rule).properties(title=label("chart.own_vs_cloud.title", lang))
    return _style(chart, width=420, height=260)


def tornado_chart(
    tornado: pd.DataFrame, lang: str = "en", metric: str = "cost_per_useful_gpu_hour_usd"
) -> alt.Chart:
    """Each assumption's low and high end against the plan's figure, widest bar on top,
    from ``cost_tornado``."""
    lang = normalize_language(lang)
    df = tornado[tornado["metric"] == metric].copy()
    df["name"] = [label(f"cost.assumption.{a}", lang) for a in df["assumption"]]
    cny = "at_low_cny" in df.columns and metric.endswith("_usd")  # a money metric in CNY
    low, high = ("at_low_cny", "at_high_cny") if cny else ("at_low", "at_high")
    df["lo"] = df[[low, high]].min(axis=1)
    df["hi"] = df[[low, high]].max(axis=1)
    if cny:  # the plan's figure in CNY too
        df["base"] = df["base_cny"]
    order = df.sort_values("swing", ascending=False)["name"].tolist()
    y = alt.Y("name:N", title="", sort=order)
    bars = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            y=y,
            x=alt.X("lo:Q", title=label(metric, lang)),
            x2="hi:Q",
            tooltip=[
                "name:N",
                "low_value:Q",
                "high_value:Q",
                alt.Tooltip("at_low:Q", format=",.3f"),
                alt.Tooltip("at_high:Q", format=",.3f"),
            ],
        )
    )
    base = alt.Chart(df.head(1)).mark_rule(color="#444").encode(x="base:Q")
    chart = alt.layer(bars, base).properties(title=label("chart.tornado.title", lang))
    return _style(chart, width=420, height=220)


def _versus(s, basis: str, lang: str) -> str:
    """The comparison half of the cost card: no offer, a reservation's term total, or on
    demand the break-even (within the horizon), renting cheaper over the horizon (the
    break-even lies beyond it), or renting cheaper even at full utilisation."""
    offer, cloud = s["cloud_offer"], float(s["cloud_usd_per_gpu_hour"])
    sp = "" if normalize_language(lang) == "zh" else " "  # 中文 labels open with "，"
    if basis == "no_offer":  # nothing to compare: no break-even, not a "never"
        return label("panel.cost.versus_no_offer", lang)
    if basis == "term_total":  # a reservation: total cost over its term
        return sp + label(
            "panel.cost.versus_term",
            lang,
            offer=offer,
            cloud=cloud,
            cloud_useful=float(s["cloud_usd_per_useful_gpu_hour"]),
            term=float(s["cloud_term_years"]),
            own_term=float(s["own_term_usd"]),
            cloud_term=float(s["cloud_term_usd"]),
        )
    month, util = float(s["breakeven_month"]), float(s["breakeven_utilisation"])
    horizon = int(s["horizon_years"])
    if not util <= 1.0:  # NaN or above 100 %: no utilisation makes owning cheaper
        return sp + label("panel.cost.versus_never", lang, offer=offer, cloud=cloud)
    if not month <= horizon * 12:
        return sp + label(
            "panel.cost.versus_rent",
            lang,
            offer=offer,
            cloud=cloud,
            horizon=horizon,
            utilisation=util,
        )
    return sp + label(
        "panel.cost.versus_breakeven", lang, offer=offer, cloud=cloud, month=month, utilisation=util
    )


class CostPanel(PlanPanel):
    """Capex and opex, the cost of a useful GPU-hour, own versus cloud, and the tornado.

    Parameters
    ----------
    scenario : Scenario, optional
        Starting assumptions; default :func:`~hubplan.default_scenario`.
    catalog : Catalog, optional
    lang : str
        ``"en"`` or ``"zh"``.
    """

    title_key = "panel.cost.title"
    stages = ("cost",)
    until = "cost"

    def __init__(
        self, scenario: Scenario | None = None, catalog: Catalog | None = None, lang: str = "en"
    ):
        super().__init__(scenario, catalog, lang)
        c = self.base.cost
        offers = ["", *self.catalog.cloud_offers["name"].tolist()]
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="260px"))
        self.controls = {
            "utilisation": w.FloatSlider(
                value=c.utilisation, min=0.1, max=1.0, step=0.05, **slider
            ),
            "depreciation_years": w.FloatSlider(
                value=c.depreciation_years, min=2, max=10, step=0.5, **slider
            ),
            "horizon_years": w.IntSlider(value=c.horizon_years, min=1, max=10, **slider),
            "cloud_offer": w.Dropdown(
                options=offers, value=c.cloud_offer or "", layout=w.Layout(width="260px")
            ),  # as wide as the sliders
            "discount_rate": w.FloatSlider(
                value=c.discount_rate, min=0.0, max=0.2, step=0.01, **slider
            ),
        }
        self.labels = {name: w.Label() for name in self.controls}
        self.units = {"depreciation_years": "yr", "horizon_years": "yr"}
        self.summary = w.HTML()
        self.capex_table = w.HTML()
        self.summary_table = w.HTML()
        plan = self.result
        self.breakdown_chart = charts.LiveChart(
            cost_breakdown(plan["cost_capex"], plan["cost_opex"], self.lang)
        )
        self.curve_chart = charts.LiveChart(
            own_vs_cloud(plan["cost_curve"], plan["cost_summary"], self.lang)
        )
        self.tornado_chart = charts.LiveChart(tornado_chart(plan["cost_tornado"], self.lang))
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                controls_beside(
                    _form(self.labels, self.controls), [self.summary, self.message, self.findings]
                ),
                side_by_side(self.breakdown_chart, self.tornado_chart),
                self.curve_chart,
                scrolls(self.summary_table),
                scrolls(self.capex_table),
            ]
        )
        self._start()

    def _label_key(self, name: str) -> str:
        return f"panel.cost.{name}"

    def scenario(self) -> Scenario:
        """The Scenario the controls describe (raises ScenarioError when invalid)."""
        c = self.controls
        return self.base.with_changes(
            {
                "cost.utilisation": c["utilisation"].value,
                "cost.depreciation_years": c["depreciation_years"].value,
                "cost.horizon_years": c["horizon_years"].value,
                "cost.cloud_offer": c["cloud_offer"].value or None,
                "cost.discount_rate": c["discount_rate"].value,
            }
        )

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        s = plan["cost_summary"].iloc[0]
        basis = str(s["cloud_basis"])
        money = dict(
            capex=float(s["capex_usd"]),
            capex_gaps=int(s["capex_unpriced_lines"]),
            opex=float(s["opex_usd_per_year"]),
            opex_gaps=int(s["opex_unpriced_lines"]),
            per_hour=float(s["cost_per_useful_gpu_hour_usd"]),
            capex_low=float(s["capex_low_usd"]),
            capex_high=float(s["capex_high_usd"]),
        )
        complete = not (money["capex_gaps"] or money["opex_gaps"])
        text = label("panel.cost.bill" if complete else "panel.cost.bill_gaps", lang, **money)
        text += _versus(s, basis, lang)
        if not complete:  # a floor, never a confident total
            text = label("panel.cost.floor", lang, **money) + " " + text
        spread = {q: float(s[f"cost_per_useful_gpu_hour_{q}_usd"]) for q in ("p10", "p50", "p90")}
        chance = float(s["own_beats_cloud_probability"])
        span = (
            label("panel.cost.range_no_offer", lang, **spread)
            if basis == "no_offer"
            else label("panel.cost.range", lang, **spread, chance=chance)
        )
        self.summary.value = (
            f'<p id="hubplan-cost-summary"><b>{html.escape(text)}</b></p>'
            f'<p id="hubplan-cost-range">{html.escape(span)}</p>'
        )
        self.summary_table.value = _table_html(
            plan["cost_summary"], lang, "hubplan-cost-summary-table"
        )
        self.capex_table.value = _table_html(plan["cost_capex"], lang, "hubplan-cost-capex")
        self.breakdown_chart.chart = cost_breakdown(plan["cost_capex"], plan["cost_opex"], lang)
        self.curve_chart.chart = own_vs_cloud(plan["cost_curve"], plan["cost_summary"], lang)
        self.tornado_chart.chart = tornado_chart(plan["cost_tornado"], lang)
