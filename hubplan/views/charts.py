"""Altair charts of Plan tables. Charts read tables; they never compute (docs/architecture.md).

Every title and axis comes from the label catalogue, in English or Chinese. Charts are
tested through ``chart.to_dict()`` (fields, encodings, titles), not pixels.
"""

from __future__ import annotations

from functools import cache

import altair as alt
import pandas as pd

from ..core.labels import label, normalize_language

#: CJK-capable fonts in order of preference: Windows, macOS, Debian (fonts-noto-cjk).
FONT = "Microsoft YaHei, PingFang SC, Noto Sans CJK SC, sans-serif"


@cache
def enable_offline() -> None:
    """Render charts in Jupyter with no internet.

    altair's default renderer loads Vega from a CDN and JupyterLab 4 has no Vega-Lite 6
    renderer; JupyterChart with vl-convert's bundled Vega works offline.
    """
    alt.JupyterChart.enable_offline()
    alt.renderers.enable("jupyter", offline=True)


def _style(chart: alt.TopLevelMixin, width: int = 520, height: int = 300) -> alt.TopLevelMixin:
    return chart.properties(width=width, height=height).configure(font=FONT)


def gpus_vs_deadline(curve: pd.DataFrame, training: pd.DataFrame, lang: str = "en",
                     job: str | None = None) -> alt.LayerChart:  # fmt: skip
    """GPUs needed against the deadline: compute-bound and memory-bound curves, the
    whole-server count, and the scenario's chosen point.

    Parameters
    ----------
    curve : DataFrame
        The Plan's ``training_curve`` table.
    training : DataFrame
        The Plan's ``training`` table (the chosen point).
    job : str, optional
        Which job; default the first.
    """
    lang = normalize_language(lang)
    job = job if job is not None else str(training["job"].iloc[0])
    pick = curve[curve["job"] == job]
    chosen = training[training["job"] == job].iloc[0]
    series = {
        "compute_bound_gpus": label("compute_bound_gpus", lang),
        "memory_bound_gpus": label("memory_bound_gpus", lang),
        "gpus": label("gpus", lang),
    }
    long = pick.melt(id_vars="deadline_days", value_vars=list(series), var_name="series",
                     value_name="value")  # fmt: skip
    long["series"] = long["series"].map(series)
    x = alt.X("deadline_days:Q", title=f"{label('chart.gpus_vs_days.x', lang)} [d]")
    y = alt.Y("value:Q", title=label("chart.gpus_vs_days.y", lang))
    lines = alt.Chart(long).mark_line().encode(
        x=x, y=y,
        # Legend below the plot: at the right it is clipped when the panel is narrow.
        color=alt.Color("series:N", title=label("chart.curve", lang),
                        sort=list(series.values()),
                        legend=alt.Legend(orient="bottom", labelLimit=400)),
        strokeDash=alt.StrokeDash("series:N", legend=None, sort=list(series.values())),
        tooltip=[alt.Tooltip("deadline_days:Q", format=".1f"), "series:N", "value:Q"],
    )  # fmt: skip
    point_df = pd.DataFrame([{
        "deadline_days": float(chosen["deadline_days"]), "value": int(chosen["gpus"]),
        "what": f"{label('chart.chosen', lang)}: {int(chosen['gpus'])} GPU",
    }])  # fmt: skip
    point = (
        alt.Chart(point_df)
        .mark_point(size=140, filled=True, color="black")
        .encode(x="deadline_days:Q", y="value:Q", tooltip=["what:N"])
    )
    rule = (
        alt.Chart(point_df).mark_rule(strokeDash=[4, 4], color="gray").encode(x="deadline_days:Q")
    )
    text = point.mark_text(align="left", dx=8, dy=-8).encode(text="what:N")
    chart = alt.layer(lines, rule, point, text).properties(
        title=f"{label('chart.gpus_vs_days.title', lang)} — {job}"
    )
    return _style(chart, width=440, height=260)


