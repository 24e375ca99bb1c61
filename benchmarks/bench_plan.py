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
from hubplan.views import OverviewPanel, WorkloadPanel


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
    many = scenario.with_changes(
        {
            "workload.training": [
                scenario.workload.training[0].model_dump(mode="json") | {"name": f"job-{i}"}
                for i in range(20)
            ],
        }
    )
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
    overview(scenario, catalog)


#: One small step per control, each to a value not seen before (no cache hit from
#: flipping back): what a presenter does with each of the dashboard's controls.
OVERVIEW_STEPS = {
    "electricity": [0.090 + 0.002 * i for i in range(8)],
    "utilisation": [0.60 + 0.01 * i for i in range(8)],
    "rack_kw": [30.0 + 2 * i for i in range(8)],
    "peak_qps": [11.0 + i for i in range(8)],
    "mfu": [0.40 + 0.01 * i for i in range(8)],
    "days": [16.0 + i for i in range(8)],
    "params_b": [60.0 + 5 * i for i in range(8)],
    "data_gb": [400.0 + 50 * i for i in range(8)],
    "accelerator": [
        "H200 SXM 141GB",
        "B200 180GB",
        "MI300X 192GB",
        "H20 96GB",
        "A100 SXM4 80GB",
        "L40S 48GB",
        "H100 PCIe 80GB",
        "H100 SXM5 80GB",
    ],
}


def overview(scenario, catalog) -> None:
    """Control change to updated headline figures in the OverviewPanel, every stage in
    the plan: wall and CPU time per control (the machine may be shared: CPU time is the
    steadier figure), which stages reran, and the median over every move."""
    every_wall, every_cpu = [], []
    print()
    print(
        f"{'OverviewPanel: one move of':<28}{'median ms':>10}{'cpu ms':>8}{'max ms':>8}"
        "  stages rerun (last move)"
    )
    for name, values in OVERVIEW_STEPS.items():
        panel = OverviewPanel(scenario, catalog)
        wall, cpu = [], []
        for v in values:
            t0, c0 = time.perf_counter(), time.process_time()
            panel.controls[name].value = v
            wall.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
            assert panel.error is None, panel.error
        every_wall += wall
        every_cpu += cpu
        ran = ",".join(panel.result.stages_run) or "none"
        print(
            f"{name:<28}{statistics.median(wall):>10.1f}{statistics.median(cpu):>8.1f}"
            f"{max(wall):>8.1f}  {ran}"
        )
        w.Widget.close_all()
    print(
        f"{'every move (median)':<28}{statistics.median(every_wall):>10.1f}"
        f"{statistics.median(every_cpu):>8.1f}{max(every_wall):>8.1f}"
    )


if __name__ == "__main__":
    main()
