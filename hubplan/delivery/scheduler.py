"""Scheduler configuration from the plan: Slurm node groups and partitions for the
training and development pools, and the TEXT of ``slurm.conf``, ``gres.conf``, the prolog
health check and the training container spec. Everything here returns strings or tables;
only ``hubplan.export.scheduler`` writes files. Kubernetes for inference is in
``hubplan.delivery.kubernetes``.

Syntax follows slurm.conf(5), gres.conf(5), topology.conf(5) (SchedMD/slurm
``doc/man/man5``) and sacctmgr(1) for QOS.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import CatalogError
from ..core.findings import Finding
from ..core.frames import records
from ..core.names import ascii_words, name_digest
from ..core.units import MIB
from ..pools import Pools
from ..server import catalog_server, pool_server
from .section import Delivery

SLURM_POOLS = ("training", "development")
NODE_COLUMNS = [
    "node_group",
    "pool",
    "partition",
    "nodes",
    "sockets",
    "cores_per_socket",
    "threads_per_core",
    "cpus",
    "physical_memory_mib",
    "real_memory_mib",
    "gres_gpus",
    "gpus_per_server",
    "gpu_type",
    "domain_nodes",
    "family",
    "gres_autodetect",
    "device_files",
    "device_list_cmd",
    "ecc_check_cmd",
    "diag_cmd",
    "container_image",
]
#: The family facts (``data/families.csv``) each node group carries for the generated
#: files; empty = unknown.
FAMILY_NODE_FACTS = (
    "gres_autodetect",
    "device_list_cmd",
    "ecc_check_cmd",
    "diag_cmd",
    "container_image",
)
PARTITION_COLUMNS = [
    "partition",
    "pool",
    "node_group",
    "max_time_min",
    "is_default",
    "qos",
    "quota",
    "max_gpus_per_user",
]
TOPOLOGY_COLUMNS = [
    "name",
    "topology_plugin",
    "switch_level",
    "child_nodes",
    "child_switches",
    "physical_switches",
]


def server_figures(
    name: str, catalog: Catalog, pools: Pools | None = None, pool: str = ""
) -> pd.Series | None:
    """The figures of the server of ``pool`` (``pools.<pool>``: its catalogue row or its
    custom server, from the one resolver, ``hubplan.server.resolve_server``); without the
    pools section, the catalogue server called ``name``. None when neither is known;
    figures not sourced are NaN."""
    if pools is not None and pool:
        server = pool_server(pools, pool, catalog)
    elif name:
        try:
            server = catalog_server(name, catalog)
        except CatalogError:
            server = None
    else:
        server = None
    return None if server is None else server.figures()


#: Words of a catalogue ``cpu_model`` whose cores run one hardware thread each (no SMT):
#: Arm Neoverse V2, the core of NVIDIA Grace. A GB200 tray's two Grace CPUs give 144
#: CPUs (Crusoe's MLPerf Inference v6.1 system JSON, GB200-NVL72: 144 cores per 4-GPU
#: node; a GB200 NVL72 slurm.conf, github.com/hyxcl/slurm_in_docker README:
#: ``NodeName=nvl721001-T[01-18] ... CPUs=144 ... CoresPerSocket=72 ThreadsPerCore=1``).
SINGLE_THREAD_CPUS = ("neoverse", "grace")


def threads_per_core(server: str, catalog: Catalog, default: int) -> int:
    """Hardware threads per core of the catalogue server ``server``'s CPU: 1 for a CPU of
    :data:`SINGLE_THREAD_CPUS`, else ``default`` (``delivery.threads_per_core``, x86 SMT).

    slurmd registers what the node has: a node configured with more CPUs than it
    registers is set INVALID and runs no job (slurm.conf(5), NodeName CPUs), so a Grace
    tray written as 2 threads a core (288 CPUs) would never run a job.

    >>> from hubplan.core.catalog import load_catalog
    >>> cat = load_catalog()
    >>> threads_per_core("DGX GB200 compute tray", cat, 2), threads_per_core("DGX H100", cat, 2)
    (1, 2)
    """
    try:
        model = str(catalog.server(server)["cpu_model"]).lower()
    except CatalogError:
        return default
    return 1 if any(word in model for word in SINGLE_THREAD_CPUS) else default


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


def node_range(prefix: str, count: int, trays: int = 1) -> str:
    """A Slurm hostlist expression for ``count`` nodes, named as every other table of the
    plan names them (``<partition>-<nnnn>``: the IP plan, the port map, the rack layout);
    with ``trays`` > 1, the compute trays of ``count`` rack-scale systems
    (``<partition>-<nnnn>-t<nn>``, as the port map cables them). slurm.conf(5): a node
    range expression may hold several numeric ranges ("rack[0-63]_blade[0-41]").

    >>> node_range("train", 20), node_range("dev", 1), node_range("train", 2, 18)
    ('train-[0001-0020]', 'dev-0001', 'train-[0001-0002]-t[01-18]')
    """
    width = max(4, len(str(count)))
    racks = (
        f"{prefix}-{1:0{width}d}" if count == 1 else f"{prefix}-[{1:0{width}d}-{count:0{width}d}]"
    )
    return racks if trays <= 1 else f"{racks}-t[01-{trays:02d}]"


def gpu_type(accelerator: str) -> str:
    """The gres Type for an accelerator: its first word, lower case (``h100``)."""
    return re.sub(r"[^a-z0-9]", "", accelerator.split()[0].lower()) or "gpu"


def fact(family: pd.Series, column: str) -> str:
    """One fact of an accelerator family row as text; empty when unknown."""
    value = family.get(column, "")
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def device_files(family: pd.Series, count: int) -> str:
    """The Slurm ``File=`` expression of a node's ``count`` accelerators, from the family's
    device file pattern (``data/families.csv``: ``device_file`` with ``{i}``, numbered from
    ``device_file_first``); empty when the pattern is unknown.

    Notes
    -----
    gres.conf(5): ``File`` takes a device path with a numeric range in brackets. NVIDIA
    GPUs are ``/dev/nvidia0``…, AMD GPUs their DRM render nodes from
    ``/dev/dri/renderD128``, Ascend NPUs ``/dev/davinci0``… (Ascend Docker Runtime),
    Gaudi cards ``/dev/accel/accel0``….

    Examples
    --------
    >>> amd = pd.Series({"device_file": "/dev/dri/renderD{i}", "device_file_first": 128.0})
    >>> device_files(amd, 8)
    '/dev/dri/renderD[128-135]'
    >>> device_files(pd.Series({"device_file": "/dev/davinci{i}", "device_file_first": 0.0}), 1)
    '/dev/davinci0'
    >>> device_files(pd.Series({"device_file": ""}), 8)
    ''
    """
    pattern = fact(family, "device_file")
    if not pattern or count < 1:
        return ""
    first = family.get("device_file_first", 0)
    first = 0 if first is None or first != first else int(first)
    head, tail = pattern.split("{i}", 1)
    if count == 1:
        return f"{head}{first}{tail}"
    return f"{head}[{first}-{first + count - 1}]{tail}"


def domain_nodes(domain_gpus: float, gpus_per_server: int) -> int:
    """Slurm nodes in one NVLink (scale-up) domain: 1 when the domain is inside a server.

    Notes
    -----
    ``domain_gpus / gpus_per_server`` when the domain spans whole servers (rack-scale
    NVLink), else 1. GB200 NVL72: one NVLink domain of 72 GPUs over 18 compute trays of
    4 GPUs each (NVIDIA DGX GB200 User Guide, "Hardware"; the accelerator catalogue's
    ``scaleup_domain_gpus``); an HGX H100 board is an 8-GPU domain inside one server.

    >>> domain_nodes(72, 4), domain_nodes(8, 8), domain_nodes(72, 72), domain_nodes(float("nan"), 8)
    (18, 1, 1, 1)
    """
    if domain_gpus != domain_gpus or gpus_per_server <= 0:
        return 1
    domain = int(domain_gpus)
    if domain > gpus_per_server and domain % gpus_per_server == 0:
        return domain // gpus_per_server
    return 1


def cluster_name(name: str) -> str:
    """A Slurm ``ClusterName`` for a scenario name, stable and valid for any name.

    Notes
    -----
    slurm.conf(5), ClusterName: upper case is silently mapped to lower case by some
    databases, so the name should be lower case, and it "must be 40 characters or less"
    (the MySQL/MariaDB table-name limit: slurmdbd prefixes its tables with it). hubplan
    also keeps to ``[a-z0-9_]`` starting with a letter, a bare SQL identifier and file
    name. A lower-cased ASCII name whose words fit is used as they are (joined by ``_``);
    any other name (Chinese, accented, too long, starting with a digit) becomes
    ``hubplan_<first 6 hex of its SHA-256>`` plus as many of its ASCII words as fit: no
    transliteration offline, so the hash keeps different names apart and the words keep
    it readable.

    Examples
    --------
    The hashes are the first six hex digits of ``printf '%s' NAME | sha256sum``.

    >>> cluster_name("Pilot")
    'pilot'
    >>> cluster_name("智算中心 一期")
    'hubplan_0f5a6b'
    >>> cluster_name("70B 训练集群")
    'hubplan_ae3dd0_70b'
    >>> n = cluster_name("70B industry model — fine-tune, serve, develop")
    >>> n, len(n) <= 40
    ('hubplan_50a90f_70b_industry_model_fine', True)
    """
    words = ascii_words(name)
    plain = "_".join(words)
    if name.isascii() and plain[:1].isalpha() and len(plain) <= 40:
        return plain
    tag = "hubplan_" + name_digest(name, 6)
    for word in words:
        if len(tag) + 1 + len(word) > 40:
            break
        tag += "_" + word
    return tag


def slurm_nodes(
    pools: pd.DataFrame, catalog: Catalog, delivery: Delivery, spec: Pools | None = None
) -> pd.DataFrame:
    """One Slurm node group per Slurm pool (training, development) with its CPUs, memory,
    GPUs and the nodes of one NVLink domain (``domain_nodes``, 18 for GB200 NVL72 trays);
    figures the catalogue does not source stay empty (NaN)."""
    rows = []
    slurm = [
        level == "pool" and pool in SLURM_POOLS
        for level, pool in zip(pools["level"].tolist(), pools["pool"].tolist(), strict=True)
    ]
    columns = ["pool", "server", "partition", "total_servers", "gpus_per_server", "accelerator"]
    for p in records(pools, columns, slurm):
        try:
            acc = catalog.accelerator(str(p["accelerator"]))
            domain = float(acc["scaleup_domain_gpus"])
            family = catalog.family(str(acc["vendor"]))
        except CatalogError:
            domain = math.nan
            family = catalog.family("")
        server = server_figures(p["server"], catalog, spec, p["pool"])
        sockets = cores = ram = math.nan
        # a rack-scale system's Slurm nodes are its compute trays: figures per tray
        per = int(server["nodes"]) if server is not None else 1
        if server is not None:
            sockets = float(server["cpu_sockets"]) / per
            cores, ram = float(server["cpu_cores_total"]) / per, float(server["ram_gb"]) / per
            if sockets != sockets or cores != cores:
                sockets = cores = math.nan
        tpc = threads_per_core(str(p["server"]), catalog, delivery.threads_per_core)
        # The pools section admits only hostname prefixes (letters, digits, hyphens), so
        # Slurm names the nodes exactly as the IP plan and the port map do.
        partition = str(p["partition"]) or p["pool"]
        gps = int(p["gpus_per_server"]) // per
        rows.append(
            {
                "node_group": node_range(partition, int(p["total_servers"]), per),
                "pool": p["pool"],
                "partition": partition,
                "nodes": int(p["total_servers"]) * per,
                "sockets": sockets,
                "cores_per_socket": cores / sockets if sockets == sockets else math.nan,
                "threads_per_core": tpc,
                "cpus": cores * tpc,
                "physical_memory_mib": math.floor(ram * 1e9 / MIB) if ram == ram else math.nan,
                "real_memory_mib": (
                    real_memory_mib(ram, delivery.realmemory_margin) if ram == ram else math.nan
                ),
                "gres_gpus": gps,
                "gpus_per_server": gps,
                "gpu_type": gpu_type(str(p["accelerator"])),
                "domain_nodes": domain_nodes(domain, gps),
                "family": fact(family, "name"),
                "device_files": device_files(family, gps),
                **{c: fact(family, c) for c in FAMILY_NODE_FACTS},
            }
        )
    return pd.DataFrame(rows, columns=NODE_COLUMNS)


def slurm_partitions(
    nodes: pd.DataFrame, delivery: Delivery, pools: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One partition per Slurm pool: time limit, the default partition (development, else
    the first) and the pool's quota policy as a partition QOS of the same name (with the
    pool's per-user GPU cap when it has one)."""
    limits = {
        "training": delivery.training_max_hours,
        "development": delivery.development_max_hours,
    }
    quota, cap = {}, {}
    if pools is not None:
        for p in records(pools, ["level", "pool", "quota", "max_gpus_per_user"]):
            if p["level"] == "pool":
                quota[p["pool"]] = str(p["quota"] or "fair_share")
                cap[p["pool"]] = p["max_gpus_per_user"]
    groups = records(nodes, ["partition", "pool", "node_group"])
    default = "development" if any(n["pool"] == "development" for n in groups) else None
    rows = [
        {
            "partition": n["partition"],
            "pool": n["pool"],
            "node_group": n["node_group"],
            "max_time_min": round(limits[n["pool"]] * 60),
            "is_default": n["pool"] == default or (default is None and i == 0),
            "qos": n["partition"].lower(),
            "quota": quota.get(n["pool"], "exclusive" if n["pool"] == "training" else "fair_share"),
            "max_gpus_per_user": float(cap.get(n["pool"], math.nan) or math.nan),
        }
        for i, n in enumerate(groups)
    ]
    return pd.DataFrame(rows, columns=PARTITION_COLUMNS)


