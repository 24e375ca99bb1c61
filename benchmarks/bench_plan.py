"""How long the workshop's interactions take: prints a table, asserts nothing.

Run with ``make bench``. A slider move in the WorkloadPanel costs one build_plan plus a
chart swap; the room should see the change well inside a second.
"""

from __future__ import annotations

import statistics
import time

import ipywidgets as w

import hubplan
from hubplan.catalog import _shipped
from hubplan.panels import WorkloadPanel


def timed(fn, repeat: int = 10) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples), max(samples)


def main() -> None:
    scenario = hubplan.default_scenario()
    catalog = hubplan.load_catalog()
    many = scenario.with_changes({
        "workload.training": [scenario.workload.training[0].model_dump(mode="json")
                              | {"name": f"job-{i}"} for i in range(20)],
    })  # fmt: skip
    panel = WorkloadPanel(scenario, catalog)
    days = iter(range(10, 10_000))

    def move_slider():
        panel.controls["days"].value = next(days)

    def cold_catalog():
        _shipped.cache_clear()
        hubplan.load_catalog()

    rows = [
        ("load shipped catalogue (cold)", *timed(cold_catalog)),
        ("default_scenario() from YAML", *timed(hubplan.default_scenario)),
        ("build_plan(default)", *timed(lambda: hubplan.build_plan(scenario, catalog))),
        ("build_plan(20 training jobs)", *timed(lambda: hubplan.build_plan(many, catalog), 3)),
        ("WorkloadPanel: one slider move", *timed(move_slider)),
    ]
    print(f"{'operation':<34}{'median ms':>12}{'max ms':>10}")
    for name, med, worst in rows:
        print(f"{name:<34}{med:>12.1f}{worst:>10.1f}")
    w.Widget.close_all()


if __name__ == "__main__":
    main()
