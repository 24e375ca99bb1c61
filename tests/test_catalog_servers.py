"""The server catalogue (data/servers.csv): coverage of the accelerator catalogue, and the
figures of rows checked against the documents they cite."""

import math

import pytest

import hubplan
from hubplan.scenario import ServerPolicy
from hubplan.server import balance_checks, resolve_server

#: Accelerators with no server row yet, and why: no document naming a server that carries
#: them was found. The coverage test below fails when another accelerator loses its server
#: and when one of these gains one (then take it off this list).
NO_SOURCED_SERVER = {
    # NVIDIA sells it as a data-centre PCIe board (vGPU user guide lists 'A800 PCIe 40GB');
    # no OEM server configuration with it was found.
    "A800 PCIe 40GB",
    # Only cloud instances (Alibaba Cloud gn8is) and card listings were found.
    "L20 48GB",
}


def _server(catalog, name):
    return resolve_server(hubplan.scenario.PoolSpec(server=name), catalog)


def _checks(server, vram_gb, training=True):
    table = balance_checks("training", server, vram_gb, ServerPolicy(), training)
    return table.set_index("check")


def test_catalogue_holds_at_least_40_servers(catalog):
    # Issue 23: at least 40 server rows.
    assert len(catalog.servers) >= 40


def test_every_accelerator_has_a_server_but_the_listed_gaps(catalog):
    carried = {catalog.accelerator(a)["name"] for a in catalog.servers["accelerator"]}
    uncovered = set(catalog.accelerators["name"]) - carried
    assert uncovered == NO_SOURCED_SERVER


def test_domestic_accelerators_each_have_a_server(catalog):
    # Issue 23: a consultant in China proposes servers for Ascend, Cambricon, Moore
    # Threads, Biren and MetaX parts.
    vendors = {"Huawei", "Cambricon", "Moore Threads", "Biren", "MetaX"}
    domestic = catalog.accelerators[catalog.accelerators["vendor"].isin(vendors)]
    carried = {catalog.accelerator(a)["name"] for a in catalog.servers["accelerator"]}
    assert set(domestic["name"]) <= carried


def test_no_two_servers_share_a_name_or_alias(catalog):
    # A lookup takes the first row with a key; a shared key would hide the second row.
    seen: dict[str, str] = {}
    for name, aliases in zip(catalog.servers["name"], catalog.servers["aliases"], strict=True):
        for key in {name, *str(aliases).split(";")}:
            key = key.strip().lower()
            if key and key != "nan":
                assert seen.setdefault(key, name) == name, (key, seen[key], name)


def test_dell_xe9680l_b200_as_filed(catalog):
    # Dell, MLPerf Inference v5.1 closed/Dell/systems/XE9680L_B200_SXM_180GBx8_TRT.json:
    # 8x B200-SXM-180GB, 2x Xeon 8562Y+ (64 cores), 4 TB = 32 x 128 GB, 10x 400G IB,
    # 84 TB NVMe.
    box = _server(catalog, "XE9680L")
    assert (box.gpus, box.accelerator) == (8, "B200 180GB")
    assert (box.cpu_cores_total, box.ram_gb) == (64, 32 * 128)
    assert catalog.server("XE9680L")["local_nvme_tb"] == 84
    assert (box.compute_nics + box.storage_nics, box.compute_nic_gbps) == (10, 400)
    # 4 096 GB of host RAM against 8 x 180 = 1 440 GB of HBM: the 1x rule passes.
    assert _checks(box, 180).loc["ram_vs_gpu_memory", "status"] == "pass"


def test_supermicro_mi325x_as_filed(catalog):
    # Supermicro, MLPerf Inference v5.1 closed/Supermicro/systems/8xMI325X_2xEPYC_9575F.json:
    # AS-8126GS-TNMR, 2x EPYC 9575F 64-core at 3.3 GHz, 24 x 128 GB, '400G Ethernet' x 8.
    box = _server(catalog, "AS-8126GS-TNMR")
    assert (box.accelerator, box.cpu_cores_total, box.cpu_base_ghz) == ("MI325X 256GB", 128, 3.3)
    assert box.ram_gb == 24 * 128
    assert (box.compute_nics, box.compute_nic_gbps) == (8, 400)
    # 3 072 GB of host RAM against 8 x 256 = 2 048 GB of HBM: passes the 1x rule.
    checks = _checks(box, 256)
    assert checks.loc["ram_vs_gpu_memory", "status"] == "pass"
    assert checks.loc["compute_nics_per_gpu", "status"] == "pass"


