"""The delivery stage entry: the dated schedule with its critical path, the phase
acceptance criteria, the deployment steps, the scheduler tables (validated through the
text they generate) and the acceptance plan."""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog
from ..core.stage import Stage, StageResult
from ..pools import Pools
from .acceptance import acceptance_plan, derived_figure_findings, unknown_tool_findings
from .kubernetes import k8s_findings, k8s_pools
from .schedule import deployment_steps, fabric_links, implementation_schedule, phase_acceptance
from .scheduler import (
    gres_conf,
    slurm_conf,
    slurm_nodes,
    slurm_partitions,
    slurm_topology,
    validate_scheduler,
)
from .section import Delivery


def run_delivery(
    *, catalog: Catalog, tables: dict[str, pd.DataFrame], delivery: Delivery, pools: Pools
) -> StageResult:
    """Schedule, scheduler and acceptance from the server stage's ``pools``, the workload
    stage's ``inference``, the storage stage's ``storage_tiers`` and the network stage's
    ``fabric`` and ``port_map`` (which server hangs off which leaf: the Slurm topology)."""
    spec, pools_table = pools, tables["pools"]
    per_pool = pools_table["level"].to_numpy() == "pool"
    servers = int(pools_table["total_servers"].to_numpy()[per_pool].sum())
    tiers, fabric = tables["storage_tiers"], tables["fabric"]
    schedule = implementation_schedule(
        servers,
        delivery,
        storage=bool((tiers["nodes"].to_numpy() > 0).any()),
        network=not fabric.empty,
        links=fabric_links(fabric),
    )
    nodes = slurm_nodes(pools_table, catalog, delivery, spec)
    partitions = slurm_partitions(nodes, delivery, pools_table)
    topology = slurm_topology(nodes, tables["port_map"])
    findings = validate_scheduler(
        slurm_conf(nodes, partitions, topology=topology), gres_conf(nodes), nodes, topology
    )
    acceptance = acceptance_plan(pools_table, catalog, delivery, tiers, fabric, spec)
    findings += derived_figure_findings(acceptance)
    findings += unknown_tool_findings(acceptance, pools_table, catalog)
    # The accelerator families of the plan's pools, in pool order: their own tools in the
    # deployment steps (data/families.csv).
    vendors = dict.fromkeys(
        str(catalog.accelerator(a)["vendor"])
        for a in pools_table["accelerator"].to_numpy()[per_pool]
    )
    families = [catalog.family(v) for v in vendors]
    k8s = k8s_pools(tables["inference"], pools_table, catalog, delivery, spec)
    findings += k8s_findings(k8s, pools_table)
    return StageResult(
        {
            "schedule": schedule,
            "phase_acceptance": phase_acceptance(),
            # an NVIDIA NVLink domain spanning nodes (GB200 NVL72 trays) adds its fabric
            # and IMEX (an Ascend supernode has neither)
            "deployment_steps": deployment_steps(
                families,
                rack_scale_nvlink=bool(
                    ((nodes["domain_nodes"] > 1) & (nodes["family"] == "NVIDIA")).any()
                ),
            ),
            "slurm_nodes": nodes,
            "slurm_partitions": partitions,
            "slurm_topology": topology,
            "k8s_pools": k8s,
            "acceptance": acceptance,
        },
        tuple(findings),
    )


STAGE = Stage(
    name="delivery",
    sections=("delivery", "pools"),
    needs=("pools", "inference", "storage_tiers", "fabric", "port_map"),
    provides=(
        "schedule",
        "phase_acceptance",
        "deployment_steps",
        "slurm_nodes",
        "slurm_partitions",
        "slurm_topology",
        "k8s_pools",
        "acceptance",
    ),
    run=run_delivery,
)
