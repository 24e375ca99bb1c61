"""Server balance checks and pools, against the servers' published configurations."""

import pytest

import hubplan
from hubplan.scenario import ServerPolicy, ServerSpec
from hubplan.server import Server, balance_checks, pcie_supports_nic, ram_check, resolve_server
from hubplan.views.render import findings_table


def status(table, check):
    return table.set_index("check").loc[check, "status"]


def test_dgx_h100_passes_ram_at_both_policies(catalog):
    # DGX H100 user guide: 8 × H100 80 GB (640 GB), 2 TB RAM, 2 × 56 = 112 cores.
    dgx = resolve_server(hubplan.scenario.PoolSpec(server="DGX H100"), catalog)
    assert (dgx.gpus, dgx.ram_gb, dgx.cpu_cores_total) == (8, 2048, 112)
    for ratio, required in ((1.0, 640), (2.0, 1280)):
        table = balance_checks("training", dgx, 80, ServerPolicy(ram_to_gpu_memory=ratio), True)
        assert status(table, "ram_vs_gpu_memory") == "pass"
        assert table.set_index("check").loc["ram_vs_gpu_memory", "required"] == required
    table = balance_checks("training", dgx, 80, ServerPolicy(), True)
    assert (table["status"] == "pass").all()  # every DGX H100 check passes


def test_l40s_with_256gb_fails_the_1x_policy():
    # 8 × L40S 48 GB = 384 GB of GPU memory; 256 GB of host RAM is below it.
    assert ram_check(Server("8×L40S", "L40S 48GB", 8, ram_gb=256), 48, 1.0) == ("fail", 256, 384.0)


def test_custom_server_is_checked_the_same_way(default):
    custom = ServerSpec(
        accelerator="L40S 48GB",
        gpus=8,
        ram_gb=256,
        cpu_cores_total=16,
        cpu_base_ghz=2.4,
        storage_nics=1,
        inband_nics=1,
        bmc_nics=1,
    )
    scenario = default.with_changes(
        {
            "pools.development.server": None,
            "pools.development.custom_server": custom.model_dump(mode="json"),
        }
    )
    plan = hubplan.build_plan(scenario)
    checks = plan["server_checks"]
    dev = checks[checks["pool"] == "development"].set_index("check")
    assert dev.loc["ram_vs_gpu_memory", "status"] == "fail"
    assert dev.loc["cpu_cores_per_gpu", "status"] == "warn"  # 16 / 8 = 2 < 4
    en, zh = findings_table(plan.findings, "en"), findings_table(plan.findings, "zh")
    err = en[en["code"] == "check_ram_vs_gpu_memory"].iloc[0]
    assert err["severity"] == "error"
    assert "host RAM 256 GB is below 1 × GPU memory = 384 GB" in err["message"]
    assert "384 GB" in zh.loc[zh["code"] == "check_ram_vs_gpu_memory", "message"].iloc[0]


def test_pcie_generation_against_nic_speed():
    # PCIe x16 per direction: Gen4 31.5 GB/s = 252 Gb/s, Gen5 63 GB/s = 504 Gb/s.
    assert pcie_supports_nic(5, 400) and pcie_supports_nic(4, 200)
    assert not pcie_supports_nic(4, 400)
    srv = Server(
        "Gen4 box",
        "H100 SXM5 80GB",
        8,
        ram_gb=2048,
        cpu_cores_total=64,
        cpu_base_ghz=2.5,
        compute_nics=8,
        compute_nic_gbps=400,
        storage_nics=2,
        inband_nics=1,
        bmc_nics=1,
        pcie_gen=4,
    )
    table = balance_checks("training", srv, 80, ServerPolicy(), True).set_index("check")
    assert table.loc["pcie_vs_nic", "status"] == "fail"
    assert table.loc["pcie_vs_nic", "required"] == 5


def test_a100_server_in_a_400g_fabric(catalog):
    # DGX A100: 8 × 200 Gb/s HDR on PCIe Gen4 — fine for its own fabric, slow for 400G.
    dgx = resolve_server(hubplan.scenario.PoolSpec(server="DGX A100"), catalog)
    table = balance_checks("training", dgx, 80, ServerPolicy(), True).set_index("check")
    assert table.loc["compute_nic_gbps", "status"] == "warn"
    assert table.loc["pcie_vs_nic", "status"] == "pass"  # Gen4 carries 200 Gb/s
    assert table.loc["compute_nics_per_gpu", "status"] == "pass"


def test_missing_nics_fail_a_training_pool():
    srv = Server("no fabric", "H100 SXM5 80GB", 8, compute_nics=2, compute_nic_gbps=400)
    table = balance_checks("training", srv, 80, ServerPolicy(), True).set_index("check")
    assert table.loc["compute_nics_per_gpu", "status"] == "fail"
    # an inference pool does not need the training fabric
    inf = balance_checks("inference", srv, 80, ServerPolicy(), False)
    assert "compute_nics_per_gpu" not in set(inf["check"])


