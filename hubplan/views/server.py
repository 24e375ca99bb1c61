"""The server panel: a pool's server against the balance checks (host RAM, CPU, NICs,
PCIe), live."""

from __future__ import annotations

import html
import math
from typing import Any

import ipywidgets as w
import pandas as pd

from ..core.catalog import Catalog
from ..core.labels import label
from ..scenario import Scenario
from .panels import PlanPanel, _form, _table_html, controls_beside, scrolls
from .render import checks_table

#: ServerSpec fields the server panel edits, with their widget and limits.
_SERVER_FIELDS = {
    "gpus": (1, 72, 1),
    "ram_gb": (1, 65_536, 64),
    "cpu_cores_total": (1, 1024, 1),
    "cpu_base_ghz": (0.5, 6.0, 0.1),
    "compute_nics": (0, 64, 1),
    "compute_nic_gbps": (1, 1600, 100),
    "storage_nics": (0, 16, 1),
    "inband_nics": (0, 16, 1),
    "bmc_nics": (0, 4, 1),
    "pcie_gen": (3, 6, 1),
}


class ServerPanel(PlanPanel):
    """Choose a pool's server, or edit a configuration field by field; see the checks live.

    Picking a catalogue server fills the fields from its row; editing any field turns
    the pool's server into a custom configuration, checked the same way.
    """

    title_key = "panel.server.title"
    stages = ("server",)
    until = "server"
    CUSTOM = "custom"

    def __init__(
        self,
        scenario: Scenario | None = None,
        catalog: Catalog | None = None,
        lang: str = "en",
        pool: str = "training",
    ):
        super().__init__(scenario, catalog, lang)
        servers = self.catalog.servers["name"].tolist()
        spec = getattr(self.base.pools, pool)
        start = (
            self.catalog.server(spec.server)["name"]
            if spec.server
            else self.CUSTOM
            if spec.custom_server
            else servers[0]
        )
        acc = self.catalog.accelerators
        num = dict(layout=w.Layout(width="120px"))
        self.controls = {
            "pool": w.Dropdown(options=["training", "inference", "development"], value=pool),
            "server": w.Dropdown(
                options=[*servers, self.CUSTOM], value=start, layout=w.Layout(width="280px")
            ),
            "accelerator": w.Dropdown(options=acc["name"].tolist(), layout=w.Layout(width="220px")),
            **{
                f: w.BoundedFloatText(min=lo, max=hi, step=st, **num)
                for f, (lo, hi, st) in _SERVER_FIELDS.items()
            },
            "ram_policy": w.ToggleButtons(
                options=[("1×", 1.0), ("2×", 2.0)],
                value=self.base.server.ram_to_gpu_memory
                if self.base.server.ram_to_gpu_memory in (1.0, 2.0)
                else 1.0,
            ),
        }
        self.labels = {name: w.Label() for name in self.controls}
        self.choices = {"pool": "choice.pool"}
        self.units = {"ram_gb": "GB", "cpu_base_ghz": "GHz", "compute_nic_gbps": "Gb/s"}
        self.summary = w.HTML()
        self.table = w.HTML()
        self.pools_table = w.HTML()
        self._fill(start if start != self.CUSTOM else None, spec.custom_server)
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.language]),
                controls_beside(
                    _form(self.labels, self.controls),
                    [self.summary, self.message, self.findings, scrolls(self.table)],
                ),
                scrolls(self.pools_table),
            ]
        )
        self.controls["server"].observe(self._on_server, names="value")
        self.controls["pool"].observe(self._on_pool, names="value")
        self._start()

    def _fill(self, server: str | None, custom=None) -> None:
        """Set the field widgets from a catalogue row (or custom spec) without recomputing."""
        src: Any = (
            custom if custom is not None else (self.catalog.server(server) if server else None)
        )
        if src is None:
            return
        get = (lambda f: getattr(src, f)) if custom is not None else (lambda f: src[f])
        with self._quietly():
            self.controls["accelerator"].value = self.catalog.accelerator(get("accelerator"))[
                "name"
            ]
            for f, (lo, _, _) in _SERVER_FIELDS.items():
                v = get(f)
                self.controls[f].value = (
                    lo if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
                )

    def _on_pool(self, change: dict) -> None:
        spec = getattr(self.base.pools, change["new"])
        with self._quietly():
            self.controls["server"].value = (
                self.catalog.server(spec.server)["name"] if spec.server else self.CUSTOM
            )
        if spec.server or spec.custom_server:
            self._fill(spec.server, spec.custom_server)
        self.update()

    def _on_server(self, change: dict) -> None:
        if change["new"] != self.CUSTOM and not self._quiet:
            self._fill(change["new"])
            self.update()

    def update(self, change: object = None) -> None:
        if self._quiet:
            return
        owner = change["owner"] if change else None  # traitlets passes a dict-like Bunch
        edited = owner is not None and owner not in (
            self.controls["pool"],
            self.controls["server"],
            self.controls["ram_policy"],
        )
        if edited and self.controls["server"].value != self.CUSTOM:
            with self._quietly():
                self.controls["server"].value = self.CUSTOM  # an edited row is a custom server
        super().update(change)

    def scenario(self) -> Scenario:
        c = self.controls
        pool = c["pool"].value
        p = f"pools.{pool}"
        changes: dict[str, Any] = {
            "server.ram_to_gpu_memory": c["ram_policy"].value,
            f"{p}.accelerator": c["accelerator"].value,
            f"{p}.gpus_per_server": int(c["gpus"].value),
        }
        if c["server"].value == self.CUSTOM:
            spec = {
                f: (
                    int(c[f].value)
                    if f not in ("ram_gb", "cpu_base_ghz", "compute_nic_gbps")
                    else c[f].value
                )
                for f in _SERVER_FIELDS
            }
            changes[f"{p}.server"] = None
            name = label("panel.custom_server", "en")
            changes[f"{p}.custom_server"] = {
                "name": name,
                "accelerator": c["accelerator"].value,
                **spec,
            }
        else:
            changes[f"{p}.server"] = c["server"].value
            changes[f"{p}.custom_server"] = None
        return self.base.with_changes(changes)

    def checks(self) -> pd.DataFrame:
        """The balance checks of the selected pool (a view of the Plan's server_checks)."""
        checks = self.result["server_checks"]
        return checks[checks["pool"] == self.controls["pool"].value].reset_index(drop=True)

    def _label_key(self, name: str) -> str:
        return f"panel.{name}" if name in ("pool", "ram_policy", "server") else name

    def _render_body(self) -> None:
        lang = self.lang
        checks = self.checks()
        counts = {
            s: int((checks["status"] == s).sum()) for s in ("pass", "warn", "fail", "unknown")
        }
        server = checks["server"].iloc[0] if not checks.empty else ""
        pool = label(f"choice.pool.{self.controls['pool'].value}", lang)
        text = label("panel.server.summary", lang, server=server, pool=pool, **counts)
        self.summary.value = f'<p id="hubplan-server-summary"><b>{html.escape(text)}</b></p>'

        cols = ["check", "status", "value", "required", "reason", "fix"]
        self.table.value = _table_html(checks_table(checks, lang)[cols], lang, "hubplan-checks")
        cols = [
            "level",
            "pool",
            "accelerator",
            "server",
            "servers",
            "spare_servers",
            "total_gpus",
            "new_servers",
            "capex_usd",
        ]
        self.pools_table.value = _table_html(self.result["pools"][cols], lang, "hubplan-pools")
