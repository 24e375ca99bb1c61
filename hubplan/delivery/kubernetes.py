"""Kubernetes for the inference pool: the ``k8s_pools`` table (one row per inference
service: its object name, node label and taint, the device plugin resource, GPUs, CPUs and
memory per pod, ``/dev/shm``, replicas, rolling-update surge, the namespace GPU quota and
the start-up allowance) and the TEXT of the manifests: a Namespace, a ResourceQuota and,
per service, a Deployment and a Service. Everything here returns tables, dicts or strings;
only ``hubplan.export.scheduler`` writes files.

Sources: Kubernetes documentation (object names and IDs: DNS-1123 labels and subdomains,
DNS-1035 labels; Deployments: ``strategy.rollingUpdate``; Resource Quotas: extended
resources are quota'd under ``requests.<resource>`` only; Volumes: ``emptyDir`` with
``medium: Memory`` counts against the container's memory limit; Configure Liveness,
Readiness and Startup Probes), each vendor's device plugin README (cited in
``data/families.csv``, column ``k8s_device_resource``), the vLLM Kubernetes deployment
guide (``/dev/shm`` for tensor parallel inference; ``/health`` on port 8000), NCCL's
troubleshooting guide and NVIDIA NIM for LLMs (shared memory sizes), and GKE's
node-allocatable reservations.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable

import pandas as pd
import yaml

from ..core.catalog import Catalog
from ..core.errors import CatalogError
from ..core.findings import Finding
from ..core.frames import records
from ..core.names import ascii_words, drops_letters, name_digest
from ..core.units import GIB
from ..pools import Pools
from .scheduler import server_figures, threads_per_core
from .section import Delivery

K8S_COLUMNS = [
    "service",
    "k8s_name",
    "pool",
    "accelerator",
    "node_label",
    "taint",
    "device_resource",
    "gpus_per_pod",
    "replicas",
    "max_surge",
    "max_unavailable",
    "gpu_quota",
    "cpus_per_pod",
    "memory_gib_per_pod",
    "shm_gib",
    "startup_s",
    "image",
]

#: The serving framework's HTTP port and health endpoint. vLLM's OpenAI-compatible server
#: listens on 8000 and answers ``GET /health`` with 200 once the engine is up (vLLM
#: documentation, "Using Kubernetes": ``containerPort: 8000``, liveness and readiness
#: probes on ``/health``, port 8000).
SERVING_PORT = 8000
HEALTH_PATH = "/health"
#: Probe period: 10 s is the Kubernetes default ``periodSeconds`` (Configure Liveness,
#: Readiness and Startup Probes); readiness at 5 s, as the vLLM guide's example, so a pod
#: joins the Service soon after it is up.
PROBE_PERIOD_S = 10
READINESS_PERIOD_S = 5
#: ``progressDeadlineSeconds`` default is 600 s (Kubernetes Deployments); it must exceed
#: the start-up allowance, or a slow but healthy rollout is reported failed.
PROGRESS_DEADLINE_MIN_S = 600

#: What the node's DaemonSets (device plugin, GPU feature discovery, DCGM exporter, CNI,
#: kube-proxy, node exporter) request, kept out of the pods' share of the node. Each asks a
#: few hundred millicores and MiB at most; 1 CPU and 2 GiB per node is an assumption that
#: covers them: compare with ``kubectl describe node`` on the first server.
DAEMONSET_CPUS = 1.0
DAEMONSET_MEMORY_GIB = 2.0


#: Scale-up fabrics that join a pod's accelerators directly (catalogue ``scaleup_kind``).
DIRECT_FABRICS = {"nvswitch", "bridge", "mesh", "ethernet"}

#: The vLLM image per vendor where the vLLM project publishes one: ``vllm/vllm-openai``
#: (vLLM documentation, "Using Docker" and "Using Kubernetes"). Other vendors run vLLM
#: through their own builds (ROCm, vllm-ascend, Gaudi): their image is the operator's
#: choice (``delivery.serving_image``) and the manifest says so.
VLLM_IMAGES = {"NVIDIA": "vllm/vllm-openai:latest"}
IMAGE_PLACEHOLDER = "REPLACE-WITH-VLLM-IMAGE-FOR-{vendor}"


# -- names -----------------------------------------------------------------------------


def dns_label(text: str, max_len: int = 63, prefix: str = "x") -> str:
    """A DNS-1035 label for any name: at most ``max_len`` (≤ 63) characters of
    ``[a-z0-9-]``, starting with a letter and ending with a letter or digit.

    Notes
    -----
    Kubernetes names most objects with DNS-1123 labels (≤ 63 characters, lower-case
    alphanumerics or ``-``, alphanumeric at both ends) and Services with the stricter
    DNS-1035 label (starts with a letter); a label is also a valid DNS-1123 subdomain
    (≤ 253). Kubernetes documentation, "Object Names and IDs".

    The ASCII words of the name are kept, lower case, joined by ``-``. When letters the
    label cannot hold are dropped (Chinese characters, accented letters), or the name is
    cut to fit, an 8-hex-digit SHA-256 of the whole name is appended, so two names that
    differ only there stay apart and the same name always gives the same label. No
    transliteration: that needs a dictionary hubplan does not ship. A label that would
    start with a digit, or is the hash alone, gets ``prefix-`` in front.

    Examples
    --------
    >>> dns_label("Industry 70B online")
    'industry-70b-online'
    >>> dns_label("70B chat", prefix="svc")
    'svc-70b-chat'
    >>> dns_label("智算中心推理服务")  # printf 智算中心推理服务 | sha256sum → f0d1ccef…
    'x-f0d1ccef'
    >>> dns_label("Qwen 推理")
    'qwen-8440d6e9'
    >>> len(dns_label("a" * 100)), dns_label("a" * 100)[-9:]
    (63, '-28165978')
    """
    if not 1 <= max_len <= 63:
        raise ValueError(f"max_len must be 1-63 (a DNS label), not {max_len}")
    name = unicodedata.normalize("NFKC", str(text))
    slug = "-".join(ascii_words(name))
    lead = f"{prefix}-" if not slug or not slug[0].isalpha() else ""
    if drops_letters(name) or not slug or len(lead) + len(slug) > max_len:
        digest = name_digest(name, 8)
        room = max_len - len(lead) - len(digest) - 1
        head = slug[: max(room, 0)].strip("-")
        return f"{lead}{head}-{digest}" if head else f"{lead}{digest}"[:max_len]
    return f"{lead}{slug}"


def unique_labels(names: Iterable[str], prefix: str = "x") -> list[str]:
    """:func:`dns_label` of each name, made unique in order: a later name whose label is
    taken gets ``-2``, ``-3``, … (its label cut to stay within 63 characters).

    >>> unique_labels(["Chat A", "chat-a", "chat a"])
    ['chat-a', 'chat-a-2', 'chat-a-3']
    """
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        base = dns_label(name, prefix=prefix)
        label, n = base, 1
        while label in seen:
            n += 1
            tail = f"-{n}"
            label = base[: 63 - len(tail)].rstrip("-") + tail
        seen.add(label)
        out.append(label)
    return out


def label_value(text: str) -> str:
    """A Kubernetes label value for a pool or partition name (≤ 63 characters,
    alphanumeric at both ends; here a DNS label, which is always a valid value)."""
    return dns_label(text, prefix="pool")


# -- device plugin, node share, shared memory, start-up --------------------------------


def device_resource(catalog: Catalog, vendor: str, accelerator: str = "") -> str | None:
    """The device plugin's extended resource name for an accelerator, or None when no
    vendor document was found for it (``k8s_device_resource`` of the vendor's row in
    ``data/families.csv``, with the plugin's README or documentation in its ``source``).

    Huawei: ``huawei.com/Ascend310P`` / ``huawei.com/Ascend310`` for the 310 inference
    chips, the family's ``huawei.com/Ascend910`` for the 910 series (910, 910B, 910C), per
    Ascend MindCluster's ascend-device-plugin (ResourceNamePrefix ``huawei.com/`` + the
    chip type). Intel: ``habana.ai/gaudi`` for Gaudi only.

    >>> from hubplan.core.catalog import load_catalog
    >>> cat = load_catalog()
    >>> device_resource(cat, "NVIDIA", "H100 SXM5 80GB"), device_resource(cat, "AMD", "MI300X")
    ('nvidia.com/gpu', 'amd.com/gpu')
    >>> device_resource(cat, "Huawei", "Ascend 910B 64GB"), device_resource(cat, "Huawei", "310P")
    ('huawei.com/Ascend910', 'huawei.com/Ascend310P')
    >>> device_resource(cat, "Intel", "Gaudi 3 128GB"), device_resource(cat, "Hygon", "K100")
    ('habana.ai/gaudi', None)
    """
    vendor = str(vendor).strip()
    if vendor == "Intel" and "GAUDI" not in str(accelerator).upper():
        return None  # Intel's data-centre GPUs use another plugin (gpu.intel.com/…)
    if vendor == "Huawei":
        chip = re.sub(r"\s+", "", str(accelerator)).upper()
        if "310P" in chip:
            return "huawei.com/Ascend310P"
        if "310" in chip:
            return "huawei.com/Ascend310"
        if "910" not in chip:
            return None
    return str(catalog.family(vendor)["k8s_device_resource"]) or None


def node_allocatable(cpus: float, memory_gib: float) -> tuple[float, float]:
    """CPUs and memory a node offers pods after the kubelet's reservations. [CPUs, GiB]

    Notes
    -----
    GKE's published reservation rule (Google Kubernetes Engine, "Plan node sizes", memory
    and CPU reservations), used here because upstream Kubernetes leaves the figures to
    the operator (``--kube-reserved``/``--system-reserved``):

    - CPU: 6 % of the first core, 1 % of the next, 0.5 % of the next 2, 0.25 % above 4;
    - memory: 25 % of the first 4 GiB, 20 % of the next 4, 10 % of the next 8, 6 % of the
      next 112, 2 % above 128 GiB, plus the 100 MiB eviction threshold.

    Examples
    --------
    DGX H100, 224 hardware threads and 2 048 GB (1 907.35 GiB): CPU reserve 0.06 + 0.01 +
    0.01 + 0.0025 × 220 = 0.63; memory reserve 1 + 0.8 + 0.8 + 6.72 + 0.02 × 1 779.35 +
    0.098 = 45.004 GiB.

    >>> cpu, mem = node_allocatable(224, 2048e9 / 2**30)
    >>> round(cpu, 2), round(mem, 2)
    (223.37, 1862.34)
    """
    tiers_cpu = ((1, 0.06), (1, 0.01), (2, 0.005), (math.inf, 0.0025))
    tiers_mem = ((4, 0.25), (4, 0.20), (8, 0.10), (112, 0.06), (math.inf, 0.02))

    def reserve(total: float, tiers) -> float:
        out, left = 0.0, total
        for size, share in tiers:
            step = min(left, size)
            out += step * share
            left -= step
            if left <= 0:
                break
        return out

    return (
        cpus - reserve(cpus, tiers_cpu),
        memory_gib - reserve(memory_gib, tiers_mem) - 100 / 1024,
    )


def shm_gib(gpus_per_pod: int, vendor: str, scaleup_kind: str, scaleup_gpus: float) -> float:
    """``/dev/shm`` size for a serving pod (vLLM). [GiB]

    Notes
    -----
    A container's ``/dev/shm`` is 64 MiB unless a memory-backed ``emptyDir`` is mounted
    there; NCCL creates its segments in ``/dev/shm`` and fails to initialise when they do
    not fit (NCCL troubleshooting: "--shm-size=1g" for containers). The rule:

    - 2 GiB by default: the vLLM Kubernetes guide mounts ``emptyDir {medium: Memory,
      sizeLimit: 2Gi}`` at ``/dev/shm`` ("vLLM needs to access the host's shared memory
      for tensor parallel inference");
    - 8 GiB on AMD: the same guide's ROCm example uses ``sizeLimit: 8Gi``;
    - 16 GiB when a pod spans several accelerators that no direct scale-up fabric joins
      (PCIe cards, or more GPUs than one NVLink bridge or domain holds): NCCL then moves
      data through host shared memory, and NVIDIA NIM for LLMs requires 16 GB of shared
      memory "in multi-GPU, non-NVLink cases".

    The ``emptyDir`` counts against the container's memory limit (Kubernetes, Volumes):
    the pod's memory request includes it.

    >>> shm_gib(4, "NVIDIA", "nvswitch", 8), shm_gib(4, "NVIDIA", "none", 0)
    (2.0, 16.0)
    >>> shm_gib(8, "AMD", "mesh", 8), shm_gib(1, "NVIDIA", "none", 0)
    (8.0, 2.0)
    """
    direct = str(scaleup_kind) in DIRECT_FABRICS and (scaleup_gpus or 0) >= gpus_per_pod
    if gpus_per_pod > 1 and not direct:
        return 16.0
    return 8.0 if str(vendor).strip() == "AMD" else 2.0


def startup_s(weights_gb: float, delivery: Delivery) -> int:
    """The start-up probe's allowance: the engine's start plus reading the weights, in
    whole probe periods. [s]

    ``engine_start_s + weights_gb / model_load_gb_s``, rounded up to a multiple of
    :data:`PROBE_PERIOD_S`; liveness and readiness probes wait until the start-up probe
    has passed (Kubernetes, Configure Liveness, Readiness and Startup Probes), so a slow
    model load is not killed as a hung server.

    >>> startup_s(140, Delivery())  # 300 s + 140 GB at 1 GB/s = 440 s
    440
    """
    w = weights_gb if weights_gb == weights_gb else 0.0
    window = delivery.engine_start_s + w / delivery.model_load_gb_s
    return int(math.ceil(window / PROBE_PERIOD_S) * PROBE_PERIOD_S)


# -- the table -------------------------------------------------------------------------


def _accelerator(catalog: Catalog | None, name: str) -> pd.Series | None:
    if catalog is None or not name:
        return None
    try:
        return catalog.accelerator(name)
    except CatalogError:
        return None


def _inference_pool(pools: pd.DataFrame) -> dict | None:
    """The inference pool's row of the pools table; None without one."""
    pool = None
    for p in records(
        pools, ["level", "pool", "partition", "accelerator", "server", "gpus_per_server"]
    ):
        if p["level"] == "pool" and p["pool"] == "inference":
            pool = p
    return pool


def _inference_node(
    pool: dict | None, catalog: Catalog | None, delivery: Delivery, spec: Pools | None
) -> tuple[int, float, float]:
    """The GPUs, allocatable CPUs and allocatable memory [GiB] one Kubernetes node of the
    inference pool offers its pods, after the DaemonSets (NaN CPUs and memory when the
    catalogue has no figure)."""
    node_cpu = node_mem = math.nan
    gps = int(pool["gpus_per_server"]) if pool else 0
    if pool is None or catalog is None:
        return gps, node_cpu, node_mem
    server = server_figures(str(pool["server"]), catalog, spec, str(pool["pool"]))
    if server is None:
        return gps, node_cpu, node_mem
    # a rack-scale system's Kubernetes nodes are its compute trays
    per = int(server["nodes"])
    cores, ram = float(server["cpu_cores_total"]) / per, float(server["ram_gb"]) / per
    gps //= per
    if cores == cores and ram == ram:
        tpc = threads_per_core(str(pool["server"]), catalog, delivery.threads_per_core)
        node_cpu, node_mem = node_allocatable(cores * tpc, ram * 1e9 / GIB)
        node_cpu -= DAEMONSET_CPUS
        node_mem -= DAEMONSET_MEMORY_GIB
    return gps, node_cpu, node_mem


def k8s_pools(
    inference: pd.DataFrame,
    pools: pd.DataFrame,
    catalog: Catalog | None = None,
    delivery: Delivery | None = None,
    spec: Pools | None = None,
) -> pd.DataFrame:
    """Kubernetes scheduling per inference service.

    Columns: the object name (:func:`unique_labels`), the inference pool's node label and
    taint, the device plugin resource (:func:`device_resource`, from the catalogue's
    ``vendor``), GPUs per pod (the tensor-parallel size), replicas, the rolling-update
    surge, the namespace GPU quota ``(replicas + max_surge) × GPUs per pod`` (the surge
    pods must fit in the quota or a rolling update cannot start them), CPUs and memory
    per pod (the pod's GPU share of the node's allocatable, :func:`node_allocatable`,
    after :data:`DAEMONSET_CPUS` / :data:`DAEMONSET_MEMORY_GIB`; NaN when the catalogue
    has no CPU or RAM figure), ``/dev/shm`` (:func:`shm_gib`), the start-up allowance
    (:func:`startup_s`) and the image.
    """
    delivery = delivery or Delivery()
    if inference is None or inference.empty:
        return pd.DataFrame(columns=K8S_COLUMNS)
    # A service with no layout that fits has none to schedule (an error finding says why).
    tp = inference["tensor_parallel"].to_numpy()
    fits = ~pd.isna(tp)
    if not fits.any():
        return pd.DataFrame(columns=K8S_COLUMNS)
    pool = _inference_pool(pools)
    partition = pool["partition"] if pool else None
    partition = partition if isinstance(partition, str) and partition else "inference"
    accelerator = str(pool["accelerator"]) if pool else ""
    acc = _accelerator(catalog, accelerator)
    vendor = str(acc["vendor"]) if acc is not None else ""
    # _accelerator returns a row only from a catalogue
    resource = (
        device_resource(catalog, vendor, accelerator) if catalog and acc is not None else None
    )
    kind = str(acc["scaleup_kind"]) if acc is not None else ""
    domain = float(acc["scaleup_domain_gpus"]) if acc is not None else math.nan
    domain = domain if domain == domain else 0.0
    # Per-pod share of one node of the inference pool.
    gps, node_cpu, node_mem = _inference_node(pool, catalog, delivery, spec)
    image = delivery.serving_image or VLLM_IMAGES.get(
        vendor, IMAGE_PLACEHOLDER.format(vendor=dns_label(vendor or "unknown").upper())
    )
    services = inference["service"].array[fits]
    gpus = tp[fits].astype(int)
    replicas = inference["replicas"].to_numpy()[fits].astype(int)
    weights = inference["weights_gb"].to_numpy(dtype=float)[fits]
    share = gpus / gps if gps else gpus * math.nan
    surge, unavailable = delivery.k8s_max_surge, delivery.k8s_max_unavailable
    return pd.DataFrame(
        {
            "service": services,
            "k8s_name": unique_labels(services, prefix="svc"),
            "pool": "inference",
            "accelerator": accelerator,
            "node_label": f"hubplan/pool={label_value(partition)}",
            "taint": f"{resource}=present:NoSchedule" if resource else "",
            "device_resource": resource or "",
            "gpus_per_pod": gpus,
            "replicas": replicas,
            "max_surge": surge,
            "max_unavailable": unavailable,
            "gpu_quota": (replicas + surge) * gpus,
            "cpus_per_pod": [
                math.floor(node_cpu * s) if node_cpu == node_cpu else math.nan for s in share
            ],
            "memory_gib_per_pod": [
                math.floor(node_mem * s) if node_mem == node_mem else math.nan for s in share
            ],
            "shm_gib": [shm_gib(int(g), vendor, kind, domain) for g in gpus],
            "startup_s": [startup_s(float(w), delivery) for w in weights],
            "image": image,
        },
        index=inference.index[fits],
        columns=K8S_COLUMNS,
    )


def _pod_size_findings(k8s: pd.DataFrame) -> list[Finding]:
    """Per service: CPU or memory figures unknown, or a pod too small for its ``/dev/shm``
    or with less than one CPU."""
    found: list[Finding] = []
    for r in records(k8s, ["k8s_name", "cpus_per_pod", "memory_gib_per_pod", "shm_gib"]):
        cpu, mem = r["cpus_per_pod"], r["memory_gib_per_pod"]
        if cpu != cpu or mem != mem:
            found.append(
                Finding(
                    "warning",
                    "delivery",
                    r["k8s_name"],
                    "k8s_node_figures_unknown",
                    {"service": r["k8s_name"]},
                )
            )
        elif mem < r["shm_gib"] + 1 or cpu < 1:
            found.append(
                Finding(
                    "error",
                    "delivery",
                    r["k8s_name"],
                    "k8s_pod_too_small",
                    {"service": r["k8s_name"], "cpus": cpu, "memory": mem, "shm": r["shm_gib"]},
                )
            )
    return found


def _pool_fit_findings(k8s: pd.DataFrame, pools: pd.DataFrame) -> list[Finding]:
    """Pods with more accelerators than one node of the inference pool holds, and a quota
    (replicas plus surge) over the pool's GPUs."""
    found: list[Finding] = []
    inf = (pools["level"].to_numpy() == "pool") & (pools["pool"].to_numpy() == "inference")
    if not inf.any():
        return found
    per_node = int(pools["gpus_per_server"].to_numpy()[inf][0])
    for r in records(k8s, ["k8s_name", "gpus_per_pod"]):
        if int(r["gpus_per_pod"]) > per_node:
            found.append(
                Finding(
                    "error",
                    "delivery",
                    r["k8s_name"],
                    "k8s_pod_exceeds_node",
                    {
                        "service": r["k8s_name"],
                        "gpus": int(r["gpus_per_pod"]),
                        "per_node": per_node,
                    },
                )
            )
    have = int(pools["total_gpus"].to_numpy()[inf][0])
    want = int(k8s["gpu_quota"].sum())
    if want > have:
        found.append(
            Finding(
                "warning",
                "delivery",
                "inference",
                "k8s_surge_exceeds_pool",
                {"quota": want, "gpus": have},
            )
        )
    return found


def k8s_findings(k8s: pd.DataFrame, pools: pd.DataFrame) -> list[Finding]:
    """What would stop the manifests from running: an accelerator whose device plugin
    resource name is unknown, CPU or memory figures the catalogue lacks, a pod whose
    ``/dev/shm`` does not fit in its memory, a pod with more accelerators than one node
    holds (a pod runs on one node; serving across nodes needs a multi-node workload such
    as LeaderWorkerSet, which hubplan does not generate), and a quota (replicas plus
    surge) larger than the inference pool's GPUs (the surge pods then stay Pending and the
    rolling update waits for ever with ``maxUnavailable: 0``)."""
    found: list[Finding] = []
    if k8s.empty:
        return found
    first = k8s.iloc[0]
    if not first["device_resource"]:
        found.append(
            Finding(
                "warning",
                "delivery",
                str(first["accelerator"]),
                "k8s_device_resource_unknown",
                {"accelerator": str(first["accelerator"])},
            )
        )
    found += _pod_size_findings(k8s)
    found += _pool_fit_findings(k8s, pools)
    return found


# -- the manifests ---------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """YAML without anchors: every manifest block reads on its own."""

    def ignore_aliases(self, data) -> bool:
        return True


def _comment(text: object) -> str:
    """Text safe inside a one-line YAML comment (no line breaks or control characters)."""
    return " ".join("".join(c if c.isprintable() else " " for c in str(text)).split())


def _gi(v: float) -> str:
    return f"{int(v)}Gi"


def _quota_object(k8s: pd.DataFrame, ns: str, meta: dict[str, str]) -> dict | None:
    """The namespace's ResourceQuota on each device plugin resource (the ``gpu_quota``
    sum); None when no resource is known."""
    quota: dict[str, str] = {}
    for resource, n in k8s.groupby("device_resource", sort=True)["gpu_quota"].sum().items():
        if resource:
            # Extended resources take quota under requests.<name> only (Resource Quotas).
            quota[f"requests.{resource}"] = str(int(n))
    if not quota:
        return None
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "accelerator-quota", "namespace": ns, "labels": meta},
        "spec": {"hard": quota},
    }