def hostlist(names: list[str]) -> str:
    """A Slurm hostlist expression for ``names``: runs of one prefix and equal-width
    numbers become ranges, in the order given (slurm.conf(5), "hostlist expression").

    >>> hostlist(["train-0001", "train-0002", "train-0003", "dev-0001", "spine"])
    'train-[0001-0003],dev-0001,spine'
    >>> hostlist(["su-01", "su-03", "su-04"])
    'su-[01,03-04]'
    """
    runs: list[tuple[str, int, list[list[int]]]] = []  # prefix, width, [first, last] ranges
    out: list[str] = []
    for name in names:
        m = re.fullmatch(r"(.*?)(\d+)", name)
        if m is None:
            runs.append((name, -1, []))
            continue
        prefix, digits = m.group(1), m.group(2)
        number = int(digits)
        if runs and runs[-1][0] == prefix and runs[-1][1] == len(digits):
            ranges = runs[-1][2]
            if number == ranges[-1][1] + 1:
                ranges[-1][1] = number
            else:
                ranges.append([number, number])
        else:
            runs.append((prefix, len(digits), [[number, number]]))
    for prefix, width, ranges in runs:
        if width < 0:
            out.append(prefix)
            continue
        parts = [f"{a:0{width}d}" if a == b else f"{a:0{width}d}-{b:0{width}d}" for a, b in ranges]
        single = len(ranges) == 1 and ranges[0][0] == ranges[0][1]
        out.append(f"{prefix}{parts[0]}" if single else f"{prefix}[{','.join(parts)}]")
    return ",".join(out)


