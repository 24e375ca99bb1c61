"""Scheduler configuration from the plan: Slurm node groups and partitions for the
training and development pools, and the TEXT of ``slurm.conf``, ``gres.conf``, the prolog
health check and the training container spec. Everything here returns strings or tables;
only ``hubplan.export.scheduler`` writes files. Kubernetes for inference is in
``hubplan.delivery.kubernetes``.

Syntax follows slurm.conf(5) and gres.conf(5) (SchedMD/slurm ``doc/man/man5``).
"""

from __future__ import annotations

import math
import re

import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import CatalogError
from ..core.findings import Finding
from ..core.frames import records
from ..pools import Pools
from .section import Delivery

SLURM_POOLS = ("training", "development")
NODE_COLUMNS = ["node_group", "pool", "partition", "nodes", "sockets", "cores_per_socket",
                "threads_per_core", "cpus", "physical_memory_mib", "real_memory_mib",
                "gres_gpus", "gpus_per_server", "gpu_type"]  # fmt: skip
PARTITION_COLUMNS = ["partition", "pool", "node_group", "max_time_min", "is_default"]

MIB = 2**20


def server_figures(name: str, catalog: Catalog, pools: Pools | None = None) -> pd.Series | None:
    """The pool server's catalogue row, or the scenario's custom server with the same name
    (unsourced figures NaN); None when neither is known."""
    if not name:
        return None
    if pools is not None:
        for kind in ("training", "inference", "development"):
            custom = getattr(pools, kind).custom_server
            if custom is not None and custom.name == name:
                return pd.Series(custom.model_dump(), dtype=object).fillna(math.nan)
    try:
        return catalog.server(name)
    except CatalogError:
        return None


def real_memory_mib(ram_gb: float, margin: float) -> int:
    """Slurm ``RealMemory`` for a node with ``ram_gb`` of RAM, kept ``margin`` below
    physical. [MiB]

    Notes
    -----
    RealMemory is in MiB (slurm.conf(5)); ``floor(ram_gb × 10⁹ / 2²⁰ × (1 − margin))``. A
    node that registers less memory than RealMemory is set DOWN, so it must stay below
    what the OS reports; ≈ 0.95 × total is practice (stackhpc ansible-role-openhpc #93).

    Examples
    --------
    DGX H100, 2 048 GB: 2.048e12 / 1 048 576 = 1 953 125 MiB; × 0.95 = 1 855 468 MiB.

    >>> real_memory_mib(2048, 0.05)
    1855468
    """
    return math.floor(ram_gb * 1e9 / MIB * (1 - margin))


def node_range(prefix: str, count: int) -> str:
    """A Slurm hostlist expression for ``count`` nodes, named as every other table of the
    plan names them (``<partition>-<nnnn>``: the IP plan, the port map, the rack layout).

    >>> node_range("train", 20), node_range("dev", 1)
    ('train-[0001-0020]', 'dev-0001')
    """
    width = max(4, len(str(count)))
    if count == 1:
        return f"{prefix}-{1:0{width}d}"
    return f"{prefix}-[{1:0{width}d}-{count:0{width}d}]"


def gpu_type(accelerator: str) -> str:
    """The gres Type for an accelerator: its first word, lower case (``h100``)."""
    return re.sub(r"[^a-z0-9]", "", accelerator.split()[0].lower()) or "gpu"


