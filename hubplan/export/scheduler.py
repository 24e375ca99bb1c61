"""Write the scheduler and container files of a Plan to a folder, atomically.

The text comes from ``hubplan.delivery`` (pure functions); this module only writes it:
``slurm.conf``, ``gres.conf``, ``topology.conf``, ``qos.sh`` and ``prolog.sh``
(executable), ``k8s-inference.yaml`` and ``Dockerfile.training``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.files import write_folder_atomic
from ..delivery import (
    container_spec,
    gres_conf,
    k8s_manifests,
    prolog_script,
    qos_script,
    slurm_conf,
    topology_conf,
)


def write_scheduler_files(plan, folder: str | os.PathLike[str]) -> list[Path]:
    """Write the plan's scheduler files into ``folder`` (created if missing); return the
    paths written.

    All or nothing (:func:`hubplan.core.files.write_folder_atomic`): a failed export
    leaves the folder as it was and raises :class:`~hubplan.core.errors.ExportError`;
    files in the folder other than these seven are never touched."""
    nodes, parts = plan["slurm_nodes"], plan["slurm_partitions"]
    rdma = plan.tables.get("rdma_settings")
    topo, name = plan["slurm_topology"], plan.scenario.name
    files = {
        "slurm.conf": (slurm_conf(nodes, parts, name, topo), 0o644),
        "gres.conf": (gres_conf(nodes), 0o644),
        "topology.conf": (topology_conf(topo), 0o644),
        "qos.sh": (qos_script(parts, name), 0o755),
        "prolog.sh": (prolog_script(nodes), 0o755),
        "k8s-inference.yaml": (k8s_manifests(plan["k8s_pools"], plan.scenario.name), 0o644),
        "Dockerfile.training": (container_spec(plan.scenario.delivery, rdma, nodes), 0o644),
    }
    return write_folder_atomic(
        folder,
        {name: text for name, (text, _) in files.items()},
        modes={name: mode for name, (_, mode) in files.items()},
        owned=list(files),
        what="slurm",
    )
