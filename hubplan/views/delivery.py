"""Delivery views: the Gantt chart of the implementation schedule (altair). Reads the
``schedule`` table only."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..core.labels import label, normalize_language
from .charts import _style, coded_color, names_of


def gantt(schedule: pd.DataFrame, lang: str = "en") -> alt.LayerChart:
    """Tasks as bars from start to end (buffer included), coloured by phase, critical
    tasks outlined, milestones as diamonds."""
    lang = normalize_language(lang)
    df = schedule.copy()
    names = names_of(df["phase"], "phase", lang)  # in the schedule's order
    df["phase_label"] = df["phase"].astype(str).map(names)
    work, marks = df[~df["milestone"]], df[df["milestone"]]
    y = alt.Y("task:N", sort=list(df["task"]), title=label("task", lang))
    phase = alt.Tooltip("phase_label:N", title=label("phase", lang))
    tip = ["task:N", phase, "start_date:T", "end_date:T", "slack_days:Q"]
    bars = alt.Chart(work).mark_bar().encode(
        x=alt.X("start_date:T", title=label("start_date", lang)), x2="end_date:T", y=y,
        color=coded_color("phase", names, label("phase", lang), order=list(names)),
        stroke=alt.condition("datum.critical", alt.value("black"), alt.value(None)),
        strokeWidth=alt.value(1.5), tooltip=tip,
    )  # fmt: skip
    dots = alt.Chart(marks).mark_point(shape="diamond", filled=True, size=90, color="black")
    dots = dots.encode(x="end_date:T", y=y, tooltip=tip)
    return _style(alt.layer(bars, dots), width=640, height=max(200, 16 * len(df)))
