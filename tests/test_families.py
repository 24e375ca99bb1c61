"""Accelerator families: every family's plan carries its own fabric settings, collective
library, tools, Slurm detection and image, and no NVIDIA tooling unless it is NVIDIA.

The expected strings below are read from each vendor's documents (cited per line), not
from ``data/families.csv``: the table is what is under test.
"""

import shutil
import subprocess

import pandas as pd
import pytest

import hubplan
from hubplan.core.catalog import load_catalog
from hubplan.core.errors import CatalogError
from hubplan.delivery import (
    container_spec,
    deployment_steps,
    gres_conf,
    k8s_manifests,
    prolog_script,
    slurm_conf,
    validate_scheduler,
)
from hubplan.delivery.scheduler import device_files
from hubplan.network.rdma import fabric_family_findings, traffic_class
from hubplan.plan import build_plan
from hubplan.scenario import default_scenario

#: NVIDIA tooling and NVIDIA-only settings that a plan of another family must not carry:
#: NVIDIA's management and diagnostic tools (nvidia-smi, DCGM), its management library
#: (NVML, nvidia-ml-py), its device files, its container registry, NCCL and its test
#: suite, CUDA-only perftest flags, and the ConnectX host QoS tool.
NVIDIA_TOOLING = (
    "nvidia-smi",
    "dcgm",
    "nvml",
    "nvidia-ml-py",
    "/dev/nvidia",
    "nvcr.io",
    "NCCL_",
    "nccl-tests",
    "--use_cuda",
    "mlnx_qos",
    "nvidia.com/gpu",
)

#: RCCL keeps NCCL's environment variable names (ROCm documentation, "RCCL environment
#: variables": NCCL_SOCKET_IFNAME, NCCL_IB_HCA, NCCL_IB_GID_INDEX ...): for AMD they are
#: RCCL's own settings, not NVIDIA tooling.
ALLOWED = {"AMD": {"NCCL_"}}

#: What each family's plan must carry, from the vendor's own documents.
OWN = {
    # nvidia-smi(1) "-L"; Slurm gres.conf(5) AutoDetect=nvml; NCCL User Guide.
    "NVIDIA": ("nvidia-smi -L", "AutoDetect=nvml", "/dev/nvidia[0-7]", "NCCL_IB_HCA"),
    # ROCm "RCCL environment variables" (RCCL), "Running RCCL using Docker" (rccl-tests),
    # Slurm gres.conf(5) AutoDetect=rsmi; AMD GPUs are DRM render nodes from renderD128.
    "AMD": (
        ",rccl,",  # the RDMA table's layer: RCCL's settings
        "rccl-tests",
        "AutoDetect=rsmi",
        "/dev/dri/renderD[128-135]",
        "amd-smi",
        "rocm/pytorch",
    ),
    # Intel Gaudi docs: hl-smi -L lists the devices; Gaudi's HCCL; the PyTorch images on
    # vault.habana.ai; habanalabs devices under /dev/accel.
    "Intel": ("hl-smi -L", "HCCL", "vault.habana.ai", "/dev/accel/accel[0-7]", "AutoDetect=off"),
    # CANN: HCCL_CONNECT_TIMEOUT default 120 s (envref_07_0077); npu-smi info -l; the NPUs
    # are /dev/davinciN (Ascend Docker Runtime); HCCL Test's all_reduce_test.
    "Huawei": (
        "npu-smi info -l",
        'HCCL_CONNECT_TIMEOUT="120"',
        "/dev/davinci[0-7]",
        "all_reduce_test",
        "hccn_tool",
    ),
    # SGLang "Cambricon MLU": cncl, the Cambricon Communication Library.
    "Cambricon": ("CNCL",),
    # MUSA stack: MCCL over InfiniBand between nodes.
    "Moore Threads": ("MCCL",),
    # MetaX MCCL guide: MCCL_IB_HCA, MCCL_NET_GDR_LEVEL; mx-smi.
    "MetaX": ("MCCL_NET_GDR_LEVEL", "mx-smi"),
    # Nothing sourced: every tool reads "unknown".
    "Biren": ("unknown",),
}