def _pod_resources(r: dict) -> dict[str, str]:
    """A serving pod's resources: its accelerators and, where known, CPUs and memory."""
    resource = r["device_resource"] or "REPLACE-WITH-DEVICE-PLUGIN-RESOURCE"
    resources: dict[str, str] = {resource: str(int(r["gpus_per_pod"]))}
    if r["cpus_per_pod"] == r["cpus_per_pod"]:
        # requests = limits, integer CPUs: Guaranteed QoS, so the kubelet's static CPU
        # manager can pin whole cores next to the GPUs (Kubernetes, CPU Management
        # Policies; Topology Manager).
        resources["cpu"] = str(int(r["cpus_per_pod"]))
        resources["memory"] = _gi(r["memory_gib_per_pod"])
    return resources


def _serving_container(r: dict, name: str) -> dict[str, object]:
    """A service's vLLM container: its command, port, resources, probes and ``/dev/shm``."""
    resources = _pod_resources(r)
    probe = {"httpGet": {"path": HEALTH_PATH, "port": "http"}}
    return {
        "name": "server",
        "image": r["image"],
        "command": ["vllm", "serve"],
        "args": [
            "REPLACE-WITH-MODEL-PATH",
            "--served-model-name",
            name,
            "--tensor-parallel-size",
            str(int(r["gpus_per_pod"])),
            "--port",
            str(SERVING_PORT),
        ],
        "ports": [{"name": "http", "containerPort": SERVING_PORT}],
        "resources": {"requests": dict(resources), "limits": dict(resources)},
        "startupProbe": {
            **probe,
            "periodSeconds": PROBE_PERIOD_S,
            "failureThreshold": int(r["startup_s"]) // PROBE_PERIOD_S,
        },
        "readinessProbe": {**probe, "periodSeconds": READINESS_PERIOD_S, "failureThreshold": 3},
        "livenessProbe": {**probe, "periodSeconds": PROBE_PERIOD_S, "failureThreshold": 3},
        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
    }


