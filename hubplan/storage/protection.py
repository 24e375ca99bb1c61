"""Protection: what a scheme keeps of raw capacity, what it costs in writes, and how many
nodes it needs to survive a node's loss; and whether each tier drains the one above it.

A protection scheme ``k + m`` splits data into k data and m parity chunks. Placed within
one node (RAID 6 over a node's drives) it survives drive failures but not the node's; spread
over nodes (erasure coding or replicas across a cluster), each chunk needs its own node, its
failure domain. This module holds the arithmetic of both and the offload check between the
tiers (hot → warm → cold).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..core.errors import InputError
from ..core.units import SECONDS_PER_DAY


class Scheme(NamedTuple):
    """One protection scheme.

    Attributes
    ----------
    data, parity : int
        Data and parity chunks (k, m); for n replicas, 1 and n − 1.
    across_nodes : bool
        True when its chunks are placed on separate nodes (erasure coding, replicas), so
        the tier needs at least ``data + parity`` nodes; False for RAID inside one node
        and for an appliance, whose own controllers carry its redundancy.
    """

    data: int
    parity: int
    across_nodes: bool


#: The schemes a tier may use. RAID 6 8+2 and RAID 10 are drive groups inside one node
#: (Lustre OSTs on RAID; Lustre Operations Manual, "Determining Hardware Configuration
#: Requirements"), so a node is protected against drive loss and its failover pair against
#: node loss. Erasure coding ``ec_k+m`` and ``replica_n`` are placed across nodes: MinIO
#: places each erasure set's k + m shards on separate drives of separate nodes, and "a
#: minimum of 4 nodes" for a production deployment (MinIO AIStor documentation, "Erasure
#: Coding"); Ceph's CRUSH places each of an EC pool's k + m chunks, or each replica, in its
#: own failure domain (host by default), so a pool needs at least k + m hosts, or n for n
#: replicas (Ceph documentation, "Erasure code" and "Pools"). ``appliance``: the vendor's
#: scheme inside the appliance.
SCHEMES: dict[str, Scheme] = {
    "raid6_8+2": Scheme(8, 2, False),
    "raid10": Scheme(1, 1, False),
    "ec_4+2": Scheme(4, 2, True),
    "ec_8+2": Scheme(8, 2, True),
    "ec_16+4": Scheme(16, 4, True),
    "replica_3": Scheme(1, 2, True),
    "appliance": Scheme(1, 0, False),
}

#: Write amplification of each scheme: bytes the drives write per byte a client writes,
#: (k + m) / k. RAID 6 8+2 and EC 8+2 write data and two parities (10/8); EC 16+4 20/16;
#: EC 4+2 6/4; RAID 10 two copies; three replicas three. ``appliance``: 1, since an
#: appliance's catalogue figures are measured at its clients (MLPerf Storage), protection
#: included. Reads touch the data only, so read bandwidth carries no such factor.
PROTECTION_WRITE_FACTOR: dict[str, float] = {
    name: (s.data + s.parity) / s.data for name, s in SCHEMES.items()
}


def _scheme(protection: str) -> Scheme:
    if protection not in SCHEMES:
        raise InputError("storage protection", protection, f"one of {', '.join(SCHEMES)}")
    return SCHEMES[protection]


def write_factor(protection: str, write_basis: str) -> float:
    """The write amplification to divide a catalogue write figure by. [ratio]

    Parameters
    ----------
    protection : str
        The tier's scheme (:data:`SCHEMES`).
    write_basis : str
        Where the catalogue's write figure is counted (``data/storage.csv``,
        ``write_basis``): ``drives`` for a figure built from drive sheets, before
        protection; ``client`` for one measured at the clients (MLPerf Storage, a MinIO
        benchmark), with the system's protection already paid.

    Notes
    -----
    (k + m) / k for a drive-side figure, 1 for a client-side one: the factor is applied
    once, here, and every later figure (node counts, supply, the acceptance floor) uses
    the client-side result.

    Examples
    --------
    >>> write_factor("raid6_8+2", "drives"), write_factor("ec_4+2", "client")
    (1.25, 1.0)
    """
    s = _scheme(protection)
    if write_basis == "client":
        return 1.0
    if write_basis != "drives":
        raise InputError("data/storage.csv write_basis", write_basis, "client or drives")
    return (s.data + s.parity) / s.data


def client_write_gb_s(write_gb_s: float, protection: str, write_basis: str = "drives") -> float:
    """Write bandwidth clients see from a node or tier after the protection. [GB/s]

    Notes
    -----
    Every byte a client writes is written (k + m) / k times to the drives (EC 8+2 writes
    10 bytes per 8, three replicas 3 per 1), so clients see the drives' write bandwidth
    divided by it (:func:`write_factor`). A figure measured at the clients already paid it.

    Examples
    --------
    A Lustre OSS of 24 drives × 3.2 GB/s = 76.8 GB/s, RAID 6 8+2: 76.8 × 8/10 = 61.44 GB/s;
    one 17.1 GB/s HDD node with three replicas: 5.7 GB/s; MinIO's 5.54 GB/s PUT per node,
    measured at its clients on EC:4: 5.54 GB/s.

    >>> client_write_gb_s(76.8, "raid6_8+2"), round(client_write_gb_s(17.1, "replica_3"), 2)
    (61.44, 5.7)
    >>> client_write_gb_s(5.54, "ec_4+2", "client")
    5.54
    """
    return write_gb_s / write_factor(protection, write_basis)


def usable_fraction(protection: str) -> float:
    """Usable share of raw capacity: k / (k + m). ``appliance``: Huawei's MLPerf Storage
    v1.0 OceanStor A800 entry reports 362,723 GiB usable of 457,764 GiB raw = 79.2 %, used
    for appliances whose own scheme is not published.

    >>> usable_fraction("ec_8+2"), round(usable_fraction("replica_3"), 4)
    (0.8, 0.3333)
    """
    if protection == "appliance":
        return 362_723 / 457_764
    s = _scheme(protection)
    return s.data / (s.data + s.parity)


def nodes_for_protection(protection: str) -> int:
    """Fewest nodes a tier on ``protection`` needs so that losing one node loses no data.

    Notes
    -----
    k + m for erasure coding across nodes, n for n replicas (each chunk or copy in its own
    failure domain: Ceph CRUSH, MinIO erasure sets); 1 for RAID inside a node and for an
    appliance (their redundancy is inside the box; a hot tier's failover pair is
    ``storage.min_hot_nodes``).

    Examples
    --------
    >>> [nodes_for_protection(p) for p in ("ec_8+2", "ec_4+2", "replica_3", "raid6_8+2")]
    [10, 6, 3, 1]
    """
    s = _scheme(protection)
    return s.data + s.parity if s.across_nodes else 1


def offload_gb_s(checkpoint_tb: float, interval_s: float, kept_above: int = 1) -> float:
    """Rate at which a tier must absorb checkpoints moved down from the tier above. [GB/s]

    Parameters
    ----------
    checkpoint_tb : float
        One checkpoint. [TB]
    interval_s : float
        Time between checkpoints of the job. [s]
    kept_above : int
        Checkpoints the tier above keeps, for a tier that copies only some of them before
        the tier above drops them (the cold tier's milestones, taken from the warm tier's
        rolling set); 1 for a tier that takes every checkpoint.

    Notes
    -----
    With the last N kept above, each new checkpoint pushes the oldest down, so the tier
    below must take one checkpoint per interval: checkpoint × 1 000 / interval. A tier
    that keeps only milestones has the time the tier above holds a checkpoint,
    ``kept_above`` × interval, to copy it. A tier that cannot write that fast falls
    behind by a checkpoint each interval until the tier above fills.

    Examples
    --------
    The 16 384-GPU run's 5.67 TB checkpoint every 211 s: 26.9 GB/s into the warm tier;
    its cold milestones, copied from the warm tier's ten: 2.69 GB/s.

    >>> round(offload_gb_s(5.67, 211), 1), round(offload_gb_s(5.67, 211, 10), 2)
    (26.9, 2.69)
    """
    if not (interval_s > 0 and math.isfinite(interval_s)):
        return 0.0
    return checkpoint_tb * 1000 / (max(kept_above, 1) * interval_s)


def storage_write_gb_s(raw_write_gb_s: float, protection: str) -> float:
    """Client-visible write bandwidth of drive-side write bandwidth on ``protection``.
    [GB/s]

    Notes
    -----
    raw ÷ (k + m)/k (:data:`PROTECTION_WRITE_FACTOR`); the storage stage applies it once
    per node (:func:`client_write_gb_s`), so its tiers' ``write_gb_s`` are client-side and
    the acceptance floor takes them as they are.

    Examples
    --------
    Two Lustre OSS of 76.8 GB/s drive writes each, RAID 6 8+2: 153.6 ÷ 1.25 = 122.88 GB/s.

    >>> round(storage_write_gb_s(153.6, "raid6_8+2"), 2)
    122.88
    """
    return client_write_gb_s(raw_write_gb_s, protection, "drives")


def job_inflow_gb_s(job: dict, storage) -> tuple[float, float]:
    """(warm, cold) inflow of one training job: what each lower tier must absorb. [GB/s]

    Parameters
    ----------
    job : dict
        ``checkpoint_tb``, ``interval_s`` (checkpoint interval), ``raw_tb`` (its raw
        dataset), ``final_weights_tb`` and ``job_days``.
    storage : Storage
        ``checkpoint_offload``, ``checkpoint_keep_last``, ``warm_checkpoints`` and
        ``cold_checkpoints`` say where checkpoints go.

    Notes
    -----
    warm: one checkpoint per interval when older checkpoints move off the hot tier to a
    warm tier that keeps some (:func:`offload_gb_s`), plus the raw dataset landed over the
    run; cold: the milestones, each copied while the tier above still holds it (the warm
    tier's set, or the hot tier's last N when nothing moves to warm), plus the raw dataset
    and the final weights archived over the run. Data landed "over the run" is a steady
    rate for the check; a bulk load before the run is faster and is the team's to schedule.

    Examples
    --------
    The 16 384-GPU run: 5.67 TB every 211.3 s, 62.4 TB raw, 0.81 TB of weights, 75.18
    days: warm 26.834 + 62 400 / 6 495 552 s = 26.843 GB/s; cold 5 670 / (10 × 211.3)
    + 63 210 / 6 495 552 = 2.693 GB/s.

    >>> from hubplan.storage.section import Storage
    >>> job = {"checkpoint_tb": 5.67, "interval_s": 211.3, "raw_tb": 62.4,
    ...        "final_weights_tb": 0.81, "job_days": 75.18}
    >>> [round(x, 3) for x in job_inflow_gb_s(job, Storage())]
    [26.843, 2.693]
    """
    run_s = job["job_days"] * SECONDS_PER_DAY
    ck, tau = job["checkpoint_tb"], job["interval_s"]
    to_warm = storage.checkpoint_offload and storage.warm_checkpoints > 0
    held = storage.warm_checkpoints if to_warm else storage.checkpoint_keep_last
    warm = offload_gb_s(ck, tau) if to_warm else 0.0
    cold = offload_gb_s(ck, tau, held) if storage.cold_checkpoints > 0 else 0.0
    if run_s > 0 and math.isfinite(run_s):
        warm += job["raw_tb"] * 1000 / run_s
        cold += (job["raw_tb"] + job["final_weights_tb"]) * 1000 / run_s
    return warm, cold
