"""The review stage entry: runs last, reads every table its rules need and adds the
review's findings and its checklist."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..core.stage import Stage, StageResult
from .rules import run_rules
from .section import ReviewPolicy

#: The tables the rules read that exist in the plan today. At merge with the facility
#: stage add "power_allocation", "power_on_sequence", "cooling", "equipment_list" here and
#: pass the facility section's inrush factor (see run_review).
NEEDS = ("training", "training_memory", "inference", "candidates", "compute_claims",
         "pools", "storage_tiers", "storage_bandwidth", "checkpoint_plan", "fabric",
         "schedule", "acceptance", "slurm_nodes", "slurm_partitions")  # fmt: skip


def run_review(*, catalog: Catalog, tables: dict[str, pd.DataFrame],
               review: ReviewPolicy) -> StageResult:  # fmt: skip
    """The design review over the plan's tables: findings and the checklist."""
    findings, checklist = run_rules(tables, review)
    return StageResult({"review_checklist": checklist}, tuple(findings))


STAGE = Stage(
    name="review",
    sections=("review",),
    needs=NEEDS,
    provides=("review_checklist",),
    run=run_review,
)