def node_names(prefix: str, count: int) -> list[str]:
    """The names :func:`node_range` abbreviates (``train-0001`` …)."""
    width = max(4, len(str(count)))
    return [f"{prefix}-{i:0{width}d}" for i in range(1, count + 1)]


def _uplinks(port_map: pd.DataFrame, plane: str) -> dict[str, tuple[str, ...]]:
    """Each device of a plane and the devices its links reach one tier up (the port map
    lists every link lower end first: server → leaf → spine → core)."""
    rows = port_map["plane"].to_numpy() == plane
    up: dict[str, set[str]] = {}
    for a, b in zip(
        port_map["device_a"].to_numpy()[rows].tolist(),
        port_map["device_b"].to_numpy()[rows].tolist(),
        strict=True,
    ):
        up.setdefault(a, set()).add(b)
    return {a: tuple(sorted(b)) for a, b in up.items()}


def _tree_levels(nodes: list[str], port_map: pd.DataFrame) -> list[list[tuple[str, tuple]]]:
    """Group Slurm nodes, then switches, by the switches above them, level by level."""
    up, inband_up = _uplinks(port_map, "compute"), _uplinks(port_map, "inband")
    levels: list[list[tuple[str, tuple]]] = []
    # level 0: nodes grouped by their set of leaves (a rail-optimised unit's nodes share
    # all its rail leaves); a node off the compute fabric by its in-band leaf
    groups: dict[tuple, list[str]] = {}
    for node in nodes:
        key = up.get(node) or inband_up.get(node)
        if key:  # a node with no port at all is left out (validate_scheduler warns)
            groups.setdefault(key, []).append(node)
    level = [(",".join(members), key) for key, members in groups.items()]
    levels.append(level)
    while len(levels) < 16:  # a port map runs up: server, leaf, spine, core
        parents: dict[tuple, list[int]] = {}
        for i, (_, below) in enumerate(levels[-1]):
            above = tuple(sorted({s for b in below for s in up.get(b, ())}))
            if above:
                parents.setdefault(above, []).append(i)
        if not parents:
            return levels
        levels.append(
            [(",".join(str(i) for i in members), key) for key, members in parents.items()]
        )
    return levels


