"""How long the proposal appendix takes to write: prints a table, asserts nothing.
Run with ``python benchmarks/bench_appendix.py`` (add ``--large`` for 131 072 GPUs).

Each row builds the pre-training scenario (``templates/scenarios/pretrain-16k.yaml``)
with the deadline scaled so the training pool holds about the GPUs asked for, then
writes its appendix (``hubplan.export.write_appendix``, write-only mode above 20 000
rows), and, for comparison, the same cells of every sheet with openpyxl's write-only
mode and nothing else (no styles, tables, formulas or print set-up).
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from openpyxl import Workbook

import hubplan
from hubplan.core.paths import templates_dir
from hubplan.export import write_appendix
from hubplan.export.xlsx import _plan_sheets, _table_columns

BASE_DAYS = 97.75  # the 16 384-GPU deadline in pretrain-16k.yaml


def raw_write(plan, path: Path) -> float:
    """openpyxl write-only with the appendix's cell values and nothing else [s]."""
    tables, _ = _plan_sheets(plan)
    columns = {t: _table_columns(plan.tables[t], "en") for t in tables}
    t0 = time.perf_counter()
    wb = Workbook(write_only=True)
    for t, cols in columns.items():
        ws = wb.create_sheet(t[:31])
        ws.append([c.header for c in cols])
        for row in zip(*(c.cells for c in cols), strict=True):
            ws.append(row)
    wb.save(path)
    return time.perf_counter() - t0


def main() -> None:
    sizes = [1024, 16384] + ([131072] if "--large" in sys.argv else [])
    base = hubplan.load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for gpus in sizes:
            changes = {"workload.training.0.days": BASE_DAYS * 16384 / gpus}
            if gpus > 65536:  # 64-port NDR switches stop at 65 536 GPUs in three tiers
                changes["network.compute_switch"] = "SN5600"
            scenario = base.with_changes(changes)
            t0 = time.perf_counter()
            plan = hubplan.build_plan(scenario, cache=False)
            t_plan = time.perf_counter() - t0
            out = Path(tmp) / f"appendix-{gpus}.xlsx"
            t0 = time.perf_counter()
            write_appendix(plan, out)
            t_app = time.perf_counter() - t0
            t_raw = raw_write(plan, Path(tmp) / f"raw-{gpus}.xlsx")
            tables, _ = _plan_sheets(plan)
            cells = sum(plan.tables[t].size for t in tables)
            fleet = plan["pools"]
            rows.append(
                {
                    "gpus": int(fleet.loc[fleet["level"] == "fleet", "total_gpus"].sum()),
                    "links": len(plan["port_map"]),
                    "addresses": len(plan["ip_plan"]),
                    "cells": cells,
                    "plan_s": round(t_plan, 2),
                    "appendix_s": round(t_app, 2),
                    "raw_write_only_s": round(t_raw, 2),
                    "file_mb": round(out.stat().st_size / 1e6, 1),
                    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                }
            )
            print(rows[-1], flush=True)
    print()
    header = list(rows[0])
    print(" | ".join(header))
    for r in rows:
        print(" | ".join(str(r[h]) for h in header))


if __name__ == "__main__":
    main()
