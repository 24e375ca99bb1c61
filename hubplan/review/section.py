"""The review section: the lines a design reviewer draws, as parameters."""

from __future__ import annotations

from pydantic import Field

from ..core.section import Section


class ReviewPolicy(Section):
    """Design review: thresholds of the ``check_*`` rules."""

    max_training_oversubscription: float = Field(
        2.0,
        ge=1,
        le=64,
        description="Compute-fabric oversubscription a reviewer refuses above: 1:2 (issue "
        "practice; the planning guide asks 1:1 for training, Llama 3 kept pods at full "
        "bisection and only the aggregation layer at 1:7).",
    )
    min_rack_headroom: float = Field(
        0.15,
        ge=0,
        lt=1,
        description="Power headroom per rack: '功率分配表里要留出15%以上的余量' (planning guide "
        "§5.2).",
    )
    min_inrush_factor: float = Field(
        1.5,
        ge=1,
        le=10,
        description="Power-on allowance as a multiple of nameplate: '按铭牌功率的1.5倍设计' "
        "(planning guide §6.1).",
    )
    air_max_kw: float = Field(
        20.0,
        gt=0,
        le=200,
        description="Rack heat above which air cooling is not credible: raised-floor air "
        "struggles above 15-20 kW a rack (heathertechnologies.com); mainstream air rooms run "
        "10-15 kW.",
    )
    min_spares_above_servers: int = Field(
        4,
        ge=1,
        le=10000,
        description="A pool of at least this many servers must carry a spare: at 5 % spare "
        "practice one spare covers 20 servers; 4 is the least pool where a failure stalls a "
        "job for days without one (assumption).",
    )
    growth_headroom: float = Field(
        0.30,
        ge=0,
        le=10,
        description="Servers bought beyond the need (after rounding to whole servers) as a "
        "share of the need, above which 'buy double for the future' is flagged: GPU "
        "price-performance doubles every ~2.1-2.5 years (Epoch AI), so capacity bought "
        "early loses value. 30 % is an assumption.",
    )
    phased_handover_servers: int = Field(
        64,
        ge=1,
        le=100000,
        description="Server count from which a single hand-over batch is flagged: the first "
        "units should go to users before the last arrive (issue practice). An assumption.",
    )
    min_stability_hours: float = Field(
        24.0,
        gt=0,
        le=720,
        description="Shortest acceptable stability run: 24-72 h burn-in is typical "
        "(Leviathan Systems glossary).",
    )
    min_memory_margin: float = Field(
        0.02,
        ge=0,
        lt=1,
        description="Least share of RAM kept out of Slurm's RealMemory for the OS and "
        "slurmd (practice ≈ 5 %, stackhpc ansible-role-openhpc #93; below 2 % jobs can "
        "push the node into swap or the OOM killer).",
    )
    max_checkpoint_overhead: float = Field(
        0.05,
        gt=0,
        lt=1,
        description="Share of training time spent writing checkpoints above which the "
        "storage is too slow: at ~12k GPUs the write must take ~10 s to keep ETTR ≈ 0.9 "
        "(Kokolis et al., arXiv 2410.21680). 5 % is an assumption.",
    )
    driver_support_years: float = Field(
        3.0,
        ge=0,
        le=20,
        description="Years the pinned driver branch must stay supported after hand-over: "
        "pin a production or LTS branch (NVIDIA data-center driver lifecycle table); 3 years "
        "is a typical depreciation horizon.",
    )
