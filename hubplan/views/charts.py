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
    base = alt.Chart(rows).encode(
        x=alt.X("capex_usd:Q", title=f"{label('capex_usd', lang)} [USD]",
                axis=alt.Axis(format="~s")),
        y=alt.Y(f"{y_field}:Q", title=label(y_field, lang), scale=alt.Scale(zero=False)),
        tooltip=["candidate:N", alt.Tooltip("gpus:Q"), alt.Tooltip("capex_usd:Q", format=",.0f"),
                 alt.Tooltip(f"{y_field}:Q", format=",.1f"), "binding:N", "vram_gb:Q"],
    )  # fmt: skip
    points = base.mark_circle(opacity=0.8).encode(
        size=alt.Size("vram_gb:Q", title=label("vram_gb", lang) + " [GB]"),
        color=alt.Color("candidate:N", title=label("candidate", lang)),
    )
    ring = base.transform_filter(alt.datum.winner).mark_point(size=900, color="black")
    text = base.mark_text(align="left", dx=10, dy=-10).encode(text="candidate:N")
    chart = alt.layer(points, ring, text).properties(
        title=f"{label('chart.cost_vs_time.title', lang)} — {workload}"
    )
    return _style(chart)


def rack_elevation(layout: pd.DataFrame, lang: str = "en", racks: int = 12) -> alt.Chart:
    """Rack elevation: each device as a bar from its lowest unit up its height, per rack.

    Parameters
    ----------
    layout : DataFrame
        The Plan's ``rack_layout`` table.
    racks : int
        Show the first this many racks (a 16 384-GPU plan has hundreds).
    """
    lang = normalize_language(lang)
    shown = layout[layout["rack"].isin(list(dict.fromkeys(layout["rack"]))[:racks])].copy()
    shown["u_top"] = shown["u_position"] + shown["u_height"]
    shown["type"] = [label(f"device_type.{t}", lang) for t in shown["device_type"]]
    chart = (
        alt.Chart(shown)
        .mark_bar(stroke="white", strokeWidth=1)
        .encode(
            x=alt.X("rack:N", title=label("rack", lang), sort=None),
            y=alt.Y("u_position:Q", title=f"{label('u_position', lang)} [U]"),
            y2="u_top:Q",
            color=alt.Color("type:N", title=label("device_type", lang)),
            tooltip=["device:N", "model:N", "rack:N", "u_position:Q", "u_height:Q",
                     alt.Tooltip("max_power_kw:Q", format=".2f")],
        )
        .properties(title=label("chart.rack_elevation.title", lang))
    )  # fmt: skip
    return _style(chart, width=max(240, 40 * shown["rack"].nunique()))


def rack_power(allocation: pd.DataFrame, lang: str = "en", racks: int = 40) -> alt.LayerChart:
    """Power per rack against its supply, with the headroom line (supply × (1 − headroom)).

    Parameters
    ----------
    allocation : DataFrame
        The Plan's ``power_allocation`` table.
    """
    lang = normalize_language(lang)
    df = allocation.head(racks).copy()
    df["limit_kw"] = df["supply_kw"] * (1 - df["required_headroom_pct"])
    x = alt.X("rack:N", title=label("rack", lang), sort=None)
    bars = alt.Chart(df).mark_bar().encode(
        x=x,
        y=alt.Y("allocated_kw:Q", title=f"{label('allocated_kw', lang)} [kW]"),
        color=alt.Color("status:N", title=label("status", lang),
                        scale=alt.Scale(domain=["ok", "low_headroom", "over"],
                                        range=["#4c78a8", "#f58518", "#e45756"])),
        tooltip=["rack:N", alt.Tooltip("allocated_kw:Q", format=".1f"),
                 alt.Tooltip("supply_kw:Q", format=".1f"),
                 alt.Tooltip("headroom_pct:Q", format=".1%"), "status:N"],
    )  # fmt: skip
    supply = alt.Chart(df).mark_tick(color="black", thickness=2).encode(x=x, y="supply_kw:Q")
    limit = (
        alt.Chart(df)
        .mark_tick(color="gray", strokeDash=[4, 2], thickness=2)
        .encode(x=x, y="limit_kw:Q")
    )
    layered = alt.layer(bars, supply, limit).properties(title=label("chart.rack_power.title", lang))
    return _style(layered, width=max(240, 16 * len(df)))


def cooling_map(cooling: pd.DataFrame, racks: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """Cooling mode of every rack on the floor: rows down, positions across.

    Parameters
    ----------
    cooling : DataFrame
        The Plan's ``cooling`` table.
    racks : DataFrame
        The Plan's ``racks`` table (row and position of each rack).
    """
    lang = normalize_language(lang)
    df = cooling[cooling["level"] == "rack"].merge(racks[["rack", "position"]], on="rack")
    df["mode"] = [label(f"choice.cooling_mode.{m}", lang) for m in df["cooling_mode"]]
    chart = (
        alt.Chart(df)
        .mark_rect(stroke="white")
        .encode(
            x=alt.X("position:O", title=label("position", lang)),
            y=alt.Y("row:N", title=label("row", lang)),
            color=alt.Color("mode:N", title=label("cooling_mode", lang)),
            tooltip=["rack:N", alt.Tooltip("heat_kw:Q", format=".1f"), "mode:N", "status:N"],
        )
        .properties(title=label("chart.cooling_map.title", lang))
    )  # fmt: skip
    return _style(chart, width=360, height=max(60, 18 * df["row"].nunique()))
