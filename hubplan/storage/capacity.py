"""Capacity by tier: what each tier holds, raw against usable, and node counts."""

from __future__ import annotations

import math

from .protection import SCHEMES, usable_fraction

#: Usable share of raw capacity by protection scheme, k / (k + m): RAID 6 8+2 and EC 8+2 /
#: 16+4 keep 8/10 and 16/20, EC 4+2 keeps 4/6, RAID 10 half, three replicas a third.
#: ``appliance``: Huawei's MLPerf Storage v1.0 OceanStor A800 entry reports 362,723 GiB
#: usable of 457,764 GiB raw = 79.2 %, used for appliances whose own scheme is not
#: published (:func:`~hubplan.storage.protection.usable_fraction`).
PROTECTION_USABLE = {name: usable_fraction(name) for name in SCHEMES}


def checkpoint_tb(params: float, bytes_per_param: float) -> float:
    """Size of one training checkpoint. [TB]

    Parameters
    ----------
    params : float
        Parameters N. [count]
    bytes_per_param : float
        What is saved per parameter: 14 for mixed-precision Adam (BF16 weights 2, FP32
        master 4, Adam moments 4 + 4); 2 for BF16 weights only (serving). [B/param]

    Notes
    -----
    size = N × bytes per parameter / 10¹² (decimal TB). Gradients are not saved, so a
    checkpoint is 2 B/param smaller than the 16 B/param training state of ZeRO §3.1.

    References
    ----------
    Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
    Models", arXiv 1910.02054, §3.1.

    Examples
    --------
    70 B at 14 B/param is 0.98 TB; Llama 3 405B is 5.67 TB:

    >>> round(checkpoint_tb(70e9, 14), 3), round(checkpoint_tb(405e9, 14), 3)
    (0.98, 5.67)
    """
    return params * bytes_per_param / 1e12


def usable_tb(raw_tb: float, protection: str) -> float:
    """Usable capacity after the protection overhead. [TB]

    Notes
    -----
    usable = raw × data / (data + parity) for the scheme (``PROTECTION_USABLE``).

    Examples
    --------
    >>> usable_tb(737.28, "raid6_8+2"), usable_tb(60, "ec_4+2")
    (589.824, 40.0)
    """
    return raw_tb * PROTECTION_USABLE[protection]


def usable_needed_tb(content_tb: float, growth_margin: float, fill_ceiling: float) -> float:
    """Usable capacity a tier needs to hold its content with growth below its ceiling. [TB]

    Notes
    -----
    usable = content × (1 + growth margin) / fill ceiling; 30 % growth is the planning
    guide's margin, 85 % the fill it alerts at.

    Examples
    --------
    20 TB of content, 30 % growth, 85 % ceiling: 26 / 0.85 = 30.6 TB.

    >>> round(usable_needed_tb(20, 0.30, 0.85), 1)
    30.6
    """
    return content_tb * (1 + growth_margin) / fill_ceiling


def nodes_for(need: float, per_node: float) -> int:
    """Whole nodes to deliver ``need`` at ``per_node`` each (0 when nothing is needed).

    >>> nodes_for(84, 100), nodes_for(2_760, 76.8), nodes_for(0, 17.1)
    (1, 36, 0)
    """
    if need <= 0:
        return 0
    return math.ceil(round(need / per_node, 9))