def _family_plan(catalog, family, switch=None):
    """A plan whose three pools all run one accelerator of ``family``: the accelerator of
    the family's first catalogue server when it has one (so that the plan has a compute
    fabric), else its first accelerator. A card with no sourced memory bandwidth (MetaX
    C500) cannot size online services, so that plan carries none."""
    server, acc = None, None
    for name, accelerator in zip(
        catalog.servers["name"], catalog.servers["accelerator"], strict=True
    ):
        if catalog.accelerator(accelerator)["vendor"] == family:
            server, acc = name, catalog.accelerator(accelerator)
            break
    if acc is None:
        acc = catalog.accelerators[catalog.accelerators["vendor"] == family].iloc[0]
    changes = {}
    for pool in ("training", "inference", "development"):
        changes[f"pools.{pool}.accelerator"] = acc["name"]
        changes[f"pools.{pool}.server"] = server
    if switch:
        changes["network.compute_switch"] = switch
    if acc["mem_bw_tb_s"] != acc["mem_bw_tb_s"]:
        changes["workload.inference"] = []
    return build_plan(default_scenario().with_changes(changes))


def _texts(plan):
    """Every delivered artefact of the plan: the network settings, runbook, acceptance
    tests, Slurm tables and files, Kubernetes tables and manifests, the training image."""
    nodes = plan["slurm_nodes"]
    tables = ("rdma_settings", "deployment_steps", "acceptance", "slurm_nodes", "k8s_pools")
    return "\n".join(
        [
            *(plan[t].to_csv(index=False) for t in tables),
            slurm_conf(nodes, plan["slurm_partitions"]),
            gres_conf(nodes),
            prolog_script(nodes),
            container_spec(plan.scenario.delivery, plan["rdma_settings"], nodes),
            k8s_manifests(plan["k8s_pools"]),
        ]
    )


def _own_switch(catalog, family):
    """A compute switch of a technology the family scales out on (Ethernet for Ascend and
    Gaudi: Intel Gaudi 'Network Configuration'; Huawei Atlas 900: RoCE)."""
    fabrics = str(catalog.family(family)["scaleout_fabric"]).split(";")
    return None if "infiniband" in fabrics or fabrics == [""] else "SN5400"


@pytest.mark.parametrize("family", sorted(OWN))
def test_every_family_carries_its_own_tooling_and_no_nvidia(catalog, family):
    assert family in set(catalog.families["name"])  # the table covers it
    for switch in dict.fromkeys([None, _own_switch(catalog, family)]):
        text = _texts(_family_plan(catalog, family, switch))
        if family != "NVIDIA":
            leaked = [t for t in NVIDIA_TOOLING if t in text and t not in ALLOWED.get(family, ())]
            assert leaked == [], f"{family} plan (switch {switch}) carries {leaked}"
        missing = [t for t in OWN[family] if t not in text]
        assert missing == [], f"{family} plan (switch {switch}) lacks {missing}"


def test_every_catalogue_vendor_is_a_family(catalog):
    vendors = set(catalog.accelerators["vendor"])
    assert vendors <= set(catalog.families["name"])
    assert {
        "NVIDIA",
        "AMD",
        "Intel",
        "Huawei",
        "Cambricon",
        "Moore Threads",
        "Biren",
        "MetaX",
    } <= vendors


def test_unknown_family_is_unknown_not_nvidia(catalog):
    row = catalog.family("Acme")
    assert row["collective_library"] == "" and row["device_file"] == ""
    assert row["container_image"] == "" and row["gres_autodetect"] == ""


