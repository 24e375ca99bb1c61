"""Kubernetes manifests for the inference pool: names, device plugin resources, quota with
surge, /dev/shm, probes, node shares, and validation against the Kubernetes JSON schemas
(kubernetes-validate ships them: no network)."""

import copy
import re

import kubernetes_validate
import pytest
import yaml

import hubplan
from hubplan.delivery import k8s_manifests
from hubplan.delivery.kubernetes import (
    dns_label,
    k8s_findings,
    k8s_objects,
    label_value,
    unique_labels,
)

# The newest Kubernetes schemas kubernetes-validate 1.37 ships, and an older one a site
# may still run (1.29 is the oldest minor in its set that is still commonly deployed).
K8S_VERSIONS = ("1.37.0", "1.29.0")
# DNS-1035 label (Kubernetes "Object Names and IDs"): Service names; stricter than the
# DNS-1123 label that namespaces and Deployments need, so it checks both.
DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
# A partition is a hostname prefix (ASCII, tests/test_servers.py): the Chinese names a
# client types are the scenario's and the services'.
CHINESE = {"name": "智算中心推理平台", "workload.inference.0.name": "行业大模型在线服务"}
AMD = {
    "pools.inference.accelerator": "MI300X 192GB",
    "pools.inference.server": "Supermicro AS-8125GS-TNMR2 MI300X",
}
# The 16K pre-training scenario serves nothing; add a 405B FP8 chat service (TP 8, one
# DGX H100 per replica) so its inference pool gets manifests too.
SERVE_405B = {
    "workload.inference": [
        {"name": "405B chat", "model": "Llama-3.1-405B", "peak_qps": 20, "weight_precision": "fp8"}
    ],
    "pools.inference.server": "DGX H100",
}
ASCEND = {
    "pools.inference.accelerator": "Ascend 910B 64GB",
    "pools.inference.server": "Huawei Atlas 800T A2",
}


def _plan(changes=None, template=None):
    if template:
        s = hubplan.load_scenario(hubplan.core.paths.templates_dir() / "scenarios" / template)
    else:
        s = hubplan.default_scenario()
    return hubplan.build_plan(s.with_changes(changes) if changes else s)


@pytest.fixture(scope="module")
def plan():
    return _plan()


def _validate_all(docs):
    for doc in docs:
        for version in K8S_VERSIONS:
            kubernetes_validate.validate(doc, version, strict=True)


@pytest.mark.parametrize(
    ("changes", "template", "resource"),
    [
        (None, None, "nvidia.com/gpu"),
        (SERVE_405B, "pretrain-16k.yaml", "nvidia.com/gpu"),
        (CHINESE, None, "nvidia.com/gpu"),
        (AMD, None, "amd.com/gpu"),  # ROCm/k8s-device-plugin README
        (ASCEND, None, "huawei.com/Ascend910"),  # Ascend MindCluster ascend-device-plugin
    ],
    ids=["default", "16k", "chinese", "amd", "ascend"],
)
def test_manifests_validate_against_the_kubernetes_schemas(changes, template, resource):
    plan = _plan(changes, template)
    text = k8s_manifests(plan["k8s_pools"], plan.scenario.name)
    docs = [d for d in yaml.safe_load_all(text) if d]
    kinds = [d["kind"] for d in docs]
    services = len(plan["k8s_pools"])
    assert services >= 1
    assert kinds.count("Namespace") == 1 and kinds.count("ResourceQuota") == 1
    assert kinds.count("Deployment") == kinds.count("Service") == services
    _validate_all(docs)
    # Names: valid labels, unique per kind, every object in the one namespace.
    ns = docs[0]["metadata"]["name"]
    names = [(d["kind"], d["metadata"]["name"]) for d in docs]
    assert len(set(names)) == len(names)
    assert all(DNS_1035.match(n) for _, n in names), names
    assert all(d["metadata"].get("namespace", ns) == ns for d in docs)
    for d in docs:
        if d["kind"] != "Deployment":
            continue
        pod = d["spec"]["template"]["spec"]
        ((key, value),) = pod["nodeSelector"].items()
        assert key == "hubplan/pool" and DNS_1035.match(value)
        assert pod["tolerations"][0]["key"] == resource
        limits = pod["containers"][0]["resources"]["limits"]
        assert resource in limits
    assert f"requests.{resource}" in docs[1]["spec"]["hard"]


