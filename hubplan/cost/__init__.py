"""Cost stage: what the centre costs to build and run, what a useful GPU-hour costs, and
whether renting would be cheaper.

Capex by line from the bill of materials (every line with its price basis; an unknown
price is an unpriced line, never 0), opex per year, straight-line depreciation, the cost
of a useful GPU-hour, own versus cloud over the horizon with the break-even month and
utilisation and NPV, the capital charge (capex annuitised over each asset class's life)
and the cash flow by year with refreshes and residual values, phasing, a tornado of the
key assumptions, a Monte Carlo and carbon.
"""

from .capex import CAPEX_COLUMNS, capex_range, capex_totals, fitout_usd, line_usd, share_usd
from .carbon import emissions_t_per_year
from .cashflow import (
    annuity_factor,
    capital_charge_usd,
    capital_recovery_factor,
    cashflow_table,
    discount_factor,
)
from .cloud import (
    CLOUD_SCHEMA,
    breakeven_month,
    breakeven_utilisation,
    cheapest_offer,
    cloud_offer,
    cloud_offers,
    cloud_usd_per_year,
    cumulative_curves,
    npv_usd,
)
from .compare import side_by_side
from .market import MARKET_COLUMNS, market_view
from .model import METRICS, CostBase, headline, monte_carlo, sample_assumptions, tornado
from .opex import (
    HOURS_PER_YEAR,
    colocation_usd_per_year,
    cost_per_useful_gpu_hour,
    depreciation_usd_per_year,
    energy_mwh_per_year,
    energy_usd_per_year,
    maintenance_usd_per_year,
    staff_usd_per_year,
    useful_gpu_hours,
)
from .phasing import phasing_table, price_factor
from .prices import Price, catalogue_price, price_table
from .section import (
    ASSUMPTIONS,
    Assumption,
    Cost,
    OpticsPrice,
    Quote,
    StaffRatio,
    StaffRole,
)

__all__ = [
    "ASSUMPTIONS",
    "CAPEX_COLUMNS",
    "CLOUD_SCHEMA",
    "HOURS_PER_YEAR",
    "MARKET_COLUMNS",
    "METRICS",
    "Assumption",
    "Cost",
    "CostBase",
    "OpticsPrice",
    "Price",
    "Quote",
    "StaffRatio",
    "StaffRole",
    "annuity_factor",
    "breakeven_month",
    "breakeven_utilisation",
    "capex_range",
    "capex_totals",
    "capital_charge_usd",
    "capital_recovery_factor",
    "cashflow_table",
    "catalogue_price",
    "cheapest_offer",
    "cloud_offer",
    "cloud_offers",
    "cloud_usd_per_year",
    "colocation_usd_per_year",
    "cost_per_useful_gpu_hour",
    "cumulative_curves",
    "depreciation_usd_per_year",
    "discount_factor",
    "emissions_t_per_year",
    "energy_mwh_per_year",
    "energy_usd_per_year",
    "fitout_usd",
    "headline",
    "line_usd",
    "maintenance_usd_per_year",
    "market_view",
    "monte_carlo",
    "npv_usd",
    "phasing_table",
    "price_factor",
    "price_table",
    "sample_assumptions",
    "share_usd",
    "side_by_side",
    "staff_usd_per_year",
    "tornado",
    "useful_gpu_hours",
]
