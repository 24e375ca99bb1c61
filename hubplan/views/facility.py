"""The facility panel: rack budget and servers per rack → racks, elevation, power per rack
against its budget and headroom line, and the cooling mode of every rack."""

from __future__ import annotations

import html

import ipywidgets as w

from ..core.catalog import Catalog
from ..core.labels import label
from ..plan import Plan
from ..scenario import Scenario
from . import charts
from .panels import PlanPanel, _form, _table_html, controls_beside, scrolls


class FacilityPanel(PlanPanel):
    """Move the rack budget or cap servers per rack; see the racks, power and cooling live.

    Parameters
    ----------
    scenario : Scenario, optional
        Starting assumptions; default :func:`~hubplan.default_scenario`.
    catalog : Catalog, optional
    lang : str
        ``"en"`` or ``"zh"``.
    """

    title_key = "panel.facility.title"
    stages = ("facility",)
    until = "facility"

    def __init__(
        self, scenario: Scenario | None = None, catalog: Catalog | None = None, lang: str = "en"
    ):
        super().__init__(scenario, catalog, lang)
        f = self.base.facility
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="260px"))
        self.controls = {
            "rack_budget_kw": w.FloatSlider(
                value=f.rack_budget_kw, min=8, max=max(150.0, f.rack_budget_kw), step=1, **slider
            ),
            "max_servers_per_rack": w.IntSlider(
                value=f.max_servers_per_rack or 0, min=0, max=16, **slider
            ),
        }
        self.labels = {name: w.Label() for name in self.controls}
        self.units = {"rack_budget_kw": "kW"}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.elevation = charts.LiveChart(charts.rack_elevation(self.result["rack_layout"]))
        self.power_chart = charts.LiveChart(charts.rack_power(self.result["power_allocation"]))
        self.cooling_chart = charts.LiveChart(
            charts.cooling_map(self.result["cooling"], self.result["racks"])
        )
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                # the form in its own column, as on the other panels: placed straight in the
                # row, its grid stretched to the findings' height and spread its two rows
                # apart (the second slider showed far below the first, off the screen)
                controls_beside(
                    _form(self.labels, self.controls), [self.summary, self.message, self.findings]
                ),
                self.power_chart,
                self.elevation,
                self.cooling_chart,
                scrolls(self.table),
            ]
        )
        self._start()

    def scenario(self) -> Scenario:
        """The Scenario the controls describe (0 servers per rack = no cap)."""
        c = self.controls
        cap = int(c["max_servers_per_rack"].value)
        return self.base.with_changes(
            {
                "facility.rack_budget_kw": float(c["rack_budget_kw"].value),
                "facility.max_servers_per_rack": cap if cap > 0 else None,
            }
        )

    def summary_numbers(self, plan: Plan | None = None) -> dict[str, float]:
        """The figures the summary line shows, read from the Plan's tables."""
        plan = plan if plan is not None else self.result
        racks, alloc = plan["racks"], plan["power_allocation"]
        total = plan["facility_power"].set_index("scope").loc["total"]
        layout = plan["rack_layout"]
        return {
            "servers": int((layout["device_type"] == "gpu_server").sum()),
            "racks": len(racks),
            "compute": int((racks["kind"] == "compute").sum()),
            "rows": int(racks["row"].nunique()),
            "ok": int((alloc["status"] == "ok").sum()),
            "total": len(alloc),
            "it_kw": float(total["it_nameplate_kw"]),
            "facility_kw": float(total["facility_kw"]),
        }

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        text = label("panel.facility.summary", lang, **self.summary_numbers(plan))
        self.summary.value = f'<p id="hubplan-facility-summary"><b>{html.escape(text)}</b></p>'
        self.table.value = _table_html(plan["power_allocation"], lang, "hubplan-power")
        self.elevation.chart = charts.rack_elevation(plan["rack_layout"], lang)
        self.power_chart.chart = charts.rack_power(plan["power_allocation"], lang)
        self.cooling_chart.chart = charts.cooling_map(plan["cooling"], plan["racks"], lang)
