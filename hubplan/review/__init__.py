"""Review stage: the design review, a flat list of ``check_*`` rules over the plan's
tables (PyPSA ``consistency.py`` style), each finding naming the offending items and
the stage at fault; items an earlier stage already checks are listed by code."""

from .rules import (
    DRIVER_BRANCHES,
    ELSEWHERE,
    RULES,
    Rule,
    check_air_cooled_density,
    check_buy_beyond_need,
    check_checkpoint_overhead,
    check_default_partition,
    check_driver_lifecycle,
    check_fabric_acceptance,
    check_hot_tier_single_node,
    check_inrush_allowance,
    check_management_plane,
    check_memory_margin,
    check_no_schedule_buffer,
    check_no_spares,
    check_no_time_margin,
    check_pcie_cards_multinode_tp,
    check_phased_handover,
    check_rack_headroom,
    check_single_replica_service,
    check_single_spine,
    check_stability_run,
    check_storage_below_guideline,
    check_training_on_marketing_figure,
    check_training_oversubscription,
    run_rules,
)
from .section import ReviewPolicy

__all__ = [
    "DRIVER_BRANCHES", "ELSEWHERE", "RULES", "ReviewPolicy", "Rule",
    "check_air_cooled_density", "check_buy_beyond_need", "check_checkpoint_overhead",
    "check_default_partition", "check_driver_lifecycle", "check_fabric_acceptance",
    "check_hot_tier_single_node", "check_inrush_allowance", "check_management_plane",
    "check_memory_margin", "check_no_schedule_buffer", "check_no_spares",
    "check_no_time_margin", "check_pcie_cards_multinode_tp", "check_phased_handover",
    "check_rack_headroom", "check_single_replica_service", "check_single_spine",
    "check_stability_run", "check_storage_below_guideline",
    "check_training_on_marketing_figure", "check_training_oversubscription", "run_rules",
]  # fmt: skip
