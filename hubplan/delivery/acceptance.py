"""The acceptance plan: per node, per scalable unit, per fabric and per storage tier, the
test, its tool, the figure a healthy system reaches and the floor below which it fails.

Each figure is a measurement on a real system with its source where one is published
(``figure_basis = "measured"``); where none is, it is derived from the plan's hardware and
a stated typical share of peak (``"derived"``), or taken from the plan itself (storage
tiers: ``"plan"``). The pass floor is a stated share of that figure (delivery section:
``matmul_floor_share``, ``bandwidth_floor_share``, ``storage_floor_share``), so a healthy
system passes with room for the spread between healthy units and a sick one fails.
Counts of failures must not exceed their figure (``pass_if = "at_most"``).
"""

from __future__ import annotations

import math

import pandas as pd

from ..core.catalog import Catalog
from ..core.findings import Finding
from ..facility import compute_tray
from ..pools import Pools
from .scheduler import fact, records, server_figures
from .section import Delivery

ACCEPTANCE_COLUMNS = [
    "scope",
    "pool",
    "subject",
    "test",
    "tool",
    "count",
    "expected",
    "floor_share",
    "floor",
    "pass_if",
    "figure_basis",
    "figure_source",
    "protection_factor",
    "figure_unit",
]


def matmul_tflops(dense_peak_tflops: float, share: float) -> float:
    """Single-GPU dense BF16 matmul throughput from the dense peak, for a card with no
    published measurement. [TFLOPS]

    Notes
    -----
    ``share × dense peak``, marked ``derived`` in the acceptance plan. The default share
    (``delivery.matmul_typical_share`` = 0.75) is the median of the ten measured
    maximum-achievable shares in Bekman, *Machine Learning Engineering*, "Maximum
    Achievable Matmul FLOPS comparison table" (51.4 % MI300X … 86.9 % A100 SXM).

    Examples
    --------
    L40S, 362.05 dense BF16 TFLOPS, 75 %: 271.5 TFLOPS.

    >>> round(matmul_tflops(362.05, 0.75), 1)
    271.5
    """
    return dense_peak_tflops * share


def rdma_gbps(nic_gbps: float, share: float) -> float:
    """``ib_write_bw`` bandwidth per NIC port from the line rate, for a rate with no
    published measurement. [Gb/s]

    Notes
    -----
    ``share × line rate``; the default share 0.98 is the 400G measurement (392 of 400 Gb/s,
    ``data/acceptance_measured.csv``) carried to other rates.

    >>> rdma_gbps(200, 0.98)
    196.0
    """
    return nic_gbps * share


def nvlink_busbw_gb_s(scaleup_bw_gb_s: float, share: float) -> float:
    """Single-node nccl-tests ``all_reduce_perf`` bus bandwidth from the scale-up link
    rate, for a card with no published measurement. [GB/s]

    Notes
    -----
    The catalogue's scale-up bandwidth is bidirectional (H100: 900 GB/s); one direction is
    half. busbw = algbw × 2(n−1)/n (nccl-tests ``doc/PERFORMANCE.md``), comparable to the
    one-way link rate; a ring over 8 × H100 reaches ~370 of 450 GB/s (nccl-tests issue
    #212), the share used when NVLink SHARP is not known to be available.

    >>> nvlink_busbw_gb_s(900, 0.82)
    369.0
    """
    return scaleup_bw_gb_s / 2 * share


def fabric_busbw_gb_s(nics: int, nic_gbps: float, share: float) -> float:
    """Multi-node ``all_reduce_perf`` bus bandwidth across the fabric. [GB/s]

    Notes
    -----
    A ring across nodes leaves each node through all its compute NICs, so busbw is bound by
    the node's NIC line rate, nics × Gb/s ÷ 8; 8 × 400G H100 nodes reach 400-450 GB/s
    (Saturn Cloud, "Validating Multi-Node GPU Clusters with NCCL Tests"; NVLS/SHARP can
    exceed the ring bound). No primary measurement at scale is published, so the figure
    is marked ``derived``.

    >>> fabric_busbw_gb_s(8, 400, 0.90)
    360.0
    """
    return nics * nic_gbps / 8 * share


#: What an unknown tool is written as: the test stays in the plan, its tool is named by
#: the team (and a finding lists it), never borrowed from another family.
UNKNOWN_TOOL = "unknown"


