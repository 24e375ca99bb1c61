"""The accelerator panel: 3-6 candidate cards, which wins each workload and why, live."""

from __future__ import annotations

import html

import ipywidgets as w
import pandas as pd

from ..core.catalog import Catalog
from ..core.labels import label
from ..scenario import Scenario
from . import charts
from .panels import (
    PlanPanel,
    _form,
    _full_table,
    _table_html,
    controls_beside,
    scrolls,
)

#: The columns the panel shows; the whole comparison is in the collapsed full table.
CANDIDATE_COLUMNS = {
    "training": [
        "rank",
        "candidate",
        "gpus",
        "binding",
        "capex_usd",
        "days_on_budget",
        "over_budget",
        "unranked",
    ],
    "inference": [
        "rank",
        "candidate",
        "gpus",
        "binding",
        "tensor_parallel",
        "decode_tokens_per_s",
        "capex_usd",
        "unranked",
    ],
}


class AcceleratorPanel(PlanPanel):
    """Pick 3-6 candidate accelerators; see which wins each workload, and why, live."""

    title_key = "panel.accelerator.title"
    stages = ("accelerator",)
    until = "accelerator"

    def __init__(
        self, scenario: Scenario | None = None, catalog: Catalog | None = None, lang: str = "en"
    ):
        super().__init__(scenario, catalog, lang)
        sel = self.base.accelerator
        acc = self.catalog.accelerators
        names = acc.loc[acc["bf16_dense_tflops"].notna(), "name"].tolist()
        chosen = [self.catalog.accelerator(n)["name"] for n in sel.candidates]
        workloads = [j.name for j in self.base.workload.training] + [
            s.name for s in self.base.workload.inference
        ]
        # A development-only centre has nothing to compare on: the panel says so and
        # still shows the compute claims of the candidates.
        self.controls = {
            "candidates": w.SelectMultiple(
                options=names, value=chosen, rows=10, layout=w.Layout(width="220px")
            ),
            "budget_musd": w.BoundedFloatText(
                value=(sel.budget_usd or 0) / 1e6,
                min=0,
                max=100_000,
                step=0.5,
                layout=w.Layout(width="120px"),
            ),
            "rank_by": w.ToggleButtons(options=["capex", "power"], value=sel.rank_by),
            "mfu_scaling": w.ToggleButtons(
                options=["measured_matmul", "same"], value=sel.mfu_scaling
            ),
            "workload": w.Dropdown(options=workloads, value=workloads[0] if workloads else None),
        }
        self.labels = {name: w.Label() for name in self.controls}
        self.units = {"budget_musd": "M USD"}
        self.choices = {"rank_by": "choice.rank_by", "mfu_scaling": "choice.mfu_scaling"}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.full, self.full_table = _full_table("panel.full_table")
        self.claims_chart = charts.LiveChart(charts.compute_claims(self.result["compute_claims"]))
        self.cost_chart = charts.LiveChart(
            charts.cost_vs_time(self.result["candidates"], workloads[0] if workloads else None)
        )
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                controls_beside(
                    _form(self.labels, self.controls), [self.summary, self.message, self.findings]
                ),
                scrolls(self.table),
                self.full,
                self.cost_chart,
                self.claims_chart,
            ]
        )
        self._start()

    def scenario(self) -> Scenario:
        c = self.controls
        budget = c["budget_musd"].value * 1e6
        return self.base.with_changes(
            {
                "accelerator.candidates": list(c["candidates"].value),
                "accelerator.budget_usd": budget if budget > 0 else None,
                "accelerator.rank_by": c["rank_by"].value,
                "accelerator.mfu_scaling": c["mfu_scaling"].value,
            }
        )

    def winners(self) -> pd.DataFrame:
        """The winning candidate per workload (a view of the Plan's candidates table)."""
        cand = self.result["candidates"]
        return cand[cand["winner"]].reset_index(drop=True)

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        lines = []
        for row in self.winners().to_dict(orient="records"):
            value = (
                f"{row['capex_usd']:,.0f} USD"
                if self.controls["rank_by"].value == "capex"
                else f"{row['power_kw']:,.1f} kW"
            )
            lines.append(
                label(
                    "panel.winner",
                    lang,
                    workload=row["workload"],
                    candidate=row["candidate"],
                    gpus=int(row["gpus"]),
                    value=value,
                    binding=label(f"binding.{row['binding']}", lang),
                )
            )
        if not lines and not self.controls["workload"].options:
            lines.append(label("panel.no_workload_to_compare", lang))
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
