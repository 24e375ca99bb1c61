"""The delivery section: lead times, the time buffer, hand-over, scheduler and acceptance
assumptions."""

from __future__ import annotations

import datetime as dt

from pydantic import Field, model_validator

from ..core.section import Section


class Delivery(Section):
    """Delivery stage: the implementation schedule, scheduler files and acceptance plan."""

    start_date: dt.date = Field(
        dt.date(2026, 1, 5),
        description="Day the detailed design starts (contract signed). A Monday in the "
        "planning year; set it to the project's kick-off.",
    )
    design_weeks: float = Field(
        6.0, ge=0, le=104,
        description="Detailed design, tender and purchase orders. Practitioners' planning "
        "guide (智算技术与算力规划设计及部署实施方案 v2.0): design and procurement is the "
        "first of four phases; 6 weeks is an assumption to replace with the tender plan.",
    )  # fmt: skip
    server_lead_weeks: float = Field(
        20.0, ge=0, le=104,
        description="GPU-server lead time from order to delivery. HPE ~20 weeks; Dell H100 "
        "39 weeks late 2023, 8-12 weeks April 2024 (The Register); H100 servers 36-52 weeks "
        "late 2023 (Omdia via Tom's Hardware). 20 weeks: the mid-2024 vendor figure.",
    )  # fmt: skip
    network_lead_weeks: float = Field(
        16.0, ge=0, le=104,
        description="Switches, NICs and optics lead time. No published figure was found; "
        "16 weeks is an assumption below the server lead time: confirm with the quote.",
    )  # fmt: skip
    storage_lead_weeks: float = Field(
        12.0, ge=0, le=104,
        description="Storage appliances lead time. No published figure was found; "
        "12 weeks is an assumption: confirm with the quote.",
    )  # fmt: skip
    fitout_weeks: float = Field(
        16.0, ge=0, le=104,
        description="Facility fit-out (power distribution, cooling, cabling trays) in "
        "parallel with procurement (planning guide v2.0). 16 weeks is an assumption for "
        "an existing shell; a new building takes far longer.",
    )  # fmt: skip
    racking_servers_per_day: float = Field(
        8.0, gt=0, le=1000,
        description="Servers unpacked, inspected, racked and cabled per day by the "
        "installation team. 8 (one rack of 4 DGX per half day) is an assumption.",
    )  # fmt: skip
    network_days: float = Field(
        10.0, ge=0, le=365,
        description="Fabric cabling check, switch configuration and link validation after "
        "racking, before commissioning (planning guide: commissioning after the network "
        "is up). 10 days is an assumption.",
    )  # fmt: skip
    commissioning_days: float = Field(
        15.0, ge=0, le=365,
        description="The six deployment steps (self-test, BMC and firmware, OS, driver "
        "and container runtime, RDMA validation, training smoke test) per batch. "
        "15 days is an assumption.",
    )  # fmt: skip
    stability_hours: float = Field(
        24.0, gt=0, le=720,
        description="Stability (burn-in) run before hand-over. 24-72 h is typical "
        "(Leviathan Systems glossary); 24 h is the minimum of that range.",
    )  # fmt: skip
    buffer: float = Field(
        0.20, ge=0, le=2,
        description="Time buffer added to every task's duration (planning guide v2.0 "
        "practice: 20 %).",
    )  # fmt: skip
    handover_batches: int = Field(
        2, ge=1, le=64,
        description="Batches in which the servers arrive and are handed over: the first "
        "units go to users before the last arrive. 2 is an assumption.",
    )  # fmt: skip
    batch_interval_weeks: float = Field(
        4.0, ge=0, le=52,
        description="Weeks between deliveries of successive batches. An assumption.",
    )  # fmt: skip
    # -- scheduler ------------------------------------------------------------------
    realmemory_margin: float = Field(
        0.05, ge=0, lt=1,
        description="Share of physical memory kept out of Slurm's RealMemory for the OS and "
        "slurmd: RealMemory ≈ 0.95 × total (stackhpc ansible-role-openhpc PR #93); a node "
        "registering less than RealMemory is set DOWN (slurm.conf(5)).",
    )  # fmt: skip
    threads_per_core: int = Field(
        2, ge=1, le=8,
        description="Hardware threads per core given to Slurm (Xeon/EPYC SMT: 2). "
        "CPUs = Sockets × CoresPerSocket × ThreadsPerCore (slurm.conf(5)).",
    )  # fmt: skip
    training_max_hours: float = Field(
        168.0, gt=0, le=8760,
        description="MaxTime of the training partition: one week, so that a long run "
        "restarts from checkpoints and maintenance windows exist. An assumption.",
    )  # fmt: skip
    development_max_hours: float = Field(
        8.0, gt=0, le=8760,
        description="MaxTime of the development partition: a working day. An assumption.",
    )  # fmt: skip
    container_base_image: str = Field(
        "nvcr.io/nvidia/pytorch:24.10-py3", min_length=1,
        description="Training image base: a framework image that carries CUDA user-space "
        "libraries but no kernel driver (the driver stays on the host).",
    )  # fmt: skip
    # -- acceptance -----------------------------------------------------------------
    matmul_share: float = Field(
        0.80, gt=0, le=1,
        description="Dense BF16 matmul throughput expected as a share of the dense peak "
        "when the catalogue has no measured figure: H100 SXM 794.5 of 989 TFLOPS (80.3 %) "
        "with mamf-finder (Bekman, Machine Learning Engineering).",
    )  # fmt: skip
    rdma_share: float = Field(
        0.94, gt=0, le=1,
        description="ib_write_bw per port as a share of line rate: Azure ND H100 v5 health "
        "checks require ≥ 375 Gb/s per 400G port (94 %) (Azure/azurehpc-health-checks).",
    )  # fmt: skip
    nvlink_share: float = Field(
        0.82, gt=0, le=1,
        description="Single-node all_reduce bus bandwidth as a share of the one-way NVLink "
        "bandwidth: 8 × H100 ring ~370 of 450 GB/s (NCCL maintainer, nccl-tests #212).",
    )  # fmt: skip
    fabric_share: float = Field(
        0.90, gt=0, le=1,
        description="Multi-node all_reduce bus bandwidth as a share of a node's compute-NIC "
        "line rate: 8 × 400G nodes reach 400-450 GB/s busbw on H100 (Saturn Cloud).",
    )  # fmt: skip
    storage_share: float = Field(
        0.90, gt=0, le=1,
        description="Measured storage read/write as a share of the planned supply before "
        "the tier is accepted. An assumption.",
    )  # fmt: skip
    # -- Kubernetes (inference) -----------------------------------------------------
    k8s_max_surge: int = Field(
        1, ge=0, le=64,
        description="Pods a Deployment may add above its replicas during a rolling update "
        "(strategy.rollingUpdate.maxSurge). One new pod at a time: the smallest surge that "
        "lets an update proceed without taking serving capacity away; the namespace GPU "
        "quota includes it (Kubernetes, Deployments).",
    )  # fmt: skip
    k8s_max_unavailable: int = Field(
        0, ge=0, le=64,
        description="Pods a rolling update may take down below the replicas "
        "(maxUnavailable). 0 keeps the sized capacity through an update; it cannot be 0 "
        "together with k8s_max_surge (Kubernetes, Deployments).",
    )  # fmt: skip
    serving_image: str = Field(
        "",
        description="Serving container image. Empty = the vLLM project's image where it "
        "publishes one for the vendor (vllm/vllm-openai for NVIDIA; pin a tested tag), "
        "otherwise a marker to replace with the vendor's vLLM build.",
    )  # fmt: skip
    model_load_gb_s: float = Field(
        1.0, gt=0, le=1000,
        description="Rate at which a serving pod reads its model weights at start. 1 GB/s "
        "is an assumption (one client of a shared file system, the slow end; local NVMe "
        "reads several GB/s): measure the first deployment's load time.",
    )  # fmt: skip
    engine_start_s: float = Field(
        300.0, ge=0, le=86400,
        description="Serving engine start before and after the weights load (process and "
        "NCCL start, KV-cache profiling, CUDA-graph capture). 300 s is an assumption; "
        "the start-up probe allows this plus the load time.",
    )  # fmt: skip

    @model_validator(mode="after")
    def _rolling_update_moves(self) -> Delivery:
        if self.k8s_max_surge == 0 and self.k8s_max_unavailable == 0:
            raise ValueError("delivery.k8s_max_surge and delivery.k8s_max_unavailable are "
                             "both 0: a rolling update could neither add nor remove a pod; "
                             "set one of them to at least 1 (Kubernetes, Deployments)")  # fmt: skip
        return self
