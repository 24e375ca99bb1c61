"""Checkpoint interval and goodput: Young/Daly, from the job MTBF and the write time.

These tie storage bandwidth to training days: the faster a checkpoint is written, the
more often it can be taken and the less work an interruption loses.
"""

from __future__ import annotations

import math


def checkpoint_interval_s(write_s: float, mtbf_s: float) -> float:
    """Optimal compute time between checkpoints (Daly 2006, first order). [s]

    Notes
    -----
    τ = √(2 δ M) − δ for δ < 2M, and τ = M for δ ≥ 2M, with δ the checkpoint write
    time and M the job's mean time between interruptions. τ is the time spent
    computing between two checkpoints; one starts every τ + δ = √(2 δ M), Young's
    optimum period. Daly's higher-order terms (a factor 1 + (1/3)√(δ/2M) + (1/9)(δ/2M)
    on the root) are left out: below 2 % for δ/M < 0.005, as in every plan's sized
    write window, and without them the period is exactly Young's, which
    :func:`checkpoint_time_share` and :func:`write_window_s` invert.

    References
    ----------
    J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM
    17(9), 1974. J. T. Daly, "A higher order estimate of the optimum checkpoint interval
    for restart dumps", FGCS 22(3), 2006.

    Examples
    --------
    A 60 s write and a 3 h MTBF (10 800 s): √(2 × 60 × 10 800) − 60 = 1 138.4 − 60
    = 1 078.4 s.

    >>> round(checkpoint_interval_s(60, 10_800), 1)
    1078.4
    >>> checkpoint_interval_s(3_000, 1_000)  # δ ≥ 2M: checkpoint once per MTBF
    1000
    """
    if write_s >= 2 * mtbf_s:
        return mtbf_s
    return math.sqrt(2 * write_s * mtbf_s) - write_s


def goodput(write_s: float, interval_s: float, mtbf_s: float, restart_s: float) -> float:
    """Share of wall-clock time that trains, computing ``interval_s`` between checkpoints.

    Notes
    -----
    With the period P = τ + δ: goodput = 1 − δ/P − (P/2 + R)/M, first order: writes
    take δ of every P; each interruption (one every M) loses half a period of work on
    average plus the restart time R (Young 1974; Daly 2006 for τ excluding δ). Never
    below 0 (where the first-order terms pass 1 the job makes no progress).

    Examples
    --------
    δ = 60 s, τ = 1 078.4 s (P = 1 138.4 s), M = 10 800 s, R = 900 s:
    1 − 0.0527 − 0.0527 − 0.0833 = 0.811.

    >>> round(goodput(60, 1078.4, 10_800, 900), 3)
    0.811
    """
    period = interval_s + write_s
    return max(0.0, 1 - write_s / period - (period / 2 + restart_s) / mtbf_s)


def checkpoint_time_share(goodput_target: float, mtbf_s: float, restart_s: float) -> float:
    """Share of training time checkpoint writes may take to reach a goodput target.

    Notes
    -----
    At the Young optimum the write share δ/τ equals the lost-work share τ/(2M), so the
    (1 − goodput) budget less restarts R/M splits in two halves:
    share = ((1 − goodput) − R/M) / 2. Zero or less means restarts alone exceed the
    budget: no storage reaches the target.

    Examples
    --------
    90 % goodput, M = 3.09 h = 11 124 s, R = 900 s: (0.1 − 0.0809) / 2 = 0.00955.

    >>> round(checkpoint_time_share(0.9, 11_124, 900), 5)
    0.00955
    """
    return ((1 - goodput_target) - restart_s / mtbf_s) / 2


def write_window_s(share: float, mtbf_s: float) -> float:
    """Longest checkpoint write that keeps writes at ``share`` of time at the optimum. [s]

    Notes
    -----
    With τ = √(2 δ M), δ/τ = √(δ / 2M); setting it to the share gives δ = 2 M share².

    Examples
    --------
    share 0.05 and M = 372.6 h = 1 341 360 s: 2 × 1 341 360 × 0.0025 = 6 706.8 s.

    >>> round(write_window_s(0.05, 1_341_360), 1)
    6706.8
    """
    return 2 * mtbf_s * share**2