def family_tools(family: pd.Series, gpus: int) -> dict[str, str]:
    """The acceptance tools of an accelerator family (``data/families.csv``), by test.

    Notes
    -----
    nccl-tests and rccl-tests share one command line (``all_reduce_perf -g <GPUs>``:
    nccl-tests README; ROCm "Running RCCL using Docker"); other families' collective
    tests are named with the GPUs per node. Multi-node runs go through MPI (nccl-tests,
    rccl-tests, the Ascend HCCL Test under ``mpirun``). A fact the family's row leaves
    empty is :data:`UNKNOWN_TOOL`. The diagnostic is ``dcgm_diag`` for NVIDIA (DCGM) and
    ``device_diag`` (the family's own tool) for the others.

    Examples
    --------
    >>> asc = pd.Series({"name": "Huawei", "collective_test": "all_reduce_test (HCCL Test)",
    ...                  "device_list_cmd": "npu-smi info -l"})
    >>> t = family_tools(asc, 8)
    >>> t["gpu_count"], t["fabric_all_reduce"], t["rdma_write_bw"]
    ('npu-smi info -l', 'all_reduce_test (MPI)', 'unknown')
    """
    collective = fact(family, "collective_test")
    command = collective.split()[0] if collective else ""
    if command == "all_reduce_perf":
        scaleup = f"all_reduce_perf -g {gpus}"
    else:
        scaleup = f"{collective}, {gpus} per node" if collective else ""
    tools = {
        "gpu_count": fact(family, "device_list_cmd"),
        "scaleup_all_reduce": scaleup,
        "rdma_write_bw": fact(family, "rdma_test_cmd"),
        "fabric_all_reduce": f"{command} (MPI)" if command else "",
        "diag": fact(family, "diag_cmd"),
        "ecc_errors": fact(family, "ecc_check_cmd"),
    }
    return {k: v or UNKNOWN_TOOL for k, v in tools.items()}


def _row(
    scope: str,
    pool: str,
    subject: str,
    test: str,
    tool: str,
    count: float,
    expected: float,
    share: float,
    pass_if: str,
    basis: str,
    source: str,
    unit: str,
    factor: float = math.nan,
) -> dict[str, object]:
    """One row of the acceptance plan, with its pass floor."""
    # the pass floor is the expected figure × the test's floor share (1 for a count,
    # a rule or a figure the plan fixes)
    return {
        "scope": scope,
        "pool": pool,
        "subject": subject,
        "test": test,
        "tool": tool,
        "count": int(count),
        "expected": float(expected),
        "floor_share": float(share),
        "floor": float(expected * share),
        "pass_if": pass_if,
        "figure_basis": basis,
        "figure_source": source,
        "protection_factor": float(factor),
        "figure_unit": unit,
    }


def _matmul_tflops_figure(acc: pd.Series, d: Delivery) -> tuple[float, str, str]:
    """The dense matmul figure of one GPU [TFLOPS], with its basis and source."""
    mamf = float(acc["mamf_bf16_tflops"])
    if mamf == mamf and mamf > 0:
        return mamf, "measured", "mamf_finder"
    tflops = matmul_tflops(float(acc["bf16_dense_tflops"]), d.matmul_typical_share)
    return tflops, "derived", "peak_times_typical_share"


def _nvlink_figure(
    acc: pd.Series, gps: int, d: Delivery, catalog: Catalog
) -> tuple[float, str, str] | None:
    """The single-node NVLink all_reduce figure [GB/s], with its basis and source; None
    for a node without NVSwitch or with one GPU. Measured where a single-node nccl-tests
    figure is published for the card (``data/acceptance_measured.csv``)."""
    if acc["scaleup_kind"] != "nvswitch" or gps <= 1:
        return None
    measured = catalog.measured("nvlink_all_reduce", str(acc["name"]))
    if measured is not None:
        return measured[0], "measured", measured[1]
    nvlink = nvlink_busbw_gb_s(float(acc["scaleup_bw_gb_s"]), d.nvlink_share)
    return nvlink, "derived", "scaleup_times_ring_share"