def _deployment(r: dict, name: str, ns: str, labels: dict[str, str]) -> dict[str, object]:
    """A service's Deployment: replicas, rolling update, node selector, toleration of the
    device taint, its container and the in-memory ``/dev/shm`` volume."""
    key, value = r["node_label"].split("=", 1)
    tolerations = []
    if r["device_resource"]:
        tolerations = [{"key": r["device_resource"], "operator": "Exists", "effect": "NoSchedule"}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": ns,
            "labels": labels,
            "annotations": {"hubplan/service": str(r["service"])},
        },
        "spec": {
            "replicas": int(r["replicas"]),
            "progressDeadlineSeconds": max(
                PROGRESS_DEADLINE_MIN_S, int(r["startup_s"]) + PROGRESS_DEADLINE_MIN_S
            ),
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {
                    "maxSurge": int(r["max_surge"]),
                    "maxUnavailable": int(r["max_unavailable"]),
                },
            },
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "nodeSelector": {key: value},
                    "tolerations": tolerations,
                    "containers": [_serving_container(r, name)],
                    "volumes": [
                        {
                            "name": "dshm",
                            "emptyDir": {"medium": "Memory", "sizeLimit": _gi(r["shm_gib"])},
                        }
                    ],
                },
            },
        },
    }


def k8s_objects(k8s: pd.DataFrame, scenario_name: str = "inference") -> list[dict]:
    """The Kubernetes objects for the plan's inference services, as dicts: a Namespace
    named after the scenario (:func:`dns_label`), a ResourceQuota on the device plugin
    resource (``requests.<resource>`` = the ``gpu_quota`` sum), and per service a
    Deployment and a ClusterIP Service on the serving port."""
    if k8s.empty:
        return []
    ns = dns_label(f"{scenario_name} inference", prefix="ns")
    meta = {"app.kubernetes.io/managed-by": "hubplan"}
    objects: list[dict] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": meta}}
    ]
    quota = _quota_object(k8s, ns, meta)
    if quota is not None:
        objects.append(quota)
    for r in k8s.to_dict(orient="records"):
        name = r["k8s_name"]
        labels = {"app.kubernetes.io/name": name, **meta}
        objects.append(_deployment(r, name, ns, labels))
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": name, "namespace": ns, "labels": labels},
                "spec": {
                    "selector": {"app.kubernetes.io/name": name},
                    "ports": [{"name": "http", "port": SERVING_PORT, "targetPort": "http"}],
                },
            }
        )
    return objects


