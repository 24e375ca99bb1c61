"""The pools section: one pool per workload kind, its hardware, spares and scheduling."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ..core.catalog import Catalog
from ..core.section import Section

#: A hostname label's first part: the partition prefixes every server name.
_PARTITION = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,39}")


class ServerSpec(Section):
    """A server configuration typed by the user, checked like a catalogue server."""

    name: str = Field("custom server", min_length=1, description="Shown in tables.")
    accelerator: str = Field(description="A name or alias in data/accelerators.csv.")
    gpus: int = Field(8, ge=1, le=72, description="Accelerators per server.")
    cpu_model: str = Field("", description="For the record.")
    cpu_sockets: int | None = Field(None, ge=1, le=8, description="CPU sockets.")
    cpu_cores_total: int | None = Field(None, ge=1, description="Physical cores, all sockets.")
    cpu_base_ghz: float | None = Field(None, gt=0, le=10, description="Base clock. [GHz]")
    ram_gb: float | None = Field(None, gt=0, description="Host memory. [GB]")
    compute_nics: int = Field(0, ge=0, description="Scale-out (east-west) NIC ports.")
    compute_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    storage_nics: int = Field(0, ge=0, description="Storage-network NIC ports.")
    storage_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    storage_usable_gbps: float | None = Field(
        None,
        gt=0,
        description="Storage bandwidth the node can actually move: the storage ports' line "
        "rate capped by the PCIe links they sit on (data/README.md). Empty = not known; the "
        "storage stage then sizes no client bandwidth for the pool. [Gb/s]",
    )
    inband_nics: int = Field(0, ge=0, description="In-band management / frontend ports.")
    inband_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    bmc_nics: int = Field(0, ge=0, description="Out-of-band BMC ports.")
    bmc_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    pcie_gen: int | None = Field(None, ge=3, le=7, description="Host PCIe generation.")
    max_power_kw: float | None = Field(None, gt=0, description="Maximum system power. [kW]")
    rack_units: float | None = Field(
        None, gt=0, le=60, description="Height; empty = the facility's unknown_server_units. [U]"
    )
    weight_kg: float | None = Field(
        None, gt=0, description="Weight from its sheet; empty = not checked on the floor. [kg]"
    )
    price_usd: float | None = Field(None, gt=0, description="Indicative price. [USD]")


class ExistingServers(Section):
    """Servers the client already owns and puts into a pool."""

    server: str = Field(description="A name or alias in data/servers.csv.")
    count: int = Field(ge=1, description="How many.")


class PoolSpec(Section):
    """One resource pool: its hardware, spares and scheduling policy."""

    accelerator: str = Field(
        "H100 SXM5 80GB", description="A name or alias in data/accelerators.csv."
    )
    gpus_per_server: int = Field(
        8, ge=1, le=72, description="8 for HGX/OAM and 8×PCIe servers; 4 per GB200 tray."
    )
    server: str | None = Field(
        None, description="A server in data/servers.csv; must carry this pool's accelerator."
    )
    custom_server: ServerSpec | None = Field(
        None, description="A user-entered server configuration (instead of server)."
    )
    spare_ratio: float = Field(
        0.05,
        ge=0,
        le=1,
        description="Spare servers per working server, rounded up: 0.05 is one spare per "
        "twenty; BLOOM kept 4 spare nodes for 48 (8%, arXiv 2211.05100 §3.4.1).",
    )
    partition: str | None = Field(
        None,
        description="Scheduler (Slurm) partition name and the servers' hostname prefix "
        "(<partition>-0001 …); empty = the pool's name. ASCII letters, digits and hyphens, "
        "starting with a letter, at most 40 characters.",
    )
    quota: Literal["exclusive", "fair_share", "preemptible"] = Field(
        "fair_share",
        description="exclusive: reserved for one team or job; fair_share: shared by "
        "fair-share priority; preemptible: borrowed capacity that can be reclaimed.",
    )
    max_gpus_per_user: int | None = Field(
        None, ge=1, description="Per-user GPU cap in the scheduler; empty = none."
    )
    existing_servers: tuple[ExistingServers, ...] = Field(
        default=(), description="Servers already owned that join this pool."
    )

    @field_validator("partition")
    @classmethod
    def _hostname_prefix(cls, v: str | None) -> str | None:
        # The partition names the pool's servers in slurm.conf, the IP plan, the port map,
        # the racks and NetBox: a hostname label is ASCII letters, digits and hyphens
        # (RFC 952/1123), ≤ 63 characters with the "-nnnnnn" number, and slurm.conf(5)
        # splits names on spaces and commas. A Chinese name would leave Slurm's node names
        # and the network's apart, so it is refused here rather than renamed silently.
        if v is None or _PARTITION.fullmatch(v):
            return v
        raise ValueError(
            f"partition {v!r} is not a hostname prefix: use ASCII letters, digits and hyphens, "
            "starting with a letter, at most 40 characters (e.g. 'train', 'gpu-a'); "
            "a Chinese team name belongs in the scenario's name"
        )

    @model_validator(mode="after")
    def _one_server(self) -> PoolSpec:
        if self.server is not None and self.custom_server is not None:
            raise ValueError("give server or custom_server, not both")
        return self


class Pools(Section):
    """Accelerator-and-server stage: one pool per workload kind."""

    training: PoolSpec = Field(
        default_factory=lambda: PoolSpec(quota="exclusive"),
        description="Training pool; its quota defaults to exclusive (a deadline-bound job "
        "owns its GPUs) even when other fields are written.",
    )
    inference: PoolSpec = Field(default_factory=PoolSpec)
    development: PoolSpec = Field(default_factory=PoolSpec)

    @model_validator(mode="before")
    @classmethod
    def _training_exclusive(cls, data: object) -> object:
        # Writing one field of the training pool must not flip its quota to fair_share.
        if isinstance(data, dict) and isinstance(data.get("training"), dict):
            if "quota" not in data["training"]:
                data = {**data, "training": {"quota": "exclusive", **data["training"]}}
        return data

    @model_validator(mode="after")
    def _partitions_apart(self) -> Pools:
        # Each pool's partition prefixes its servers' hostnames: two pools with one
        # partition would both name a server train-0001 in the IP plan, the port map and
        # slurm.conf. Hostnames are case-insensitive (RFC 4343), so Train and train clash.
        seen: dict[str, str] = {}
        for pool in ("training", "inference", "development"):
            name = getattr(self, pool).partition or pool
            other = seen.setdefault(name.lower(), pool)
            if other != pool:
                raise ValueError(
                    f"pools.{pool}.partition = {name!r} is the partition of pools.{other} "
                    "too; each pool needs its own partition, since it prefixes the pool's "
                    "hostnames (<partition>-0001 …)"
                )
        return self


def server_name(spec: PoolSpec, catalog: Catalog) -> str:
    """The pool's server as tables name it: the catalogue name, the custom name, or ''."""
    if spec.custom_server is not None:
        return spec.custom_server.name
    if spec.server is not None:
        return str(catalog.server(spec.server)["name"])
    return ""
