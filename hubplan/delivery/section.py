"""The delivery section: lead times, the time buffer, hand-over, scheduler and acceptance
assumptions."""

from __future__ import annotations

import datetime as dt

from pydantic import Field, model_validator

from ..core.section import Section
from ..core.units import HOURS_PER_YEAR, SECONDS_PER_DAY


class Delivery(Section):
    """Delivery stage: the implementation schedule, scheduler files and acceptance plan."""

    start_date: dt.date = Field(
        dt.date(2026, 1, 5),
        description="Day the detailed design starts (contract signed). A Monday in the "
        "planning year; set it to the project's kick-off.",
    )
    design_weeks: float = Field(
        6.0,
        ge=0,
        le=104,
        description="Detailed design, tender and purchase orders. Practitioners' planning "
        "guide (智算技术与算力规划设计及部署实施方案 v2.0): design and procurement is the "
        "first of four phases; 6 weeks is an assumption to replace with the tender plan.",
    )
    server_lead_weeks: float = Field(
        20.0,
        ge=0,
        le=104,
        description="GPU-server lead time from order to delivery. HPE ~20 weeks; Dell H100 "
        "39 weeks late 2023, 8-12 weeks April 2024 (The Register); H100 servers 36-52 weeks "
        "late 2023 (Omdia via Tom's Hardware). 20 weeks: the mid-2024 vendor figure.",
    )
    network_lead_weeks: float = Field(
        16.0,
        ge=0,
        le=104,
        description="Switches, NICs and optics lead time. No published figure was found; "
        "16 weeks is an assumption below the server lead time: confirm with the quote.",
    )
    storage_lead_weeks: float = Field(
        12.0,
        ge=0,
        le=104,
        description="Storage appliances lead time. No published figure was found; "
        "12 weeks is an assumption: confirm with the quote.",
    )
    fitout_weeks: float = Field(
        16.0,
        ge=0,
        le=104,
        description="Facility fit-out (power distribution, cooling, cabling trays) in "
        "parallel with procurement (planning guide v2.0). 16 weeks is an assumption for "
        "an existing shell; a new building takes far longer.",
    )
    install_crews: int = Field(
        2,
        ge=1,
        le=500,
        description="Installation crews unpacking, racking and power-cabling servers in "
        "parallel. 2 is an assumption for a centre of a few racks; a large build fields "
        "many more: xAI Colossus put 100,000 H100 (12,500 8-GPU servers) in place within "
        "its 122-day build (NVIDIA press release, 2024), over 100 servers a day.",
    )
    racking_servers_per_crew_day: float = Field(
        8.0,
        gt=0,
        le=1000,
        description="Servers one crew unpacks, inspects, racks and power-cables per day. "
        "Air-cooled HGX H100/H200 systems deploy at 'multiple racks per day' (Leviathan "
        "Systems, 'GPU Infrastructure Deployment Timeline', 2026); 8 = two racks of four "
        "8-GPU servers, the low end of that. Liquid-cooled racks are slower.",
    )
    cabling_crews: int = Field(
        2,
        ge=1,
        le=500,
        description="Network crews cabling the fabrics (compute, storage, in-band, BMC) in "
        "parallel, after racking. 2 is an assumption; scale it with the build as for "
        "install_crews.",
    )
    cabling_links_per_crew_day: float = Field(
        96.0,
        gt=0,
        le=10000,
        description="Links one crew runs, labels, dresses and checks for link-up per day "
        "(both ends, pre-terminated cables or transceivers). No published rate was found: "
        "96 (12 an hour, about 5 minutes a link over an 8-hour day) is an assumption to "
        "replace with the installer's quote.",
    )
    network_days: float = Field(
        5.0,
        ge=0,
        le=365,
        description="Fixed part of network bring-up per batch on top of cabling: subnet "
        "manager or switch configuration and fabric validation (planning guide: "
        "commissioning after the network is up). 5 days is an assumption.",
    )
    commissioning_days: float = Field(
        15.0,
        ge=0,
        le=365,
        description="Fixed part of the six deployment steps per batch (self-test, BMC and "
        "firmware, OS, driver and container runtime, RDMA validation, training smoke "
        "test), run on all nodes at once. 15 days is an assumption.",
    )
    acceptance_servers_per_day: float = Field(
        64.0,
        gt=0,
        le=100000,
        description="Servers taken through the acceptance suite per day (DCGM level 3 "
        "takes ~15 min per node, NVIDIA DCGM docs; the limit is running multi-node "
        "nccl-tests and triaging and re-testing the nodes that fail). 64 (two 32-server "
        "DGX SuperPOD scalable units a day) is an assumption; added to "
        "commissioning_days.",
    )
    stability_hours: float = Field(
        24.0,
        gt=0,
        le=720,
        description="Stability (burn-in) run before hand-over. 24-72 h is typical "
        "(Leviathan Systems glossary); 24 h is the minimum of that range.",
    )
    buffer: float = Field(
        0.20,
        ge=0,
        le=2,
        description="Time buffer added to every task's duration (planning guide v2.0 "
        "practice: 20 %).",
    )
    handover_batches: int = Field(
        2,
        ge=1,
        le=64,
        description="Batches in which the servers arrive and are handed over: the first "
        "units go to users before the last arrive. 2 is an assumption.",
    )
    batch_interval_weeks: float = Field(
        4.0,
        ge=0,
        le=52,
        description="Weeks between deliveries of successive batches. An assumption.",
    )
    # -- scheduler ------------------------------------------------------------------
    realmemory_margin: float = Field(
        0.05,
        ge=0,
        lt=1,
        description="Share of physical memory kept out of Slurm's RealMemory for the OS and "
        "slurmd: RealMemory ≈ 0.95 × total (stackhpc ansible-role-openhpc PR #93); a node "
        "registering less than RealMemory is set DOWN (slurm.conf(5)).",
    )
    threads_per_core: int = Field(
        2,
        ge=1,
        le=8,
        description="Hardware threads per core given to Slurm (Xeon/EPYC SMT: 2). "
        "CPUs = Sockets × CoresPerSocket × ThreadsPerCore (slurm.conf(5)).",
    )
    training_max_hours: float = Field(
        168.0,
        gt=0,
        le=HOURS_PER_YEAR,
        description="MaxTime of the training partition: one week, so that a long run "
        "restarts from checkpoints and maintenance windows exist. An assumption.",
    )
    development_max_hours: float = Field(
        8.0,
        gt=0,
        le=HOURS_PER_YEAR,
        description="MaxTime of the development partition: a working day. An assumption.",
    )
    container_base_image: str | None = Field(
        None,
        min_length=1,
        description="Training image base: a framework image that carries the accelerator's "
        "user-space libraries but no kernel driver (the driver stays on the host). Empty = "
        "the training pool's family image (data/families.csv: nvcr.io/nvidia/pytorch:"
        "24.10-py3 for NVIDIA, rocm/pytorch for AMD, the Gaudi PyTorch image for Intel), or a "
        "placeholder where the family's image is unknown.",
    )
    # -- acceptance -----------------------------------------------------------------
    matmul_typical_share: float = Field(
        0.75,
        gt=0,
        le=1,
        description="Dense BF16 matmul throughput as a share of dense peak for a card with "
        "no published measurement (the figure is then marked derived): 0.75 is the "
        "median of the ten measured maximum-achievable shares, 51.4 % (MI300X) to 86.9 % "
        "(A100 SXM) (Bekman, Machine Learning Engineering, 'Maximum Achievable Matmul "
        "FLOPS comparison table').",
    )
    matmul_floor_share: float = Field(
        0.90,
        gt=0,
        le=1,
        description="Pass floor of the matmul test as a share of the measured figure. The "
        "measured figure (H100 SXM 794.5 TFLOPS, mamf-finder) is the best shape of a "
        "search on one card; a floor at 99.6 % of it fails healthy cards. Matmul "
        "throughput varies with clock and power between healthy cards, and a short "
        "mamf-finder run reaches 80-90 % of the maximum (Bekman, mamf-finder README): "
        "0.90 leaves that spread and fails a throttled or degraded card.",
    )
    rdma_share: float = Field(
        0.98,
        gt=0,
        le=1,
        description="ib_write_bw per port as a share of line rate for a rate with no "
        "published measurement: the 400G measurement, 392 of 400 Gb/s (NVIDIA DGX H100, "
        "~49 GB/s per GPU-NIC pair, MLPerf Inference v3.1 documentation).",
    )
    nvlink_share: float = Field(
        0.82,
        gt=0,
        le=1,
        description="Single-node all_reduce bus bandwidth as a share of the one-way NVLink "
        "bandwidth for a card with no published measurement: an 8 × H100 ring reaches "
        "~370 of 450 GB/s (NCCL maintainer, nccl-tests #212).",
    )
    fabric_share: float = Field(
        0.90,
        gt=0,
        le=1,
        description="Multi-node all_reduce bus bandwidth as a share of a node's compute-NIC "
        "line rate: 8 × 400G nodes reach 400-450 GB/s busbw on H100 (Saturn Cloud, "
        "'Validating Multi-Node GPU Clusters with NCCL Tests').",
    )
    bandwidth_floor_share: float = Field(
        0.95,
        gt=0,
        le=1,
        description="Pass floor of the NVLink, RDMA and fabric bandwidth tests as a share of "
        "the expected figure: Azure's ND H100 v5 health checks fail a node below 460 GB/s "
        "all_reduce (~480 measured, 96 %) and 375 Gb/s ib_write_bw per 400G port (392 "
        "measured, 96 %) (github Azure/azurehpc-health-checks, nd96isr_h100_v5.conf).",
    )
    storage_floor_share: float = Field(
        0.90,
        gt=0,
        le=1,
        description="Pass floor of a storage tier's read and write tests as a share of the "
        "planned figure (write after the protection overhead). An assumption: the tier's "
        "figures are line or drive rates before file-system overhead.",
    )
    # -- Kubernetes (inference) -----------------------------------------------------
    k8s_max_surge: int = Field(
        1,
        ge=0,
        le=64,
        description="Pods a Deployment may add above its replicas during a rolling update "
        "(strategy.rollingUpdate.maxSurge). One new pod at a time: the smallest surge that "
        "lets an update proceed without taking serving capacity away; the namespace GPU "
        "quota includes it (Kubernetes, Deployments).",
    )
    k8s_max_unavailable: int = Field(
        0,
        ge=0,
        le=64,
        description="Pods a rolling update may take down below the replicas "
        "(maxUnavailable). 0 keeps the sized capacity through an update; it cannot be 0 "
        "together with k8s_max_surge (Kubernetes, Deployments).",
    )
    serving_image: str = Field(
        "",
        description="Serving container image. Empty = the vLLM project's image where it "
        "publishes one for the vendor (vllm/vllm-openai for NVIDIA; pin a tested tag), "
        "otherwise a marker to replace with the vendor's vLLM build.",
    )
    model_load_gb_s: float = Field(
        1.0,
        gt=0,
        le=1000,
        description="Rate at which a serving pod reads its model weights at start. 1 GB/s "
        "is an assumption (one client of a shared file system, the slow end; local NVMe "
        "reads several GB/s): measure the first deployment's load time.",
    )
    engine_start_s: float = Field(
        300.0,
        ge=0,
        le=SECONDS_PER_DAY,
        description="Serving engine start before and after the weights load (process and "
        "NCCL start, KV-cache profiling, CUDA-graph capture). 300 s is an assumption; "
        "the start-up probe allows this plus the load time.",
    )

    @model_validator(mode="after")
    def _rolling_update_moves(self) -> Delivery:
        if self.k8s_max_surge == 0 and self.k8s_max_unavailable == 0:
            raise ValueError(
                "delivery.k8s_max_surge and delivery.k8s_max_unavailable are "
                "both 0: a rolling update could neither add nor remove a pod; "
                "set one of them to at least 1 (Kubernetes, Deployments)"
            )
        return self
