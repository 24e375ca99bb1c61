"""The review stage entry: runs last, reads every table its rules need and adds the
review's findings and its checklist."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..core.stage import Stage, StageResult
from .rules import run_rules
from .section import ReviewPolicy

#: The tables the rules read.
NEEDS = ("training", "training_memory", "inference", "candidates", "compute_claims",
         "pools", "storage_tiers", "storage_bandwidth", "checkpoint_plan", "fabric",
         "power_allocation", "power_on_sequence", "cooling", "equipment_list",
         "schedule", "acceptance", "slurm_nodes", "slurm_partitions")  # fmt: skip


def run_review(*, catalog: Catalog, tables: dict[str, pd.DataFrame],
               review: ReviewPolicy, facility_inrush_factor: float) -> StageResult:  # fmt: skip
    """The design review over the plan's tables: findings and the checklist."""
    findings, checklist = run_rules(tables, review,
                                    extra={"inrush_factor": facility_inrush_factor})  # fmt: skip
    return StageResult({"review_checklist": checklist}, tuple(findings))


STAGE = Stage(
    name="review",
    # One figure of the facility section: a tariff or PUE change does not rerun the review.
    sections=("review", "facility.inrush_factor"),
    needs=NEEDS,
    provides=("review_checklist",),
    run=run_review,
)