def _block_rows(groups: list[dict]) -> list[dict[str, object]]:
    """The ``topology/block`` lines: one block per whole NVLink domain of each node group."""
    rows: list[dict[str, object]] = []
    for g in groups:
        size = int(g["domain_nodes"])
        names = hostnames(g["node_group"])
        if size <= 1:
            continue  # no NVLink beyond the server: left out (a warning says so)
        # whole domains; a pool smaller than one domain is one (partial) block
        blocks = [names[i : i + size] for i in range(0, len(names), size)]
        blocks = [b for b in blocks if len(b) == size] or blocks[:1]
        width = max(2, len(str(len(blocks))))
        for i, block in enumerate(blocks):
            rows.append(
                {
                    "name": f"{g['partition']}-nvl-{i + 1:0{width}d}",
                    "topology_plugin": "block",
                    "switch_level": 0,
                    "child_nodes": hostlist(block),
                    "child_switches": "",
                    "physical_switches": "",
                }
            )
    return rows


def _tree_rows(levels: list[list[tuple[str, tuple]]]) -> list[dict[str, object]]:
    """The ``topology/tree`` lines of :func:`_tree_levels`, level by level from the leaves
    up, each switch named after the real one it stands for or its plane and role."""
    roles = ["su", "pod" if len(levels) > 2 else "spines", "cores"]
    rows: list[dict[str, object]] = []
    below_names: list[str] = []
    for depth, level in enumerate(levels):
        role = roles[min(depth, 2)] if depth < 3 else f"level{depth}"
        width = max(2, len(str(len(level))))
        level_names = []
        for i, (members, physical) in enumerate(level):
            if len(physical) == 1:
                name = physical[0]
            else:
                plane = physical[0].split("-")[0]
                name = f"{plane}-{role}" + (f"-{i + 1:0{width}d}" if len(level) > 1 else "")
            level_names.append(name)
            if depth == 0:
                child_nodes, child_switches = hostlist(members.split(",")), ""
            else:
                kids = [below_names[int(k)] for k in members.split(",")]
                child_nodes, child_switches = "", hostlist(kids)
            real = hostlist(list(physical))
            rows.append(
                {
                    "name": name,
                    "topology_plugin": "tree",
                    "switch_level": depth,
                    "child_nodes": child_nodes,
                    "child_switches": child_switches,
                    "physical_switches": real,
                }
            )
        below_names = level_names
    return rows


def slurm_topology(nodes: pd.DataFrame, port_map: pd.DataFrame) -> pd.DataFrame:
    """The Slurm network topology of the Slurm nodes, one row per ``topology.conf`` line.

    With NVLink domains that span servers (``domain_nodes`` > 1: GB200 NVL72 trays) the
    ``topology/block`` plugin: one block per whole domain, in node order (a pool smaller
    than one domain is one block; the nodes of a partial last domain and of pools without
    rack-scale NVLink are in no block; :func:`validate_scheduler` warns of the first, which
    the block logic never uses). Otherwise the
    ``topology/tree`` plugin, from the compute plane of the port map: nodes that share the
    same leaf switches form one leaf (a rail-optimised scalable unit's nodes reach each
    other through any of its rail leaves, so the unit is the leaf Slurm needs; listing
    each rail leaf with the same nodes is what slurmctld warns of as "Multiple leaf
    switches contain nodes"), and groups of those that share the same switches above
    form the next level, up to the top. A node with no compute port hangs off its in-band
    leaf; a node with no port at all is left out (and warned of). ``physical_switches``
    names the real switches a line stands for.

    References
    ----------
    topology.conf(5) and the Slurm topology guide (SchedMD): "listing the leaf switches
    with their nodes plus one top level switch should result in good performance";
    BlockSizes: the base block size, then powers of two times it.
    """
    groups = records(nodes, ["partition", "nodes", "domain_nodes", "node_group"])
    if any(int(g["domain_nodes"]) > 1 for g in groups):
        return pd.DataFrame(_block_rows(groups), columns=TOPOLOGY_COLUMNS)
    names = [n for g in groups for n in hostnames(g["node_group"])]
    if not names:
        return pd.DataFrame(columns=TOPOLOGY_COLUMNS)
    levels = _tree_levels(names, port_map)
    if not levels[0]:
        return pd.DataFrame(columns=TOPOLOGY_COLUMNS)
    return pd.DataFrame(_tree_rows(levels), columns=TOPOLOGY_COLUMNS)


# -- text ------------------------------------------------------------------------------


def _int(v) -> str:
    return str(int(v))


#: Marks the accounting block of slurm.conf: lines that need slurmdbd (and its database).
ACCOUNTING_BEGIN = "# -- accounting: needs slurmdbd; QOS are created by qos.sh --"
ACCOUNTING_END = "# -- end accounting --"

#: Fair-share weight of priority/multifactor. Each factor is a number in [0, 1] times its
#: weight and only the ratio between weights matters (slurm.conf(5), PriorityWeight*);
#: fair share is the one weight hubplan sets, and 10 000 leaves four digits of room for
#: a site's own Age/QOS/JobSize weights below it.
FAIRSHARE_WEIGHT = 10_000


def _topology_lines(nodes: pd.DataFrame, topology: pd.DataFrame | None) -> list[str]:
    """The ``TopologyPlugin`` line and, for NVIDIA NVLink blocks, the IMEX switch plugin."""
    if topology is None or topology.empty:
        return []
    plugin = topology["topology_plugin"].iloc[0]
    lines = [f"TopologyPlugin=topology/{plugin}"]
    nvidia = {"domain_nodes", "family"} <= set(nodes.columns) and bool(
        ((nodes["domain_nodes"] > 1) & (nodes["family"] == "NVIDIA")).any()
    )
    if plugin == "block" and nvidia:
        # a job across the trays of an NVLink domain shares GPU memory through an IMEX
        # channel, which this plugin allocates per job (slurm.conf(5), SwitchType
        # switch/nvidia_imex: "For allocating unique channels within an NVIDIA IMEX
        # domain"; in Slurm from 24.05, as BlockSizes). NVIDIA's only.
        lines.append("SwitchType=switch/nvidia_imex")
    return lines


