"""Latency budget for a hub serving real-time users: fibre, hops, serving time, radius."""

from __future__ import annotations

import pandas as pd

from ..core.errors import check_range

#: One-way propagation in optical fibre: light at ≈ 200 000 km/s (n ≈ 1.47). [ms/km]
FIBRE_MS_PER_KM = 0.005

LATENCY_COLUMNS = ["component", "latency_ms", "radius_km"]


def service_radius_km(
    target_ms: float, serving_ms: float, hops: int, hop_us: float, round_trip: bool = True
) -> float:
    """Distance within which users meet the latency target. [km]

    Notes
    -----
    radius = (target − serving − hops × hop) / (k × 0.005 ms/km), k = 2 for a round trip.

    References
    ----------
    Fibre ≈ 5 µs per km one way (light at ~200 000 km/s in glass).

    Examples
    --------
    20 ms round trip, 5 ms serving, 10 hops of 50 µs: (20 − 5 − 0.5) / 0.01 = 1 450 km:

    >>> service_radius_km(20, 5, 10, 50)
    1450.0
    >>> service_radius_km(4, 5, 0, 0)
    0.0
    """
    check_range("latency_target_ms", target_ms, gt=0)
    left = target_ms - serving_ms - hops * hop_us / 1000
    return max(0.0, left / ((2 if round_trip else 1) * FIBRE_MS_PER_KM))


def latency_budget(target_ms: float, serving_ms: float, hops: int, hop_us: float) -> pd.DataFrame:
    """The budget as rows: serving, hops, fibre (what is left) and the target."""
    radius = service_radius_km(target_ms, serving_ms, hops, hop_us)
    fibre = radius * 2 * FIBRE_MS_PER_KM
    return pd.DataFrame(
        [
            ("serving", serving_ms, float("nan")),
            ("hops", hops * hop_us / 1000, float("nan")),
            ("fibre", fibre, radius),
            ("target", target_ms, radius),
        ],
        columns=LATENCY_COLUMNS,
    )