def test_a_broken_manifest_is_rejected(plan):
    # The validator really checks: each defect below makes the API server refuse the
    # object too (a misspelt field in strict mode, a string replica count, no image).
    docs = k8s_objects(plan["k8s_pools"], plan.scenario.name)
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    kubernetes_validate.validate(deployment, K8S_VERSIONS[0], strict=True)
    typo = copy.deepcopy(deployment)
    typo["spec"]["template"]["spec"]["containers"][0]["resource"] = typo["spec"]["template"][
        "spec"
    ]["containers"][0].pop("resources")
    count = copy.deepcopy(deployment)
    count["spec"]["replicas"] = "two"
    nameless = copy.deepcopy(deployment)
    del nameless["spec"]["template"]["spec"]["containers"][0]["name"]
    for bad in (typo, count, nameless):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(bad, K8S_VERSIONS[0], strict=True)


def test_default_plan_quota_surge_and_pod_share(plan):
    k = plan["k8s_pools"].iloc[0]
    # industry-70b-online: 2 replicas × TP 4; one surge pod of 4 GPUs must fit in the
    # quota for a rolling update to start it: (2 + 1) × 4 = 12 (the pool has 16).
    assert (k["replicas"], k["gpus_per_pod"], k["max_surge"], k["gpu_quota"]) == (2, 4, 1, 12)
    assert k["device_resource"] == "nvidia.com/gpu"
    # DGX H100, 112 cores × 2 threads = 224 CPUs; GKE reserve 0.06 + 0.01 + 2 × 0.005 +
    # 220 × 0.0025 = 0.63 → 223.37, less 1 for DaemonSets = 222.37; half a node (4 of 8
    # GPUs) = 111.18 → 111 whole CPUs.
    assert k["cpus_per_pod"] == 111
    # 2 048 GB = 1 907.35 GiB; reserve 0.25×4 + 0.2×4 + 0.1×8 + 0.06×112 + 0.02×1 779.35
    # = 44.91, + 0.098 eviction = 45.00 → 1 862.34, less 2 GiB = 1 860.34; half = 930.17.
    assert k["memory_gib_per_pod"] == 930
    # NVSwitch joins the pod's 4 GPUs: the vLLM guide's 2 GiB /dev/shm.
    assert k["shm_gib"] == 2
    # 300 s engine start + 140 GB of BF16 weights at 1 GB/s = 440 s → 44 × 10 s periods.
    assert k["startup_s"] == 440
    text = k8s_manifests(plan["k8s_pools"], plan.scenario.name)
    assert "requests.nvidia.com/gpu: '12'" in text
    assert "maxSurge: 1" in text and "maxUnavailable: 0" in text
    assert "failureThreshold: 44" in text and "path: /health" in text
    assert "containerPort: 8000" in text and "sizeLimit: 2Gi" in text
    assert "medium: Memory" in text and "mountPath: /dev/shm" in text
    # progressDeadlineSeconds (default 600) must outlast the start-up allowance.
    assert "progressDeadlineSeconds: 1040" in text
    assert k8s_findings(plan["k8s_pools"], plan["pools"]) == []


def test_chinese_names_become_distinct_valid_labels(default):
    # Before: every character outside [a-z0-9-] became "-", so a Chinese name gave
    # "---------", an invalid name, the same for every Chinese service.
    second = {
        **default.workload.inference[0].model_dump(mode="json"),
        "name": "行业大模型离线服务",
        "peak_qps": 1,
    }
    s = default.with_changes(CHINESE)
    s = s.with_changes(
        {"workload.inference": [s.workload.inference[0].model_dump(mode="json"), second]}
    )
    k = hubplan.build_plan(s)["k8s_pools"]
    names = list(k["k8s_name"])
    assert len(names) == 2 and len(set(names)) == 2
    assert all(DNS_1035.match(n) and n.startswith("svc-") for n in names)
    # sha256("行业大模型在线服务")[:8], worked out with `printf … | sha256sum`.
    assert names[0] == "svc-9010e2cd"
    assert k["node_label"].iloc[0] == "hubplan/pool=infer"  # the default partition
    # a label value from a Chinese name still gets its digest (the label_value rule):
    # sha256("推理")[:8] = 132411ba (`printf 推理 | sha256sum`)
    assert label_value("推理") == "pool-132411ba"


def test_names_keep_ascii_words_and_stay_unique():
    # sha256("Qwen2.5-72B 对话")[:8] = 8fd4663e (`printf … | sha256sum`).
    assert dns_label("Qwen2.5-72B 对话") == "qwen2-5-72b-8fd4663e"
    assert dns_label("Chat_Bot (prod)") == "chat-bot-prod"
    long = dns_label("service " * 20)
    assert len(long) == 63 and DNS_1035.match(long)
    assert unique_labels(["A b", "a-b", "A B"]) == ["a-b", "a-b-2", "a-b-3"]