def test_ascend_traffic_class_matches_the_switch_dscp():
    # HCCL_RDMA_TC is the ToS byte, DSCP × 4 (CANN envref_07_0089; its default 132 is
    # DSCP 33). The plan's switches put RoCE on DSCP 26 (Cumulus lossless mode), so the
    # NPUs must send 26 × 4 = 104, not the default 132.
    assert traffic_class(26) == 104
    plan = _family_plan(load_catalog(), "Huawei", "SN5400")
    rd = plan["rdma_settings"].set_index("setting")["value"]
    assert rd["HCCL_RDMA_TC"] == "104" and rd["roce_dscp"] == "26"
    assert rd["HCCL_CONNECT_TIMEOUT"] == "120"  # CANN default and minimum, in s
    assert set(plan["rdma_settings"]["transport"]) == {"roce"}


def test_switch_the_family_cannot_use_is_a_finding(catalog):
    # Ascend and Gaudi scale out over RoCE on the accelerator's own Ethernet ports
    # (Intel Gaudi 'Network Configuration'; Atlas 800T A2 200GE RoCE parameter plane):
    # an InfiniBand QM9700 fabric has nothing to plug into.
    for family, server_plan in (("Huawei", None), ("Intel", None)):
        codes = [f.code for f in _family_plan(catalog, family, server_plan).raw_findings]
        assert "fabric_unsuited_to_family" in codes
        codes = [f.code for f in _family_plan(catalog, family, "SN5400").raw_findings]
        assert "fabric_unsuited_to_family" not in codes
    # NVIDIA runs either (SuperPOD on InfiniBand, Spectrum-X on Ethernet).
    nv = catalog.family("NVIDIA")
    assert fabric_family_findings(nv, "infiniband", "QM9700") == []
    assert fabric_family_findings(nv, "ethernet", "SN5600") == []


def test_device_files_by_family(catalog):
    # Slurm File= ranges: 8 AMD GPUs are render nodes 128..135 (DRM numbers render nodes
    # from 128); 8 Ascend NPUs /dev/davinci0..7; 8 Gaudi cards /dev/accel/accel0..7.
    assert device_files(catalog.family("AMD"), 8) == "/dev/dri/renderD[128-135]"
    assert device_files(catalog.family("Huawei"), 8) == "/dev/davinci[0-7]"
    assert device_files(catalog.family("Intel"), 8) == "/dev/accel/accel[0-7]"
    assert device_files(catalog.family("Biren"), 8) == ""


def test_gres_validation_reads_every_family(catalog):
    plan = _family_plan(catalog, "Huawei", "SN5400")
    nodes = plan["slurm_nodes"]
    conf, gres = slurm_conf(nodes, plan["slurm_partitions"]), gres_conf(nodes)
    # The Atlas 800T A2 row has no sourced memory: only that warning, no gres mismatch.
    assert {f.code for f in validate_scheduler(conf, gres, nodes)} == {"slurm_memory_unknown"}
    bad = gres.replace("davinci[0-7]", "davinci[0-3]")
    assert {f.code for f in validate_scheduler(conf, bad, nodes)} == {
        "slurm_memory_unknown",
        "gres_count_mismatch",
    }
    # A family with unknown device files is counted by Count=.
    biren = _family_plan(catalog, "Biren")
    nodes = biren["slurm_nodes"]
    conf, g = slurm_conf(nodes, biren["slurm_partitions"]), gres_conf(nodes)
    assert "Count=8" in g and "device files unknown" in g
    assert "gres_count_mismatch" not in {f.code for f in validate_scheduler(conf, g, nodes)}
    codes = {f.code for f in validate_scheduler(conf, g.replace("Count=8", "Count=4"), nodes)}
    assert "gres_count_mismatch" in codes


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
@pytest.mark.parametrize("family", ["NVIDIA", "Huawei", "Biren"])
def test_prolog_is_valid_bash(catalog, family):
    script = prolog_script(_family_plan(catalog, family)["slurm_nodes"])
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0


