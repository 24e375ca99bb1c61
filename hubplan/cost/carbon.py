"""Carbon: annual emissions from the centre's energy, the grid's intensity and green power.

The grid emission factors, each with its source and date, are the catalogue table
``data/grid_carbon.csv`` (:meth:`hubplan.core.catalog.Catalog.grid_factor`).
"""

from __future__ import annotations

import numpy as np


def emissions_t_per_year(energy_mwh, kg_per_kwh, green_share=0.0):
    """CO2 from a year's energy [t].

    Notes
    -----
    t = MWh × (1 − green share) × kg/kWh (1 MWh × 1 kg/kWh = 1 t).

    Examples
    --------
    1 095 MWh on China's 2022 grid (0.5366): 587.6 t; half green: 293.8 t.

    >>> round(float(emissions_t_per_year(1095.0, 0.5366)), 1)
    587.6
    >>> round(float(emissions_t_per_year(1095.0, 0.5366, 0.5)), 1)
    293.8
    """
    return np.multiply(energy_mwh, 1.0 - np.asarray(green_share)) * kg_per_kwh
