"""How long the ``hubplan`` command takes to start: prints a table, asserts nothing.

Run with ``make bench``. Each run is a fresh interpreter (``python -m hubplan.cli``), as a
user's shell starts it; the median of N runs is the figure to compare, since the machine
may be shared. ``python -c pass`` is the floor: the interpreter alone. The last column
says whether the run loaded pandas (``--help`` must not: tests/test_cli.py).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

RUNS = 7

COMMANDS = [
    ("python -c pass (the floor)", ["-c", "pass"]),
    ("hubplan --help", ["-m", "hubplan.cli", "--help"]),
    ("hubplan plan --help", ["-m", "hubplan.cli", "plan", "--help"]),
    ("hubplan size training --help", ["-m", "hubplan.cli", "size", "training", "--help"]),
    ("hubplan size training", ["-m", "hubplan.cli", "size", "training"]),
]

_PROBE = (
    "import sys\n"
    "from hubplan.cli import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "print('PANDAS', 'pandas' in sys.modules, file=sys.stderr)\n"
)


def loads_pandas(args: list[str]) -> str:
    if args[0] != "-m":
        return ""
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, *args[2:]], capture_output=True, text=True, check=False
    )
    return "yes" if "PANDAS True" in run.stderr else "no"


def timed(args: list[str]) -> list[float]:
    samples = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], capture_output=True, check=False)
        samples.append((time.perf_counter() - t0) * 1e3)
    return samples


def main() -> None:
    print(
        f"{'cold start, ' + str(RUNS) + ' runs':<32}{'median ms':>10}{'min ms':>8}"
        f"{'max ms':>8}  pandas"
    )
    for name, args in COMMANDS:
        ms = timed(args)
        print(
            f"{name:<32}{statistics.median(ms):>10.0f}{min(ms):>8.0f}{max(ms):>8.0f}"
            f"  {loads_pandas(args)}"
        )


if __name__ == "__main__":
    main()
