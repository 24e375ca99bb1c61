"""hubplan beside the NVIDIA DGX SuperPOD H100 reference architecture.

``data/superpod_reference.csv`` holds the counts RA-11333-001 V11 publishes for 1, 2 and 4
scalable units (Table 4: compute fabric; Table 7: major components of the 4-SU SuperPOD;
Table 8: cables and optics), each row with its table. :func:`superpod_comparison` plans
the same sizes with the network stage (DGX H100, QM9700 compute and storage fabrics,
SN4600C in-band, SN2201 out-of-band, four management servers as Table 7) and sets
hubplan's count beside the RA's, with spares off and on.
"""

from __future__ import annotations

import pandas as pd

from ..core.catalog import Catalog, load_catalog
from ..core.paths import data_dir
from ..pools import Pools, PoolSpec
from .section import Network

#: RA-11333-001 Table 7: four Base Command Manager management servers.
RA_MANAGEMENT_SERVERS = 4


def superpod_reference() -> pd.DataFrame:
    """The RA's counts: one row per (``sus``, ``item``) with ``count``, ``source``,
    ``table`` and ``notes``.

    >>> ref = superpod_reference().set_index(["sus", "item"])
    >>> int(ref.loc[(4, "compute_spines"), "count"]), ref.loc[(4, "ufm_appliances"), "table"]
    (16, 'Table 7')
    """
    ref = pd.read_csv(data_dir() / "superpod_reference.csv", keep_default_na=False)
    ref["count"] = ref["count"].astype(int)
    return ref


def _pools_table(working: int, spares: int) -> pd.DataFrame:
    """The server stage's ``pools`` rows for one training pool of DGX H100."""
    total = working + spares
    return pd.DataFrame(
        [
            {
                "level": "pool",
                "pool": "training",
                "partition": "train",
                "gpus_per_server": 8,
                "servers": working,
                "spare_servers": spares,
                "total_servers": total,
                "total_gpus": total * 8,
            }
        ]
    )


def superpod_counts(
    working: int, spares: int = 0, network: Network | None = None, catalog: Catalog | None = None
) -> dict[str, int]:
    """hubplan's counts for ``working`` DGX H100 (+ ``spares``) under the RA's choices.

    Runs the network stage with no storage nodes (the RA's storage switch count depends
    on the storage chosen, Table 8 footnote 2) and four management servers (Table 7).
    """
    from .stage import run_network  # the stage imports this package's modules

    tables = {
        "pools": _pools_table(working, spares),
        "storage_nodes": pd.DataFrame(columns=["tier", "role", "nodes", "nic_ports", "nic_gbps"]),
    }
    r = run_network(
        catalog=catalog or load_catalog(),
        tables=tables,
        network=network or Network(),
        pools=Pools(training=PoolSpec(server="DGX H100")),
        facility_management_servers=RA_MANAGEMENT_SERVERS,
    )
    sw, pm, optics = r.tables["switches"], r.tables["port_map"], r.tables["transceivers"]

    def switches(plane, roles=("leaf", "spine", "core")):
        return int(sw.loc[(sw["plane"] == plane) & sw["role"].isin(roles), "count"].sum())

    compute = pm[pm["plane"] == "compute"]
    uplinks = compute["purpose"].isin(["leaf-spine", "spine-core"])
    rails = compute[compute["purpose"].str.startswith("compute rail")]
    nodes = int(rails["device_a"].nunique())
    leaf_spine = int((compute["purpose"] == "leaf-spine").sum())
    return {
        "nodes": nodes,
        "gpus": nodes * 8,
        "compute_leaves": switches("compute", ("leaf",)),
        "compute_spines": switches("compute", ("spine",)),
        "compute_node_cables": int((~uplinks).sum()),
        "compute_leaf_spine_cables": leaf_spine,
        "inband_switches": switches("inband"),
        "oob_switches": switches("bmc"),
        "storage_switches": switches("storage"),
        "ufm_appliances": int(sw.loc[sw["role"] == "ufm", "count"].sum()),
        "management_servers": RA_MANAGEMENT_SERVERS,
        "compute_cables_400g": len(rails) + leaf_spine,
        "compute_transceivers": int(optics.loc[optics["plane"] == "compute", "modules"].sum()),
    }


#: RA rows summed into one comparable figure.
_SUMS = {
    "compute_transceivers": (
        "compute_switch_transceivers",
        "compute_system_transceivers",
        "compute_ufm_transceivers",
    )
}


def superpod_comparison(
    spare_ratios: tuple[float, ...] = (0.0, 0.05), catalog: Catalog | None = None
) -> pd.DataFrame:
    """hubplan beside the RA at 1, 2 and 4 SUs, spares off and on.

    Plans the RA's node counts (31, 63, 127 DGX H100: the SU's 32nd slot is the UFM's)
    with ⌈nodes × ratio⌉ spares (:func:`hubplan.server.spare_servers`) for each ratio,
    and returns one row per (``sus``, ``spare_ratio``, ``item``) with ``ra`` (empty
    where the RA gives no figure), ``hubplan``, ``difference`` and the RA ``table``.
    """
    from ..server import spare_servers

    ref = superpod_reference()
    catalog = catalog or load_catalog()
    rows = []
    for sus in sorted(ref["sus"].unique().tolist()):
        at = ref[ref["sus"] == sus].set_index("item")
        nodes = int(at.loc["nodes", "count"])
        for ratio in spare_ratios:
            ours = superpod_counts(nodes, spare_servers(nodes, ratio), catalog=catalog)
            for item, value in ours.items():
                parts = _SUMS.get(item, (item,))
                known = [p for p in parts if p in at.index]
                ra = sum(int(at.loc[p, "count"]) for p in known) if known else None
                table = ", ".join(dict.fromkeys(at.loc[p, "table"] for p in known))
                rows.append(
                    {
                        "sus": int(sus),
                        "spare_ratio": ratio,
                        "item": item,
                        "ra": ra,
                        "hubplan": value,
                        "difference": None if ra is None else value - ra,
                        "table": table,
                    }
                )
    out = pd.DataFrame(rows)
    for c in ("ra", "difference"):
        out[c] = out[c].astype("Int64")
    return out
