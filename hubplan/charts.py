"""Altair charts of Plan tables. Charts read tables; they never compute (DESIGN.md).

Every title and axis comes from the label catalogue, in English or Chinese. Charts are
tested through ``chart.to_dict()`` (fields, encodings, titles), not pixels.
"""

from __future__ import annotations

from functools import cache

import altair as alt
import pandas as pd

from .labels import label, normalize_language

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
        color=alt.Color("series:N", title=label("chart.curve", lang),
                        sort=list(series.values())),
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
    return _style(chart)


def pool_gpus(pools: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """GPUs per pool (bars, coloured by accelerator), from the Plan's ``pools`` table."""
    lang = normalize_language(lang)
    rows = pools[~pools["pool"].str.startswith("fleet")]
    chart = alt.Chart(rows).mark_bar().encode(
        x=alt.X("pool:N", title=label("pool", lang), sort=None),
        y=alt.Y("gpus:Q", title=label("gpus", lang)),
        color=alt.Color("accelerator:N", title=label("accelerator", lang)),
        tooltip=["pool:N", "accelerator:N", "gpus_required:Q", "gpus:Q", "servers:Q"],
    ).properties(title=label("chart.pools.title", lang))  # fmt: skip
    return _style(chart, width=320, height=260)
