"""Delivery stage: the dated implementation schedule (four phases, lead times, buffer,
milestones, phased hand-over, critical path), the six deployment steps, the scheduler
configuration (Slurm for training and development, Kubernetes for inference) and the
acceptance plan with expected figures.

The scheduler and container files are TEXT returned by the functions below;
``hubplan.export.scheduler`` writes them.
"""

# The protection's write arithmetic lives with the storage stage that applies it; named
# here too, where the acceptance floors that read its result are.
from ..storage import PROTECTION_WRITE_FACTOR, storage_write_gb_s
from .acceptance import (
    ACCEPTANCE_COLUMNS,
    acceptance_plan,
    fabric_busbw_gb_s,
    family_tools,
    matmul_tflops,
    nvlink_busbw_gb_s,
    rdma_gbps,
)
from .kubernetes import k8s_manifests, k8s_pools
from .schedule import (
    PHASES,
    batch_sizes,
    buffered_days,
    cabling_days,
    critical_path,
    deployment_steps,
    fabric_links,
    implementation_schedule,
    phase_acceptance,
    racking_days,
    schedule_tasks,
)
from .scheduler import (
    ACCOUNTING_BEGIN,
    ACCOUNTING_END,
    cluster_name,
    container_spec,
    device_files,
    domain_nodes,
    gres_conf,
    hostlist,
    hostnames,
    node_range,
    prolog_script,
    qos_script,
    real_memory_mib,
    slurm_conf,
    slurm_nodes,
    slurm_partitions,
    slurm_topology,
    topology_conf,
    validate_scheduler,
)
from .section import Delivery

__all__ = [
    "ACCEPTANCE_COLUMNS",
    "ACCOUNTING_BEGIN",
    "ACCOUNTING_END",
    "PHASES",
    "PROTECTION_WRITE_FACTOR",
    "Delivery",
    "acceptance_plan",
    "batch_sizes",
    "buffered_days",
    "cabling_days",
    "cluster_name",
    "container_spec",
    "critical_path",
    "deployment_steps",
    "device_files",
    "domain_nodes",
    "fabric_busbw_gb_s",
    "fabric_links",
    "family_tools",
    "gres_conf",
    "hostlist",
    "hostnames",
    "implementation_schedule",
    "k8s_manifests",
    "k8s_pools",
    "matmul_tflops",
    "node_range",
    "nvlink_busbw_gb_s",
    "phase_acceptance",
    "prolog_script",
    "qos_script",
    "racking_days",
    "rdma_gbps",
    "real_memory_mib",
    "schedule_tasks",
    "slurm_conf",
    "slurm_nodes",
    "slurm_partitions",
    "slurm_topology",
    "storage_write_gb_s",
    "topology_conf",
    "validate_scheduler",
]
