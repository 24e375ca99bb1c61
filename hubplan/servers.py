"""Server stage: is each pool's server balanced, and how many servers each pool needs.

Balance checks follow the ServerPolicy (host RAM against GPU memory, CPU cores and clock,
one compute NIC per GPU at the fabric speed, separate storage and management networks,
PCIe generation against NIC speed). Each check is pass / warn / fail with the reason and
the fix, or ``unknown`` when the catalogue row does not source the figure. Then the pools:
servers from GPU counts, spares, scheduler partitions and quotas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .catalog import Catalog
from .errors import HubplanError
from .findings import Finding
from .labels import label
from .scenario import Pools, PoolSpec, ServerPolicy, ServerSpec

#: Usable bandwidth of a PCIe x16 link, per direction, by generation [GB/s]:
#: 128b/130b encoding at 8/16/32 GT/s (Gen3-5) and PAM4 FLIT at 64 GT/s (Gen6), as
#: tabulated in Bekman, "Machine Learning Engineering" (network/README.md): Gen4 ≈ 31,
#: Gen5 ≈ 63, Gen6 ≈ 121 GB/s.
PCIE_X16_GB_S = {3: 15.75, 4: 31.5, 5: 63.0, 6: 121.0}

STATUSES = ("fail", "warn", "unknown", "pass")
CHECK_COLUMNS = ["pool", "server", "check", "status", "value", "required", "reason", "fix",
                 "reason_zh", "fix_zh"]  # fmt: skip


@dataclass(frozen=True)
class Server:
    """A server's configuration, from the catalogue or typed by the user."""

    name: str
    accelerator: str
    gpus: int
    cpu_cores_total: float = math.nan
    cpu_base_ghz: float = math.nan
    ram_gb: float = math.nan
    compute_nics: float = math.nan
    compute_nic_gbps: float = math.nan
    storage_nics: float = math.nan
    inband_nics: float = math.nan
    bmc_nics: float = math.nan
    pcie_gen: float = math.nan
    max_power_kw: float = math.nan
    price_usd: float = math.nan
    custom: bool = False


def _nan(v: object) -> float:
    return math.nan if v is None or v == "" else float(v)


