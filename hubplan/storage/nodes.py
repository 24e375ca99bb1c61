"""Nodes: how many nodes a tier needs, and which need sets the count (the third step of
the storage stage)."""

from __future__ import annotations

from .capacity import nodes_for


def tier_nodes(
    *,
    usable_needed_tb: float,
    usable_per_node_tb: float,
    minimum: int,
    protection_nodes: int,
    read_need_gb_s: float | None = None,
    write_need_gb_s: float | None = None,
    read_per_node_gb_s: float = 0.0,
    write_per_node_gb_s: float = 0.0,
    fixed: int | None = None,
) -> tuple[int, str, dict[str, int]]:
    """(nodes, what set the count, nodes each need asks for) of one tier.

    Parameters
    ----------
    usable_needed_tb, usable_per_node_tb : float
        Usable capacity the tier needs, and one node's after protection. [TB]
    minimum : int
        Fewest nodes on other grounds (a failover pair; 1 for a tier that holds anything).
    protection_nodes : int
        Fewest nodes the protection scheme needs to survive a node's loss (k + m for
        erasure coding across nodes, n for n replicas:
        :func:`~hubplan.storage.protection.nodes_for_protection`); asked for only when the
        tier has nodes on other grounds.
    read_need_gb_s, write_need_gb_s : float, optional
        Bandwidth the tier must deliver (the hot tier); with the per-node client figures.
    fixed : int, optional
        A count the scenario fixes (``storage.hot_nodes``).

    Notes
    -----
    nodes = max(⌈capacity⌉, ⌈read⌉, ⌈write⌉, minimum, protection); ties go to the first
    of capacity, read, write, minimum, protection.

    Examples
    --------
    An HDD tier of 8.7 TB on EC 8+2 across nodes: capacity asks for 1 node, the scheme
    for 10. A hot tier reading 2 720 GB/s at 100 per node and writing 2 791 at 61.44:
    28 for reads, 46 for writes.

    >>> tier_nodes(usable_needed_tb=8.7, usable_per_node_tb=1152, minimum=1,
    ...            protection_nodes=10)
    (10, 'protection', {'capacity': 1, 'minimum': 1, 'protection': 10})
    >>> n, by, need = tier_nodes(usable_needed_tb=100, usable_per_node_tb=589.8, minimum=2,
    ...                          protection_nodes=1, read_need_gb_s=2720,
    ...                          write_need_gb_s=2791, read_per_node_gb_s=100,
    ...                          write_per_node_gb_s=61.44)
    >>> n, by, need["read"]
    (46, 'write', 28)
    """
    by = {"capacity": nodes_for(usable_needed_tb, usable_per_node_tb)}
    if read_need_gb_s is not None:
        by["read"] = nodes_for(read_need_gb_s, read_per_node_gb_s)
    if write_need_gb_s is not None:
        by["write"] = nodes_for(write_need_gb_s, write_per_node_gb_s)
    by["minimum"] = minimum
    by["protection"] = protection_nodes if max(by.values()) > 0 else 0
    if fixed is not None:
        return fixed, "fixed", by
    sized_by = max(by, key=lambda k: by[k])  # first of equals
    return by[sized_by], sized_by, by