def _domain_rows(
    system: str,
    pool: str,
    family: pd.Series,
    tools: dict[str, str],
    per: int,
    gps: int,
    systems: int,
    nvlink: tuple[float, str, str] | None,
    d: Delivery,
) -> list[dict[str, object]]:
    """The whole-domain rows of a rack-scale NVLink system of ``per`` trays."""
    # A rack-scale NVLink domain spans its trays: the per-tray test never crosses
    # a tray. Its whole-domain all_reduce runs over MPI on all its GPUs (every GPU
    # keeps its full NVLink bandwidth through the switch trays: the per-GPU figure
    # stands), and a job across trays needs the IMEX service ready on every tray
    # of the domain ("nvidia-imex-ctl -N: Gets the full status of the entire IMEX
    # domain", NVIDIA IMEX Service for NVLink Networks user's guide).
    rows: list[dict[str, object]] = []
    if nvlink is not None and nvlink[0] == nvlink[0]:
        busbw, basis, source = nvlink
        rows.append(
            _row(
                "domain",
                pool,
                system,
                "nvlink_domain_all_reduce",
                f"{tools['fabric_all_reduce']}, {per} nodes × {gps}",
                systems,
                busbw,
                d.bandwidth_floor_share,
                "at_least",
                basis,
                source,
                "GB/s",
            )
        )
    if fact(family, "name") == "NVIDIA":
        rows.append(
            _row(
                "domain",
                pool,
                system,
                "imex_domain",
                "nvidia-imex-ctl -N",
                systems,
                per,
                1.0,
                "equal",
                "plan",
                "plan_domain_nodes",
                "count",
            )
        )
    return rows


def _nic_ports(server: pd.Series | None, per: int) -> tuple[int, float]:
    """The compute NICs of one node and their line rate [Gb/s]; 0 NICs when either is
    not sourced (no NIC test)."""
    if server is None:
        return 0, math.nan
    nics_per_node = float(server["compute_nics"]) / per
    nics = int(nics_per_node) if nics_per_node == nics_per_node else 0  # unsourced: no NIC test
    if nics <= 0 or math.isnan(float(server["compute_nic_gbps"] or math.nan)):
        return 0, math.nan
    return nics, float(server["compute_nic_gbps"])


def _rdma_figure(
    nic_gbps: float, family: pd.Series, d: Delivery, catalog: Catalog
) -> tuple[float, str, str]:
    """The ``ib_write_bw`` figure of one NIC port [Gb/s], with its basis and source
    (measured figures: ``data/acceptance_measured.csv``)."""
    # The 400G measurement is NVIDIA's GPUDirect over ConnectX-7 on a DGX H100:
    # it stands for NVIDIA servers only; other families' ports are derived.
    measured = catalog.measured("rdma_write_bw", f"{nic_gbps:g}")
    if measured is not None and fact(family, "name") == "NVIDIA":
        return measured[0], "measured", measured[1]
    return rdma_gbps(nic_gbps, d.rdma_share), "derived", "line_rate_times_share"


def _compute_units(fabric: pd.DataFrame | None) -> int:
    """The scalable units of the compute plane; 1 without a fabric table."""
    units = 1
    if fabric is not None and not fabric.empty:
        comp = fabric["units"].to_numpy()[fabric["plane"].to_numpy() == "compute"]
        units = int(comp[0]) if comp.size and comp[0] == comp[0] else 1
    return units


def _fabric_rows(
    pool: str, tool: str, units: int, busbw_gb_s: float, d: Delivery
) -> list[dict[str, object]]:
    """The multi-node all_reduce rows, one per scalable unit and one across the fabric."""
    return [
        _row(
            scope,
            pool,
            "compute",
            "fabric_all_reduce",
            tool,
            count,
            busbw_gb_s,
            d.bandwidth_floor_share,
            "at_least",
            "derived",
            "nic_line_rate_times_share",
            "GB/s",
        )
        for scope, count in (("unit", units), ("fabric", 1))
    ]


def _nic_rows(
    pool: str,
    host: str,
    nodes: int,
    family: pd.Series,
    tools: dict[str, str],
    ports: tuple[int, float],
    nvlink_gb_s: float,
    fabric: pd.DataFrame | None,
    d: Delivery,
    catalog: Catalog,
) -> list[dict[str, object]]:
    """The RDMA row of a pool's NIC ports and, for a multi-node training pool, its
    fabric all_reduce rows."""
    nics, nic_gbps = ports
    rdma, basis, source = _rdma_figure(nic_gbps, family, d, catalog)
    rows = [
        _row(
            "node",
            pool,
            host,
            "rdma_write_bw",
            tools["rdma_write_bw"],
            nodes * nics,
            rdma,
            d.bandwidth_floor_share,
            "at_least",
            basis,
            source,
            "Gb/s",
        )
    ]
    if pool == "training" and nodes > 1:
        busbw = fabric_busbw_gb_s(nics, nic_gbps, d.fabric_share)
        if nvlink_gb_s == nvlink_gb_s:
            busbw = min(busbw, nvlink_gb_s)
        rows += _fabric_rows(pool, tools["fabric_all_reduce"], _compute_units(fabric), busbw, d)
    return rows