def k8s_manifests(k8s: pd.DataFrame, scenario_name: str = "inference") -> str:
    """The manifests of :func:`k8s_objects` as one multi-document YAML file, each
    Deployment preceded by a comment with its figures. Apply with ``kubectl apply -f``
    after replacing the ``REPLACE-WITH-…`` markers (model path; image where no vLLM image
    is published for the vendor; device resource where none is known)."""
    objects = k8s_objects(k8s, scenario_name)
    if not objects:
        return "# no inference services in the plan\n"
    rows = {r["k8s_name"]: r for r in k8s.to_dict(orient="records")}
    docs = []
    for obj in objects:
        text = yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
        if obj["kind"] == "Deployment":
            r = rows[obj["metadata"]["name"]]
            text = (
                f"# {_comment(r['service'])}: {int(r['replicas'])} replicas × "
                f"{int(r['gpus_per_pod'])} {r['device_resource'] or 'accelerators'}, "
                f"surge {int(r['max_surge'])}, "
                f"/dev/shm {_gi(r['shm_gib'])}, start-up allowance "
                f"{int(r['startup_s'])} s\n"
            ) + text
        docs.append(text)
    first = k8s.iloc[0]
    header = [
        f"# Kubernetes manifests generated by hubplan for {_comment(scenario_name)}",
        "# Before kubectl apply -f: label and taint each inference node, e.g.",
        f"#   kubectl label node <node> {first['node_label']}",
    ]
    if first["taint"]:
        header.append(f"#   kubectl taint node <node> {first['taint']}")
    header.append(
        "# and replace every REPLACE-WITH-... marker (model path; image or device "
        "resource where none is published)."
    )
    return "\n".join(header) + "\n" + "---\n".join(docs)
