"""Views: panels, charts and the language rendering of Plan tables and findings.

Views read a Plan and never compute; they are the only users of ipywidgets and altair.
``hubplan.views.render`` is plain pandas (the CLI uses it); the panels and ``setup`` load
the widget stack on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "AcceleratorPanel": ".accelerator",
    "CostPanel": ".cost",
    "FacilityPanel": ".facility",
    "NetworkPanel": ".network",
    "OverviewPanel": ".overview",
    "PlanPanel": ".panels",
    "ServerPanel": ".server",
    "StoragePanel": ".storage",
    "WorkloadPanel": ".workload",
    "setup": ".notebook",
    "charts": ".charts",
    "compare_scenarios": ".overview",
    "gantt": ".delivery",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'hubplan.views' has no attribute {name!r}")
    module = import_module(_LAZY[name], __name__)
    return module if name == "charts" else getattr(module, name)
