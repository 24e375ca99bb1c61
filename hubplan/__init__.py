"""hubplan — a planning workbook for AI compute centres (智算中心规划工作簿).

The flow is one direction (docs/architecture.md): a validated :class:`Scenario` and the
:class:`Catalog` go through the stages in ``hubplan.plan.STAGES`` (pure calculators, one
package per stage) into a :class:`Plan`, which panels, charts, exports and the CLI read.

>>> import hubplan
>>> plan = hubplan.build_plan(hubplan.default_scenario())
>>> sorted(plan.tables)  # doctest: +NORMALIZE_WHITESPACE
['acceptance', 'candidates', 'checkpoint_plan', 'compute_claims', 'compute_inventory',
 'cooling', 'cost_capex', 'cost_curve', 'cost_monte_carlo', 'cost_opex', 'cost_phasing',
 'cost_summary', 'cost_tornado', 'deployment_steps', 'equipment_list', 'fabric',
 'facility_power', 'hot_fill', 'inference', 'ip_plan', 'k8s_pools', 'latency_budget',
 'phase_acceptance', 'pool_demand', 'pools', 'port_map', 'port_use', 'power_allocation',
 'power_on_sequence', 'rack_layout', 'racks', 'rdma_settings', 'review_checklist',
 'schedule', 'server_checks', 'slurm_nodes', 'slurm_partitions', 'slurm_topology',
 'storage_bandwidth', 'storage_content', 'storage_dr', 'storage_nodes', 'storage_tiers',
 'switches', 'training', 'training_curve', 'training_memory', 'transceivers']
"""

from .core.catalog import Catalog, load_catalog, peak_tflops
from .core.errors import CatalogError, ExportError, HubplanError, InputError, ScenarioError
from .core.labels import bilingual, label, localize
from .plan import STAGES, Plan, build_plan
from .scenario import Scenario, default_scenario, load_scenario
from .solver import cheapest_plans

__version__ = "0.1.0"

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
    "default_scenario",
    "label",
    "load_catalog",
    "load_scenario",
    "localize",
    "peak_tflops",
]
