"""The review stage entry: runs last, reads every table its rules need and adds the
review's findings and its checklist."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import CatalogError
from ..core.stage import Stage, StageResult
from ..delivery.acceptance import UNKNOWN_TOOL, family_tools
from .rules import run_rules
from .section import ReviewPolicy

#: The tables the rules read.
NEEDS = (
    "training",
    "training_memory",
    "inference",
    "candidates",
    "compute_claims",
    "pools",
    "storage_tiers",
    "storage_bandwidth",
    "checkpoint_plan",
    "fabric",
    "power_allocation",
    "power_on_sequence",
    "cooling",
    "equipment_list",
    "schedule",
    "acceptance",
    "slurm_nodes",
    "slurm_partitions",
)


def fabric_tools_of(pools: pd.DataFrame | None, catalog: Catalog) -> dict[str, str]:
    """The training pool's family tools for the fabric acceptance tests: ``rdma_tool``
    (per-NIC RDMA write bandwidth) and ``collective_tool`` (multi-node all-reduce), as the
    acceptance runbook names them (:func:`hubplan.delivery.acceptance.family_tools`, from
    ``data/families.csv``); ``unknown`` where the family's sources name none.

    >>> from hubplan.core.catalog import load_catalog
    >>> pools = pd.DataFrame({"level": ["pool"], "pool": ["training"],
    ...                       "accelerator": ["910B"], "gpus_per_server": [8]})
    >>> fabric_tools_of(pools, load_catalog())
    {'rdma_tool': 'unknown', 'collective_tool': 'all_reduce_test (MPI)'}
    """
    unknown = {"rdma_tool": UNKNOWN_TOOL, "collective_tool": UNKNOWN_TOOL}
    if pools is None or not {"level", "pool", "accelerator"} <= set(pools.columns):
        return unknown
    rows = pools[(pools["level"] == "pool") & (pools["pool"] == "training")]
    if rows.empty:
        return unknown
    try:
        family = catalog.accelerator_family(str(rows["accelerator"].iloc[0]))
    except CatalogError:  # a custom accelerator: no family row, no borrowed tools
        return unknown
    gpus = rows["gpus_per_server"].iloc[0] if "gpus_per_server" in rows else 1
    tools = family_tools(family, int(gpus))
    return {"rdma_tool": tools["rdma_write_bw"], "collective_tool": tools["fabric_all_reduce"]}


def run_review(
    *,
    catalog: Catalog,
    tables: dict[str, pd.DataFrame],
    review: ReviewPolicy,
    facility_inrush_factor: float,
) -> StageResult:
    """The design review over the plan's tables: findings and the checklist."""
    extra = {
        "inrush_factor": facility_inrush_factor,
        "fabric_tools": fabric_tools_of(tables.get("pools"), catalog),
        "catalog": catalog,
    }
    findings, checklist = run_rules(tables, review, extra=extra)
    return StageResult({"review_checklist": checklist}, tuple(findings))


STAGE = Stage(
    name="review",
    # One figure of the facility section: a tariff or PUE change does not rerun the review.
    sections=("review", "facility.inrush_factor"),
    needs=NEEDS,
    provides=("review_checklist",),
    run=run_review,
)
