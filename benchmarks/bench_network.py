"""How long the network stage takes to build its IP plan and port map at scale: prints a
table, asserts nothing. Run with ``python benchmarks/bench_network.py``.

Each row runs the network stage alone on a training pool of DGX H100 (8 GPUs, 8 × 400G
rails) with no spares; 131 072 GPUs use SN5600 at 400G (128 ports), since 64-port NDR
switches stop at 65 536 GPUs in three tiers.
"""

from __future__ import annotations

import resource
import time

import pandas as pd

import hubplan
from hubplan.network import Network
from hubplan.network.stage import run_network
from hubplan.scenario import Pools, PoolSpec


def main() -> None:
    catalog = hubplan.load_catalog()
    pools = Pools(training=PoolSpec(server="DGX H100"))
    # No storage tier: the rows time the compute fabric and its management planes.
    no_storage = pd.DataFrame(columns=["tier", "role", "nodes", "nic_ports", "nic_gbps"])
    rows = []
    rss = resource.RUSAGE_SELF
    for gpus, switch in ((1024, "QM9700"), (16384, "QM9700"), (131072, "SN5600")):
        servers = gpus // 8
        table = pd.DataFrame(
            [
                {
                    "level": "pool",
                    "pool": "training",
                    "partition": "train",
                    "gpus_per_server": 8,
                    "total_servers": servers,
                    "total_gpus": gpus,
                }
            ]
        )
        t0 = time.perf_counter()
        r = run_network(
            catalog=catalog,
            tables={"pools": table, "storage_nodes": no_storage},
            pools=pools,
            network=Network(compute_switch=switch),
        )
        dt = time.perf_counter() - t0
        fab = r.tables["fabric"].set_index("plane").loc["compute"]
        rows.append(
            {
                "gpus": gpus,
                "switch": switch,
                "tiers": int(fab["tiers"]),
                "leaves": int(fab["leaves"]),
                "spines": int(fab["spines"]),
                "cores": int(fab["cores"]),
                "links": len(r.tables["port_map"]),
                "addresses": len(r.tables["ip_plan"]),
                "seconds": round(dt, 2),
                "max_rss_mb": resource.getrusage(rss).ru_maxrss >> 10,
            }
        )
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