def resolve_server(spec: PoolSpec, catalog: Catalog) -> Server | None:
    """The pool's server (catalogue row or custom spec), or None when none is chosen."""
    fields = ("cpu_cores_total", "cpu_base_ghz", "ram_gb", "compute_nics", "compute_nic_gbps",
              "storage_nics", "inband_nics", "bmc_nics", "pcie_gen", "max_power_kw",
              "price_usd")  # fmt: skip
    if spec.custom_server is not None:
        c: ServerSpec = spec.custom_server
        acc = catalog.accelerator(c.accelerator)["name"]
        values = {f: _nan(getattr(c, f)) for f in fields}
        return Server(c.name, acc, c.gpus, **values, custom=True)
    if spec.server is not None:
        row = catalog.server(spec.server)
        acc = catalog.accelerator(row["accelerator"])["name"]
        return Server(str(row["name"]), acc, int(row["gpus"]), **{f: _nan(row[f]) for f in fields})
    return None


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
        params = {"server": server.name, "value": value, "required": required,
                  "ratio": policy.ram_to_gpu_memory, "gpus": server.gpus}  # fmt: skip
        text = {}
        for lang, suffix in (("en", ""), ("zh", "_zh")):
            if status == "unknown":
                text["reason" + suffix] = label("check.unknown", lang, server=server.name)
            else:
                text["reason" + suffix] = label(f"check.{check}", lang, **params)
            text["fix" + suffix] = (
                "" if status == "pass" else label(f"fix.check_{check}", lang, **params)
            )
        rows.append({"pool": pool, "server": server.name, "check": check, "status": status,
                     "value": value, "required": required, **text})  # fmt: skip

    status, ram, need = ram_check(server, vram_gb, policy.ram_to_gpu_memory)
    add("ram_vs_gpu_memory", status, ram, need)

    per_gpu = server.cpu_cores_total / server.gpus
    add("cpu_cores_per_gpu", _at_least(per_gpu, policy.min_cpu_cores_per_gpu, "warn"),
        per_gpu, policy.min_cpu_cores_per_gpu)  # fmt: skip
    add("cpu_base_ghz", _at_least(server.cpu_base_ghz, policy.min_cpu_base_ghz, "warn"),
        server.cpu_base_ghz, policy.min_cpu_base_ghz)  # fmt: skip

    if training:
        add("compute_nics_per_gpu", _at_least(server.compute_nics, server.gpus, "fail"),
            server.compute_nics, server.gpus)  # fmt: skip
        add("compute_nic_gbps", _at_least(server.compute_nic_gbps, policy.training_fabric_gbps,
                                          "warn"),
            server.compute_nic_gbps, policy.training_fabric_gbps)  # fmt: skip
    if policy.require_storage_network and pool != "development":
        add("storage_network", _at_least(server.storage_nics, 1, "warn"), server.storage_nics, 1)
    if policy.require_management_network:
        add("inband_management", _at_least(server.inband_nics, 1, "warn"), server.inband_nics, 1)
        add("bmc", _at_least(server.bmc_nics, 1, "warn"), server.bmc_nics, 1)
    nic = server.compute_nic_gbps
    if not math.isnan(nic):
        if math.isnan(server.pcie_gen):
            status = "unknown"
        elif int(server.pcie_gen) not in PCIE_X16_GB_S:
            status = "unknown"
        else:
            status = "pass" if pcie_supports_nic(server.pcie_gen, nic) else "fail"
        need = next((g for g in sorted(PCIE_X16_GB_S) if PCIE_X16_GB_S[g] * 8 >= nic), math.nan)
        add("pcie_vs_nic", status, server.pcie_gen, need)
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


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


# -- the stage -------------------------------------------------------------------------------

POOL_KINDS = ("training", "inference", "development")


def _fleet_rows(demand: pd.DataFrame, pool_df: pd.DataFrame, pools: Pools) -> pd.DataFrame:
    """One fleet row per accelerator, from the demand's overlap policy, with spares.

    dedicated: the sum of the member pools (their spares included). shared: the
    coincident-peak servers, plus spares at the largest member spare ratio.
    """
    rows = []
    by_pool = pool_df.set_index("pool") if not pool_df.empty else pool_df
    for _, f in demand[demand["pool"].str.startswith("fleet")].iterrows():
        members = [m.strip() for m in str(f["workloads"]).split(",") if m.strip()]
        mine = by_pool.loc[[m for m in members if m in by_pool.index]]
        if mine.empty:
            continue
        if f["pool"].endswith("(dedicated)"):
            servers, spares = int(mine["servers"].sum()), int(mine["spare_servers"].sum())
        else:
            servers = int(f["servers"])
            ratio = max(getattr(pools, m).spare_ratio for m in mine.index)
            spares = spare_servers(servers, ratio)
        per_server = int(f["gpus_per_server"])
        rows.append({
            "pool": f["pool"], "partition": "", "accelerator": f["accelerator"],
            "generation": mine["generation"].iloc[0],
            "server": ", ".join(dict.fromkeys(x for x in mine["server"] if x)),
            "gpus_per_server": per_server, "gpus_required": int(f["gpus_required"]),
            "servers": servers, "spare_servers": spares, "total_servers": servers + spares,
            "total_gpus": (servers + spares) * per_server,
            "existing_gpus": int(mine["existing_gpus"].sum()), "quota": "",
            "max_gpus_per_user": math.nan,
        })  # fmt: skip
    return pd.DataFrame(rows)