def pool_gpus(pools: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """GPUs per pool, working and spare stacked, from the Plan's ``pools`` table."""
    lang = normalize_language(lang)
    rows = pools[pools["level"] == "pool"]
    long = pd.concat([
        rows.assign(part=label("chart.working", lang),
                    value=rows["servers"] * rows["gpus_per_server"]),
        rows.assign(part=label("chart.spare", lang),
                    value=rows["spare_servers"] * rows["gpus_per_server"]),
    ])[["pool", "accelerator", "server", "part", "value"]]  # fmt: skip
    chart = alt.Chart(long).mark_bar().encode(
        x=alt.X("pool:N", title=label("pool", lang), sort=None),
        y=alt.Y("sum(value):Q", title=label("gpus", lang)),
        color=alt.Color("part:N", title="", sort=[label("chart.working", lang)]),
        order=alt.Order("part:N", sort="descending"),
        tooltip=["pool:N", "accelerator:N", "server:N", "part:N", "value:Q"],
    ).properties(title=label("chart.pools.title", lang))  # fmt: skip
    return _style(chart, width=320, height=260)


def compute_claims(claims: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """The TOPS trap: each candidate's headline figure beside the dense BF16 that training
    uses, from the Plan's ``compute_claims`` table."""
    lang = normalize_language(lang)
    applies = label("bf16_dense_tflops", lang)
    headline = label("marketing_figure", lang)
    long = pd.concat([
        claims.assign(figure=applies, value=claims["bf16_dense_tflops"], basis="BF16 dense"),
        claims.assign(figure=headline, value=claims["marketing_figure"],
                      basis=claims["marketing_basis"]),
    ]).dropna(subset=["value"])[["candidate", "figure", "value", "basis"]]  # fmt: skip
    chart = alt.Chart(long).mark_bar().encode(
        y=alt.Y("candidate:N", title=label("candidate", lang), sort=None),
        yOffset=alt.YOffset("figure:N", sort=[applies, headline]),
        x=alt.X("value:Q", title="TFLOPS / TOPS"),
        color=alt.Color("figure:N", title="", sort=[applies, headline]),
        tooltip=["candidate:N", "figure:N", "basis:N", alt.Tooltip("value:Q", format=",.1f")],
    ).properties(title=label("chart.claims.title", lang))  # fmt: skip
    return _style(chart, width=480, height=40 * max(len(claims), 1))


def cost_vs_time(candidates: pd.DataFrame, workload: str, lang: str = "en") -> alt.Chart:
    """Hardware cost against time to train or decode throughput, one point per candidate
    sized by VRAM, the winner ringed.

    Training: days to train on what the fixed budget buys (each candidate's own count
    always meets the deadline, so that axis would be flat); without a budget, days on
    the sized count. Inference: aggregate decode tokens/s on the sized count.
    """
    lang = normalize_language(lang)
    rows = candidates[(candidates["workload"] == workload) & candidates["capex_usd"].notna()]
    kind = rows["kind"].iloc[0] if not rows.empty else "training"
    if kind == "inference":
        y_field = "decode_tokens_per_s"
    elif "days_on_budget" in rows and rows["days_on_budget"].notna().any():
        y_field = "days_on_budget"
        rows = rows[rows["days_on_budget"] < float("inf")]
    else:
        y_field = "days_to_finish"
    # One US$16 M outlier must not squeeze the others into a corner: a log axis once the
    # costs span more than a factor of four.
    spread = rows["capex_usd"].max() / rows["capex_usd"].min() if not rows.empty else 1.0
    scale = alt.Scale(type="log") if spread > 4 else alt.Scale(zero=False)
    base = alt.Chart(rows).encode(
        x=alt.X("capex_usd:Q", title=f"{label('capex_usd', lang)} [USD]",
                axis=alt.Axis(format="~s"), scale=scale),
        y=alt.Y(f"{y_field}:Q", title=label(y_field, lang), scale=alt.Scale(zero=False)),
        tooltip=["candidate:N", alt.Tooltip("gpus:Q"), alt.Tooltip("capex_usd:Q", format=",.0f"),
                 alt.Tooltip(f"{y_field}:Q", format=",.1f"), "binding:N", "vram_gb:Q"],
    )  # fmt: skip
    points = base.mark_circle(opacity=0.8).encode(
        size=alt.Size("vram_gb:Q", title=label("vram_gb", lang) + " [GB]"),
        color=alt.Color("candidate:N", title=label("candidate", lang)),
    )
    ring = base.transform_filter(alt.datum.winner).mark_point(size=900, color="black")
    # Alternate label sides by rank so labels of close points do not overlap.
    ranked = rows.assign(side=[i % 2 for i in range(len(rows))])
    text_left = (
        alt.Chart(ranked[ranked["side"] == 0])
        .mark_text(align="left", dx=10, dy=-10)
        .encode(x=base.encoding.x, y=base.encoding.y, text="candidate:N")
    )
    text_right = (
        alt.Chart(ranked[ranked["side"] == 1])
        .mark_text(align="right", dx=-10, dy=12)
        .encode(x=base.encoding.x, y=base.encoding.y, text="candidate:N")
    )
    text = text_left + text_right
    chart = alt.layer(points, ring, text).properties(
        title=f"{label('chart.cost_vs_time.title', lang)} — {workload}"
    )
    return _style(chart)


def storage_capacity(content: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """Content per tier, stacked by what it is, from the Plan's ``storage_content`` table."""
    lang = normalize_language(lang)
    df = content.assign(what=[label(f"storage.content.{c}", lang) for c in content["content"]])
    chart = alt.Chart(df).mark_bar().encode(
        x=alt.X("tier:N", title=label("tier", lang), sort=["hot", "warm", "cold"]),
        y=alt.Y("sum(tb):Q", title=f"{label('tb', lang)} [TB]"),
        color=alt.Color("what:N", title=label("content", lang)),
        tooltip=["tier:N", "what:N", alt.Tooltip("tb:Q", format=",.2f")],
    ).properties(title=label("chart.storage_capacity.title", lang))  # fmt: skip
    return _style(chart, width=300, height=260)


def storage_bandwidth(bandwidth: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """Read and write demand against the hot tier's supply, from ``storage_bandwidth``."""
    lang = normalize_language(lang)
    total = bandwidth[bandwidth["pool"] == "total"].iloc[0]
    demand, supply = label("chart.demand", lang), label("chart.supply", lang)
    read, write = label("read_gb_s", lang), label("write_gb_s", lang)
    df = pd.DataFrame([
        {"what": read, "side": demand, "gb_s": float(total["read_demand_gb_s"])},
        {"what": read, "side": supply, "gb_s": float(total["supply_read_gb_s"])},
        {"what": write, "side": demand, "gb_s": float(total["write_demand_gb_s"])},
        {"what": write, "side": supply, "gb_s": float(total["supply_write_gb_s"])},
    ])  # fmt: skip
    chart = alt.Chart(df).mark_bar().encode(
        y=alt.Y("what:N", title="", sort=[read, write]),
        yOffset=alt.YOffset("side:N", sort=[demand, supply]),
        x=alt.X("gb_s:Q", title="GB/s"),
        color=alt.Color("side:N", title="", sort=[demand, supply]),
        tooltip=["what:N", "side:N", alt.Tooltip("gb_s:Q", format=",.1f")],
    ).properties(title=label("chart.storage_bandwidth.title", lang))  # fmt: skip
    return _style(chart, width=300, height=160)


def hot_fill(curve: pd.DataFrame, lang: str = "en") -> alt.LayerChart:
    """Hot-tier fill over the run with the alert line, from the Plan's ``hot_fill`` table."""
    lang = normalize_language(lang)
    x = alt.X("day:Q", title=f"{label('day', lang)} [d]")
    line = alt.Chart(curve).mark_line(interpolate="step-after").encode(
        x=x, y=alt.Y("fill:Q", title=label("fill", lang), axis=alt.Axis(format="%")),
        tooltip=[alt.Tooltip("day:Q", format=".2f"), alt.Tooltip("used_tb:Q", format=",.1f"),
                 alt.Tooltip("fill:Q", format=".1%")],
    )  # fmt: skip
    alert = alt.Chart(curve.head(1)).mark_rule(color="#b00020", strokeDash=[6, 4]).encode(
        y="alert_fill:Q", tooltip=[alt.Tooltip("alert_fill:Q", title=label("alert_fill", lang),
                                               format=".0%")])  # fmt: skip
    chart = alt.layer(line, alert).properties(title=label("chart.hot_fill.title", lang))
    return _style(chart, width=420, height=260)
