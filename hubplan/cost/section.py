"""The cost section: prices, operating costs, depreciation, utilisation, cloud comparison,
phasing, sensitivity ranges and carbon.

PUE is the facility section's (``facility.pue``: the building's); the electricity tariff
is this section's (``cost.electricity_usd_per_kwh``: a price). Scenario files that still
give the tariff under ``facility`` load, with a message saying it moved
(:data:`hubplan.scenario.MOVED_FIELDS`).

References
----------
.. [guide] "智算技术与算力规划设计及部署实施方案" v2.0 (the practitioners' planning guide):
   §4.4 GPU utilisation 30-50 % without a scheduler, 70 %+ with one; §5.3 run costs
   (electricity, spares) belong in the plan; §7 plan need + 30 % headroom rather than
   doubling, since hardware prices keep falling, and the team that runs it is part of the
   plan.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..core.section import Section

#: The assumptions the tornado and the Monte Carlo vary (see :class:`Assumption`).
ASSUMPTIONS = (
    "mfu",
    "utilisation",
    "gpu_price",
    "electricity_price",
    "pue",
    "cloud_price",
    "depreciation_years",
    # cloud: fit-out, staff and the cost of capital join the tornado
    "fitout_usd_per_kw",
    "staff_cost",
    "discount_rate",
    # prices: the hardware maintenance share
    "maintenance",
)
#: Assumptions given as a factor on the plan's own figure rather than as a value.
FACTOR_ASSUMPTIONS = ("gpu_price", "electricity_price", "cloud_price", "staff_cost", "maintenance")
CloudKind = Literal["on_demand", "reserved", "capacity_block"]


class StaffRole(Section):
    """One role in the team that runs the centre."""

    role: str = Field(min_length=1, description="Role name, e.g. 'cluster operations'.")
    headcount: float = Field(ge=0, le=10_000, description="People in the role (FTE).")
    usd_per_year: float | None = Field(
        None, ge=0, description="Loaded annual cost of one person [USD]; empty = not priced."
    )


class StaffRatio(Section):
    """One role of the operations team, sized from the plan: FTE = max(minimum, units ÷
    units per FTE), the units being the GPU servers in service, the racks or the MW of
    critical IT load (``site``: the minimum only)."""

    role: str = Field(min_length=1, description="Role name, e.g. 'systems_operations'.")
    basis: Literal["servers", "racks", "mw", "site"] = Field(
        description="What the role scales with: GPU servers in service, racks, MW of "
        "critical (nameplate) IT load, or one team per site."
    )
    units_per_fte: float = Field(gt=0, description="Servers, racks or MW one FTE covers.")
    minimum_fte: float = Field(0.0, ge=0, le=10_000, description="FTE at the smallest size.")
    own_building_only: bool = Field(
        False,
        description="Only when site = own_building (a colocation provider staffs its "
        "own power and cooling).",
    )
    usd_per_year: float | None = Field(None, ge=0, description="Annual pay [USD].")
    cny_per_year: float | None = Field(
        None, ge=0, description="Annual pay in China [CNY], used when currency = CNY."
    )
    source: str = Field("", description="Where the ratio and the pay come from.")


class OpticsPrice(Section):
    """Price of one cable and one module of a link medium at a speed."""

    media: str = Field(
        min_length=1,
        description="As the network stage's transceivers table "
        "names it, e.g. 'transceiver-SR4', 'DAC'.",
    )
    speed_gbps: float = Field(gt=0, description="Link speed [Gb/s].")
    module_usd: float | None = Field(None, ge=0, description="One module [USD].")
    cable_usd: float | None = Field(None, ge=0, description="One cable [USD].")
    source: str = Field("", description="Where the prices come from (quote, price list).")


class Quote(Section):
    """A price the client was quoted for one catalogue item: it replaces the price
    catalogue's (``data/prices.csv``) and any catalogue table's price for that item."""

    kind: Literal["server", "switch", "storage", "optics_module", "optics_cable"] = Field(
        description="What it prices, as data/prices.csv's item_kind."
    )
    name: str = Field(
        min_length=1,
        description="The item: a server, switch or storage "
        "model as the plan names it, or '<media> <speed> module' / '… cable' "
        "for optics, e.g. 'transceiver-DR4 100 module'.",
    )
    price_usd: float = Field(ge=0, description="Unit price [USD].")
    low_usd: float | None = Field(None, ge=0, description="Low end [USD]; empty = the price.")
    high_usd: float | None = Field(None, ge=0, description="High end [USD]; empty = the price.")
    source: str = Field(min_length=1, description="Who quoted it (vendor, reseller, tender).")
    as_of: str = Field(min_length=4, description="Date of the quote, e.g. '2026-11'.")

    @model_validator(mode="after")
    def _in_range(self) -> Quote:
        low = self.price_usd if self.low_usd is None else self.low_usd
        high = self.price_usd if self.high_usd is None else self.high_usd
        if not low <= self.price_usd <= high:
            raise ValueError(
                f"quote {self.kind} {self.name!r}: low ({low:g}) <= price_usd "
                f"({self.price_usd:g}) <= high ({high:g}) must hold"
            )
        return self


class Assumption(Section):
    """A range the tornado swings and the Monte Carlo samples (triangular around the plan's
    value). ``gpu_price``, ``electricity_price``, ``cloud_price``, ``staff_cost`` and
    ``maintenance`` are
    factors on the plan's price; the others are values (``fitout_usd_per_kw`` in USD per
    kW of critical load, ``discount_rate`` the cost of capital a year)."""

    name: Literal[
        "mfu",
        "utilisation",
        "gpu_price",
        "electricity_price",
        "pue",
        "cloud_price",
        "depreciation_years",
        "fitout_usd_per_kw",
        "staff_cost",
        "discount_rate",
        "maintenance",
    ]
    low: float = Field(gt=0, description="Low end (value or factor).")
    high: float = Field(gt=0, description="High end (value or factor).")
    source: str = Field("", description="Why this range.")

    @model_validator(mode="after")
    def _ordered(self) -> Assumption:
        if not self.low <= self.high:
            raise ValueError(
                f"assumption {self.name}: low ({self.low:g}) must be <= high ({self.high:g})"
            )
        return self


#: 8 760 hours a year over 2 080 paid hours of one FTE (52 weeks × 40 h): one post kept
#: manned around the clock takes 4.2 FTE.
SHIFT_RELIEF_FTE = 8760 / 2080

DEFAULT_STAFF_RATIOS = (
    StaffRatio(
        role="systems_operations",
        basis="servers",
        units_per_fte=125,
        minimum_fte=1,
        usd_per_year=90_520,
        cny_per_year=231_810,
        source="Roskies & Zacharia, 'Designing and Supporting High-end Computational "
        "Facilities', CTWatch Quarterly 2(2), 2006: sites add one systems FTE for about "
        "every 250 processors (two a server: 125 servers); 8-12 FTE for a large "
        "stand-alone system. Pay: BLS OOH, network and computer systems administrators, "
        "median $90,520 (May 2022); NBS, information transmission, software and IT "
        "services, urban non-private units, 231 810 CNY (2023).",
    ),
    StaffRatio(
        role="facility_shift",
        basis="mw",
        units_per_fte=1 / 3,
        minimum_fte=round(2 * SHIFT_RELIEF_FTE, 2),
        own_building_only=True,
        usd_per_year=57_300,
        cny_per_year=120_698,
        source="Facilitiesnet, 'Operations Objectives Should Drive Data Center Staffing "
        "Decisions': a minimum of two people on each shift for a critical facility "
        "run around the clock; 2 posts × 8 760 h ÷ 2 080 h = 8.42 FTE. Above that, "
        "three per MW of critical load: Broadstaff Global, 'Data Center Staffing "
        "Levels' (2025), 8-15 staff for a 1-5 MW facility, 15 at 5 MW; beyond 5 MW "
        "an extrapolation (larger sites need fewer per MW). Pay: BLS OOH, HVACR "
        "mechanics, median $57,300 (May 2023); NBS, all urban non-private units, "
        "120 698 CNY (2023).",
    ),
)

DEFAULT_RANGES = (
    Assumption(
        name="mfu",
        low=0.35,
        high=0.55,
        source="MFU of a new cluster: 0.35-0.55 is the range the compute-hub proposal "
        "review works with (0.45 typical; Llama 3 405B 38-43 %).",
    ),
    Assumption(
        name="utilisation",
        low=0.30,
        high=0.80,
        source="Planning guide §4.4: 30-50 % with manual allocation, 70 %+ with a "
        "scheduler; 0.80 a well-run scheduler.",
    ),
    Assumption(
        name="gpu_price",
        low=0.74,
        high=1.17,
        source="DGX H100 $199k (supercluster.blog) and an 8 × H100 HGX quote of $317k "
        "(Thinkmate, Aug 2024) against $270k (SemiAnalysis via Epoch AI).",
    ),
    Assumption(
        name="electricity_price",
        low=0.57,
        high=1.2,
        source="0.36 RMB/kWh (Zhongwei, Ningxia) against the 0.63 RMB national "
        "industrial average (China Briefing 2024) = 0.57; +20 % for time-of-use peaks "
        "(an assumption).",
    ),
    Assumption(
        name="pue",
        low=1.1,
        high=1.58,
        source="Hyperscale 1.08-1.12 (Patterson et al. 2021, Table 4); Uptime "
        "Institute 2023 global average 1.58.",
    ),
    Assumption(
        name="cloud_price",
        low=0.84,
        high=3.84,
        source="H100 SXM on demand in the 2026 price lists: $2.69 (RunPod community "
        "cloud, runpod.io/pricing, 2026-11-09: marketplace capacity, the low end of "
        "the market, not in data/cloud.csv) to $12.29 (Azure ND96isr H100 v5) "
        "against the cheapest data-centre offer, Hyperstack's $3.20 (data/cloud.csv): "
        "2.69 / 3.20 = 0.84, 12.29 / 3.20 = 3.84.",
    ),
    Assumption(
        name="depreciation_years",
        low=4,
        high=6,
        source="Nebius 4 years for GPUs; Microsoft, Alphabet and CoreWeave 6 years "
        "(10-K / S-1 filings).",
    ),
    # cloud: fit-out, staff and the cost of capital
    Assumption(
        name="fitout_usd_per_kw",
        low=9_300,
        high=15_000,
        source="Cushman & Wakefield, Data Center Development Cost Guide 2025: "
        "$9.3-15.0 M per MW across 19 US markets ($11.7 M average).",
    ),
    Assumption(
        name="staff_cost",
        low=0.8,
        high=1.5,
        source="An assumption: the loaded cost of the operations team from 20 % "
        "below the plan's salaries to half again above them (a tight hiring "
        "market, on-call cover); set it from the client's offers.",
    ),
    Assumption(
        name="maintenance",
        low=0.83,
        high=1.67,
        source="Hardware maintenance and support 10-12 % of the purchase price a year "
        "(Library Technology Guides) up to about 20 % for a year of DGX H100 support "
        "(supercluster.blog) against the section's 12 %: 10 / 12 = 0.83, "
        "20 / 12 = 1.67.",
    ),
    Assumption(
        name="discount_rate",
        low=0.04,
        high=0.12,
        source="An assumption around the section's 8 %: 4 % a state-backed "
        "borrower's cost of debt, 12 % a private investor's hurdle rate; the "
        "client's finance team sets the rate.",
    ),
)


class Cost(Section):
    """Cost stage: capex, opex, depreciation, utilisation, cloud comparison and risk."""

    # -- capex ---------------------------------------------------------------------------
    site: Literal["own_building", "colocation"] = Field(
        "own_building",
        description="own_building: the fit-out per kW of IT load is capex; colocation: "
        "space and power delivery are rented per kW a month (opex). A compute centre the "
        "client builds is the planning guide's case.",
    )
    fitout_usd_per_kw: float | None = Field(
        11_700.0,
        ge=0,
        description="Facility fit-out per kW of critical IT load [USD/kW]: Cushman & "
        "Wakefield, Data Center Development Cost Guide 2025: $11.7 M per MW on average "
        "across 19 US markets ($9.3-15.0 M). Land, design and owner costs excluded. Empty "
        "= not priced.",
    )
    installation_share: float | None = Field(
        0.10,
        ge=0,
        le=1,
        description="Installation, cabling, integration and commissioning as a share of the "
        "hardware capex: 10 %, the low end of the 10-15 % that Chinese IT project estimates "
        "charge for hardware and software integration (信息系统集成费, design, installation, "
        "commissioning and after-sales service, as a share of the equipment purchase) in the "
        "rate table practitioners use with MIIT's 2008 通信建设工程概算、预算编制办法 "
        "(quoted at zkxblog.com, read-6265867). GPU servers arrive factory-integrated, "
        "hence the low end. Low confidence: one secondary source; set it from the "
        "integrator's quote. Empty = an unpriced line.",
    )
    network_spares_share: float = Field(
        0.05,
        ge=0,
        le=1,
        description="Spare switches and optics as a share of those bought: one per twenty, "
        "the training pool's server spare ratio (BLOOM kept 4 spare nodes for 48). Server "
        "spares are in the pools table already (pools.*.spare_ratio).",
    )
    optics_prices: tuple[OpticsPrice, ...] = Field(
        (),
        description="Module and cable prices by medium and speed; a medium with no price is "
        "an unpriced line (no public price list was found to default from).",
    )
    # prices: the client's quotes, before the price catalogue
    quotes: tuple[Quote, ...] = Field(
        (),
        description="Quoted unit prices for catalogue items (servers, switches, storage "
        "nodes, optics); each replaces the catalogue's price and range. Empty: the "
        "catalogues' published prices (data/prices.csv), and an unpriced line where none "
        "was found.",
    )
    # -- opex ----------------------------------------------------------------------------
    electricity_usd_per_kwh: float = Field(
        0.088,
        ge=0,
        le=2,
        description="Electricity tariff [USD/kWh]: China's average industrial rate in 2024 "
        "(China Briefing, 'China's Industrial Power Rates: A Guide for Investors').",
    )
    duty_cycle: float = Field(
        1.0,
        gt=0,
        le=1,
        description="Share of the year the equipment runs at its typical draw: 1.0, since "
        "the fleet stays powered all year and the typical draw already averages load "
        "(facility.server_typical_ratio).",
    )
    maintenance_share: float | None = Field(
        0.12,
        ge=0,
        le=1,
        description="Hardware maintenance and support per year as a share of the capex of "
        "the systems it covers (GPU servers, storage, switches and appliances, management "
        "servers): 12 %. A hardware maintenance contract 'usually works out to an annual "
        "cost of between 10 and 12 percent of the total purchase price' (Library "
        "Technology Guides, doc 7428); annual support 10-15 % of the purchase cost "
        "(philipcrewe.net, 2013); one year of DGX H100 support about 20 % of its $199,000 "
        "base price (supercluster.blog) is the high end. Medium-low confidence; the "
        "vendor's support quote replaces it. Empty = an unpriced line.",
    )
    insurance_share: float | None = Field(
        0.003,
        ge=0,
        le=1,
        description="Property insurance per year as a share of the insured capex (every "
        "line but taxes): 0.3 %, inside the $0.15-0.50 per $100 of project value a year "
        "that data-centre builders-risk policies cost (Hotaling Insurance, 'Data Center "
        "Construction Insurance Costs', 2026); an operating property policy is taken at "
        "the same rate. Low confidence; the broker's quote replaces it. Empty = an "
        "unpriced line.",
    )
    staff: tuple[StaffRole, ...] = Field(
        (),
        description="The team that runs the centre, given role by role (planning guide §7: "
        "the plan says how many people and which skills); empty = sized from "
        "staff_ratios.",
    )
    colocation_usd_per_kw_month: float | None = Field(
        163.44,
        ge=0,
        description="Colocation rent per kW of IT load a month [USD], used when site = "
        "colocation: CBRE North America Data Center Trends H2 2023, average asking rate "
        "for 250-500 kW, $163.44.",
    )
    colocation_cny_per_kw_month: float | None = Field(
        1300.0,
        ge=0,
        description="Colocation rent per kW a month in China [CNY], used when site = "
        "colocation and currency = CNY: about 1 300 CNY, the national average cabinet rent "
        "after falling from about 2 000 (below 1 000 in some western regions) (vidaamax.com, "
        "'China's IDC Expansion', 2023). Low confidence: one translated secondary source.",
    )
    licences_usd_per_gpu_year: float = Field(
        0.0,
        ge=0,
        description="Software subscriptions per GPU a year [USD]. 0: open-source Slurm / "
        "Kubernetes, and H100 systems ship with a 5-year NVIDIA AI Enterprise "
        "subscription; NVIDIA AI Enterprise lists $4,500 per GPU a year (NVIDIA Q3 FY2024 "
        "earnings call).",
    )
    # cashflow: staff by role sized from the plan
    staff_ratios: tuple[StaffRatio, ...] = Field(
        DEFAULT_STAFF_RATIOS,
        description="Roles sized from the GPU servers, racks or MW when staff is empty: "
        "systems operations one FTE per 125 servers (Roskies & Zacharia 2006), facility "
        "staff in an own building at least two posts around the clock (Facilitiesnet) and "
        "three per MW above that (Broadstaff), each with its pay in USD (BLS) and CNY "
        "(NBS).",
    )
    # -- depreciation and use ------------------------------------------------------------
    depreciation_years: float = Field(
        5.0,
        gt=0,
        le=20,
        description="Straight-line life of servers and network equipment [years]: 5, as "
        "Amazon (a subset of servers from January 2025) and near Meta's 5.5; Microsoft, "
        "Alphabet and CoreWeave use 6, Nebius 4 (company filings).",
    )
    residual_share: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="Resale value at the end of the life as a share of capex: 0, as the "
        "filings above depreciate to nil; set it from a buy-back offer.",
    )
    utilisation: float = Field(
        0.70,
        gt=0,
        le=1,
        description="Share of GPU-hours allocated to jobs: 0.70 with a scheduler and queues; "
        "0.30-0.50 with manual allocation (planning guide §4.4).",
    )
    goodput: float | None = Field(
        None,
        gt=0,
        le=1,
        description="Share of allocated GPU-hours that does useful work (restarts and "
        "checkpoints lose the rest); empty = the training jobs' goodput "
        "(workload.training[].goodput), GPU-weighted, or 1 without training jobs.",
    )
    # cashflow: lives per asset class (servers keep depreciation_years above)
    network_life_years: float = Field(
        6.0,
        gt=0,
        le=20,
        description="Life of switches, optics and cables [years]: 6, as Microsoft and "
        "Alphabet depreciate servers and network equipment (10-K filings, FY2023) and "
        "Amazon its networking gear from 2022 (10-K).",
    )
    storage_life_years: float = Field(
        5.0,
        gt=0,
        le=20,
        description="Life of storage nodes and drives [years]: 5, the server life "
        "(storage nodes are servers; Amazon 5 years for a subset of servers from 2025, "
        "10-K).",
    )
    fitout_life_years: float = Field(
        15.0,
        ge=5,
        le=40,
        description="Life of the facility fit-out (power, cooling, fire, racks and "
        "containment) [years]: 15, inside ASHRAE's 10-25 years for facilities and "
        "infrastructure (HVAC Applications 2011, ch. 19) and the 15 years the ATO gives "
        "refrigeration compressors and condensers (TR 2022/1, Table B).",
    )
    fitout_residual_share: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="Fit-out value at the end of its life as a share of its price: 0, a "
        "fit-out is written off over its life; before then it is worth its book value.",
    )
    # -- cloud ---------------------------------------------------------------------------
    horizon_years: int = Field(
        5, ge=1, le=15, description="Planning horizon [years]: the depreciation life."
    )
    cloud_offer: str | None = Field(
        None,
        description="A name in the cloud offers (data/cloud.csv or --cloud-csv) to compare "
        "against; empty = the cheapest on-demand offer for the training pool's accelerator "
        "(on demand is paid per hour used, like for like with the own fleet's useful "
        "hours; a reservation, named here, is compared by its total cost over its term).",
    )
    cloud_usd_per_gpu_hour: float | None = Field(
        None, gt=0, description="Override the offer's price [USD per GPU-hour]."
    )
    hybrid_own_share: float = Field(
        0.7,
        ge=0,
        le=1,
        description="Hybrid: the share of the fleet owned as the base; the rest is rented "
        "on demand at peaks. 0.7: own what a scheduler keeps busy (planning guide §4.4).",
    )
    discount_rate: float = Field(
        0.08,
        ge=0,
        le=1,
        description="Annual discount rate for NPV and the capital charge (capex annuitised "
        "over each asset's life): an assumption standing in for the "
        "client's cost of capital; set it to the finance team's rate.",
    )
    # -- phasing -------------------------------------------------------------------------
    phase_headroom: float = Field(
        0.30,
        ge=0,
        le=5,
        description="Phased build: buy need × (1 + this) now. 30 %, 'not double it' "
        "(planning guide §7).",
    )
    full_build_factor: float = Field(
        2.0,
        ge=1,
        le=10,
        description="Buy-all-now: the fleet bought up front as a multiple of need; 2.0 is "
        "the 'double it' the planning guide warns against (§7).",
    )
    expand_after_years: int = Field(
        2,
        ge=1,
        le=15,
        description="Phased build: the year the rest is bought (GPUs come in two-year "
        "generations, planning guide §7).",
    )
    annual_price_decline: float = Field(
        0.285,
        ge=0,
        lt=1,
        description="Yearly fall in the price of a unit of compute: FLOP/s per dollar of "
        "ML GPUs doubles every 2.07 years (Epoch AI, 'Trends in GPU price-performance', "
        "2022): 1 − 2^(−1/2.07) = 28.5 %.",
    )
    # -- risk ----------------------------------------------------------------------------
    ranges: tuple[Assumption, ...] = Field(
        DEFAULT_RANGES, description="Ranges for the tornado and the Monte Carlo (cited)."
    )
    samples: int = Field(
        10_000,
        ge=100,
        le=1_000_000,
        description="Monte Carlo samples: 10 000 keep P10/P90 within about 1 % (binomial "
        "error of a 10 % quantile at n = 10 000 is √(0.1 × 0.9 / 10 000) = 0.3 %).",
    )
    seed: int = Field(12, ge=0, description="Random seed: the same plan gives the same answer.")
    # -- carbon --------------------------------------------------------------------------
    grid_region: Literal[
        "china_2022",
        "china_2023",
        "china_yunnan_2022",
        "china_sichuan_2022",
        "china_hebei_2022",
        "us_2022",
        "eu27_2018",
    ] = Field(
        "china_2022",
        description="Grid emission factor region (data/grid_carbon.csv, each with its "
        "source): China's 2022 national factor, 0.5366 kg CO2/kWh (MEE/NBS, Dec 2024).",
    )
    green_share: float = Field(
        0.0,
        ge=0,
        le=1,
        description="Share of the energy bought as green power (zero-emission); 0 unless "
        "the client contracts it.",
    )
    # -- currency and taxes (cashflow) ----------------------------------------------------
    currency: Literal["USD", "CNY"] = Field(
        "USD",
        description="Currency of the cost tables: USD (every price in the catalogues is in "
        "USD), or CNY, which adds a _cny twin beside every _usd column at cny_per_usd.",
    )
    cny_per_usd: float = Field(
        7.1884,
        gt=0,
        le=100,
        description="Exchange rate [CNY per USD]: the CFETS central parity the People's Bank "
        "of China authorised for 31 December 2024, 7.1884 (China Foreign Exchange Trade "
        "System, as reported by Xinhua). Set the rate of the budget's date.",
    )
    cny_per_usd_date: str = Field(
        "2024-12-31",
        pattern=r"^\d{4}-\d{2}-\d{2}$",
        description="Date of cny_per_usd (YYYY-MM-DD), shown beside every CNY figure.",
    )
    import_duty_rate: float = Field(
        0.0,
        ge=0,
        le=2,
        description="Import duty on the IT hardware (servers, accelerators, switches, optics, "
        "storage) as a share of its price: 0, China's MFN rate on HS 8471 computers and "
        "8517 switches under the WTO Information Technology Agreement (Customs Tariff of "
        "the PRC). Set it where an additional tariff applies to the goods' origin.",
    )
    vat_rate: float = Field(
        0.13,
        ge=0,
        le=1,
        description="VAT on purchases: 13 %, China's standard rate on goods since 1 April "
        "2019 (MOF, STA and GACC Announcement No. 39 of 2019).",
    )
    vat_recoverable: bool = Field(
        True,
        description="True: the buyer is a general VAT taxpayer and deducts input VAT on "
        "equipment (consumption-type VAT since 2009, PRC Provisional Regulations on VAT), "
        "so VAT is no cost. False (a public body or a small-scale taxpayer): VAT at "
        "vat_rate is added to every capex line and to the opex bought from suppliers "
        "(energy, maintenance, space, licences; not staff).",
    )

    @model_validator(mode="after")
    def _unique_ranges(self) -> Cost:
        names = [r.name for r in self.ranges]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"cost.ranges: {', '.join(dupes)} given more than once")
        return self