def test_unsourced_figures_are_unknown_not_pass(catalog):
    oem = resolve_server(hubplan.scenario.PoolSpec(server="HGX H100 8-GPU (OEM RA)"), catalog)
    table = balance_checks("training", oem, 80, ServerPolicy(), True).set_index("check")
    assert table.loc["ram_vs_gpu_memory", "status"] == "unknown"


def test_pools_with_spares(default):
    pools = hubplan.build_plan(default)["pools"].set_index("pool")
    # training: 17 servers × 0.05 = 0.85 → 1 spare → 18 servers, 144 GPUs
    assert pools.loc["training", ["servers", "spare_servers", "total_gpus"]].tolist() == [
        17,
        1,
        144,
    ]
    assert pools.loc["training", ["partition", "quota"]].tolist() == ["train", "exclusive"]
    assert pools.loc["development", "max_gpus_per_user"] == 2
    fleet = pools.loc["fleet"].set_index("accelerator")
    # H100 fleet: (17 + 1) + (1 + 1) = 20 servers = 160 GPUs
    assert fleet.loc["H100 SXM5 80GB", ["total_servers", "total_gpus"]].tolist() == [20, 160]


def test_spare_ratio_applies_per_pool(default):
    # 17 training servers at a BLOOM-like 8 %: 17 × 0.08 = 1.36 → 2 spares, 19 servers
    s = default.with_changes({"pools.training.spare_ratio": 0.08})
    row = hubplan.build_plan(s)["pools"].set_index("pool").loc["training"]
    assert row[["servers", "spare_servers", "total_servers"]].tolist() == [17, 2, 19]


def test_mixed_generations_in_training_pool(default):
    s = default.with_changes(
        {"pools.training.existing_servers": [{"server": "DGX A100", "count": 4}]}
    )
    plan = hubplan.build_plan(s)
    found = findings_table(plan.findings)
    f = found[found["code"] == "mixed_generations"].iloc[0]
    assert "Hopper" in f["message"] and "Ampere" in f["message"]
    assert plan["pools"].set_index("pool").loc["training", "existing_gpus"] == 32


def test_server_that_does_not_match_the_pool_is_an_error(default):
    s = default.with_changes({"pools.training.server": "DGX B200"})
    with pytest.raises(
        hubplan.HubplanError, match=r"pools\.training: server 'DGX B200' carries 8 × B200 180GB"
    ):
        hubplan.build_plan(s)


def test_server_and_custom_server_exclusive(default):
    with pytest.raises(hubplan.ScenarioError, match="give server or custom_server, not both"):
        default.with_changes({"pools.training.custom_server": {"accelerator": "H100"}})


def test_server_catalogue_names_real_accelerators(catalog):
    for name in catalog.servers["accelerator"]:
        catalog.accelerator(name)
    assert (catalog.servers["gpus"] >= 1).all()
    assert catalog.servers["source"].str.len().gt(10).all()


def test_owned_servers_are_subtracted_and_priced_from_the_catalogue(default):
    # Training needs 17 + 1 spare = 18 DGX H100; the client owns 5 → 13 to buy at the
    # catalogue's DGX H100 price (US$270 000 in data/servers.csv): 3 510 000 USD.
    # Power: 18 × 10.2 kW (DGX H100 user guide, maximum system power) = 183.6 kW.
    s = default.with_changes(
        {"pools.training.existing_servers": [{"server": "DGX H100", "count": 5}]}
    )
    pools = hubplan.build_plan(s)["pools"].set_index("pool")
    t = pools.loc["training"]
    assert t[["total_servers", "owned_servers", "new_servers"]].tolist() == [18, 5, 13]
    assert t["price_basis"] == "server" and t["capex_usd"] == 13 * 270_000
    assert t["max_power_kw"] == pytest.approx(183.6)
    # No priced server in the development pool: card price × 1.3 × 8 GPUs, said so.
    d = pools.loc["development"]
    assert d["price_basis"] == "card_overhead"


def test_owning_more_than_needed_is_flagged(default):
    s = default.with_changes(
        {"pools.inference.existing_servers": [{"server": "DGX H100", "count": 4}]}
    )
    plan = hubplan.build_plan(s)
    row = plan["pools"].set_index("pool").loc["inference"]
    assert row["new_servers"] == 0  # needs 1 + 1 spare, owns 4
    assert "owned_exceeds_need" in set(plan.findings["code"])
    assert "owned_exceeds_need" not in set(hubplan.build_plan(default).findings["code"])


