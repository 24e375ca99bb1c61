"""Server balance: is each pool's server balanced for its GPUs.

Balance checks follow the ServerPolicy (host RAM against GPU memory, CPU cores and clock,
one compute NIC per GPU at the fabric speed, separate storage and management networks,
PCIe generation against NIC speed). Each check is pass / warn / fail with the reason and
the fix, or ``unknown`` when the catalogue row does not source the figure. Then the pools:
servers from GPU counts, spares, scheduler partitions and quotas.
"""

from __future__ import annotations

import math

import pandas as pd

from .resolve import Server
from .section import ServerPolicy

#: Usable bandwidth of a PCIe x16 link, per direction, by generation [GB/s]:
#: 128b/130b encoding at 8/16/32 GT/s (Gen3-5) and PAM4 FLIT at 64 GT/s (Gen6), as
#: tabulated in Bekman, "Machine Learning Engineering" (network/README.md): Gen4 ≈ 31,
#: Gen5 ≈ 63, Gen6 ≈ 121 GB/s.
PCIE_X16_GB_S = {3: 15.75, 4: 31.5, 5: 63.0, 6: 121.0}

STATUSES = ("fail", "warn", "unknown", "pass")
#: A check row is data: the check code, its status and the numbers it compared. Views
#: render the reason and the fix in a language (``hubplan.views.render.render_checks``).
CHECK_COLUMNS = ["pool", "server", "check", "status", "value", "required", "gpus", "ram_ratio"]


def ram_check(server: Server, vram_gb: float, ratio: float) -> tuple[str, float, float]:
    """Host RAM against ``ratio`` × total GPU memory: (status, RAM GB, required GB).

    Examples
    --------
    DGX H100: 2 TB against 8 × 80 GB = 640 GB passes at 1× (640) and 2× (1 280);
    8 × L40S (384 GB) with 256 GB fails at 1×:

    >>> dgx = Server("DGX H100", "H100 SXM5 80GB", 8, ram_gb=2048)
    >>> ram_check(dgx, 80, 1.0), ram_check(dgx, 80, 2.0)
    (('pass', 2048, 640.0), ('pass', 2048, 1280.0))
    >>> ram_check(Server("8×L40S", "L40S 48GB", 8, ram_gb=256), 48, 1.0)
    ('fail', 256, 384.0)
    """
    required = ratio * server.gpus * vram_gb
    if math.isnan(server.ram_gb):
        return "unknown", server.ram_gb, required
    return ("pass" if server.ram_gb >= required else "fail"), server.ram_gb, required


def pcie_supports_nic(pcie_gen: float, nic_gbps: float) -> bool:
    """Whether a PCIe x16 slot of this generation carries the NIC at line rate.

    >>> pcie_supports_nic(5, 400), pcie_supports_nic(4, 400), pcie_supports_nic(4, 200)
    (True, False, True)
    """
    return PCIE_X16_GB_S[int(pcie_gen)] * 8 >= nic_gbps


def balance_checks(
    pool: str, server: Server, vram_gb: float, policy: ServerPolicy, training: bool
) -> pd.DataFrame:
    """Every balance check of one server in one pool, as table rows."""
    rows: list[dict] = []

    def add(check, status, value, required):
        rows.append(
            {
                "pool": pool,
                "server": server.name,
                "check": check,
                "status": status,
                "value": value,
                "required": required,
                "gpus": server.gpus,
                "ram_ratio": policy.ram_to_gpu_memory,
            }
        )

    status, ram, need = ram_check(server, vram_gb, policy.ram_to_gpu_memory)
    add("ram_vs_gpu_memory", status, ram, need)

    per_gpu = server.cpu_cores_total / server.gpus
    add(
        "cpu_cores_per_gpu",
        _at_least(per_gpu, policy.min_cpu_cores_per_gpu, "warn"),
        per_gpu,
        policy.min_cpu_cores_per_gpu,
    )
    add(
        "cpu_base_ghz",
        _at_least(server.cpu_base_ghz, policy.min_cpu_base_ghz, "warn"),
        server.cpu_base_ghz,
        policy.min_cpu_base_ghz,
    )

    if training:
        add(
            "compute_nics_per_gpu",
            _at_least(server.compute_nics, server.gpus, "fail"),
            server.compute_nics,
            server.gpus,
        )
        add(
            "compute_nic_gbps",
            _at_least(server.compute_nic_gbps, policy.training_fabric_gbps, "warn"),
            server.compute_nic_gbps,
            policy.training_fabric_gbps,
        )
    if policy.require_storage_network and pool != "development":
        add("storage_network", _at_least(server.storage_nics, 1, "warn"), server.storage_nics, 1)
    if policy.require_management_network:
        add("inband_management", _at_least(server.inband_nics, 1, "warn"), server.inband_nics, 1)
        add("bmc", _at_least(server.bmc_nics, 1, "warn"), server.bmc_nics, 1)
    nic = server.compute_nic_gbps
    if not math.isnan(nic):
        status, need = _pcie_vs_nic(server.pcie_gen, nic)
        add("pcie_vs_nic", status, server.pcie_gen, need)
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def _pcie_vs_nic(pcie_gen: float, nic_gbps: float) -> tuple[str, float]:
    """(status, the first PCIe generation whose x16 slot carries the NIC) of the compute
    NIC's check; ``unknown`` when the server's generation is not given or not listed."""
    if math.isnan(pcie_gen):
        status = "unknown"
    elif int(pcie_gen) not in PCIE_X16_GB_S:
        status = "unknown"
    else:
        status = "pass" if pcie_supports_nic(pcie_gen, nic_gbps) else "fail"
    need = next((g for g in sorted(PCIE_X16_GB_S) if PCIE_X16_GB_S[g] * 8 >= nic_gbps), math.nan)
    return status, need


def spare_servers(servers: int, ratio: float) -> int:
    """Spare servers for a pool: ⌈servers × ratio⌉.

    BLOOM kept 4 spare nodes for 48 training nodes (arXiv 2211.05100 §3.4.1; 8%):

    >>> spare_servers(48, 0.08), spare_servers(17, 0.05), spare_servers(17, 0)
    (4, 1, 0)
    """
    return math.ceil(round(servers * ratio, 9))


def _at_least(value: float, required: float, below: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    return "pass" if value >= required else below
