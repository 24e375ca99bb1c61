"""How long the facility stage takes on the default plan and on 16 384 GPUs (2 048 servers).

Run: ``PYTHONPATH=. python benchmarks/bench_facility.py``. Prints a table; asserts nothing.
"""

from __future__ import annotations

import statistics
import time

import hubplan
from hubplan.core.catalog import load_catalog
from hubplan.core.paths import templates_dir
from hubplan.facility.devices import empty_storage_nodes, empty_switches, server_types
from hubplan.facility.stage import facility_tables


def median_ms(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    catalog = load_catalog()
    rows = []
    for name, scenario in (
        ("default", hubplan.default_scenario()),
        (
            "pretrain-16k",
            hubplan.scenario.load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml"),
        ),
    ):
        plan = hubplan.build_plan(scenario, catalog, until="server")
        servers = server_types(plan["pools"], scenario.pools, catalog, scenario.facility)
        ms = median_ms(
            lambda s=servers, f=scenario.facility: facility_tables(
                s, empty_storage_nodes(), empty_switches(), catalog, f
            )
        )
        t = facility_tables(
            servers, empty_storage_nodes(), empty_switches(), catalog, scenario.facility
        )
        rows.append((name, len(t["rack_layout"]), len(t["racks"]), ms))
    print(f"{'scenario':<14} {'devices':>8} {'racks':>6} {'facility stage':>15}")
    for name, devices, racks, ms in rows:
        print(f"{name:<14} {devices:>8} {racks:>6} {ms:>12.1f} ms")


if __name__ == "__main__":
    main()