def test_a_shared_fleet_is_split_among_its_pools_and_borrowing_is_flagged(default):
    # Three pools on H100 in 8-GPU servers, shared; the service at 200 QPS needs 100 GPUs.
    shared = {
        "workload.overlap.policy": "shared",
        "pools.development.server": None,
        "pools.development.accelerator": "H100 SXM5 80GB",
        "workload.inference.0.peak_qps": 200,
    }
    plan = hubplan.build_plan(
        default.with_changes(shared | {"workload.overlap.inference_coincidence": 0.6})
    )
    pools = plan["pools"].set_index("pool")
    kinds = ["training", "inference", "development"]
    # The fine-tune needs 132 GPUs; its pool the 136 its TP-8 layout occupies (17 replicas).
    assert pools.loc[kinds, "gpus_required"].tolist() == [136, 100, 8]
    # On their own: 17, 13 and 1 servers (spares 1, 1, 0). At the fleet's peak the
    # fine-tune (coincidence 1) holds all its 17, the service ⌈100 × 0.6 / 8⌉ = 8 and
    # development ⌈8 × 0.5 / 8⌉ = 1: 26 servers, above ⌈(136 + 60 + 4) / 8⌉ = 25. Spares
    # ⌈26 × 0.05⌉ = 2, shared by the pools' own spares 1 : 1 : 0.
    assert pools.loc["fleet", ["servers", "spare_servers"]].tolist() == [26, 2]
    assert pools.loc[kinds, "servers"].tolist() == [17, 8, 1]
    assert pools.loc[kinds, "spare_servers"].tolist() == [1, 1, 0]
    # The service works on 8 × 8 = 64 GPUs of its 100 at its own peak: it borrows then.
    borrow = plan.findings[plan.findings["code"] == "shared_pool_borrows"]
    assert borrow["data"].tolist() == [{"pool": "inference", "share": 64, "required": 100}]
    # At coincidence 0.9 the service holds ⌈90 / 8⌉ = 12 servers (96 GPUs) + 1 spare: the
    # spare (104 GPUs in all) replaces failed servers and must not hide the shortfall.
    plan = hubplan.build_plan(
        default.with_changes(shared | {"workload.overlap.inference_coincidence": 0.9})
    )
    row = plan["pools"].set_index("pool").loc["inference"]
    assert (row["servers"], row["spare_servers"]) == (12, 1)
    borrow = plan.findings[plan.findings["code"] == "shared_pool_borrows"]
    assert borrow["data"].tolist() == [{"pool": "inference", "share": 96, "required": 100}]
    # Dedicated pools never borrow.
    assert "shared_pool_borrows" not in set(hubplan.build_plan(default).findings["code"])


def test_servers_one_pool_owns_serve_its_whole_shared_fleet(default):
    s = default.with_changes(
        {
            "workload.overlap.policy": "shared",
            "workload.overlap.inference_coincidence": 0.5,
            "pools.inference.existing_servers": [{"server": "DGX H100", "count": 4}],
        }
    )
    pools = hubplan.build_plan(s)["pools"].set_index("pool")
    # Fleet: 17 (fine-tune) + 1 (service) = 18 servers + ⌈18 × 0.05⌉ = 1 spare = 19; the
    # service owns 4, holds 1, and its 3 surplus serve the fine-tune: 19 − 4 = 15 to buy.
    fleet = pools[pools["accelerator"] == "H100 SXM5 80GB"].loc["fleet"]
    assert (fleet["total_servers"], fleet["owned_servers"], fleet["new_servers"]) == (19, 4, 15)
    assert pools.loc[["training", "inference"], "new_servers"].tolist() == [15, 0]
    f = hubplan.build_plan(s).findings
    assert "owned_exceeds_need" not in set(f["code"])  # nothing stands idle
    # Owning 40 leaves 40 − 19 = 21 idle: said against the fleet's 19, not the share of 1.
    s = s.with_changes({"pools.inference.existing_servers": [{"server": "DGX H100", "count": 40}]})
    f = hubplan.build_plan(s).findings
    assert f.loc[f["code"] == "owned_exceeds_need", "data"].tolist() == [
        {"pool": "inference", "owned": 40, "need": 19}
    ]


@pytest.mark.parametrize(
    "partition",
    ["训练", "a_b", "-x", "gpu a", "x" * 41],
)
def test_a_partition_that_is_no_hostname_prefix_is_refused(default, partition):
    # The partition prefixes the pool's hostnames (<partition>-0001): RFC 1123 labels are
    # ASCII letters, digits and hyphens. Before, "训练" planned, and slurm.conf named the
    # nodes __-0001 while the IP plan named them 训练-0001.
    with pytest.raises(hubplan.ScenarioError) as err:
        default.with_changes({"pools.training.partition": partition})
    assert "pools.training.partition" in str(err.value)
    assert "ASCII letters, digits and hyphens" in str(err.value)


def test_two_pools_with_one_partition_are_refused(default):
    # Both pools would name a server train-0001 (the IP plan held 262 duplicate devices
    # in 306 rows before). Hostnames are case-insensitive (RFC 4343): "Train" clashes too.
    for name in ("train", "Train"):
        with pytest.raises(hubplan.ScenarioError, match=r"partition of pools\.training too"):
            default.with_changes({"pools.development.partition": name})
    assert default.with_changes({"pools.development.partition": "dev-2"})