def _node_lines(nodes: pd.DataFrame) -> list[str]:
    """One ``NodeName`` line per node group, CPU and memory figures where known."""
    lines: list[str] = []
    columns = [
        "node_group",
        "sockets",
        "cpus",
        "cores_per_socket",
        "threads_per_core",
        "real_memory_mib",
        "gpu_type",
        "gres_gpus",
    ]
    for n in records(nodes, columns):
        parts = [f"NodeName={n['node_group']}"]
        if n["sockets"] == n["sockets"]:
            parts += [
                f"CPUs={_int(n['cpus'])}",
                f"Sockets={_int(n['sockets'])}",
                f"CoresPerSocket={_int(n['cores_per_socket'])}",
                f"ThreadsPerCore={_int(n['threads_per_core'])}",
            ]
        if n["real_memory_mib"] == n["real_memory_mib"]:
            parts.append(f"RealMemory={_int(n['real_memory_mib'])}")
        parts += [f"Gres=gpu:{n['gpu_type']}:{_int(n['gres_gpus'])}", "State=UNKNOWN"]
        lines.append(" ".join(parts))
    return lines


def _partition_lines(partitions: pd.DataFrame) -> list[str]:
    """One ``PartitionName`` line per partition, with its QOS and exclusive nodes."""
    lines: list[str] = []
    columns = ["partition", "node_group", "is_default", "max_time_min", "qos", "quota"]
    for p in records(partitions, [c for c in columns if c in partitions]):
        line = (
            f"PartitionName={p['partition']} Nodes={p['node_group']} "
            f"Default={'YES' if p['is_default'] else 'NO'} "
            f"MaxTime={_int(p['max_time_min'])} State=UP"
        )
        if p.get("qos"):
            line += f" QOS={p['qos']}"
        if p.get("quota") == "exclusive":
            line += " OverSubscribe=EXCLUSIVE"
        lines.append(line)
    return lines


def slurm_conf(
    nodes: pd.DataFrame,
    partitions: pd.DataFrame,
    cluster: str = "hubplan",
    topology: pd.DataFrame | None = None,
) -> str:
    """``slurm.conf`` for the plan's nodes, partitions, QOS and topology (slurm.conf(5)).

    What hubplan cannot know is left to the site and named in the header: the controller
    host, state and log paths, authentication, the slurmdbd host. Nodes with unsourced
    CPU or memory figures get no CPUs/RealMemory entry (slurmd then detects them;
    ``slurmd -C`` prints the values to fill in). Each partition runs under its pool's
    QOS (``qos.sh`` creates them); an exclusive pool gives whole nodes to a job
    (``OverSubscribe=EXCLUSIVE``); a preemptible pool's jobs are requeued when another
    pool's QOS needs the nodes (``PreemptType=preempt/qos``). QOS limits and fair share
    need accounting (``AccountingStorageEnforce=…,limits,qos`` and
    ``AccountingStorageTRES=gres/gpu`` for a per-user GPU cap), which needs slurmdbd:
    those lines form one marked block.
    """
    quotas = set(partitions["quota"]) if "quota" in partitions else set()
    lines = [
        f"# slurm.conf generated by hubplan for {' '.join(cluster.split())}",
        "# Add for your site (slurm.conf(5)): SlurmctldHost, StateSaveLocation,",
        "# SlurmctldLogFile, SlurmdSpoolDir, AuthType (auth/munge) and AccountingStorageHost.",
        f"ClusterName={cluster_name(cluster)}",
        "GresTypes=gpu",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "Prolog=/etc/slurm/prolog.d/*",
        "PriorityType=priority/multifactor",
    ]
    lines += _topology_lines(nodes, topology)
    if "preemptible" in quotas:
        lines += ["PreemptType=preempt/qos", "PreemptMode=REQUEUE"]
    lines += [
        "",
        ACCOUNTING_BEGIN,
        "AccountingStorageType=accounting_storage/slurmdbd",
        "AccountingStorageEnforce=associations,limits,qos",
        "AccountingStorageTRES=gres/gpu",
    ]
    if "fair_share" in quotas:
        lines.append(f"PriorityWeightFairshare={FAIRSHARE_WEIGHT}")
    lines += [ACCOUNTING_END, ""]
    lines += _node_lines(nodes)
    lines.append("")
    lines += _partition_lines(partitions)
    return "\n".join(lines) + "\n"


