"""Operating cost, depreciation and the cost of a useful GPU-hour.

References
----------
.. [guide] "智算技术与算力规划设计及部署实施方案" v2.0, §4.4 (utilisation 30-50 % without a
   scheduler, 70 %+ with one) and §5.3 (electricity is the long-run cost to budget).
"""

from __future__ import annotations

import numpy as np

HOURS_PER_YEAR = 8760.0


def energy_mwh_per_year(it_kw, pue, duty_cycle=1.0):
    """Facility energy in a year [MWh].

    Notes
    -----
    E = P_IT,typical × duty cycle × PUE × 8 760 h ÷ 1 000.

    Examples
    --------
    100 kW of IT at PUE 1.25 all year: 100 × 1.25 × 8 760 / 1 000 = 1 095 MWh.

    >>> round(float(energy_mwh_per_year(100.0, 1.25)), 1)
    1095.0
    """
    return np.multiply(it_kw, duty_cycle) * pue * HOURS_PER_YEAR / 1000.0


def energy_usd_per_year(it_kw, pue, usd_per_kwh, duty_cycle=1.0):
    """Electricity cost in a year [USD].

    Notes
    -----
    C = P_IT × duty cycle × PUE × 8 760 h × price.

    Examples
    --------
    100 kW at PUE 1.25 and $0.088/kWh: 1 095 000 kWh × 0.088 = $96 360.

    >>> round(float(energy_usd_per_year(100.0, 1.25, 0.088)))
    96360
    """
    return energy_mwh_per_year(it_kw, pue, duty_cycle) * 1000.0 * usd_per_kwh


def maintenance_usd_per_year(capex_usd, share):
    """Maintenance and support in a year as a share of capex [USD].

    >>> float(maintenance_usd_per_year(1_000_000.0, 0.08))
    80000.0
    """
    return np.multiply(capex_usd, share)


def depreciation_usd_per_year(capex_usd, life_years, residual_share=0.0):
    """Straight-line depreciation [USD per year].

    Notes
    -----
    D = capex × (1 − residual share) ÷ life.

    References
    ----------
    Useful lives in company filings: Microsoft, Alphabet, CoreWeave 6 years; Meta 5.5;
    Amazon 5 (a subset of servers from 2025); Nebius 4.

    Examples
    --------
    $5.4 M over 5 years with nothing left: $1.08 M a year.

    >>> float(depreciation_usd_per_year(5_400_000.0, 5))
    1080000.0
    """
    return np.multiply(capex_usd, 1.0 - np.asarray(residual_share)) / life_years


def useful_gpu_hours(gpus, utilisation, goodput=1.0, hours=HOURS_PER_YEAR):
    """GPU-hours a year that do useful work [GPU-h].

    Notes
    -----
    H = GPUs × hours × utilisation × goodput. Utilisation is the share of hours
    allocated to jobs (70 % with a scheduler, 30-50 % by hand: planning guide §4.4);
    goodput the share of allocated hours not lost to failures, restarts and checkpoints.

    Examples
    --------
    1 000 GPUs × 8 760 h × 0.7 = 6.132 M GPU-hours.

    >>> float(useful_gpu_hours(1000, 0.7))
    6132000.0
    """
    return np.multiply(gpus, hours) * utilisation * goodput


def cost_per_useful_gpu_hour(own_usd_per_year, gpus, utilisation, goodput=1.0):
    """Annual cost over the useful GPU-hours [USD per GPU-h].

    Notes
    -----
    c = annual cost ÷ (GPUs × 8 760 × utilisation × goodput).

    Examples
    --------
    $6.132 M a year over 1 000 GPUs at 70 % utilisation: $1.00 a useful GPU-hour.

    >>> float(cost_per_useful_gpu_hour(6_132_000.0, 1000, 0.7))
    1.0
    """
    return np.divide(own_usd_per_year, useful_gpu_hours(gpus, utilisation, goodput))


def staff_usd_per_year(headcount, usd_per_year):
    """Cost of one staff role in a year [USD].

    >>> float(staff_usd_per_year(2, 60_000.0))
    120000.0
    """
    return headcount * usd_per_year


def colocation_usd_per_year(it_kw, usd_per_kw_month):
    """Colocation rent in a year for an IT load [USD].

    Notes
    -----
    R = kW × price per kW-month × 12. CBRE's H2 2023 North American average was
    $163.44 per kW a month.

    >>> round(float(colocation_usd_per_year(100.0, 163.44)))
    196128
    """
    return np.multiply(it_kw, usd_per_kw_month) * 12.0
