"""Write the scheduler and container files of a Plan to a folder, atomically.

The text comes from ``hubplan.delivery`` (pure functions); this module only writes it:
``slurm.conf``, ``gres.conf``, ``topology.conf``, ``qos.sh`` and ``prolog.sh``
(executable), ``k8s-inference.yaml`` and ``Dockerfile.training``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.files import write_text_atomic
from ..delivery import (
    container_spec,
    gres_conf,
    k8s_manifests,
    prolog_script,
    qos_script,
    slurm_conf,
    topology_conf,
)


def _atomic_write(path: Path, text: str, mode: int = 0o666) -> None:
    write_text_atomic(path, text, mode)


def write_scheduler_files(plan, folder: str | os.PathLike[str]) -> list[Path]:
    """Write the plan's scheduler files into ``folder`` (created if missing); return the
    paths written. A crash never leaves a half-written file."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    nodes, parts = plan["slurm_nodes"], plan["slurm_partitions"]
    rdma = plan.tables.get("rdma_settings")
    topo, name = plan["slurm_topology"], plan.scenario.name
    files = {
        "slurm.conf": (slurm_conf(nodes, parts, name, topo), 0o644),
        "gres.conf": (gres_conf(nodes), 0o644),
        "topology.conf": (topology_conf(topo), 0o644),
        "qos.sh": (qos_script(parts, name), 0o755),
        "prolog.sh": (prolog_script(nodes), 0o755),
        "k8s-inference.yaml": (k8s_manifests(plan["k8s_pools"]), 0o644),
        "Dockerfile.training": (container_spec(plan.scenario.delivery, rdma), 0o644),
    }
    written = []
    for name, (text, mode) in files.items():
        _atomic_write(folder / name, text, mode)
        written.append(folder / name)
    return written
