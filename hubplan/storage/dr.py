"""Disaster recovery: replication bandwidth, RPO, RTO and capacity at the second site."""

from __future__ import annotations

from ..core.units import SECONDS_PER_HOUR


def replication_gb_s(changed_tb: float, window_hours: float) -> float:
    """Bandwidth to copy the changed data within the backup window. [GB/s]

    Notes
    -----
    rate = changed × 1 000 GB/TB / (window × 3 600 s/h).

    Examples
    --------
    2 TB changed in an 8 h window: 2 000 / 28 800 = 0.069 GB/s.

    >>> round(replication_gb_s(2, 8), 3)
    0.069
    """
    return changed_tb * 1000 / (window_hours * SECONDS_PER_HOUR)


def transfer_hours(tb: float, link_gbps: float) -> float:
    """Hours to move ``tb`` over a link of ``link_gbps``. [h]

    Notes
    -----
    hours = TB × 8 000 Gb/TB / Gb/s / 3 600 (line rate: no protocol overhead).

    Examples
    --------
    5.67 TB over 100 Gb/s: 45 360 Gb / 100 = 453.6 s = 0.126 h.

    >>> round(transfer_hours(5.67, 100), 3)
    0.126
    """
    return tb * 8000 / link_gbps / SECONDS_PER_HOUR
