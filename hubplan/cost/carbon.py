"""Carbon: annual emissions from the centre's energy, the grid's intensity and green power.

References
----------
- China national 2022: 0.5366 kg CO2/kWh; 2023: 0.5306 (Ministry of Ecology and
  Environment and National Bureau of Statistics releases of December 2024 and 2025).
- China provincial 2022: Yunnan 0.1073, Sichuan 0.1404, Hebei 0.7252 (same release).
- United States 2022: 0.86 lb/kWh = 0.390 kg/kWh (US EIA FAQ "How much carbon dioxide is
  produced per kilowatt-hour of U.S. electricity generation?").
- EU-27 2018: 281 g CO2e/kWh (European Environment Agency, greenhouse-gas emission
  intensity of electricity generation indicator).
"""

from __future__ import annotations

import numpy as np

#: Grid emission factor by region [kg CO2 per kWh], each from the sources above.
GRID_KG_PER_KWH = {
    "china_2022": 0.5366,
    "china_2023": 0.5306,
    "china_yunnan_2022": 0.1073,
    "china_sichuan_2022": 0.1404,
    "china_hebei_2022": 0.7252,
    "us_2022": 0.390,
    "eu27_2018": 0.281,
}


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
