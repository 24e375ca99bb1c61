"""Regenerate ``data/aiconfigurator_reference.csv``: NVIDIA aiconfigurator's figures for a
few Llama-3.1 services, to set beside hubplan's token model (notebook 01, tests).

aiconfigurator (PyPI ``aiconfigurator``, NVIDIA, github.com/ai-dynamo/aiconfigurator)
models a serving engine from kernel timings measured on each GPU (its ``systems/data``
perf database, shipped in the wheel), so it runs offline. It is NOT a hubplan
dependency: install it in a separate environment and point this script at its command::

    python3 -m venv /work/aic-venv && /work/aic-venv/bin/pip install aiconfigurator
    python scripts/aiconfigurator_reference.py --aic /work/aic-venv/bin/aiconfigurator

Two kinds of rows (column ``mode``):

- ``static``: ``aiconfigurator cli estimate --estimate-mode static`` for one batch at
  one tensor-parallel size: TTFT of one prompt (batch 1) and the decode step (TPOT) at
  the batch, the figures hubplan's token model computes per step.
- ``agg``: ``aiconfigurator cli default --serving-mode agg`` on 8 GPUs with TTFT and
  TPOT targets: the best aggregated (prefill + decode on the same GPUs, in-flight
  batching) configuration per tensor-parallel size that meets them, with its request
  rate per GPU, batch, TTFT and TPOT.

Each row carries the aiconfigurator version, the backend and its perf-database version,
the exact command and the date in ``source``.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "aiconfigurator_reference.csv"

#: hubplan catalogue name → aiconfigurator's bundled model config.
MODELS = {
    "Llama-3.1-8B": "meta-llama/Meta-Llama-3.1-8B",
    "Llama-3.1-70B": "meta-llama/Meta-Llama-3.1-70B",
}
#: hubplan catalogue name → aiconfigurator system.
SYSTEMS = {"H100 SXM5 80GB": "h100_sxm", "H200 SXM 141GB": "h200_sxm"}
#: precision → (gemm quant mode, KV-cache quant mode)
PRECISIONS = {"bf16": ("bfloat16", "bfloat16"), "fp8": ("fp8", "fp8")}
#: FP8 checkpoints aiconfigurator bundles a config for.
FP8_CHECKPOINTS = {"Llama-3.1-70B": "nvidia/Llama-3.1-70B-Instruct-FP8"}
TPS = {"Llama-3.1-8B": (1, 2), "Llama-3.1-70B": (2, 4, 8)}
BATCHES = (1, 64)
#: (TTFT ms, TPOT ms) targets for the agg runs: MLPerf Inference's Llama-2-70B server
#: limits (2 s, 200 ms) are loose; 2 s / 50 ms is a chat service at ~20 tokens/s per user.
TARGETS = ((2000, 50), (1000, 30))
ISL, OSL, BACKEND = 1024, 256, "trtllm"

COLUMNS = [
    "mode",
    "model",
    "accelerator",
    "precision",
    "isl",
    "osl",
    "tensor_parallel",
    "batch",
    "ttft_target_ms",
    "tpot_target_ms",
    "ttft_ms",
    "tpot_ms",
    "request_rate_per_gpu",
    "tokens_per_s_per_gpu",
    "aic_version",
    "backend",
    "perf_db_version",
    "date",
    "source",
]


def _run(cmd: list[str]) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return done.stdout + done.stderr


def _field(text: str, name: str) -> float:
    m = re.search(rf"^\s*{re.escape(name)}:\s*([\d,.]+)", text, re.M)
    if m is None:
        raise RuntimeError(f"aiconfigurator output has no {name!r}:\n{text[-2000:]}")
    return float(m.group(1).replace(",", ""))


def static_rows(aic: str, version: str, today: str) -> list[dict]:
    rows = []
    for model, path in MODELS.items():
        for acc, system in SYSTEMS.items():
            for prec, (gemm, kv) in PRECISIONS.items():
                for tp in TPS[model]:
                    for batch in BATCHES:
                        cmd = [
                            aic,
                            "cli",
                            "estimate",
                            "--model-path",
                            path,
                            "--system",
                            system,
                            "--backend",
                            BACKEND,
                            "--isl",
                            str(ISL),
                            "--osl",
                            str(OSL),
                            "--batch-size",
                            str(batch),
                            "--tp-size",
                            str(tp),
                            "--estimate-mode",
                            "static",
                            "--gemm-quant-mode",
                            gemm,
                            "--kvcache-quant-mode",
                            kv,
                        ]
                        text = _run(cmd)
                        db = re.search(r"Backend:\s*\S+\s*\(([^)]+)\)", text)
                        rows.append(
                            {
                                "mode": "static",
                                "model": model,
                                "accelerator": acc,
                                "precision": prec,
                                "isl": ISL,
                                "osl": OSL,
                                "tensor_parallel": tp,
                                "batch": batch,
                                "ttft_ms": _field(text, "TTFT"),
                                "tpot_ms": _field(text, "TPOT"),
                                "aic_version": version,
                                "backend": BACKEND,
                                "perf_db_version": db.group(1) if db else "",
                                "date": today,
                                "source": "aiconfigurator " + " ".join(cmd[1:]),
                            }
                        )
                        print(rows[-1]["source"], rows[-1]["ttft_ms"], rows[-1]["tpot_ms"])
    return rows


def agg_rows(aic: str, version: str, today: str) -> list[dict]:
    rows = []
    for model, path in MODELS.items():
        for acc, system in SYSTEMS.items():
            for prec in PRECISIONS:
                for ttft, tpot in TARGETS:
                    # `default` takes the quantisation from the model's config: FP8 is
                    # NVIDIA's FP8 checkpoint (bundled for the 70B only)
                    src = path if prec == "bf16" else FP8_CHECKPOINTS.get(model)
                    if src is None:
                        continue
                    with tempfile.TemporaryDirectory() as tmp:
                        cmd = [
                            aic,
                            "cli",
                            "default",
                            "--model-path",
                            src,
                            "--system",
                            system,
                            "--backend",
                            BACKEND,
                            "--total-gpus",
                            "8",
                            "--serving-mode",
                            "agg",
                            "--isl",
                            str(ISL),
                            "--osl",
                            str(OSL),
                            "--ttft",
                            str(ttft),
                            "--tpot",
                            str(tpot),
                            "--top-n",
                            "8",
                        ]
                        _run([*cmd, "--save-dir", tmp])
                        found = list(Path(tmp).rglob("agg/best_config_topn.csv"))
                        if not found:
                            continue
                        with found[0].open() as fh:
                            for r in csv.DictReader(fh):
                                rows.append(
                                    {
                                        "mode": "agg",
                                        "model": model,
                                        "accelerator": acc,
                                        "precision": prec,
                                        "isl": ISL,
                                        "osl": OSL,
                                        "tensor_parallel": int(r["tp"]),
                                        "batch": int(r["bs"]),
                                        "ttft_target_ms": ttft,
                                        "tpot_target_ms": tpot,
                                        "ttft_ms": float(r["ttft"]),
                                        "tpot_ms": float(r["tpot"]),
                                        "request_rate_per_gpu": float(r["seq/s/gpu"]),
                                        "tokens_per_s_per_gpu": float(r["tokens/s/gpu"]),
                                        "aic_version": version,
                                        "backend": BACKEND,
                                        "perf_db_version": r["version"],
                                        "date": today,
                                        "source": "aiconfigurator " + " ".join(cmd[1:]),
                                    }
                                )
                        print(" ".join(cmd[1:]), "->", len(rows))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--aic", default="aiconfigurator", help="the aiconfigurator command")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()
    version = _run([args.aic, "version"]).strip().splitlines()[-1].split()[-1]
    today = dt.date.today().isoformat()
    rows = static_rows(args.aic, version, today) + agg_rows(args.aic, version, today)
    with args.out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows -> {args.out}")


if __name__ == "__main__":
    main()
