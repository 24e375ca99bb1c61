"""How long the cost stage's sweeps take: prints a table, asserts nothing. Run with
``python benchmarks/bench_cost.py``.

Rows: the tornado (7 assumptions × low/high, closed form), the Monte Carlo at 10 000 and
100 000 samples (vectorised numpy over the samples, no plan rebuilt), the cost stage on
its own, and a utilisation sweep through ``build_plan`` where the stage cache reruns only
the cost stage.
"""

from __future__ import annotations

import time

import pandas as pd

import hubplan
from hubplan.core.paths import templates_dir
from hubplan.cost import monte_carlo, tornado
from hubplan.cost.stage import run_cost
from hubplan.scenario import load_scenario


def _time(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _base(catalog, tables, cost):
    """The CostBase the stage builds (caught on its way into the tornado)."""
    from hubplan.cost import stage as cost_stage

    caught = {}
    original = cost_stage.tornado

    def capture(base, ranges):
        caught["base"] = base
        return original(base, ranges)

    cost_stage.tornado = capture
    try:
        run_cost(catalog=catalog, tables=tables, cost=cost)
    finally:
        cost_stage.tornado = original
    return caught["base"]


def _rows(name: str, s, catalog) -> list[dict]:
    plan = hubplan.build_plan(s, catalog)
    tables = {
        n: plan[n] for n in ("pools", "training", "storage_nodes", "switches", "transceivers")
    }
    cost = s.cost
    base = _base(catalog, tables, cost)
    gpus = int(plan["cost_summary"].iloc[0]["gpus"])
    rows = [
        {
            "scenario": name,
            "gpus": gpus,
            "what": "tornado (7 × 2, closed form)",
            "seconds": _time(lambda: tornado(base, cost.ranges)),
        }
    ]
    for n in (10_000, 100_000):
        rows.append(
            {
                "scenario": name,
                "gpus": gpus,
                "what": f"Monte Carlo {n:,} samples",
                "seconds": _time(lambda n=n: monte_carlo(base, cost.ranges, n, 1)),
            }
        )
    rows.append(
        {
            "scenario": name,
            "gpus": gpus,
            "what": "cost stage alone",
            "seconds": _time(lambda: run_cost(catalog=catalog, tables=tables, cost=cost)),
        }
    )
    sweep = [s.with_changes({"cost.utilisation": u}) for u in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)]
    t0 = time.perf_counter()
    ran = [hubplan.build_plan(v, catalog).stages_run for v in sweep]
    rows.append(
        {
            "scenario": name,
            "gpus": gpus,
            "what": f"utilisation sweep, 6 plans (reran: {'/'.join(ran[-1])})",
            "seconds": time.perf_counter() - t0,
        }
    )
    return rows


def main() -> None:
    catalog = hubplan.load_catalog()
    pretrain = load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml")
    rows = _rows("default", hubplan.default_scenario(), catalog)
    rows += _rows("pretrain-16k", pretrain, catalog)
    df = pd.DataFrame(rows)
    df["seconds"] = df["seconds"].map("{:.4f}".format)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
