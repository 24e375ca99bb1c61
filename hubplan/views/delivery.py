"""Delivery views: the Gantt chart of the implementation schedule (altair). Reads the
``schedule`` table only."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..core.labels import column_value_label, label, normalize_language
from .charts import _style, coded_color, names_of


def gantt(schedule: pd.DataFrame, lang: str = "en") -> alt.LayerChart:
    """Tasks as bars from start to end (buffer included), coloured by phase, critical
    tasks outlined, milestones as diamonds. Each task reads by its label in ``lang``
    ("上架（第 1 批）", "Racking (batch 1)"), in the schedule's order; the colour stays
    encoded by the phase code."""
    lang = normalize_language(lang)
    df = schedule.copy()
    names = names_of(df["phase"], "phase", lang)  # in the schedule's order
    df["phase_label"] = df["phase"].astype(str).map(names)
    df["task_label"] = [str(column_value_label("task", t, lang)) for t in df["task"]]
    work, marks = df[~df["milestone"]], df[df["milestone"]]
    y = alt.Y("task_label:N", sort=list(df["task_label"]), title=label("task", lang))
    task = alt.Tooltip("task_label:N", title=label("task", lang))
    phase = alt.Tooltip("phase_label:N", title=label("phase", lang))
    tip = [task, phase, "start_date:T", "end_date:T", "slack_days:Q"]
    bars = (
        alt.Chart(work)
        .mark_bar()
        .encode(
            x=alt.X("start_date:T", title=label("start_date", lang)),
            x2="end_date:T",
            y=y,
            color=coded_color("phase", names, label("phase", lang), order=list(names)),
            stroke=alt.condition("datum.critical", alt.value("black"), alt.value(None)),
            strokeWidth=alt.value(1.5),
            tooltip=tip,
        )
    )
    dots = alt.Chart(marks).mark_point(shape="diamond", filled=True, size=90, color="black")
    dots = dots.encode(x="end_date:T", y=y, tooltip=tip)
    return _style(alt.layer(bars, dots), width=640, height=max(200, 16 * len(df)))