def _existing_generation_findings(kind: str, spec: PoolSpec, catalog: Catalog) -> list[Finding]:
    acc = catalog.accelerator(spec.accelerator)
    found = []
    for existing in spec.existing_servers:
        row = catalog.server(existing.server)
        other = catalog.accelerator(row["accelerator"])
        if kind == "training" and other["generation"] != acc["generation"]:
            found.append(Finding("warning", "server", kind, "mixed_generations",
                                 {"pool": kind, "new": acc["name"], "new_gen": acc["generation"],
                                  "old": other["name"], "old_gen": other["generation"],
                                  "count": existing.count}))  # fmt: skip
    return found


def run_servers(
    demand: pd.DataFrame, pools: Pools, policy: ServerPolicy, catalog: Catalog
) -> tuple[dict[str, pd.DataFrame], list[Finding]]:
    """Balance checks per pool server, and the pool table with servers and spares.

    ``demand`` is the workload stage's ``pool_demand`` table.
    """
    findings: list[Finding] = []
    checks, rows = [], []
    per_pool = demand[~demand["pool"].str.startswith("fleet")].set_index("pool")
    for kind in POOL_KINDS:
        if kind not in per_pool.index:
            continue
        spec: PoolSpec = getattr(pools, kind)
        acc = catalog.accelerator(spec.accelerator)
        server = resolve_server(spec, catalog)
        if server is not None:
            if server.accelerator != acc["name"] or server.gpus != spec.gpus_per_server:
                raise HubplanError(
                    f"pools.{kind}: server {server.name!r} carries {server.gpus} × "
                    f"{server.accelerator}, but the pool plans {spec.gpus_per_server} × "
                    f"{acc['name']} per server; make accelerator and gpus_per_server match "
                    "the server, or choose another server"
                )
            table = balance_checks(kind, server, float(acc["vram_gb"]), policy,
                                   training=kind == "training")  # fmt: skip
            checks.append(table)
            for check in table.to_dict(orient="records"):
                if check["status"] in ("fail", "warn"):
                    sev = "error" if check["status"] == "fail" else "warning"
                    params = {"server": server.name, "value": check["value"],
                              "required": check["required"], "ratio": policy.ram_to_gpu_memory,
                              "gpus": server.gpus}  # fmt: skip
                    findings.append(Finding(sev, "server", kind, f"check_{check['check']}", params))
            unknown = table.loc[table["status"] == "unknown", "check"].tolist()
            if unknown:
                params = {"server": server.name, "checks": ", ".join(unknown)}
                findings.append(Finding("info", "server", kind, "checks_unknown", params))
        else:
            findings.append(Finding("info", "server", kind, "no_server", {"pool": kind}))
        findings += _existing_generation_findings(kind, spec, catalog)
        need = per_pool.loc[kind]
        existing = sum(
            e.count * int(catalog.server(e.server)["gpus"]) for e in spec.existing_servers
        )
        servers = int(need["servers"])
        spares = spare_servers(servers, spec.spare_ratio)
        rows.append({
            "pool": kind, "partition": spec.partition or kind, "accelerator": acc["name"],
            "generation": acc["generation"], "server": server.name if server else "",
            "gpus_per_server": spec.gpus_per_server, "gpus_required": int(need["gpus_required"]),
            "servers": servers, "spare_servers": spares, "total_servers": servers + spares,
            "total_gpus": (servers + spares) * spec.gpus_per_server,
            "existing_gpus": existing, "quota": spec.quota,
            "max_gpus_per_user": spec.max_gpus_per_user,
        })  # fmt: skip
    pool_df = pd.DataFrame(rows)
    fleet = _fleet_rows(demand, pool_df, pools)
    pool_df = pd.concat([pool_df, fleet], ignore_index=True) if not fleet.empty else pool_df
    check_df = (
        pd.concat(checks, ignore_index=True) if checks else pd.DataFrame(columns=CHECK_COLUMNS)
    )
    return {"pools": pool_df, "server_checks": check_df}, findings