def topology_conf(topology: pd.DataFrame) -> str:
    """``topology.conf`` (topology.conf(5)) from :func:`slurm_topology`.

    Tree: ``SwitchName=… Nodes=…`` for leaves, ``SwitchName=… Switches=…`` above, each
    with the real switches it stands for in a comment. Block: ``BlockName=… Nodes=…`` and
    ``BlockSizes=``: the base block (one NVLink domain's nodes), then that times 2, 4, …
    up to the number of blocks (each further size must be a power of two times the base;
    topology.conf(5), BlockSizes). ``BlockSizes`` needs Slurm 24.05 or later: the
    block plugin came with 23.11, whose topology.conf took ``BlockLevels`` instead
    (Slurm NEWS, 24.05.0: "topology/block - Replaced the BlockLevels with BlockSizes in
    topology.conf"), and a 23.11 slurmctld stops at a key it does not know.
    """
    if topology.empty:
        return "# topology.conf generated by hubplan: no Slurm nodes in the plan\n"
    plugin = topology["topology_plugin"].iloc[0]
    lines = [f"# topology.conf generated by hubplan (TopologyPlugin=topology/{plugin})"]
    if plugin == "block":
        lines.append("# One block per NVLink domain; BlockSizes needs Slurm >= 24.05 (23.11's")
        lines.append("# topology/block read BlockLevels instead).")
        rows = records(topology, ["name", "child_nodes"])
        for r in rows:
            lines.append(f"BlockName={r['name']} Nodes={r['child_nodes']}")
        base = min(len(hostnames(r["child_nodes"])) for r in rows)  # no block may be smaller
        sizes, k = [base], 2
        while k <= len(rows):
            sizes.append(base * k)
            k *= 2
        lines.append("BlockSizes=" + ",".join(str(n) for n in sizes))
        return "\n".join(lines) + "\n"
    lines.append("# A leaf is the set of leaf switches its nodes share (a scalable unit's rail")
    lines.append("# leaves); the levels above group the switches those leaves reach.")
    for r in records(topology, ["name", "child_nodes", "child_switches", "physical_switches"]):
        if r["physical_switches"] and r["physical_switches"] != r["name"]:
            lines.append(f"# {r['name']}: {r['physical_switches']}")
        child = (
            f"Nodes={r['child_nodes']}" if r["child_nodes"] else f"Switches={r['child_switches']}"
        )
        lines.append(f"SwitchName={r['name']} {child}")
    children = {c for sw in topology["child_switches"] if sw for c in hostnames(sw)}
    if sum(name not in children for name in topology["name"]) > 1:
        lines.append("# No switch reaches every node: Slurm runs no job across these groups")
        lines.append('# (slurmctld logs "no switch can reach all nodes"), as intended here.')
    return "\n".join(lines) + "\n"


def hostnames(expression: str) -> list[str]:
    """The names of a hostlist expression from :func:`hostlist` or :func:`node_range`
    (several ranges in one name expand first range outermost, as Slurm does).

    >>> hostnames("a-[01-03,07],spine")
    ['a-01', 'a-02', 'a-03', 'a-07', 'spine']
    >>> hostnames("r-[1-2]-t[1-2]")
    ['r-1-t1', 'r-1-t2', 'r-2-t1', 'r-2-t2']
    """
    names = []
    for token in re.findall(r"(?:[^,\[]|\[[^\]]*\])+", expression):
        combos = [""]
        for part in re.split(r"(\[[^\]]*\])", token):
            values = [part]
            if part.startswith("["):
                values = []
                for r in part[1:-1].split(","):
                    a, _, b = r.partition("-")
                    values += [f"{i:0{len(a)}d}" for i in range(int(a), int(b or a) + 1)]
            combos = [c + v for c in combos for v in values]
        names += combos
    return names


def qos_script(partitions: pd.DataFrame, cluster: str = "hubplan") -> str:
    """``qos.sh``: the partitions' QOS through ``sacctmgr`` (QOS live in the accounting
    database, not in slurm.conf; sacctmgr(1), "QOS"). Idempotent: it adds what is missing
    and sets every limit each run.

    exclusive and fair_share pools: ``MaxTRESPerUser=gres/gpu=N`` with the pool's
    per-user cap (``-1`` clears it) and ``Flags=DenyOnLimit`` (a job over the cap is
    refused at submission instead of pending for ever); preemptible pools:
    ``PreemptMode=requeue``, and every other QOS may preempt them (``Preempt=``).
    """
    name = cluster_name(cluster)
    rows = records(partitions, ["qos", "quota", "max_gpus_per_user"])
    preemptible = [r["qos"] for r in rows if r["quota"] == "preemptible"]
    out = [
        "#!/bin/bash",
        f"# Slurm QOS per pool generated by hubplan for {' '.join(cluster.split())}.",
        "# Run once where sacctmgr reaches slurmdbd. slurm.conf keeps the accounting block",
        "# (AccountingStorageEnforce=associations,limits,qos, AccountingStorageTRES=gres/gpu)",
        "# without which these limits are not applied.",
        "set -euo pipefail",
        f"cluster={name}",
        'sacctmgr -n -P show cluster where name="$cluster" format=cluster \\',
        '  | grep -qx "$cluster" || sacctmgr -i add cluster "$cluster"',
        'add_qos() { sacctmgr -n -P show qos where name="$1" format=name | grep -qx "$1" \\',
        '  || sacctmgr -i add qos "$1"; }',
    ]
    for r in rows:
        cap = r["max_gpus_per_user"]
        limit = f"gres/gpu={int(cap)}" if cap == cap and cap is not None else "gres/gpu=-1"
        settings = [f"MaxTRESPerUser={limit}", "Flags=DenyOnLimit"]
        if r["quota"] == "preemptible":
            settings.append("PreemptMode=requeue")
        elif preemptible:
            settings.append("Preempt=" + ",".join(preemptible))
        modify = f"sacctmgr -i modify qos where name={r['qos']} set "
        out += [
            f"# {r['qos']}: {r['quota']} pool",
            f"add_qos {r['qos']}",
            modify + " ".join(settings),
        ]
    return "\n".join(out) + "\n"


def gres_conf(nodes: pd.DataFrame) -> str:
    """``gres.conf``: each node group's autodetection plugin (its accelerator family's:
    ``nvml`` NVIDIA, ``rsmi`` AMD; ``off`` where Slurm has none, Ascend and Gaudi) and its
    device files, which Slurm checks against what it detects (a mismatch drains the
    node; gres.conf(5)). One family: one global ``AutoDetect`` line; several: the mode on
    each ``NodeName`` line, as gres.conf(5) allows ("NodeName=tux3 AutoDetect=off
    Name=gpu File=/dev/nvidia[0-3]"). A family whose device files are unknown gets
    ``Count=`` and a comment saying so.
    """
    lines = ["# gres.conf generated by hubplan"]
    rows = records(
        nodes, ["node_group", "gpu_type", "gres_gpus", "family", "gres_autodetect", "device_files"]
    )
    detect = {str(n["gres_autodetect"]) or "off" for n in rows}
    if len(detect) == 1:
        lines.append(f"AutoDetect={detect.pop()}")
    for n in rows:
        per_node = (
            ""
            if len({str(r["gres_autodetect"]) or "off" for r in rows}) == 1
            else (f" AutoDetect={n['gres_autodetect'] or 'off'}")
        )
        if not n["gres_autodetect"]:
            lines.append(
                f"# {n['family'] or 'unknown family'}: no Slurm autodetection "
                "sourced (data/families.csv)"
            )
        head = f"NodeName={n['node_group']}{per_node} Name=gpu Type={n['gpu_type']}"
        if n["device_files"]:
            lines.append(f"{head} File={n['device_files']}")
        else:
            lines.append(
                f"# {n['family'] or 'unknown family'}: device files unknown; "
                "add File= before binding GPUs to jobs"
            )
            lines.append(f"{head} Count={int(n['gres_gpus'])}")
    return "\n".join(lines) + "\n"


