"""Checkpoint interval and goodput: Young/Daly, from the interruption rate and write time.

These tie storage bandwidth to training days: the faster a checkpoint is written, the
more often it can be taken and the less work an interruption loses.
"""

from __future__ import annotations

import math

HOURS_PER_YEAR = 8760.0  # 365 days, as the per-GPU-year rate is counted


def job_mtbf_hours(gpus: float, interruptions_per_gpu_year: float) -> float:
    """Mean time between interruptions of a job on ``gpus`` GPUs. [h]

    Notes
    -----
    M = 8 760 h / (rate per GPU-year × GPUs): interruptions are taken as independent per
    GPU, so the job's rate is the sum.

    References
    ----------
    Llama 3 405B: 419 unexpected interruptions in 54 days on 16 384 GPUs (Grattafiori et
    al., "The Llama 3 Herd of Models", arXiv 2407.21783, §3.3.4): one every 54 × 24 / 419
    = 3.09 h.

    Examples
    --------
    >>> rate = 419 / (16_384 * 54 / 365)  # 0.1729 per GPU-year
    >>> round(job_mtbf_hours(16_384, rate), 2)
    3.09
    """
    return HOURS_PER_YEAR / (interruptions_per_gpu_year * gpus)


def checkpoint_interval_s(write_s: float, mtbf_s: float) -> float:
    """Optimal checkpoint interval, first order (Young 1974, Daly 2006). [s]

    Notes
    -----
    τ = √(2 δ M), with δ the checkpoint write time and M the job's mean time between
    interruptions.

    References
    ----------
    J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM
    17(9), 1974. J. T. Daly, "A higher order estimate of the optimum checkpoint interval
    for restart dumps", FGCS 22(3), 2006.

    Examples
    --------
    A 60 s write and a 3 h MTBF (10 800 s): √(2 × 60 × 10 800) = 1 138.4 s.

    >>> round(checkpoint_interval_s(60, 10_800), 1)
    1138.4
    """
    return math.sqrt(2 * write_s * mtbf_s)


def goodput(write_s: float, interval_s: float, mtbf_s: float, restart_s: float) -> float:
    """Share of wall-clock time that trains, checkpointing every ``interval_s``.

    Notes
    -----
    goodput = 1 − δ/τ − (τ/2 + R)/M, first order: writes take δ every τ; each
    interruption (one every M) loses half an interval of work on average plus the restart
    time R (Young 1974).

    Examples
    --------
    δ = 60 s, τ = 1 138.4 s, M = 10 800 s, R = 900 s: 1 − 0.0527 − 0.0527 − 0.0833 = 0.811.

    >>> round(goodput(60, 1138.4, 10_800, 900), 3)
    0.811
    """
    return 1 - write_s / interval_s - (interval_s / 2 + restart_s) / mtbf_s


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