def _health_rows(
    pool: str, host: str, family: pd.Series, tools: dict[str, str], nodes: int, d: Delivery
) -> list[dict[str, object]]:
    """The diagnostic, ECC and stability rows of a pool's nodes."""
    diag = "dcgm_diag" if fact(family, "name") == "NVIDIA" else "device_diag"
    return [
        _row(
            "node",
            pool,
            host,
            diag,
            tools["diag"],
            nodes,
            0,
            1.0,
            "at_most",
            "rule",
            "zero_failures",
            "count",
        ),
        _row(
            "node",
            pool,
            host,
            "ecc_errors",
            tools["ecc_errors"],
            nodes,
            0,
            1.0,
            "at_most",
            "rule",
            "zero_failures",
            "count",
        ),
        _row(
            "cluster",
            pool,
            host,
            "stability_run",
            "training job / burn-in",
            nodes,
            d.stability_hours,
            1.0,
            "at_least",
            "rule",
            "burn_in_practice",
            "h",
        ),
    ]


def _gpu_rows(
    pool: str,
    host: str,
    acc: pd.Series,
    tools: dict[str, str],
    nodes: int,
    gps: int,
    nvlink: tuple[float, str, str] | None,
    d: Delivery,
) -> list[dict[str, object]]:
    """The GPU count, dense matmul and single-node NVLink rows of a pool's nodes."""
    tflops, basis, source = _matmul_tflops_figure(acc, d)
    rows = [
        _row(
            "node",
            pool,
            host,
            "gpu_count",
            tools["gpu_count"],
            nodes,
            gps,
            1.0,
            "equal",
            "plan",
            "plan_pools",
            "count",
        ),
        _row(
            "node",
            pool,
            acc["name"],
            "dense_matmul",
            "mamf-finder (BF16)",
            nodes * gps,
            tflops,
            d.matmul_floor_share,
            "at_least",
            basis,
            source,
            "TFLOPS",
        ),
    ]
    if nvlink is not None:
        busbw, basis, source = nvlink
        rows.append(
            _row(
                "node",
                pool,
                acc["name"],
                "nvlink_all_reduce",
                tools["scaleup_all_reduce"],
                nodes,
                busbw,
                d.bandwidth_floor_share,
                "at_least",
                basis,
                source,
                "GB/s",
            )
        )
    return rows


def _pool_rows(
    p: dict,
    catalog: Catalog,
    d: Delivery,
    fabric: pd.DataFrame | None,
    spec: Pools | None,
) -> list[dict[str, object]]:
    """The node, domain, fabric and cluster rows of one pool."""
    nodes, gps, pool = int(p["total_servers"]), int(p["gpus_per_server"]), p["pool"]
    acc = catalog.accelerator(p["accelerator"])
    server = server_figures(p["server"], catalog, spec, pool)
    # a rack-scale system is tested tray by tray: each runs its own OS and nvidia-smi
    per = int(server["nodes"]) if server is not None else 1
    nodes, gps = nodes * per, gps // per
    family = catalog.family(str(acc["vendor"]))
    tools = family_tools(family, gps)
    host = p["server"] or acc["name"]
    if per > 1:  # the node tests run on each compute tray: name the tray
        host = str(compute_tray(str(p["server"]), catalog)["name"])
    nvlink = _nvlink_figure(acc, gps, d, catalog)
    rows = _gpu_rows(pool, host, acc, tools, nodes, gps, nvlink, d)
    if per > 1 and acc["scaleup_kind"] == "nvswitch":
        systems = int(p["total_servers"])
        rows += _domain_rows(p["server"], pool, family, tools, per, gps, systems, nvlink, d)
    ports = _nic_ports(server, per)
    if ports[0] > 0:
        nvlink_gb_s = math.nan if nvlink is None else nvlink[0]
        rows += _nic_rows(pool, host, nodes, family, tools, ports, nvlink_gb_s, fabric, d, catalog)
    rows += _health_rows(pool, host, family, tools, nodes, d)
    return rows


