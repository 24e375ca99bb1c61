"""The network section: fabric switches and oversubscription, planes, address plan,
RDMA settings and the latency budget."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, field_validator

from ..core.section import Section

_GUIDE = "智算技术与算力规划设计及部署实施方案 v2.0"


class Network(Section):
    """Network stage: compute fabric, storage and management planes, IP plan, port map."""

    compute_switch: str = Field(
        "QM9700",
        description="Compute-fabric switch (data/switches.csv). QM9700 (64 × NDR400) is the "
        "leaf, spine and core switch of the DGX SuperPOD H100 reference architecture "
        "(RA-11333-001).",
    )
    compute_pools: tuple[Literal["training", "inference", "development"], ...] = Field(
        ("training",),
        description="Pools whose servers get a rail-optimised compute fabric. Training pools "
        "do; inference replicas that fit in one server's NVLink domain and development "
        "servers need only the in-band and storage planes.",
    )
    oversubscription: float = Field(
        1.0,
        ge=1,
        le=8,
        description="Leaf downlink : uplink bandwidth of the compute fabric (1 = 1:1, "
        "non-blocking). 1:1 is the SuperPOD's 'balanced, full-fat tree' (RA-11333-001); "
        f"the planning guide ({_GUIDE}) asks 1:1 for training.",
    )
    max_training_oversubscription: float = Field(
        2.0,
        ge=1,
        le=8,
        description=f"A training fabric above this ratio is a finding: the planning guide "
        f"({_GUIDE}) keeps AI clusters at 1:1 or at most 1:2, against 1:4-1:8 in "
        "conventional data centres.",
    )
    servers_per_unit: int | None = Field(
        None,
        ge=1,
        le=1024,
        description="Servers per scalable unit; empty = one leaf's downlinks at the "
        "oversubscription (32 on a 64-port switch at 1:1, the SuperPOD SU of 32 DGX).",
    )
    spare_cabling: Literal["free_slots", "extra_units"] = Field(
        "free_slots",
        description="Where the compute pools' spare servers go. 'free_slots': the fabric is "
        "sized for the working servers; spares take the free server slots of the last "
        "scalable unit (the SuperPOD builds leaves and leaf-spine cables for the full SU "
        "and leaves unused slots empty, RA-11333-001 'Network Fabrics') and the rest wait in "
        "a cold pool: racked, on the storage, in-band and BMC planes, but off the compute "
        "fabric (a spare that replaces a failed server takes over its compute cables). "
        "'extra_units': every spare is cabled, adding units. Either way a finding states "
        "the spares past the SU boundary and the leaves, spines and cores they would cost.",
    )
    ufm_per_fabric: int = Field(
        2,
        ge=0,
        le=8,
        description="UFM appliances (InfiniBand subnet managers) per InfiniBand fabric: an "
        "active / standby pair (UFM Enterprise high availability). RA-11333-001 Table 7 "
        "lists 4 'NVIDIA Unified Fabric Manager Appliance 3.1' for the 4-SU SuperPOD's two "
        "InfiniBand fabrics, compute and storage. 0 = subnet managers run elsewhere.",
    )
    ufm_fabric_ports: int = Field(
        2,
        ge=1,
        le=8,
        description="InfiniBand ports of one UFM appliance cabled to its fabric's leaves: "
        "RA-11333-001 Table 4 counts 8 × nodes + 4 'Compute and UFM' cables (two "
        "appliances × 2). The appliances take a server slot of the compute fabric, which "
        "is why the RA's SU holds 31 DGX.",
    )
    ufm_model: str = Field(
        "UFM Enterprise Appliance 3.1",
        min_length=1,
        description="Shown in the equipment list (RA-11333-001 Table 7). Its height and "
        "power are not published in the RA: the facility stage uses its stated stand-ins "
        "for an unrated device and names the model in a warning.",
    )
    oob_uplinks: int = Field(
        2,
        ge=1,
        le=8,
        description="Uplinks of each out-of-band switch to the in-band network: 'Two "
        "uplinks per OOB to in-band' (RA-11333-001 Table 8, 16 × 100 Gb/s for 8 SN2201).",
    )
    pdu_oob_ports_per_server: float = Field(
        0.85,
        ge=0,
        le=8,
        description="Out-of-band ports kept for rack PDUs, per GPU server: RA-11333-001 "
        "Table 8 cables 108 rack PDUs (Table 7: 96 in the DGX racks, 12 in the others) to "
        "the OOB network for 127 DGX, 108 / 127 = 0.85. The racks are packed after the "
        "network, so the ports are reserved on the OOB leaves, not cabled in the port map.",
    )
    storage_plane: Literal["separate", "compute"] = Field(
        "separate",
        description="'separate': storage traffic on its own switches (SuperPOD storage "
        "fabric). 'compute': converged onto the compute fabric (a finding).",
    )
    storage_switch: str = Field(
        "QM9700",
        description="Storage-plane switch: the SuperPOD H100 storage fabric runs on "
        "MQM9700-NS2F (RA-11333-001).",
    )
    storage_ports_per_server: int = Field(
        2,
        ge=0,
        le=8,
        description="GPU-server ports cabled to the storage plane: DGX H100 has four "
        "storage / in-band ConnectX-7 ports; SuperPOD practice splits them two for storage "
        "and two for in-band (DGX H100 user guide, RA-11333-001).",
    )
    storage_oversubscription: float = Field(
        1.0,
        ge=1,
        le=8,
        description="Storage leaf downlink : uplink: storage devices at 1:1 port to uplink "
        "(RA-11333-001, storage fabric).",
    )
    inband_switch: str = Field(
        "SN4600C",
        description="In-band management switch: SN4600C (64 × 100 GbE) in RA-11333-001.",
    )
    inband_ports_per_server: int = Field(
        2,
        ge=0,
        le=8,
        description="In-band ports per GPU server: RA-11333-001 bonds two 100 Gb/s links per node.",
    )
    inband_gbps: float = Field(
        100.0,
        gt=0,
        description="In-band link speed [Gb/s]: 100 GbE bonded in RA-11333-001; 10/25 GbE "
        "serves SSH and monitoring in smaller halls.",
    )
    bmc_switch: str = Field(
        "SN2201",
        description="Out-of-band (BMC) switch: SN2201 (48 × 1 GbE) in RA-11333-001.",
    )
    management_oversubscription: float = Field(
        4.0,
        ge=1,
        le=16,
        description=f"In-band leaf downlink : uplink. 4:1: the planning guide ({_GUIDE}) "
        "accepts 1:4 to 1:8 outside the training fabric.",
    )
    compute_cidr: str = Field(
        "10.0.0.0/12",
        description="Compute-plane supernet (RFC 1918). One large contiguous range: the "
        f"planning guide ({_GUIDE}) warns that split compute ranges break frameworks that "
        "route by subnet.",
    )
    storage_cidr: str = Field("10.16.0.0/14", description="Storage-plane supernet (RFC 1918).")
    inband_cidr: str = Field("10.20.0.0/14", description="In-band plane supernet (RFC 1918).")
    bmc_cidr: str = Field(
        "10.24.0.0/14", description="Out-of-band plane supernet: BMCs and switch management."
    )
    loopback_cidr: str = Field("10.31.0.0/16", description="Switch loopbacks, one /32 each.")
    growth_share: float = Field(
        0.30,
        ge=0,
        le=4,
        description=f"Address room reserved for expansion in every supernet: 30 %, the "
        f"planning guide's margin ({_GUIDE}: 'leave 30 %, not double').",
    )
    compute_vlan: int = Field(
        100, ge=1, le=4000, description="VLAN of compute rail 1 (rail k: +k-1; Ethernet only)."
    )
    storage_vlan: int = Field(200, ge=1, le=4094, description="Storage-plane VLAN.")
    inband_vlan: int = Field(300, ge=1, le=4094, description="In-band plane VLAN.")
    bmc_vlan: int = Field(400, ge=1, le=4094, description="Out-of-band plane VLAN.")
    server_leaf_reach_m: float = Field(
        30.0,
        gt=0,
        le=10000,
        description="Cable length between two racks of one row [m] (placement 'same_row': "
        "a GPU server to its compute leaf): SuperPOD SU layouts put the leaves in a network "
        "rack of the unit's row, tens of metres of tray away (RA-11333-001).",
    )
    leaf_spine_reach_m: float = Field(
        100.0,
        gt=0,
        le=10000,
        description="Cable length from a rack to another row [m] (placement 'other_row': "
        "leaf to spine, and storage, in-band and BMC endpoints to their leaves in the "
        "shared network racks).",
    )
    spine_core_reach_m: float = Field(
        500.0,
        gt=0,
        le=10000,
        description="Cable length across the hall [m] (placement 'other_hall': spine to core).",
    )
    rack_reach_m: float = Field(
        3.0,
        gt=0,
        le=100,
        description="Cable length inside one rack [m] (placement 'same_rack'): 3 m, the "
        "longest passive DAC (NVIDIA MCP7Y00-N003).",
    )
    adjacent_rack_reach_m: float = Field(
        5.0,
        gt=0,
        le=100,
        description="Cable length to the next rack [m] (placement 'adjacent_rack'): 5 m, "
        "the longest active copper cable (NVIDIA LinkX ACC, 4 and 5 m).",
    )
    storage_pkey: int = Field(
        0x0002,
        ge=0x0001,
        le=0x7FFE,
        description="InfiniBand partition key of the storage plane (15 bits; full "
        "members get bit 15 set, 0x8002 for 0x0002). An InfiniBand plane has partitions, "
        "not VLANs (InfiniBand Architecture Specification vol. 1, §10.9 'Partitioning'); "
        "0x7FFF is the default partition every port joins, so storage gets its own key. "
        "Ethernet planes use the *_vlan fields instead.",
    )
    pfc: bool = Field(
        True,
        description="RoCE: priority flow control on the RoCE priority (lossless mode, NVIDIA "
        "Cumulus Linux 'RDMA over Converged Ethernet').",
    )
    ecn: bool = Field(
        True, description="RoCE: ECN marking with DCQCN congestion control (same source)."
    )
    roce_priority: int = Field(
        3, ge=0, le=7, description="RoCE traffic priority: 3 in Cumulus Linux lossless mode."
    )
    nccl_ib_timeout: int = Field(
        20,
        ge=0,
        le=31,
        description="NCCL_IB_TIMEOUT: 4.096 µs × 2^t; 20 is NCCL's default "
        "since 2.23 (NCCL user guide, 'Environment Variables').",
    )
    nccl_ib_sl: int = Field(
        0, ge=0, le=15, description="NCCL_IB_SL: InfiniBand service level; NCCL default 0."
    )
    nccl_socket_ifname: str = Field(
        "bond0",
        min_length=1,
        description="NCCL_SOCKET_IFNAME: bootstrap over the bonded in-band interface.",
    )
    latency_target_ms: float = Field(
        20.0,
        gt=0,
        le=1000,
        description="End-to-end latency target for real-time users [ms]: the 20 ms target "
        "of compute-hub proposals for industrial internet, finance and inference.",
    )
    serving_time_ms: float = Field(
        5.0,
        ge=0,
        le=1000,
        description="Time inside the hub per request before the first byte returns [ms]: a "
        "placeholder to replace with a load-test figure.",
    )
    wan_hops: int = Field(
        10, ge=0, le=100, description="Routers and switches between user and hub."
    )
    hop_latency_us: float = Field(
        50.0,
        ge=0,
        le=10000,
        description="Latency per WAN hop [µs]; fabric switch hops add 0.1-0.3 µs each.",
    )

    @field_validator("compute_cidr", "storage_cidr", "inband_cidr", "bmc_cidr", "loopback_cidr")
    @classmethod
    def _cidr(cls, v: str) -> str:
        try:
            net = ipaddress.ip_network(v, strict=True)
        except ValueError as exc:
            raise ValueError(f"not an IPv4 network in CIDR form like 10.0.0.0/12 ({exc})") from None
        if net.version != 4:
            raise ValueError("use an IPv4 supernet such as 10.0.0.0/12")
        return str(net)