def test_unknown_tools_are_findings_not_borrowed(catalog):
    plan = _family_plan(catalog, "Biren")
    a = plan["acceptance"]
    node = a[a["scope"] == "node"].set_index(["pool", "test"])["tool"]
    assert node[("training", "gpu_count")] == "unknown"
    assert node[("training", "device_diag")] == "unknown"
    assert "acceptance_tool_unknown" in {f.code for f in plan.raw_findings}
    steps = plan["deployment_steps"].set_index("step")["tool"]
    assert steps["driver_and_runtime"] == "unknown; unknown; container run"
    spec = container_spec(plan.scenario.delivery, plan["rdma_settings"], plan["slurm_nodes"])
    assert "FROM REPLACE-WITH-TRAINING-IMAGE-FOR-BIREN" in spec


def test_deployment_steps_name_each_family_of_a_mixed_plan(catalog):
    steps = deployment_steps([catalog.family("Huawei"), catalog.family("NVIDIA")])
    tool = steps.set_index("step").loc["driver_and_runtime", "tool"]
    assert tool.startswith("Huawei: npu-smi info -l;") and "| NVIDIA: nvidia-smi -L;" in tool


def test_families_csv_errors_name_file_line_and_column(tmp_path):
    bad = tmp_path / "families.csv"
    bad.write_text(
        "name,scaleout_fabric,source,as_of,confidence\nAcme,omnipath,vendor sheet,2026-12-03,low\n"
    )
    with pytest.raises(CatalogError, match=r"families.csv, line 2, column scaleout_fabric"):
        load_catalog(families=bad)
    bad.write_text(
        "name,device_file,source,as_of,confidence\nAcme,/dev/acme0,vendor sheet,2026-12-03,low\n"
    )
    with pytest.raises(CatalogError, match=r"line 2, column device_file"):
        load_catalog(families=bad)
    ok = tmp_path / "ok.csv"
    ok.write_text(
        "name,collective_library,device_file,device_file_first,source,as_of,confidence\n"
        "Acme,ACCL,/dev/acme{i},0,vendor sheet,2026-12-03,low\n"
    )
    cat = load_catalog(families=ok)
    assert cat.family("acme")["collective_library"] == "ACCL"
    assert cat.family("NVIDIA")["collective_library"] == "NCCL"  # shipped rows kept


def test_catalogue_without_a_vendor_row_is_refused(tmp_path, monkeypatch):
    from hubplan.core import catalog as cat_mod

    accs = cat_mod.read_table(
        hubplan.core.paths.data_dir() / "accelerators.csv", cat_mod.ACCELERATOR_SCHEMA
    )
    fams = pd.DataFrame(cat_mod._shipped_families())
    fams = fams[fams["name"] != "Biren"]
    with pytest.raises(CatalogError, match=r"\['Biren'\] have no row"):
        cat_mod._check_family_coverage(accs, fams, "accelerators.csv")


def _server_plan(catalog, server):
    """A plan whose three pools all run ``server`` (its accelerator and count), on a
    compute switch of the family's fabric at the server's NIC speed (Q3400 / SN5600 for
    800G NICs, QM9700 / SN5400 for 400G)."""
    row = catalog.server(server)
    acc = catalog.accelerator(row["accelerator"])
    changes = {
        f"pools.{p}.{k}": v
        for p in ("training", "inference", "development")
        for k, v in (
            ("accelerator", acc["name"]),
            ("server", server),
            ("gpus_per_server", int(row["gpus"])),
        )
    }
    fast = float(row["compute_nic_gbps"]) > 400
    ethernet = "infiniband" not in str(catalog.family(acc["vendor"])["scaleout_fabric"])
    changes["network.compute_switch"] = {
        (False, False): "QM9700",
        (False, True): "SN5400",
        (True, False): "Q3400",
        (True, True): "SN5600",
    }[(fast, ethernet)]
    if acc["mem_bw_tb_s"] != acc["mem_bw_tb_s"]:
        changes["workload.inference"] = []
    return build_plan(default_scenario().with_changes(changes)), str(acc["vendor"])


