"""Development pool: interactive GPUs for the client's engineers."""

from __future__ import annotations

import math

from .section import DevelopmentPool


def development_gpu_count(dev: DevelopmentPool) -> int:
    """⌈developers × GPUs each × share active at peak⌉.

    >>> development_gpu_count(DevelopmentPool(developers=16, gpus_per_developer=1,
    ...                                       peak_active_share=0.5))
    8
    """
    return math.ceil(round(dev.developers * dev.gpus_per_developer * dev.peak_active_share, 9))
