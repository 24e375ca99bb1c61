"""hubplan — a planning workbook for AI compute centres (智算中心规划工作簿).

The flow is one direction (docs/architecture.md): a validated :class:`Scenario` and the
:class:`Catalog` go through the stages in ``hubplan.plan.STAGES`` (pure calculators, one
package per stage) into a :class:`Plan`, which panels, charts, exports and the CLI read.

>>> import hubplan
>>> plan = hubplan.build_plan(hubplan.default_scenario())
>>> sorted(plan.tables)  # doctest: +NORMALIZE_WHITESPACE
['acceptance', 'candidates', 'checkpoint_plan', 'compute_claims', 'compute_inventory',
 'cooling', 'cost_capex', 'cost_cashflow', 'cost_curve', 'cost_equipment', 'cost_monte_carlo',
 'cost_opex',
 'cost_phasing', 'cost_summary', 'cost_tornado', 'deployment_steps', 'equipment_list', 'fabric',
 'facility_power', 'failure_breakdown', 'hot_fill', 'inference', 'ip_plan', 'k8s_pools',
 'latency_budget',
 'phase_acceptance', 'pool_demand', 'pools', 'port_map', 'port_use', 'power_allocation',
 'power_on_sequence', 'rack_layout', 'racks', 'rdma_settings', 'review_checklist',
 'schedule', 'server_checks', 'server_nics', 'slurm_nodes', 'slurm_partitions', 'slurm_topology',
 'storage_bandwidth', 'storage_content', 'storage_dr', 'storage_nodes', 'storage_tiers',
 'switches', 'training', 'training_curve', 'training_memory', 'transceivers']
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what editors and type checkers see; at run time, __getattr__ below
    from .core.catalog import Catalog, load_catalog, peak_tflops
    from .core.errors import (
        CatalogError,
        ExportError,
        HubplanError,
        InputError,
        ScenarioError,
    )
    from .core.labels import bilingual, label, localize
    from .plan import STAGES, Plan, build_plan, clear_cache
    from .scenario import Scenario, default_scenario, load_scenario
    from .solver import cheapest_plans

__version__ = "0.1.0"

#: Public name -> the module that defines it. Loaded on first use, so ``import hubplan``
#: (and the ``hubplan`` command's ``--help``) does not load pandas and the stages.
_LAZY = {
    "Catalog": ".core.catalog",
    "load_catalog": ".core.catalog",
    "peak_tflops": ".core.catalog",
    "CatalogError": ".core.errors",
    "ExportError": ".core.errors",
    "HubplanError": ".core.errors",
    "InputError": ".core.errors",
    "ScenarioError": ".core.errors",
    "bilingual": ".core.labels",
    "label": ".core.labels",
    "localize": ".core.labels",
    "STAGES": ".plan",
    "Plan": ".plan",
    "build_plan": ".plan",
    "clear_cache": ".plan",
    "Scenario": ".scenario",
    "default_scenario": ".scenario",
    "load_scenario": ".scenario",
    "cheapest_plans": ".solver",
}

__all__ = [
    "STAGES",
    "Catalog",
    "CatalogError",
    "ExportError",
    "HubplanError",
    "InputError",
    "Plan",
    "Scenario",
    "ScenarioError",
    "__version__",
    "bilingual",
    "build_plan",
    "cheapest_plans",
    "clear_cache",
    "default_scenario",
    "label",
    "load_catalog",
    "load_scenario",
    "localize",
    "peak_tflops",
]


def __getattr__(name: str) -> Any:
    """A public name (``hubplan.build_plan``) or a subpackage (``hubplan.views``), imported
    on first use."""
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and find_spec(f"{__name__}.{name}") is not None:
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module 'hubplan' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
