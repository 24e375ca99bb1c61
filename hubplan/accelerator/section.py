"""The accelerator section: which candidates to compare and how to rank them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core.section import Section


class Selection(Section):
    """Accelerator stage: the candidates compared side by side, and how to rank them."""

    candidates: tuple[str, ...] = Field(
        (),
        max_length=12,
        description="Accelerators to compare (a workshop picks 3-6); empty = the pools' own.",
    )
    budget_usd: float | None = Field(
        None,
        gt=0,
        le=1e12,
        description="Fixed hardware budget for 'training days on budget'. At most 1e12 "
        "(plausibility: above the largest announced AI build-outs, ~US$1e11), so a typo is "
        "refused rather than sized. [USD]",
    )
    platform_overhead: float = Field(
        0.3,
        ge=0,
        le=5,
        description="Server share on top of the accelerator price (CPU, RAM, NICs, chassis): "
        "an 8×H100 HGX server quoted at ~US$310k (2024) against 8 × US$30k cards is ×1.29.",
    )
    depreciation_years: float = Field(
        5.0,
        gt=0,
        le=15,
        description="Useful life for cost per effective PFLOP-day: 5 years (Amazon 10-K: "
        "servers 6 → 5 years from 2025 for the pace of AI hardware; Meta 5.5; Microsoft, "
        "Alphabet 6).",
    )
    mfu_scaling: Literal["measured_matmul", "same"] = Field(
        "measured_matmul",
        description="measured_matmul: the job's MFU holds for the pool's own accelerator; "
        "each other candidate gets MFU × (its measured maximum-achievable matmul share ÷ "
        "the pool accelerator's), since the same software reaches 80% of peak on H100 but "
        "51% on MI300X (ml-engineering MAMF). same: one MFU for every card.",
    )
    rank_by: Literal["capex", "power"] = Field(
        "capex",
        description="capex: cheapest hardware that meets each workload; power: lowest "
        "accelerator TDP that meets it.",
    )
