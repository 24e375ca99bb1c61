"""Kubernetes for the inference pool: the ``k8s_pools`` table (node label, taint, GPUs per
pod, replicas, quota per inference service) and the TEXT of the inference manifests.
Everything here returns strings or tables; only ``hubplan.export.scheduler`` writes files.

Resource and taint names follow the NVIDIA k8s-device-plugin README (resource
``nvidia.com/gpu``, taint key ``nvidia.com/gpu``, gpu-feature-discovery labels).
"""

from __future__ import annotations

import re

import pandas as pd

K8S_COLUMNS = ["service", "pool", "node_label", "taint", "gpus_per_pod", "replicas",
               "gpu_quota"]  # fmt: skip


def k8s_pools(inference: pd.DataFrame, pools: pd.DataFrame) -> pd.DataFrame:
    """Kubernetes scheduling per inference service: node label and taint of the inference
    pool, GPUs per pod (its tensor-parallel size), replicas and the namespace GPU quota."""
    if inference is None or inference.empty:
        return pd.DataFrame(columns=K8S_COLUMNS)
    # A service with no layout that fits has none to schedule (an error finding says why).
    tp = inference["tensor_parallel"].to_numpy()
    fits = ~pd.isna(tp)
    if not fits.any():
        return pd.DataFrame(columns=K8S_COLUMNS)
    inf = (pools["level"].to_numpy() == "pool") & (pools["pool"].to_numpy() == "inference")
    label = f"hubplan/pool={pools['partition'].to_numpy()[inf][0] or 'inference'}" \
        if inf.any() else ""  # fmt: skip
    gpus = tp[fits].astype(int)
    replicas = inference["replicas"].to_numpy()[fits].astype(int)
    return pd.DataFrame({
        "service": inference["service"].array[fits], "pool": "inference", "node_label": label,
        "taint": "nvidia.com/gpu=present:NoSchedule", "gpus_per_pod": gpus,
        "replicas": replicas, "gpu_quota": gpus * replicas,
    }, index=inference.index[fits])  # fmt: skip


def k8s_manifests(k8s: pd.DataFrame, namespace: str = "inference") -> str:
    """Kubernetes YAML: a ResourceQuota on ``requests.nvidia.com/gpu`` for the inference
    namespace and, per service, the node selector, toleration and GPU limit to use."""
    if k8s.empty:
        return "# no inference services in the plan\n"
    total = int(k8s["gpu_quota"].sum())
    out = [
        f"""apiVersion: v1
kind: ResourceQuota
metadata:
  name: gpu-quota
  namespace: {namespace}
spec:
  hard:
    requests.nvidia.com/gpu: "{total}"
"""
    ]
    for r in k8s.to_dict(orient="records"):
        key, value = r["node_label"].split("=", 1) if r["node_label"] else ("", "")
        name = re.sub(r"[^a-z0-9-]", "-", str(r["service"]).lower())
        out.append(f"""---
# {r['service']}: {r['replicas']} replicas × {r['gpus_per_pod']} GPUs
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {namespace}
spec:
  replicas: {int(r['replicas'])}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      nodeSelector: {{"{key}": "{value}"}}
      tolerations:
        - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}
      containers:
        - name: server
          image: REPLACE-WITH-SERVING-IMAGE
          resources:
            limits: {{nvidia.com/gpu: {int(r['gpus_per_pod'])}}}
""")  # fmt: skip
    return "".join(out)
