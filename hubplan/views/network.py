"""The network panel: compute switch, oversubscription, NIC speed and GPUs, live."""

from __future__ import annotations

import html
import math
from typing import Any

import ipywidgets as w

from ..core.catalog import Catalog
from ..core.labels import label
from ..scenario import Scenario
from . import charts
from .panels import PlanPanel, _form, _table_html, controls_beside, scrolls

#: Compute NIC speeds offered (Gb/s): HDR200, NDR400 / 400GbE, XDR800 / 800GbE.
NIC_SPEEDS = (100.0, 200.0, 400.0, 800.0)

#: Server catalogue columns a custom server carries over when only its NIC speed changes.
_SERVER_FIELDS = (
    "accelerator",
    "gpus",
    "cpu_model",
    "cpu_sockets",
    "cpu_cores_total",
    "cpu_base_ghz",
    "ram_gb",
    "compute_nics",
    "compute_nic_gbps",
    "storage_nics",
    "storage_nic_gbps",
    "inband_nics",
    "inband_nic_gbps",
    "bmc_nics",
    "bmc_nic_gbps",
    "pcie_gen",
    "max_power_kw",
    "price_usd",
)
_INT_FIELDS = {
    "gpus",
    "cpu_sockets",
    "cpu_cores_total",
    "compute_nics",
    "storage_nics",
    "inband_nics",
    "bmc_nics",
    "pcie_gen",
}


def _value(field: str, v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return 0 if field.endswith("_nics") else None
    if field in _INT_FIELDS:
        return int(v)
    return v if isinstance(v, str) else float(v)


class NetworkPanel(PlanPanel):
    """The compute fabric for the training pool: switch counts, the fabric table, a
    leaf/spine diagram and the switch ports used.

    The controls are scenario fields: ``network.compute_switch``,
    ``network.oversubscription``, the training deadline ``workload.training.0.days``
    (which sets how many GPUs the plan needs) and the compute NIC speed of the training
    pool's server (a custom copy of its catalogue row when it differs).

    Parameters
    ----------
    scenario : Scenario, optional
        Starting assumptions; default :func:`~hubplan.default_scenario`.
    catalog : Catalog, optional
    lang : str
        ``"en"`` or ``"zh"``.
    """

    title_key = "panel.network.title"
    stages = ("network",)
    until = "network"

    def __init__(
        self, scenario: Scenario | None = None, catalog: Catalog | None = None, lang: str = "en"
    ):
        super().__init__(scenario, catalog, lang)
        net, pool = self.base.network, self.base.pools.training
        self._server = self._training_server()
        start_nic = float(self._server["compute_nic_gbps"]) if self._server is not None else 400.0
        speeds = sorted(set(NIC_SPEEDS) | ({start_nic} if math.isfinite(start_nic) else set()))
        job = self.base.workload.training[0] if self.base.workload.training else None
        slider = dict(continuous_update=False, readout=True, layout=w.Layout(width="260px"))
        self.controls = {
            "compute_switch": w.Dropdown(
                options=self.catalog.switches["name"].tolist(),
                value=self.catalog.switch(net.compute_switch)["name"],
                layout=w.Layout(width="180px"),
            ),
            "oversubscription": w.FloatSlider(
                value=net.oversubscription, min=1.0, max=4.0, step=0.5, **slider
            ),
            "nic_gbps": w.Dropdown(
                options=[(f"{s:g}", s) for s in speeds],
                value=start_nic if math.isfinite(start_nic) else 400.0,
                layout=w.Layout(width="120px"),
            ),
        }
        if job is not None:
            self.controls["days"] = w.FloatSlider(
                value=job.days, min=1.0, max=max(365.0, job.days), step=0.25, **slider
            )
        self.units = {"nic_gbps": "Gb/s", "days": "d"}
        self.labels = {name: w.Label() for name in self.controls}
        self._pool = pool
        self.summary = w.HTML()
        self.fabric_table = w.HTML()
        self.switch_table = w.HTML()
        self.diagram = charts.LiveChart(charts.fabric_diagram(self.result["fabric"], self.lang))
        self.port_chart = charts.LiveChart(charts.port_use(self.result["port_use"], self.lang))
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                controls_beside(
                    _form(self.labels, self.controls), [self.summary, self.message, self.findings]
                ),
                self.diagram,
                scrolls(self.fabric_table),
                self.port_chart,
                scrolls(self.switch_table),
            ]
        )
        self._start()

    def _training_server(self):
        pool = self.base.pools.training
        if pool.server is not None:
            return self.catalog.server(pool.server)
        if pool.custom_server is not None:
            return pool.custom_server.model_dump()
        return None

    def scenario(self) -> Scenario:
        """The Scenario the controls describe (raises ScenarioError when invalid)."""
        c = self.controls
        changes: dict[str, Any] = {
            "network.compute_switch": c["compute_switch"].value,
            "network.oversubscription": c["oversubscription"].value,
        }
        if "days" in c:
            changes["workload.training.0.days"] = c["days"].value
        srv, nic = self._server, float(c["nic_gbps"].value)
        if srv is not None and float(srv["compute_nic_gbps"]) != nic:
            # The same server with other compute NICs: a custom copy of its row.
            spec = {f: _value(f, srv[f]) for f in _SERVER_FIELDS}
            spec |= {"name": f"{srv['name']} ({nic:g}G)", "compute_nic_gbps": nic}
            changes["pools.training.server"] = None
            changes["pools.training.custom_server"] = spec
        else:
            changes["pools.training.server"] = self._pool.server
            changes["pools.training.custom_server"] = (
                self._pool.custom_server.model_dump() if self._pool.custom_server else None
            )
        return self.base.with_changes(changes)

    def _render_body(self) -> None:
        lang, plan = self.lang, self.result
        fab = plan["fabric"]
        comp = fab[fab["plane"] == "compute"]
        pools = plan["pools"]
        train = pools[(pools["level"] == "pool") & (pools["pool"] == "training")]
        gpus = int(train["total_gpus"].iloc[0]) if not train.empty else 0
        if comp.empty:
            text = label("panel.network.no_fabric", lang, gpus=gpus)
        else:
            r = comp.iloc[0]
            rails = int(r["endpoints"]) // int(train["total_servers"].iloc[0])
            text = label(
                "panel.network.summary",
                lang,
                gpus=gpus,
                servers=int(train["total_servers"].iloc[0]),
                rails=rails,
                nic_gbps=float(r["port_gbps"]),
                tiers=int(r["tiers"]),
                model=r["model"],
                units=int(r["units"]),
                per_unit=int(r["servers_per_unit"]),
                leaves=int(r["leaves"]),
                spines=int(r["spines"]),
                cores=int(r["cores"]),
                ratio=float(r["oversubscription"]),
            )
        self.summary.value = f'<p id="hubplan-network-summary"><b>{html.escape(text)}</b></p>'
        self.fabric_table.value = _table_html(fab, lang, "hubplan-fabric")
        self.switch_table.value = _table_html(plan["switches"], lang, "hubplan-switches")
        self.diagram.chart = charts.fabric_diagram(fab, lang)
        self.port_chart.chart = charts.port_use(plan["port_use"], lang)