#: Rack-scale rows (GB200 NVL72, CloudMatrix 384) are planned through their trays and
#: servers (DGX GB200 compute tray, Atlas 800T A3), which are in the list.
SERVERS = [
    n
    for n, k in zip(load_catalog().servers["name"], load_catalog().servers["kind"], strict=True)
    if k != "rack"
]


@pytest.mark.parametrize("server", SERVERS)
def test_every_catalogue_server_plan_carries_no_foreign_tooling(catalog, server):
    plan, family = _server_plan(catalog, server)
    text = _texts(plan)
    if family == "NVIDIA":
        assert "nvidia-smi" in text
    else:
        leaked = [t for t in NVIDIA_TOOLING if t in text and t not in ALLOWED.get(family, ())]
        assert leaked == [], f"{server} ({family}) plan carries {leaked}"


def test_nvidia_rdma_measurement_is_not_carried_to_other_families(tmp_path):
    # The 392 Gb/s ib_write_bw per 400G port is NVIDIA's GPUDirect measurement on DGX H100
    # (MLPerf Inference v3.1, NVIDIA dgx-h100.md). An Ascend server with 400G ports gets a
    # derived figure (line rate x share), not that measurement.
    rows = pd.read_csv(hubplan.core.paths.data_dir() / "servers.csv", dtype=str)
    row = rows[rows["name"] == "Huawei Atlas 800T A2"].copy()
    row["compute_nic_gbps"] = "400"
    path = tmp_path / "servers.csv"
    row.to_csv(path, index=False)
    cat = load_catalog(servers=path)
    ascend = {
        f"pools.{p}.{k}": v
        for p in ("training", "inference", "development")
        for k, v in (("accelerator", "Ascend 910B 64GB"), ("server", "Huawei Atlas 800T A2"))
    }
    ascend["network.compute_switch"] = "SN5400"
    plan = build_plan(default_scenario().with_changes(ascend), cat)
    a = plan["acceptance"].set_index(["pool", "test"])
    assert a.loc[("training", "rdma_write_bw"), "figure_basis"] == "derived"
    assert a.loc[("training", "rdma_write_bw"), "figure_source"] == "line_rate_times_share"
    # NVIDIA's own 400G servers keep the measurement.
    nv = build_plan(default_scenario())["acceptance"].set_index(["pool", "test"])
    assert nv.loc[("training", "rdma_write_bw"), "figure_source"] == "nvidia_dgx_h100_gdr"


def test_mixed_families_get_per_node_autodetect(catalog):
    # gres.conf(5): "AutoDetect can be combined with NodeName to only apply to certain
    # nodes ... E.g.: NodeName=tux3 AutoDetect=off Name=gpu File=/dev/nvidia[0-3]".
    s = default_scenario().with_changes(
        {
            "pools.training.accelerator": "Ascend 910B 64GB",
            "pools.training.server": "Huawei Atlas 800T A2",
            "network.compute_switch": "SN5400",
        }
    )
    plan = build_plan(s)
    nodes = plan["slurm_nodes"]
    gres = gres_conf(nodes)
    assert "\nAutoDetect=" not in gres  # no global line: the families differ
    assert "AutoDetect=off Name=gpu Type=ascend File=/dev/davinci[0-7]" in gres
    assert "AutoDetect=nvml Name=gpu Type=l40s File=/dev/nvidia[0-7]" in gres
    conf = slurm_conf(nodes, plan["slurm_partitions"])
    assert "gres_count_mismatch" not in {f.code for f in validate_scheduler(conf, gres, nodes)}
    bad = gres.replace("davinci[0-7]", "davinci[0-5]")
    assert "gres_count_mismatch" in {f.code for f in validate_scheduler(conf, bad, nodes)}
