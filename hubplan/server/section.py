"""The server section: the balance rules every pool's server is checked against."""

from __future__ import annotations

from pydantic import Field

from ..core.section import Section


class ServerPolicy(Section):
    """Server stage: the balance rules every pool's server is checked against."""

    ram_to_gpu_memory: float = Field(
        1.0,
        ge=0,
        le=16,
        description="Host RAM ≥ this × total GPU memory. 1.0 is compute-centre practice "
        "(NVIDIA's H200 NVL enterprise RA asks 128 GB per 141 GB GPU, ≈0.9×); selection "
        "guides advise 2.0 (Puget Systems: 'at least double the amount of CPU memory as "
        "there is total GPU memory'; RunPod hosts: 1.5-2×).",
    )
    min_cpu_cores_per_gpu: float = Field(
        4.0,
        ge=0,
        le=128,
        description="Physical CPU cores per accelerator: Puget Systems 'at least 4 cores "
        "for each GPU'; RunPod hosts 4 (+2 for the system); NVIDIA's H200 NVL enterprise "
        "RA 7; DGX H100 ships 14.",
    )
    min_cpu_base_ghz: float = Field(
        2.0,
        ge=0,
        le=10,
        description="CPU base clock floor: NVIDIA AI Enterprise reference architecture, "
        "'2.0 GHz minimum CPU clock'. [GHz]",
    )
    training_fabric_gbps: float = Field(
        400.0,
        gt=0,
        description="Scale-out speed per GPU in training pools: one 400 Gb/s NIC per GPU, "
        "rail-optimised (DGX SuperPOD RA; NVIDIA HGX '2-8-9-400').",
    )
    require_storage_network: bool = Field(
        True, description="Training and inference servers need separate storage NICs."
    )
    require_management_network: bool = Field(
        True, description="Every server needs in-band management and a BMC port."
    )