def _storage_rows(storage_tiers: pd.DataFrame, d: Delivery) -> list[dict[str, object]]:
    """The read and write rows of each storage tier with nodes."""
    rows: list[dict[str, object]] = []
    cols = ["tier", "nodes", "read_gb_s", "write_gb_s", "write_factor"]
    for t in records(storage_tiers, cols):
        if int(t["nodes"]) <= 0:
            continue
        # write_gb_s is what clients see: the storage stage divided the drives' figure
        # by the protection's write amplification (write_factor, 1 for a figure
        # measured at the clients), once; the floor takes it as it is.
        read, write = float(t["read_gb_s"]), float(t["write_gb_s"])
        if not math.isnan(read) and read > 0:
            rows.append(
                _row(
                    "storage",
                    "",
                    t["tier"],
                    "storage_read",
                    "fio / IOR",
                    t["nodes"],
                    read,
                    d.storage_floor_share,
                    "at_least",
                    "plan",
                    "plan_storage_tiers",
                    "GB/s",
                )
            )
        if not math.isnan(write) and write > 0:
            rows.append(
                _row(
                    "storage",
                    "",
                    t["tier"],
                    "storage_write",
                    "fio / IOR",
                    t["nodes"],
                    write,
                    d.storage_floor_share,
                    "at_least",
                    "plan",
                    "plan_storage_after_protection",
                    "GB/s",
                    t["write_factor"],
                )
            )
    return rows


def acceptance_plan(
    pools: pd.DataFrame,
    catalog: Catalog,
    delivery: Delivery,
    storage_tiers: pd.DataFrame | None = None,
    fabric: pd.DataFrame | None = None,
    spec: Pools | None = None,
) -> pd.DataFrame:
    """The acceptance tests with their figures and pass floors, per pool, unit, fabric and
    storage tier.

    One row per (scope, pool, test): ``count`` is how many GPUs, nodes, NICs, units or
    nodes of a tier run it; ``expected`` is what a healthy system reaches (measured where
    ``figure_basis`` says so, with ``figure_source``); ``floor`` is the pass line
    (``pass_if``: at least, at most, or exactly) and is ``expected × floor_share``: the
    section's ``matmul_floor_share``, ``bandwidth_floor_share`` or ``storage_floor_share``,
    1 for a count, a rule or a figure the plan fixes (the appendix writes the floor as that
    product, a live formula). Storage write rows carry the protection
    scheme's write factor in ``protection_factor``: the one the storage stage divided the
    drives' write figure by (the tier's ``write_factor``), 1 for a building block whose
    figures are measured at its clients (an appliance in MLPerf Storage, MinIO's
    benchmark).
    """
    rows: list[dict[str, object]] = []
    columns = ["pool", "server", "accelerator", "total_servers", "gpus_per_server"]
    for p in records(pools, columns, pools["level"].to_numpy() == "pool"):
        rows += _pool_rows(p, catalog, delivery, fabric, spec)
    if storage_tiers is not None:
        rows += _storage_rows(storage_tiers, delivery)
    if not rows:
        return pd.DataFrame(rows, columns=ACCEPTANCE_COLUMNS)
    return pd.DataFrame({c: [r[c] for r in rows] for c in ACCEPTANCE_COLUMNS})


def unknown_tool_findings(
    acceptance: pd.DataFrame, pools: pd.DataFrame, catalog: Catalog
) -> list[Finding]:
    """One info finding per pool with acceptance tests whose tool its accelerator family's
    sources do not name (``data/families.csv``): the team names the tool before
    acceptance rather than running another family's."""
    if acceptance.empty:
        return []
    unknown = acceptance[acceptance["tool"].to_numpy() == UNKNOWN_TOOL]
    per_pool = pools[pools["level"].to_numpy() == "pool"]
    accelerators = dict(zip(per_pool["pool"], per_pool["accelerator"], strict=True))
    found: list[Finding] = []
    for pool, rows in unknown.groupby("pool", sort=False):
        family = catalog.accelerator_family(accelerators[pool])
        params: dict[str, object] = {
            "pool": str(pool),
            "family": fact(family, "name") or "unknown",
            "tests": ", ".join(dict.fromkeys(rows["test"].tolist())),
        }
        found.append(Finding("info", "delivery", str(pool), "acceptance_tool_unknown", params))
    return found


def derived_figure_findings(acceptance: pd.DataFrame) -> list[Finding]:
    """One info finding per pool whose acceptance figures are derived, not measured.

    A derived figure (peak or line rate × a stated share) is an estimate: the finding
    names the tests so that the team measures one healthy unit before setting the floors.
    """
    if acceptance.empty:
        return []
    derived = acceptance[acceptance["figure_basis"].to_numpy() == "derived"]
    found: list[Finding] = []
    for pool, rows in derived.groupby("pool", sort=False):
        tests = ", ".join(dict.fromkeys(rows["test"].tolist()))
        params: dict[str, object] = {"pool": str(pool), "tests": tests}
        found.append(
            Finding(
                "info", "delivery", str(pool) or "storage", "acceptance_figures_derived", params
            )
        )
    return found
