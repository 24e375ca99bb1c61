"""How long the workshop's interactions take: prints a table, asserts nothing.

Run with ``make bench``. A slider move in the WorkloadPanel costs one build_plan plus a
chart swap; the room should see the change well inside a second. The "every stage,
no cache" rows are what a move cost before the stage cache and ``until``: each move
rebuilt every stage.
"""

from __future__ import annotations

import statistics
import time

import ipywidgets as w

import hubplan
from hubplan.core.catalog import _shipped
from hubplan.views import WorkloadPanel


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
    mfus = iter([0.40 + i * 1e-4 for i in range(1000)])

    def move_slider():
        panel.controls["days"].value = next(days)

    def move_slider_without_cache():
        s = scenario.with_changes({"workload.training.0.mfu": next(mfus)})
        hubplan.build_plan(s, catalog, cache=False)

    def cached_rebuild():
        hubplan.build_plan(scenario, catalog)

    def server_policy_change():  # only the server stage reads this section
        ratio = 1.0 + next(days) / 1e5
        hubplan.build_plan(scenario.with_changes({"server.ram_to_gpu_memory": ratio}), catalog)

    def cold_catalog():
        _shipped.cache_clear()
        hubplan.load_catalog()

    rows = [
        ("load shipped catalogue (cold)", *timed(cold_catalog)),
        ("default_scenario() from YAML", *timed(hubplan.default_scenario)),
        (
            "build_plan(default), no cache",
            *timed(lambda: hubplan.build_plan(scenario, catalog, cache=False)),
        ),
        ("build_plan(default), unchanged", *timed(cached_rebuild)),
        ("server policy change (1 stage)", *timed(server_policy_change)),
        (
            "build_plan(20 jobs), no cache",
            *timed(lambda: hubplan.build_plan(many, catalog, cache=False), 3),
        ),
        ("workload change, every stage", *timed(move_slider_without_cache)),
        ("WorkloadPanel: one slider move", *timed(move_slider)),
    ]
    print(f"{'operation':<34}{'median ms':>12}{'max ms':>10}")
    for name, med, worst in rows:
        print(f"{name:<34}{med:>12.1f}{worst:>10.1f}")
    w.Widget.close_all()


if __name__ == "__main__":
    main()