def test_inspur_nf5688m6_has_one_200g_nic_per_gpu(catalog):
    # Inspur, MLPerf Inference v2.1 closed/Inspur/documentation/start_from_device: 'Every
    # of A100(SXM) GPUs in NF5688M6 system is connected to a PCIe-Gen4 bridge, which is
    # also connected to a Mellanox GDR NIC with bandwidth of 200 Gb/s'.
    box = _server(catalog, "NF5688M6")
    assert (box.gpus, box.compute_nics, box.compute_nic_gbps, box.pcie_gen) == (8, 8, 200, 4)
    # 200 Gb/s fits a PCIe Gen4 x16 link (31.5 GB/s x 8 = 252 Gb/s).
    assert _checks(box, 80).loc["pcie_vs_nic", "status"] == "pass"


def test_biren_br104_server_as_filed(catalog):
    # Biren, MLPerf Inference v2.1 closed/Biren/systems/BR104-300W-PCIex8.json:
    # 'NF5468M6-P (8x BR104-300W PCIe)', 2x Xeon 8368 (38 cores each, 2.4 GHz), 1024 GB,
    # 'PCIe 16 lane Gen4'.
    box = _server(catalog, "NF5468M6 BR104")
    assert (box.gpus, box.accelerator) == (8, "BR104 32GB")
    assert (box.cpu_cores_total, box.cpu_base_ghz, box.ram_gb, box.pcie_gen) == (76, 2.4, 1024, 4)


def test_moore_threads_d800_fails_the_nic_per_gpu_check(catalog):
    # FlagPerf (training/mthreads/bert_hf-pytorch/README.md): MCCX D800, 8x S4000 per
    # machine, 'InfiniBand, 2*200Gbps' between machines: 2 NICs for 8 GPUs. A training pool
    # on it gets the failed check, not a pass.
    box = _server(catalog, "MCCX D800")
    assert (box.gpus, box.compute_nics, box.compute_nic_gbps) == (8, 2, 200)
    checks = _checks(box, 48)
    assert checks.loc["compute_nics_per_gpu", "status"] == "fail"
    assert (
        checks.loc["compute_nics_per_gpu", "value"],
        checks.loc["compute_nics_per_gpu", "required"],
    ) == (2, 8)


def test_conflicting_core_count_is_left_unknown(catalog):
    # Lenovo, MLPerf Inference v5.1 SR680a_V3_B200SXMx8_TRT.json files 56 cores for the
    # Xeon Platinum 8568Y+, a 48-core part: the row leaves the figure empty, so the check
    # says 'unknown' instead of passing on a number that cannot hold.
    box = _server(catalog, "SR680a V3")
    assert math.isnan(box.cpu_cores_total)
    assert _checks(box, 180).loc["cpu_cores_per_gpu", "status"] == "unknown"


@pytest.mark.parametrize(
    ("name", "accelerator", "gpus"),
    [
        # msmodeling docs/design/a3_roce_device_profile_design.md: 800I A3 with the
        # 560T die; MindCluster guide: eight HiAM modules (2 dies each) per server.
        ("Atlas 800I A3", "Ascend 910C 560T 128GB", 8),
        # msmodeling tensor_cast/device.py: ATLAS_800_A2_376T_64G on an 8-NPU node grid.
        ("Atlas 800 A2 376T", "Ascend 910B 376T 64GB", 8),
        # HPE, MLPerf Inference v2.1: 'HPE Apollo 6500 Gen10+ (675d - 10x A100 PCIe 40GB)'.
        ("Apollo 6500 Gen10+", "A100 PCIe 40GB", 10),
        # FlagPerf training/metax/README.md: 同泰怡 G658V3 with 曦云C500 64G, 单机8卡.
        ("同泰怡 G658V3", "MetaX C500 64GB", 8),
    ],
)
def test_server_carries_what_its_document_says(catalog, name, accelerator, gpus):
    box = _server(catalog, name)
    assert (box.accelerator, box.gpus) == (accelerator, gpus)


def test_xe9680_mi300x_takes_the_chassis_size(catalog):
    # StorageReview's XE9680 review: 6U (a 2U compute node + a 4U GPU drawer), MI300X among
    # the GPU options; Dell's documentation (via the howdi2000/dell_v1 dataset): 70.19 to
    # 107.75 kg by configuration. Without them the facility stage would place it at the
    # 8U stand-in (facility.unknown_server_units).
    box = _server(catalog, "XE9680 MI300X")
    assert (box.rack_units, box.weight_kg) == (6, 107.75)
