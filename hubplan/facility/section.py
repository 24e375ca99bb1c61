"""The facility section: rack budgets, power rules, cooling modes, energy and pinned versions.

The power rules come from the practitioners' planning guide "智算技术与算力规划设计及部署实施方案"
(v2.0), §2.3 (AI racks draw 30-60 kW, legacy racks 8 kW), §5.2 (leave at least 15 % between
the power a rack is allocated and its supply; pin firmware and driver versions in the
equipment list) and §6.1 (size distribution at 1.5 × nameplate for power-on inrush and power
servers on in batches).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..core.section import Section

CoolingMode = Literal["air", "rear_door", "liquid"]
#: From the least to the most capable; a rack takes the first mode that holds its heat.
COOLING_MODES: tuple[str, ...] = ("air", "rear_door", "liquid")
#: Standard gravity, g_n = 9.806 65 m/s² (CGPM 1901; NIST SP 330): kg → N for floor loads.
STANDARD_GRAVITY_M_S2 = 9.80665


class VersionPin(Section):
    """Firmware and driver versions pinned for one equipment model."""

    model: str = Field(
        min_length=1,
        description="Equipment model as the equipment list names it (e.g. 'DGX H100', "
        "'compute NIC 400 Gb/s', a switch model).",
    )
    firmware: str = Field("", description="Pinned firmware version; blank = not pinned.")
    driver: str = Field("", description="Pinned driver version; blank = not pinned.")


class Facility(Section):
    """Facility stage: racks, power, cooling and the equipment list."""

    rack_budget_kw: float = Field(
        40.0,
        gt=0,
        le=500,
        description="Supply per compute rack [kW] (each of the A and B feeds is rated for "
        "it). The planning guide puts AI racks at 30-60 kW against 8 kW for a legacy rack "
        "(§2.3); NVIDIA's DGX SuperPOD H100 example racks exceed 40 kW; a 400 V three-phase "
        "63 A feed gives √3 × 400 × 63 = 43.6 kVA.",
    )
    support_rack_budget_kw: float = Field(
        22.0,
        gt=0,
        le=500,
        description="Supply per storage, network or management rack [kW]: a 400 V three-phase "
        "32 A feed, √3 × 400 × 32 = 22.2 kVA (HP, 'Power basics for IT professionals': "
        "22,080 VA at 230/400 V 32 A).",
    )
    rack_scale_budget_kw: float = Field(
        150.0,
        gt=0,
        le=2000,
        description="Supply per rack-scale system's rack (GB200 NVL72 and the like) [kW]: "
        "NVIDIA's DGX SuperPOD GB200 reference architecture gives 1.2 MW TDP per scalable "
        "unit of 8 NVL72 racks, 150 kW a rack.",
    )
    power_headroom: float = Field(
        0.15,
        ge=0,
        lt=1,
        description="Least share of a rack's supply left free above its allocated power: "
        "'功率分配表里要留出15%以上的余量' (planning guide §5.2): real draw exceeds the "
        "nameplate figure during stress tests.",
    )
    inrush_factor: float = Field(
        1.5,
        ge=1,
        le=10,
        description="Power-on draw as a multiple of nameplate: '按铭牌功率的1.5倍设计' "
        "(planning guide §6.1; breakers trip when many GPU servers start together).",
    )
    inrush_policy: Literal["staggered", "sized"] = Field(
        "staggered",
        description="staggered: power racks on in groups so that running devices plus the "
        "starting group's inrush stay under the feed rating (the power-on sequence); sized: "
        "allocate inrush_factor × nameplate to every rack so all devices may start at once. "
        "The planning guide (§6.1) asks for batched power-on through the BMC or smart PDUs.",
    )
    ab_feeds: bool = Field(
        True,
        description="A and B feeds (2N): every device has power supplies on both, and each "
        "feed alone carries the rack's full supply.",
    )
    rack_units: int = Field(
        42,
        ge=10,
        le=60,
        description="Rack height [U]: 42U is the usual height; 48U is a common option "
        "(1U = 44.45 mm, EIA-310-D).",
    )
    reserved_units: int = Field(
        2,
        ge=0,
        le=20,
        description="Units per rack kept free for the patch panel and cable management "
        "[U] (a layout choice).",
    )
    floor_rating_kpa: float = Field(
        12.0,
        gt=0,
        le=100,
        description="Live load the room's floor is rated for [kPa = kN/m²]: TIA-942 Rated-3 "
        "asks 12 kPa (250 lbf/ft²) and EIA/TIA-569 12.0 kPa distributed for equipment "
        "rooms; a typical office floor carries about 3.3 kPa (340 kg/m², IBM site "
        "planning). Take the structural engineer's rating of the room.",
    )
    rack_width_mm: float = Field(
        600.0,
        gt=0,
        le=1500,
        description="Rack footprint width [mm]: 600 mm is the common AI rack width (19-inch "
        "rails; 800 mm for cable-heavy network racks).",
    )
    rack_depth_mm: float = Field(
        1200.0,
        gt=0,
        le=2000,
        description="Rack footprint depth [mm]: 1 200 mm, deep enough for 8U GPU servers "
        "with rear cabling; the floor check spreads a rack's weight over width × depth.",
    )
    rack_cabinet_kg: float = Field(
        134.09,
        ge=0,
        le=1000,
        description="Weight of an empty rack cabinet [kg], on the floor with its equipment: "
        "APC NetShelter SX AR3300 (42U, 600 × 1 200 mm), 134.09 kg (NetBox device-type "
        "library, rack-types/APC/AR3300.yaml). A rack-scale system's weight includes its "
        "own rack.",
    )
    rack_max_kg: float | None = Field(
        None,
        gt=0,
        description="Equipment weight a rack may carry [kg]; empty = what the floor rating "
        "allows on the rack's footprint less the cabinet (floor_rating_kpa × width × depth "
        "÷ g − rack_cabinet_kg: 12 kPa × 0.72 m² = 8.64 kN ≈ 881 kg, − 134 kg = 747 kg).",
    )
    max_servers_per_rack: int | None = Field(
        None,
        ge=1,
        le=64,
        description="Cap on GPU servers per rack on top of the power, height and weight "
        "limits (NVIDIA's DGX SuperPOD rack designs hold 1, 2 or 4 DGX); empty = no cap.",
    )
    racks_per_row: int = Field(
        10,
        ge=1,
        le=100,
        description="Compute and storage racks per row (a layout choice: ten 600 mm racks "
        "make a 6 m row).",
    )
    network_rack_position: Literal["end_of_row", "middle_of_row"] = Field(
        "end_of_row",
        description="Where each scalable unit's network racks stand in its row.",
    )
    server_typical_ratio: float = Field(
        0.8,
        gt=0,
        le=1,
        description="Typical draw of a GPU server as a share of its maximum, where the "
        "catalogue gives only the maximum. An assumption: no server vendor read publishes a "
        "typical figure; a training load keeps the GPUs near TDP (8 × 700 W = 5.6 kW of a "
        "DGX H100's 10.2 kW). Confirm with a full-load measurement at acceptance (planning "
        "guide §6.1).",
    )
    gpu_share_of_server_power: float = Field(
        0.55,
        gt=0,
        le=1,
        description="GPUs' share of a server's maximum power, to estimate a server the "
        "catalogue does not rate: DGX H100 8 × 700 W of 10.2 kW = 0.55; DGX B200 8 × 1000 W "
        "of 14.3 kW = 0.56 (NVIDIA DGX user guides).",
    )
    unknown_server_units: int = Field(
        8,
        ge=1,
        le=60,
        description="Height of a GPU server the catalogue does not size [U]: an 8-GPU HGX "
        "server such as the DGX H100 is 8U; a conservative stand-in.",
    )
    unknown_switch_units: int = Field(
        1,
        ge=1,
        le=10,
        description="Height of a switch the catalogue does not size [U]: 64-port NDR and "
        "48-port 1 GbE switches are 1U (QM9700, SN2201 hardware manuals); a warning names it.",
    )
    unknown_switch_kw: float = Field(
        1.72,
        gt=0,
        le=20,
        description="Maximum power of a switch the catalogue does not rate [kW]: the QM9700's "
        "1.72 kW with active cables (NVIDIA QM9700 hardware manual), the highest sourced 1U "
        "figure; where only a typical figure is sourced, maximum = typical ÷ "
        "server_typical_ratio. A warning names each estimated model.",
    )
    unknown_storage_units: int = Field(
        2,
        ge=1,
        le=20,
        description="Height of a storage node the catalogue does not size [U]: a 2U NVMe "
        "server, the usual parallel-file-system and object-store node. An assumption: replace "
        "it with the vendor's figure; a warning names each estimated model.",
    )
    unknown_storage_kw: float = Field(
        2.0,
        gt=0,
        le=50,
        description="Maximum power of a storage node the catalogue does not rate [kW]: a "
        "2U dual-socket NVMe server on 2 kW redundant supplies. An assumption: replace it "
        "with the vendor's figure; a warning names each estimated model.",
    )
    management_servers: int = Field(
        3,
        ge=0,
        le=1000,
        description="Management servers (scheduler controllers, cluster manager, "
        "monitoring): three keep a quorum when one fails.",
    )
    management_server_model: str = Field(
        "1U management server", min_length=1, description="Shown in the equipment list."
    )
    management_server_kw: float = Field(
        0.8,
        gt=0,
        le=10,
        description="Nameplate of one management server [kW]: one 800 W supply of a "
        "redundant pair in a 1U dual-socket server; take it from the quote.",
    )
    management_server_typical_kw: float = Field(
        0.4,
        gt=0,
        le=10,
        description="Typical draw of one management server [kW]: half its nameplate, an "
        "assumption for a lightly loaded control-plane host.",
    )
    management_server_units: int = Field(1, ge=1, le=10, description="Height [U].")
    management_server_price_usd: float | None = Field(
        None, gt=0, description="Unit price [USD]; empty = not quoted."
    )
    management_server_weight_kg: float | None = Field(
        None,
        gt=0,
        le=200,
        description="Weight from its sheet [kg]; empty = not known (named "
        "in a finding; the floor check leaves it out).",
    )
    cooling_modes: tuple[CoolingMode, ...] = Field(
        ("air", "rear_door", "liquid"),
        min_length=1,
        description="Cooling the room has: air, rear-door heat exchangers, direct liquid "
        "cooling. A rack whose heat needs a mode not listed is an error finding. The default "
        "has all three: an AI hall is plumbed for liquid (rack-scale systems such as GB200 "
        "NVL72 are built for direct liquid cooling only); a room without it drops 'liquid'.",
    )
    air_max_kw: float = Field(
        15.0,
        gt=0,
        description="Heat an air-cooled rack removes [kW]: mainstream air-cooled rooms run "
        "10-15 kW a rack, raised-floor air struggles above 15-20 kW (data/cooling.csv); 15 is "
        "the top of the mainstream range.",
    )
    rear_door_max_kw: float = Field(
        40.0,
        gt=0,
        description="Heat a rear-door heat exchanger removes [kW]: passive doors 14-35 kW, "
        "fan-assisted doors 35-55 and 55-75 kW (HPE/Motivair ChilledDoor families; "
        "data/cooling.csv). 40 kW is a fan-assisted door of the 35-55 kW family, the "
        "compute rack's 40 kW supply (rack_budget_kw), so power and cooling close alike; "
        "take the rating of the chosen door at the room's water temperature.",
    )
    liquid_max_kw: float = Field(
        150.0,
        gt=0,
        description="Heat a direct-liquid-cooled rack removes [kW]: NVIDIA's DGX SuperPOD "
        "GB200 RA budgets 1.2 MW per scalable unit of 8 NVL72 racks, 150 kW a rack, for "
        "racks of ~120-132 kW (data/cooling.csv: 80-150 kW).",
    )
    cooling_headroom: float = Field(
        0.15,
        ge=0,
        lt=1,
        description="Least share of a rack's cooling capacity left free above its heat; the "
        "power rule's 15 % (planning guide §5.2), so power and cooling close alike.",
    )
    pue: float = Field(
        1.25,
        ge=1,
        le=3,
        description="Power usage effectiveness: China's December 2021 implementation plan "
        "asks new large data centres for PUE < 1.3 and national hub nodes < 1.25; Uptime "
        "Institute's 2023 global average is 1.58.",
    )
    compute_precision: Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"] = (
        Field("bf16", description="Precision of the compute inventory's dense per-card figure.")
    )
    versions: tuple[VersionPin, ...] = Field(
        default=(),
        description="Pinned firmware and driver versions by equipment model; a model left "
        "blank is a finding ('版本不对性能减半': unpinned NIC firmware and drivers halve RDMA "
        "bandwidth, planning guide §4.2 and §5.2).",
    )

    @property
    def rack_footprint_m2(self) -> float:
        """Floor area one rack stands on [m²]: width × depth."""
        return self.rack_width_mm * self.rack_depth_mm / 1e6

    @property
    def rack_weight_limit_kg(self) -> float:
        """Equipment weight one rack may carry [kg]: ``rack_max_kg``, or what the floor rating
        allows on the rack's footprint (the inverse of
        :func:`hubplan.facility.racks.floor_load_kpa`) less the empty cabinet."""
        if self.rack_max_kg is not None:
            return self.rack_max_kg
        return self.floor_limit_kg - self.rack_cabinet_kg

    @property
    def floor_limit_kg(self) -> float:
        """Weight the floor carries on one rack's footprint [kg]: rating × area ÷ g."""
        return self.floor_rating_kpa * 1000 * self.rack_footprint_m2 / STANDARD_GRAVITY_M_S2

    @model_validator(mode="after")
    def _ordered_modes(self) -> Facility:
        if not self.air_max_kw < self.rear_door_max_kw < self.liquid_max_kw:
            raise ValueError(
                f"facility: air_max_kw ({self.air_max_kw:g}) < rear_door_max_kw "
                f"({self.rear_door_max_kw:g}) < liquid_max_kw ({self.liquid_max_kw:g}) "
                "is required"
            )
        if self.rack_max_kg is None and self.rack_weight_limit_kg <= 0:
            raise ValueError(
                f"facility: the floor carries {self.floor_limit_kg:,.0f} kg on a rack's "
                f"footprint (floor_rating_kpa {self.floor_rating_kpa:g} × rack_width_mm × "
                f"rack_depth_mm), no more than the empty cabinet (rack_cabinet_kg "
                f"{self.rack_cabinet_kg:g}); raise the rating or the footprint"
            )
        if self.reserved_units >= self.rack_units:
            raise ValueError(
                f"facility: reserved_units ({self.reserved_units}) must be below "
                f"rack_units ({self.rack_units})"
            )
        return self
