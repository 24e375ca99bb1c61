"""How the whole plan and the appendix scale with GPUs: prints a table, asserts nothing.

Run with ``python benchmarks/bench_scale.py`` (``make bench``); ``--sizes 1024,16384``
picks sizes. Each size runs in a fresh Python process (so the peak memory is its own and
no stage cache survives) on the pre-training scenario
(``templates/scenarios/pretrain-16k.yaml``), with the training deadline scaled so the
training pool lands near the GPUs asked for: 97.75 days sizes 16 384 GPUs, so
``days = 97.75 × 16 384 / gpus``. Above 65 536 GPUs the 64-port NDR switch cannot build
the fabric in three tiers (64 × 32 × 32 servers at 1:1), so the compute fabric moves to
the SN5600 broken out to 128 × 400G (NVIDIA SN5000 user manual, "Data Interfaces").

Columns: GPUs planned (fleet, spares included), port-map links, IP-plan addresses,
appendix cells; ``plan_s`` builds every stage with no cache; ``appendix_s`` is
``hubplan.export.write_appendix``; ``raw_s`` is openpyxl's write-only mode writing the
same cell values with nothing else (no styles, tables, formulas, print set-up), the floor
for any openpyxl writer; ``us_per_gpu`` is (plan + appendix) per GPU, flat when cost grows
linearly; ``peak_mb`` is the process's peak resident memory (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_DAYS = 97.75  # the 16 384-GPU deadline in pretrain-16k.yaml
SIZES = (1024, 16384, 131072)
THREE_TIER_NDR_LIMIT = 65536  # 64 pods × 4 SUs × 32 servers × 8 GPUs (size_fabric)


def scenario_for(gpus: int):
    import hubplan
    from hubplan.core.paths import templates_dir

    base = hubplan.load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml")
    changes: dict = {"workload.training.0.days": BASE_DAYS * 16384 / gpus}
    if gpus > THREE_TIER_NDR_LIMIT:
        changes["network.compute_switch"] = "SN5600"
    return base.with_changes(changes)


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def one(gpus: int) -> dict:
    from bench_appendix import raw_write  # the same raw openpyxl write as the appendix bench

    import hubplan
    from hubplan.export import write_appendix
    from hubplan.export.xlsx import _plan_sheets

    scenario = scenario_for(gpus)
    hubplan.load_catalog()  # loaded once per process in real use; not part of the build
    start_mb = rss_mb()
    t0 = time.perf_counter()
    plan = hubplan.build_plan(scenario, cache=False)
    t_plan = time.perf_counter() - t0
    plan_mb = rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "appendix.xlsx"
        t0 = time.perf_counter()
        write_appendix(plan, out)
        t_app = time.perf_counter() - t0
        size_mb = out.stat().st_size / 1e6
        app_mb = rss_mb()
        t_raw = raw_write(plan, Path(tmp) / "raw.xlsx")
    tables, _ = _plan_sheets(plan)
    fleet = plan["pools"]
    planned = int(fleet.loc[fleet["level"] == "fleet", "total_gpus"].sum())
    errors = plan.findings[plan.findings["severity"] == "error"]
    return {
        "target": gpus,
        "gpus": planned,
        "links": len(plan["port_map"]),
        "addresses": len(plan["ip_plan"]),
        "cells": int(sum(plan.tables[t].size for t in tables)),
        "plan_s": round(t_plan, 2),
        "appendix_s": round(t_app, 2),
        "raw_s": round(t_raw, 2),
        "us_per_gpu": round((t_plan + t_app) / planned * 1e6),
        "file_mb": round(size_mb, 1),
        "plan_mb": round(plan_mb - start_mb),
        "peak_mb": round(max(plan_mb, app_mb)),
        "errors": len(errors),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    rows = []
    for gpus in (int(s) for s in args.sizes.split(",")):
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(gpus)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(f"{gpus} GPUs failed:\n{done.stderr[-2000:]}", file=sys.stderr)
            continue
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(rows[-1], file=sys.stderr, flush=True)
    if not rows:
        sys.exit(1)
    header = list(rows[0])
    width = {h: max(len(h), *(len(str(r[h])) for r in rows)) for h in header}
    print("  ".join(h.rjust(width[h]) for h in header))
    for r in rows:
        print("  ".join(str(r[h]).rjust(width[h]) for h in header))


if __name__ == "__main__":
    main()