#: The prolog's NVIDIA checks: uncorrectable ECC errors (nvidia-smi) and DCGM level 1.
_NVIDIA_CHECKS = (
    'if [ "${family:-}" = nvidia ]; then\n'
    "  ecc=$(nvidia-smi --query-gpu=ecc.errors.uncorrected.volatile.total "
    "--format=csv,noheader,nounits \\\n"
    "        | awk '$1 ~ /^[0-9]+$/ && $1 > 0' | wc -l)\n"
    '  [ "$ecc" -eq 0 ] || drain "$ecc GPUs with uncorrectable ECC errors"\n'
    '  dcgmi diag -r 1 >/dev/null 2>&1 || drain "dcgmi diag -r 1 failed"\n'
    "fi\n"
)


def prolog_script(nodes: pd.DataFrame) -> str:
    """A Slurm prolog that drains a node with a missing accelerator or, where the family's
    tools give one, uncorrectable ECC errors or a failed diagnostic.

    A prolog that exits non-zero sets the node to DRAIN (slurm.conf(5), Prolog); the
    script also names the reason with ``scontrol``. NVIDIA nodes are counted with
    ``nvidia-smi -L`` and checked with its ECC counters and ``dcgmi diag -r 1``; other
    families by their device files (``gres_conf``), with their own ECC and diagnostic
    commands named in comments (hubplan does not parse their output); a family whose
    device files are unknown is not counted, and the script says so.
    """
    groups = records(
        nodes, ["node_group", "gres_gpus", "family", "device_files", "ecc_check_cmd", "diag_cmd"]
    )
    cases = []
    for n in groups:
        prefix = re.sub(r"\[.*", "", n["node_group"]).rstrip("0123456789")
        family = n["family"] or "unknown family"
        body = [f"expected={int(n['gres_gpus'])}"]
        if family == "NVIDIA":
            body.append("family=nvidia")
        elif n["device_files"]:
            files = re.sub(r"\[(\d+)-(\d+)\]", r"{\1..\2}", n["device_files"])
            body.append(f"count() {{ ls {files} 2>/dev/null | wc -l; }}")
        else:
            body.append('count() { echo "$expected"; }')
        cases.append(f"  {prefix}*) {'; '.join(body)} ;;")
        if family != "NVIDIA" and not n["device_files"]:
            cases.append(f"    # {family}: device files unknown, accelerators not counted")
        for what in ("ecc_check_cmd", "diag_cmd"):
            if family != "NVIDIA":
                tool = n[what] or "unknown (data/families.csv)"
                cases.append(f"    # {family} {what.split('_')[0]} check: {tool}")
    nvidia = any(n["family"] == "NVIDIA" for n in groups)
    checks = (
        [
            'if [ "${family:-}" = nvidia ]; then',
            "  found=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')",
            "else",
            "  found=$(count)",
            "fi",
        ]
        if nvidia
        else ["found=$(count)"]
    )
    nvidia_checks = _NVIDIA_CHECKS if nvidia else ""
    case_text = "\n".join(cases)
    check_text = "\n".join(checks)
    return f"""#!/bin/bash
# Slurm prolog health check generated by hubplan: drain a node with a missing or failing
# accelerator.
node="${{SLURMD_NODENAME:-$(hostname -s)}}"
case "$node" in
{case_text}
  *) exit 0 ;;
esac
drain() {{ scontrol update NodeName="$node" State=DRAIN Reason="prolog: $1"; exit 1; }}
{check_text}
[ "$found" -eq "$expected" ] || drain "found $found of $expected accelerators"
{nvidia_checks}exit 0
"""


#: The training image's ``FROM`` when neither the scenario nor the family's row names an
#: image: a placeholder the operator must replace, never another family's image.
TRAINING_IMAGE_PLACEHOLDER = "REPLACE-WITH-TRAINING-IMAGE-FOR-{family}"

_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]+$")


def container_spec(
    delivery: Delivery, rdma: pd.DataFrame | None = None, nodes: pd.DataFrame | None = None
) -> str:
    """A Dockerfile for the training environment: the framework base image, the collective
    library's settings from the plan's RDMA table, and no kernel driver inside (the host
    provides it).

    The base image is ``delivery.container_base_image`` when set, else the training node
    group's family image (``data/families.csv``: NGC PyTorch for NVIDIA, ``rocm/pytorch``
    for AMD, the Gaudi PyTorch installer image for Intel), else a placeholder naming the
    family. Environment lines are the RDMA table's variables (upper-case names such as
    ``NCCL_IB_TIMEOUT``, ``HCCL_CONNECT_TIMEOUT``) whose value is one word; per-host and
    unknown values stay out.
    """
    family, image = "", ""
    if nodes is not None and not nodes.empty:
        rows = records(nodes, ["pool", "family", "container_image"])
        row = next((r for r in rows if r["pool"] == "training"), rows[0])
        family, image = str(row["family"]), str(row["container_image"])
    image = (
        delivery.container_base_image
        or image
        or TRAINING_IMAGE_PLACEHOLDER.format(
            family=re.sub(r"[^A-Z0-9]+", "-", (family or "unknown").upper())
        )
    )
    env = []
    if rdma is not None and not rdma.empty:
        pairs = zip(rdma["setting"].astype(str), rdma["value"].astype(str), strict=True)
        env = [f'ENV {s}="{v}"' for s, v in pairs if _ENV_NAME.match(s) and v and " " not in v]
    lines = [
        f"# Training image generated by hubplan. The {family or 'accelerator'} kernel "
        "driver is NOT installed",
        "# here: it comes from the host (the vendor's container runtime); keep the",
        "# image's user-space libraries within the host driver's supported range.",
        f"FROM {image}",
        *env,
    ]
    if family == "NVIDIA":
        lines.append("RUN pip install --no-cache-dir nvidia-ml-py")
    lines.append('CMD ["bash"]')
    return "\n".join(lines) + "\n"


