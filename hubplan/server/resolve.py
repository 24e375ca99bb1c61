"""Which server a pool runs on, with every figure later stages read: resolved once.

A pool names a catalogue server (``pools.<pool>.server``, a row of ``data/servers.csv``)
or types its own (``pools.<pool>.custom_server``). :func:`resolve_server` turns either into
one :class:`Server`; the server, storage, network, facility and delivery stages all read
their server figures (NICs, storage bandwidth, CPUs, memory, power, size, weight, price)
from it, so a custom server is seen the same way everywhere. A figure neither the
catalogue row nor the custom server gives is NaN ("not sourced"), never a stand-in: each
stage says what it does about a NaN (an ``unknown`` check, an estimate it names, a finding).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import CatalogError
from ..pools import Pools, PoolSpec, ServerSpec


@dataclass(frozen=True)
class Server:
    """A server's configuration, from the catalogue or typed by the user.

    Units as in ``data/servers.csv``: Gb/s for NIC speeds, GB for memory, kW, U, kg, USD.
    ``kind`` is ``server``, ``tray`` or ``rack`` (a rack-scale system such as GB200 NVL72
    is planned as whole racks). ``nodes`` is the compute nodes (one operating system, one
    Slurm node, one set of NICs each) in one system: 1 for a server or a tray, the compute
    trays of a rack-scale system (18 in a GB200 NVL72 rack: its 72 GPUs over the 4-GPU
    tray of the same accelerator in ``data/servers.csv``, as in NVIDIA's DGX GB200 user
    guide). Its NIC counts are the whole system's; each node has ``1 / nodes`` of them.
    """

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
    kind: str = "server"
    cpu_sockets: float = math.nan
    storage_nic_gbps: float = math.nan
    storage_usable_gbps: float = math.nan
    inband_nic_gbps: float = math.nan
    bmc_nic_gbps: float = math.nan
    rack_units: float = math.nan
    weight_kg: float = math.nan
    nodes: int = 1

    def figures(self) -> pd.Series:
        """Its figures as a Series, indexed by ``data/servers.csv`` column names."""
        return pd.Series(asdict(self), dtype=object)


#: The number fields of :class:`Server`, read from a catalogue row or a custom server.
NUMBER_FIELDS = tuple(
    f.name
    for f in fields(Server)
    if f.name not in ("name", "accelerator", "gpus", "custom", "kind", "nodes")
)


def _nan(v: float | str | None) -> float:
    return math.nan if v is None or v == "" else float(v)


def resolve_server(spec: PoolSpec, catalog: Catalog) -> Server | None:
    """The pool's server (catalogue row or custom spec), or None when none is chosen.

    Examples
    --------
    DGX H100 from the catalogue (NVIDIA DGX H100 user guide: 8 GPUs, 2 TB, 10.2 kW), and a
    custom server, whose unset figures stay NaN:

    >>> from hubplan.core.catalog import load_catalog
    >>> dgx = resolve_server(PoolSpec(server="DGX H100"), load_catalog())
    >>> dgx.gpus, dgx.ram_gb, dgx.max_power_kw, dgx.custom
    (8, 2048.0, 10.2, False)
    >>> box = resolve_server(PoolSpec(custom_server=ServerSpec(accelerator="H100", ram_gb=1024)),
    ...                      load_catalog())
    >>> box.ram_gb, math.isnan(box.weight_kg), box.custom
    (1024.0, True, True)
    """
    if spec.custom_server is not None:
        c: ServerSpec = spec.custom_server
        acc = catalog.accelerator(c.accelerator)["name"]
        values = {f: _nan(getattr(c, f)) for f in NUMBER_FIELDS}
        # values holds only the float fields (NUMBER_FIELDS); mypy matches a **dict
        # against every parameter, the str, int and bool ones too
        return Server(c.name, acc, c.gpus, **values, custom=True)  # type: ignore[arg-type]
    if spec.server is not None:
        return catalog_server(spec.server, catalog)
    return None


def catalog_server(name: str, catalog: Catalog) -> Server:
    """The catalogue server ``name`` (a name or alias in ``data/servers.csv``); a
    :class:`~hubplan.core.errors.CatalogError` naming it when there is none."""
    row = catalog.server(name)
    acc = catalog.accelerator(row["accelerator"])["name"]
    values = {f: _nan(row[f]) for f in NUMBER_FIELDS}
    kind, gpus = str(row["kind"]), int(row["gpus"])
    nodes = rack_nodes(str(row["name"]), acc, gpus, catalog) if kind == "rack" else 1
    # values holds only the float fields (NUMBER_FIELDS); mypy matches a **dict against
    # every parameter, the bool one too
    return Server(str(row["name"]), acc, gpus, **values, kind=kind, nodes=nodes)  # type: ignore[arg-type]


def rack_nodes(name: str, accelerator: str, gpus: int, catalog: Catalog) -> int:
    """Compute nodes in the rack-scale system ``name``: its GPUs over those of the
    catalogue's compute tray (``kind`` = ``tray``) with the same accelerator.

    >>> from hubplan.core.catalog import load_catalog
    >>> rack_nodes("GB200 NVL72 rack", "GB200 186GB", 72, load_catalog())  # 72 / 4
    18
    """
    servers = catalog.servers
    trays = servers[
        (servers["kind"] == "tray")
        & (servers["accelerator"].map(lambda a: catalog.accelerator(a)["name"]) == accelerator)
    ]
    per_tray = sorted({int(g) for g in trays["gpus"]})
    if len(per_tray) != 1 or gpus % per_tray[0]:
        raise CatalogError(
            f"data/servers.csv: rack-scale system {name!r} ({gpus} × {accelerator}) needs one "
            f"compute tray row (kind 'tray') of the same accelerator whose GPUs divide "
            f"{gpus}; found {per_tray or 'none'}"
        )
    return gpus // per_tray[0]


def pool_server(pools: Pools, pool: str, catalog: Catalog) -> Server | None:
    """The server of the pool named ``pool`` (``training``, ``inference``,
    ``development``): :func:`resolve_server` of ``pools.<pool>``."""
    return resolve_server(getattr(pools, pool), catalog)
