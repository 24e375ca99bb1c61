"""The pools section: one pool per workload kind, its hardware, spares and scheduling."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..core.catalog import Catalog
from ..core.section import Section


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
        None, description="Scheduler (Slurm) partition name; empty = the pool's name."
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


def server_name(spec: PoolSpec, catalog: Catalog) -> str:
    """The pool's server as tables name it: the catalogue name, the custom name, or ''."""
    if spec.custom_server is not None:
        return spec.custom_server.name
    if spec.server is not None:
        return str(catalog.server(spec.server)["name"])
    return ""