# -- validation ------------------------------------------------------------------------

_NODE = re.compile(r"^NodeName=(\S+)(.*)$", re.M)


def _topology_findings(nodes: pd.DataFrame, topology: pd.DataFrame | None) -> list[Finding]:
    """A warning per node group with nodes in no topology line (with the block plugin,
    only in partitions that have a block node)."""
    found: list[Finding] = []
    if topology is None or topology.empty:
        return found
    plugin = str(topology["topology_plugin"].iloc[0])
    placed = {n for expr in topology["child_nodes"] if expr for n in hostnames(expr)}
    blocked: set[str] = set()  # partitions with a node in a block
    if plugin == "block":
        blocked = {
            n["partition"]
            for n in records(nodes, ["node_group", "partition"])
            if placed & set(hostnames(n["node_group"]))
        }
    for n in records(nodes, ["node_group", "partition", "nodes"]):
        if plugin == "block" and n["partition"] not in blocked:
            continue
        missing = [x for x in hostnames(n["node_group"]) if x not in placed]
        if missing:
            found.append(
                Finding(
                    "warning",
                    "delivery",
                    n["node_group"],
                    "topology_nodes_missing",
                    {"nodes": hostlist(missing), "count": len(missing), "plugin": plugin},
                )
            )
    return found


def _node_line_findings(
    conf: str, physical: dict[str, float], gpus: dict[str, int]
) -> list[Finding]:
    """Per ``NodeName`` line of ``slurm.conf``: RealMemory missing or not below physical
    memory [MiB], a ``Gres`` count other than the GPUs per server, no partition."""
    found: list[Finding] = []
    partitioned: set[str] = set()
    for m in re.finditer(r"^PartitionName=\S+ Nodes=(\S+)", conf, re.M):
        partitioned.update(m.group(1).split(","))
    for m in _NODE.finditer(conf):
        group, rest = m.group(1), m.group(2)
        mem = re.search(r"RealMemory=(\d+)", rest)
        phys = physical.get(group, math.nan)
        if mem is None or phys != phys:
            found.append(
                Finding("warning", "delivery", group, "slurm_memory_unknown", {"nodes": group})
            )
        elif int(mem.group(1)) >= phys:
            found.append(
                Finding(
                    "error",
                    "delivery",
                    group,
                    "realmemory_not_below_physical",
                    {"nodes": group, "real": int(mem.group(1)), "physical": int(phys)},
                )
            )
        gres_n = re.search(r"Gres=gpu:(?:[^:\s]+:)?(\d+)", rest)
        want = int(gpus.get(group, -1))
        if gres_n is None or int(gres_n.group(1)) != want:
            found.append(
                Finding(
                    "error",
                    "delivery",
                    group,
                    "gres_count_mismatch",
                    {"nodes": group, "gres": gres_n.group(1) if gres_n else "none", "gpus": want},
                )
            )
        if group not in partitioned:
            found.append(
                Finding("error", "delivery", group, "node_without_partition", {"nodes": group})
            )
    return found


def _gres_conf_findings(gres: str, gpus: dict[str, int]) -> list[Finding]:
    """An error per ``gres.conf`` GPU line whose device files or count differ from the GPUs
    per server."""
    found: list[Finding] = []
    for m in re.finditer(
        r"^NodeName=(\S+) .*?Name=gpu .*?(?:File=\S*?(?:\[(\d+)-(\d+)\]|\d+)"
        r"\S*|Count=(\d+))\s*$",
        gres,
        re.M,
    ):
        if m.group(4):
            count = int(m.group(4))
        else:
            count = int(m.group(3)) - int(m.group(2)) + 1 if m.group(2) else 1
        if count != int(gpus.get(m.group(1), -1)):
            found.append(
                Finding(
                    "error",
                    "delivery",
                    m.group(1),
                    "gres_count_mismatch",
                    {"nodes": m.group(1), "gres": count, "gpus": int(gpus.get(m.group(1), -1))},
                )
            )
    return found


def validate_scheduler(
    conf: str, gres: str, nodes: pd.DataFrame, topology: pd.DataFrame | None = None
) -> list[Finding]:
    """Check the generated text against the plan: RealMemory below physical memory, every
    node group in a partition, ``Gres=gpu:…:N`` equal to the GPUs per server in both
    files, CPU and memory figures present, and every node in the topology.

    With the block plugin a node outside every block matters only in a partition that
    also has block nodes: such a partition's jobs are placed by the block logic, which
    takes nodes from blocks only (a partial NVLink domain is never used). A partition
    with no block node at all (a pool without rack-scale NVLink) is scheduled without it:
    "Don't use eval_nodes_block() when there isn't any block node on node_map. This
    allows the allocation of nodes not connected by block topology (separated by
    partition or constraints)" (Slurm, src/plugins/topology/block/topology_block.c,
    ``topology_p_eval_nodes``, from 24.05), so it is not warned of.
    """
    found = _topology_findings(nodes, topology)
    physical = dict(zip(nodes["node_group"], nodes["physical_memory_mib"], strict=True))
    gpus = dict(zip(nodes["node_group"], nodes["gpus_per_server"], strict=True))
    found += _node_line_findings(conf, physical, gpus)
    found += _gres_conf_findings(gres, gpus)
    return found