def slurm_nodes(pools: pd.DataFrame, catalog: Catalog, delivery: Delivery,
                spec: Pools | None = None) -> pd.DataFrame:  # fmt: skip
    """One Slurm node group per Slurm pool (training, development) with its CPUs, memory
    and GPUs; figures the catalogue does not source stay empty (NaN)."""
    rows = []
    slurm = [level == "pool" and pool in SLURM_POOLS for level, pool in
             zip(pools["level"].tolist(), pools["pool"].tolist(), strict=True)]  # fmt: skip
    columns = ["pool", "server", "partition", "total_servers", "gpus_per_server", "accelerator"]
    for p in records(pools, columns, slurm):
        server = server_figures(p["server"], catalog, spec)
        sockets = cores = ram = math.nan
        if server is not None:
            sockets, cores = float(server["cpu_sockets"]), float(server["cpu_cores_total"])
            ram = float(server["ram_gb"])
            if sockets != sockets or cores != cores:
                sockets = cores = math.nan
        tpc = delivery.threads_per_core
        partition = re.sub(r"[^A-Za-z0-9_]", "_", str(p["partition"]) or p["pool"])
        rows.append({
            "node_group": node_range(partition, int(p["total_servers"])), "pool": p["pool"],
            "partition": partition, "nodes": int(p["total_servers"]),
            "sockets": sockets,
            "cores_per_socket": cores / sockets if sockets == sockets else math.nan,
            "threads_per_core": tpc, "cpus": cores * tpc,
            "physical_memory_mib": math.floor(ram * 1e9 / MIB) if ram == ram else math.nan,
            "real_memory_mib": (real_memory_mib(ram, delivery.realmemory_margin)
                                if ram == ram else math.nan),
            "gres_gpus": int(p["gpus_per_server"]), "gpus_per_server": int(p["gpus_per_server"]),
            "gpu_type": gpu_type(str(p["accelerator"])),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=NODE_COLUMNS)


def slurm_partitions(nodes: pd.DataFrame, delivery: Delivery) -> pd.DataFrame:
    """One partition per Slurm pool: time limit and the default partition (development,
    else the first)."""
    limits = {
        "training": delivery.training_max_hours,
        "development": delivery.development_max_hours,
    }
    groups = records(nodes, ["partition", "pool", "node_group"])
    default = "development" if any(n["pool"] == "development" for n in groups) else None
    rows = [{"partition": n["partition"], "pool": n["pool"], "node_group": n["node_group"],
             "max_time_min": round(limits[n["pool"]] * 60),
             "is_default": n["pool"] == default or (default is None and i == 0)}
            for i, n in enumerate(groups)]  # fmt: skip
    return pd.DataFrame(rows, columns=PARTITION_COLUMNS)


# -- text ------------------------------------------------------------------------------


def _int(v) -> str:
    return str(int(v))


def slurm_conf(nodes: pd.DataFrame, partitions: pd.DataFrame, cluster: str = "hubplan") -> str:
    """The node and partition part of ``slurm.conf`` (slurm.conf(5) syntax).

    Nodes with unsourced CPU or memory figures get no CPUs/RealMemory entry (slurmd then
    detects them; ``slurmd -C`` prints the values to fill in).
    """
    lines = [f"# slurm.conf nodes and partitions generated by hubplan for {cluster}",
             f"ClusterName={re.sub(r'[^a-z0-9_]', '_', cluster.lower())}",
             "GresTypes=gpu", "SelectType=select/cons_tres",
             "SelectTypeParameters=CR_Core_Memory", "Prolog=/etc/slurm/prolog.d/*", ""]  # fmt: skip
    columns = ["node_group", "sockets", "cpus", "cores_per_socket", "threads_per_core",
               "real_memory_mib", "gpu_type", "gres_gpus"]  # fmt: skip
    for n in records(nodes, columns):
        parts = [f"NodeName={n['node_group']}"]
        if n["sockets"] == n["sockets"]:
            parts += [f"CPUs={_int(n['cpus'])}", f"Sockets={_int(n['sockets'])}",
                      f"CoresPerSocket={_int(n['cores_per_socket'])}",
                      f"ThreadsPerCore={_int(n['threads_per_core'])}"]  # fmt: skip
        if n["real_memory_mib"] == n["real_memory_mib"]:
            parts.append(f"RealMemory={_int(n['real_memory_mib'])}")
        parts += [f"Gres=gpu:{n['gpu_type']}:{_int(n['gres_gpus'])}", "State=UNKNOWN"]
        lines.append(" ".join(parts))
    lines.append("")
    for p in records(partitions, ["partition", "node_group", "is_default", "max_time_min"]):
        lines.append(f"PartitionName={p['partition']} Nodes={p['node_group']} "
                     f"Default={'YES' if p['is_default'] else 'NO'} "
                     f"MaxTime={_int(p['max_time_min'])} State=UP")  # fmt: skip
    return "\n".join(lines) + "\n"


def gres_conf(nodes: pd.DataFrame) -> str:
    """``gres.conf``: NVML autodetection plus each group's device files, which Slurm
    checks against what it detects (a mismatch drains the node; gres.conf(5))."""
    lines = ["# gres.conf generated by hubplan", "AutoDetect=nvml"]
    for n in records(nodes, ["node_group", "gpu_type", "gres_gpus"]):
        last = int(n["gres_gpus"]) - 1
        files = "/dev/nvidia0" if last == 0 else f"/dev/nvidia[0-{last}]"
        lines.append(f"NodeName={n['node_group']} Name=gpu Type={n['gpu_type']} File={files}")
    return "\n".join(lines) + "\n"


def prolog_script(nodes: pd.DataFrame) -> str:
    """A Slurm prolog that drains a node with a missing GPU or uncorrectable ECC errors.

    A prolog that exits non-zero sets the node to DRAIN (slurm.conf(5), Prolog); the
    script also names the reason with ``scontrol``.
    """
    prefixes = [re.sub(r"\[.*", "", g).rstrip("0123456789") for g in nodes["node_group"]]
    cases = "\n".join(f"  {p}*) expected={int(n)} ;;"
                      for p, n in zip(prefixes, nodes["gres_gpus"], strict=True))  # fmt: skip
    return f"""#!/bin/bash
# Slurm prolog health check generated by hubplan: drain a node with a missing or failing GPU.
node="${{SLURMD_NODENAME:-$(hostname -s)}}"
case "$node" in
{cases}
  *) exit 0 ;;
esac
drain() {{ scontrol update NodeName="$node" State=DRAIN Reason="prolog: $1"; exit 1; }}
found=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$found" -eq "$expected" ] || drain "found $found of $expected GPUs"
ecc=$(nvidia-smi --query-gpu=ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits \\
      | awk '$1 ~ /^[0-9]+$/ && $1 > 0' | wc -l)
[ "$ecc" -eq 0 ] || drain "$ecc GPUs with uncorrectable ECC errors"
dcgmi diag -r 1 >/dev/null 2>&1 || drain "dcgmi diag -r 1 failed"
exit 0
"""


def container_spec(delivery: Delivery, rdma: pd.DataFrame | None = None) -> str:
    """A Dockerfile for the training environment: the framework base image, NCCL settings
    from the plan's RDMA table, and no kernel driver inside (the host provides it)."""
    env = []
    if rdma is not None and not rdma.empty:
        nccl = rdma[rdma["setting"].astype(str).str.startswith("NCCL_")]
        env = [f'ENV {s}="{v}"' for s, v in zip(nccl["setting"], nccl["value"], strict=True)
               if str(v) and " " not in str(v)]  # fmt: skip
    lines = ["# Training image generated by hubplan. The NVIDIA kernel driver is NOT installed",
             "# here: it comes from the host (container toolkit); keep the image's CUDA",
             "# user-space within the host driver's supported range.",
             f"FROM {delivery.container_base_image}", *env,
             "RUN pip install --no-cache-dir nvidia-ml-py", 'CMD ["bash"]']  # fmt: skip
    return "\n".join(lines) + "\n"


# -- validation ------------------------------------------------------------------------

_NODE = re.compile(r"^NodeName=(\S+)(.*)$", re.M)


def validate_scheduler(conf: str, gres: str, nodes: pd.DataFrame) -> list[Finding]:
    """Check the generated text against the plan: RealMemory below physical memory, every
    node group in a partition, ``Gres=gpu:…:N`` equal to the GPUs per server in both
    files, CPU and memory figures present."""
    found: list[Finding] = []
    physical = dict(zip(nodes["node_group"], nodes["physical_memory_mib"], strict=True))
    gpus = dict(zip(nodes["node_group"], nodes["gpus_per_server"], strict=True))
    partitioned = set()
    for m in re.finditer(r"^PartitionName=\S+ Nodes=(\S+)", conf, re.M):
        partitioned.update(m.group(1).split(","))
    for m in _NODE.finditer(conf):
        group, rest = m.group(1), m.group(2)
        mem = re.search(r"RealMemory=(\d+)", rest)
        phys = physical.get(group, math.nan)
        if mem is None or phys != phys:
            found.append(Finding("warning", "delivery", group, "slurm_memory_unknown",
                                 {"nodes": group}))  # fmt: skip
        elif int(mem.group(1)) >= phys:
            found.append(Finding("error", "delivery", group, "realmemory_not_below_physical",
                                 {"nodes": group, "real": int(mem.group(1)),
                                  "physical": int(phys)}))  # fmt: skip
        gres_n = re.search(r"Gres=gpu:(?:[^:\s]+:)?(\d+)", rest)
        want = int(gpus.get(group, -1))
        if gres_n is None or int(gres_n.group(1)) != want:
            found.append(Finding("error", "delivery", group, "gres_count_mismatch",
                                 {"nodes": group, "gres": gres_n.group(1) if gres_n else "none",
                                  "gpus": want}))  # fmt: skip
        if group not in partitioned:
            found.append(Finding("error", "delivery", group, "node_without_partition",
                                 {"nodes": group}))  # fmt: skip
    for m in re.finditer(r"^NodeName=(\S+) Name=gpu .*File=/dev/nvidia(?:\[0-(\d+)\]|0)", gres,
                         re.M):  # fmt: skip
        count = int(m.group(2)) + 1 if m.group(2) else 1
        if count != int(gpus.get(m.group(1), -1)):
            found.append(Finding("error", "delivery", m.group(1), "gres_count_mismatch",
                                 {"nodes": m.group(1), "gres": count,
                                  "gpus": int(gpus.get(m.group(1), -1))}))  # fmt: skip
    return found
