"""The storage section: tiers, checkpoints, bandwidth rules and disaster recovery."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core.section import Section

Protection = Literal["raid6_8+2", "raid10", "ec_4+2", "ec_8+2", "ec_16+4", "replica_3", "appliance"]


class Storage(Section):
    """Storage stage: what each tier holds, how fast it must be, and the off-site copy."""

    hot_model: str = Field(
        "Lustre OSS NVMe 24x30.72TB 2x400G",
        description="Hot tier building block (parallel file system or NVMe cache), a name "
        "in data/storage.csv. The default is a Lustre OSS on NVMe: the planning guide's hot "
        "tier is 'a high-performance parallel file system or NVMe cache'.",
    )
    metadata_model: str | None = Field(
        "Lustre MDS NVMe mirrored 2x400G",
        description="Metadata servers for an OSS-based hot tier (Lustre MDT on mirrored "
        "NVMe); empty for appliances that carry their own metadata.",
    )
    metadata_nodes: int = Field(
        2, ge=1, le=64, description="Metadata servers: 2 is an active/standby failover pair."
    )
    min_hot_nodes: int = Field(
        2,
        ge=1,
        description="Fewest hot-tier data nodes: 2, since Lustre OSS failover is configured "
        "in pairs (Lustre Operations Manual, 'Configuring Failover').",
    )
    hot_nodes: int | None = Field(
        None,
        ge=1,
        description="Fix the hot-tier data node count (an existing system or a budget cap); "
        "empty = sized by the plan.",
    )
    warm_model: str = Field(
        "HDD capacity node 60x24TB 2x100G",
        description="Warm capacity pool building block: HDD capacity is where the "
        "planning guide puts warm data ('大容量存储池').",
    )
    cold_model: str = Field(
        "HDD capacity node 60x24TB 2x100G",
        description="Cold tier (object store / archive) building block.",
    )
    hot_protection: Protection = Field(
        "raid6_8+2", description="RAID 6 8+2 keeps 80 % of raw and survives two drives."
    )
    warm_protection: Protection = Field(
        "ec_8+2", description="Erasure coding 8+2 keeps 80 % of raw and survives two drives."
    )
    cold_protection: Protection = Field(
        "ec_8+2", description="Erasure coding 8+2 keeps 80 % of raw and survives two drives."
    )
    fill_ceiling: float = Field(
        0.85,
        gt=0,
        le=1,
        description="Plan each tier to hold its content at most this full: the same 85 % "
        "the planning guide alerts at (a tier planned above its alert line alerts on day "
        "one).",
    )
    alert_fill: float = Field(
        0.85,
        gt=0,
        le=1,
        description="Hot-tier usage alert: 85 % per the planning guide (存储使用率超过85%告警).",
    )
    growth_margin: float = Field(
        0.30,
        ge=0,
        le=10,
        description="Growth over the plan horizon on top of today's content: the planning "
        "guide's 30 % margin over the computed need (docs/architecture.md, planning rules).",
    )
    checkpoint_weights_bytes: float = Field(
        2.0, ge=0, le=8, description="BF16 weights in a checkpoint. [B/param]"
    )
    checkpoint_master_bytes: float = Field(
        4.0, ge=0, le=8, description="FP32 master weights in a checkpoint. [B/param]"
    )
    checkpoint_optimizer_bytes: float = Field(
        8.0,
        ge=0,
        le=16,
        description="Adam first and second moments in FP32 (4 + 4); gradients are not "
        "saved. 2 + 4 + 8 = 14 B/param for mixed-precision Adam (ZeRO, arXiv 1910.02054 "
        "§3.1, less the 2 B of gradients). [B/param]",
    )
    checkpoint_keep_last: int = Field(
        3,
        ge=1,
        le=1000,
        description="Checkpoints kept per job on the hot tier ('keep the last N', the "
        "planning guide's cure for checkpoints filling the disk); 3 lets one bad checkpoint "
        "and one in flight leave a good one.",
    )
    checkpoint_offload: bool = Field(
        True,
        description="Move checkpoints older than the last N to warm/cold. False: they stay "
        "on the hot tier and the fill projection shows when it fills.",
    )
    warm_checkpoints: int = Field(
        10,
        ge=0,
        description="Older checkpoints per job kept on the warm tier for roll-back after "
        "loss spikes: an assumption to confirm with the training team.",
    )
    cold_checkpoints: int = Field(
        5, ge=0, description="Milestone checkpoints per job archived to the cold tier."
    )
    processed_bytes_per_token: float = Field(
        4.0,
        gt=0,
        le=16,
        description="Tokenised data on the hot tier: 4 B (int32 token ids; Megatron-LM's "
        "indexed dataset stores int32 once the vocabulary exceeds 65,500). [B/token]",
    )
    raw_to_text: float = Field(
        1.0,
        ge=1,
        le=1000,
        description="Raw data kept per byte of training text (crawl before cleaning); 1 "
        "when the scenario's data is already the raw data.",
    )
    home_tb_per_developer: float = Field(
        1.0,
        ge=0,
        description="Home and scratch space per developer on the hot tier: an assumption "
        "to confirm with the client's team. [TB]",
    )
    logs_tb: float = Field(1.0, ge=0, description="Logs and metrics (an assumption). [TB]")
    performance_level: Literal["good", "better", "best"] = Field(
        "better",
        description="Level of the DGX SuperPOD storage performance guideline the storage "
        "is sized to (NVIDIA RA-11333-001, DGX H100, Table 6: per 8-GPU node read 4 / 8 / "
        "40 GB/s, per scalable unit of 32 nodes 15 / 40 / 125 GB/s read and 7.5 / 20 / "
        "62.5 write). 'better', because the RA keeps 'good' for datasets that fit in the "
        "nodes' local cache (LLM text), which a centre serving many tenants cannot "
        "promise (images, multimodal data, datasets larger than a node's cache), and "
        "'best' for uncompressed image and video data, offline inference and ETL; choose "
        "it when those are the load.",
    )
    read_amplification: float = Field(
        1.0,
        ge=1,
        le=1000,
        description="Bytes read per byte of tokens consumed (shuffles, re-reads); 1 = each "
        "token read once. Applied to the token-based read demand.",
    )
    write_to_read_when_unknown: float = Field(
        0.5,
        gt=0,
        le=2,
        description="Write bandwidth as a share of read for catalogue rows with no sourced "
        "write figure: 0.5, the ratio of every row of the DGX SuperPOD storage guideline "
        "(4/2, 8/4, 40/20 GB/s per node).",
    )
    failure_scale_gpu: float = Field(
        1.0,
        ge=0,
        le=100,
        description="Multiplier on the GPU failure rate of data/failure_rates.csv (per GPU-hour: "
        "faulty GPU, SRAM, system processor, silent data corruption, thermal, from Llama "
        "3 405B on H100, arXiv 2407.21783 Table 5); 1 = as published. Raise it for a "
        "fleet in early life or without lemon-node screening (Kokolis et al., arXiv "
        "2410.21680: screening cut 512+-GPU job failures from 14 % to 4 %).",
    )
    failure_scale_hbm: float = Field(
        1.0,
        ge=0,
        le=100,
        description="Multiplier on the HBM (GPU memory) failure rate of data/failure_rates.csv "
        "(per "
        "GPU-hour, Llama 3 405B on H100 HBM3); 1 = as published. Raise it for parts with "
        "more HBM stacks or higher HBM power than H100.",
    )
    failure_scale_nic: float = Field(
        1.0,
        ge=0,
        le=100,
        description="Multiplier on the NIC failure rate of data/failure_rates.csv (per node-hour, "
        "Llama 3 405B); 1 = as published. Raise it for servers with more or less proven "
        "network adapters.",
    )
    failure_scale_switch: float = Field(
        1.0,
        ge=0,
        le=100,
        description="Multiplier on the switch and cable failure rate of "
        "data/failure_rates.csv (per "
        "switch-hour, cables included, Llama 3 405B's RoCE ToR switches); 1 = as "
        "published. Raise it for a fabric with many active optical links: Kokolis et al. "
        "(arXiv 2410.21680) found InfiniBand links the leading failure source on Meta's "
        "research clusters.",
    )
    failure_scale_host: float = Field(
        1.0,
        ge=0,
        le=100,
        description="Multiplier on the host (CPU, memory, SSD, power supply, chassis, unplanned "
        "maintenance) failure rate of data/failure_rates.csv (per node-hour, Llama 3 "
        "405B); 1 = as published. Raise it for older servers or a site with less "
        "automated remediation.",
    )
    failure_scale_software: float = Field(
        1.0,
        ge=0,
        le=100,
        description="Multiplier on the software (training-stack bugs, dependencies, NCCL "
        "timeouts) failure rate of data/failure_rates.csv (per node-hour, Llama 3 405B); "
        "1 = as published. Lower it for a mature, well-tested training stack; raise it for "
        "a new one.",
    )
    restart_minutes: float = Field(
        15.0,
        ge=0,
        le=1440,
        description="Time from an interruption to training again: MegaScale resumes "
        "within ~15 min (arXiv 2402.15627). [min]",
    )
    checkpoint_time_share: float | None = Field(
        None,
        gt=0,
        lt=0.5,
        description="Share of training time checkpoint writes may take; empty = what the "
        "job's goodput target allows: at the Young/Daly optimum writes and lost work each "
        "take half of what restarts leave of (1 - goodput).",
    )
    dr: Literal["none", "offsite_backup", "warm_standby"] = Field(
        "offsite_backup",
        description="Disaster recovery: offsite_backup copies changed data to a second "
        "site each backup window; warm_standby replicates continuously; none keeps no "
        "off-site copy of checkpoints (a finding).",
    )
    dr_link_gbps: float = Field(100.0, gt=0, description="Link to the second site. [Gb/s]")
    backup_window_hours: float = Field(
        8.0,
        gt=0,
        le=24,
        description="Nightly backup window (offsite_backup); the backup runs daily. [h]",
    )
    dr_checkpoints: int = Field(
        2, ge=1, description="Latest checkpoints per job kept at the second site."
    )