def test_device_resource_and_shm_per_accelerator_family():
    amd = _plan(AMD)["k8s_pools"].iloc[0]
    # MI300X holds the 140 GB model on one GPU: TP 1; the vLLM guide's ROCm example mounts
    # an 8 GiB /dev/shm. 64 cores × 2 = 128 CPUs: reserve 0.06 + 0.01 + 0.01 + 124 ×
    # 0.0025 = 0.39 → 127.61 - 1 = 126.61, ÷ 8 = 15.8 → 15.
    assert (amd["device_resource"], amd["gpus_per_pod"], amd["shm_gib"]) == ("amd.com/gpu", 1, 8)
    assert amd["cpus_per_pod"] == 15
    # No vLLM image is published by the vLLM project for ROCm under vllm/vllm-openai: a
    # marker, not the CUDA image.
    assert amd["image"].startswith("REPLACE-WITH-VLLM-IMAGE")
    ascend = _plan(ASCEND)
    a = ascend["k8s_pools"].iloc[0]
    assert a["device_resource"] == "huawei.com/Ascend910"
    assert a["taint"] == "huawei.com/Ascend910=present:NoSchedule"
    # The Atlas 800T A2 row has no core count: no CPU request, and a warning says so.
    codes = set(ascend.findings.query("stage == 'delivery'")["code"])
    assert "k8s_node_figures_unknown" in codes


def test_pcie_cards_get_the_large_shm(default):
    # L40S: no NVLink. A TP > 1 pod's NCCL traffic goes through host memory: NVIDIA NIM
    # requires 16 GB of shared memory in multi-GPU, non-NVLink cases.
    s = default.with_changes(
        {
            "pools.inference.accelerator": "L40S 48GB",
            "pools.inference.server": "Supermicro SYS-521GE-TNRT L40S",
        }
    )
    k = hubplan.build_plan(s)["k8s_pools"].iloc[0]
    assert k["gpus_per_pod"] > 1 and k["shm_gib"] == 16


def test_unknown_device_resource_is_a_finding_not_a_guess(plan):
    k = plan["k8s_pools"].copy()
    k["device_resource"] = ""
    k["taint"] = ""
    codes = {f.code for f in k8s_findings(k, plan["pools"])}
    assert codes == {"k8s_device_resource_unknown"}
    text = k8s_manifests(k, plan.scenario.name)
    assert "REPLACE-WITH-DEVICE-PLUGIN-RESOURCE" in text and "ResourceQuota" not in text


def test_surge_beyond_the_pool_is_a_finding(default):
    # No spare server: the pool has 8 GPUs, the quota with surge needs (2 + 1) × 4 = 12.
    s = default.with_changes({"pools.inference.spare_ratio": 0})
    plan = hubplan.build_plan(s)
    assert "k8s_surge_exceeds_pool" in set(plan.findings["code"])
    # Updating by taking one replica down instead needs no extra GPUs: 2 × 4 = 8.
    s = s.with_changes({"delivery.k8s_max_surge": 0, "delivery.k8s_max_unavailable": 1})
    plan = hubplan.build_plan(s)
    assert plan["k8s_pools"]["gpu_quota"].sum() == 8
    assert "k8s_surge_exceeds_pool" not in set(plan.findings["code"])


def test_a_rolling_update_that_cannot_move_is_refused(default):
    with pytest.raises(hubplan.ScenarioError, match="k8s_max_surge"):
        default.with_changes({"delivery.k8s_max_surge": 0})


def test_export_writes_manifests_that_parse_and_validate(plan, tmp_path):
    from hubplan.export import write_scheduler_files

    write_scheduler_files(plan, tmp_path)
    docs = [d for d in yaml.safe_load_all((tmp_path / "k8s-inference.yaml").read_text()) if d]
    assert [d["kind"] for d in docs] == ["Namespace", "ResourceQuota", "Deployment", "Service"]
    _validate_all(docs)


def test_a_pod_wider_than_a_node_is_an_error(plan):
    # The default pool has 8 GPUs per DGX H100; a 16-GPU pod could never be scheduled.
    k = plan["k8s_pools"].copy()
    k["gpus_per_pod"] = 16
    codes = [f.code for f in k8s_findings(k, plan["pools"])]
    assert "k8s_pod_exceeds_node" in codes


def test_names_with_line_breaks_cannot_inject_yaml(default):
    # A scenario or service name is free text; in a YAML comment a line break would start
    # a new key. The file must still hold exactly the four objects, all valid.
    s = default.with_changes(
        {"name": "demo\nkind: Secret", "workload.inference.0.name": "chat\n---\napiVersion: v1"}
    )
    plan = hubplan.build_plan(s)
    docs = [d for d in yaml.safe_load_all(k8s_manifests(plan["k8s_pools"], s.name)) if d]
    assert [d["kind"] for d in docs] == ["Namespace", "ResourceQuota", "Deployment", "Service"]
    _validate_all(docs)
