"""Fleet totals: the one place pools are added up into the fleet.

Pools are sized on their own; the fleet follows the scenario's peak-overlap policy
(``workload.overlap``). Fleet rows carry structured columns (``level``, ``policy``,
``accelerator``, ``server``, ``gpus_per_server``); nothing reads a display string back.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.errors import check_range

POOL_KINDS = ("training", "inference", "development")

#: The columns that identify one kind of server in the fleet: pools with the same
#: accelerator in servers of the same size can share servers; one accelerator in servers
#: of two sizes is two fleet rows.
FLEET_KEY = ["accelerator", "gpus_per_server"]


def whole_servers(gpus: int, gpus_per_server: int) -> int:
    """Round a GPU count up to whole servers, returned as GPUs.

    >>> whole_servers(28, 8), whole_servers(132, 8), whole_servers(0, 8)
    (32, 136, 0)
    """
    check_range("gpus_per_server", gpus_per_server, ge=1)
    return math.ceil(gpus / gpus_per_server) * gpus_per_server


def _spares(servers: int, ratio: float) -> int:
    return math.ceil(round(servers * ratio, 9))


def fleet_rows(pools: pd.DataFrame, policy: str) -> pd.DataFrame:
    """Fleet rows from per-pool rows, one per accelerator × server × server size.

    Parameters
    ----------
    pools : DataFrame
        One row per pool with ``accelerator``, ``server``, ``gpus_per_server``,
        ``gpus_required``, ``servers`` and ``coincidence``; optionally ``spare_servers``
        and ``spare_ratio`` (the server stage adds spares, the workload stage does not).
    policy : {'dedicated', 'shared'}
        dedicated: each pool owns its servers, the fleet is their sum (spares too).
        shared: pools that can share servers form one scheduled fleet sized to the
        coincident peak ⌈Σ required × coincidence⌉ GPUs (never below the largest single
        pool), in whole servers, and never below the sum of the pools' whole servers at
        the peak (:func:`peak_servers`), with spares at the largest member spare ratio.

    Returns
    -------
    DataFrame
        ``level`` = 'fleet', ``pool`` = 'fleet', ``policy`` and the key columns, with
        ``gpus_required``, ``servers``, ``gpus`` and, when spares are known,
        ``spare_servers``, ``total_servers`` and ``total_gpus``.

    Examples
    --------
    H100 in 8-GPU servers for training (17 servers) and 4-GPU servers for inference
    (2 servers) are two kinds of server, so two fleet rows, whatever the policy:

    >>> p = pd.DataFrame({"accelerator": ["H100", "H100"], "server": ["DGX H100", ""],
    ...                   "gpus_per_server": [8, 4], "gpus_required": [132, 8],
    ...                   "servers": [17, 2], "coincidence": [1.0, 1.0]})
    >>> fleet_rows(p, "dedicated")[["gpus_per_server", "servers", "gpus"]].values.tolist()
    [[8, 17, 136], [4, 2, 8]]
    """
    with_spares = "spare_servers" in pools.columns
    # A handful of pool rows: group them in plain Python over the columns' arrays (a
    # pandas groupby costs a millisecond here); sums and maxima stay numpy's, NaN-skipping
    # as pandas' are.
    col = {c: pools[c].to_numpy() for c in ("gpus_required", "servers", "coincidence")}
    if with_spares:
        col.update({c: pools[c].to_numpy() for c in ("spare_servers", "spare_ratio")})
    names = pools["server"].tolist()
    groups: dict[tuple, list[int]] = {}  # key -> member positions, in order of appearance
    for i, key in enumerate(zip(*(pools[k].tolist() for k in FLEET_KEY), strict=True)):
        if not any(v != v for v in key):  # groupby leaves out rows with a missing key
            groups.setdefault(key, []).append(i)
    rows = []
    for key, members in groups.items():
        per_server = int(key[1])
        at = np.array(members)
        named = list(dict.fromkeys(n for n in (names[i] for i in members) if _named(n)))
        if policy == "dedicated":
            servers = int(np.nansum(col["servers"][at]))
            spares = int(np.nansum(col["spare_servers"][at])) if with_spares else 0
        else:
            load = np.nansum(col["gpus_required"][at] * col["coincidence"][at])
            peak = math.ceil(round(float(load), 9))
            gpus = max(peak, int(_nanmax(col["gpus_required"][at])))
            bases = peak_servers(
                col["gpus_required"][at], col["coincidence"][at], col["servers"][at], per_server
            )
            servers = max(math.ceil(gpus / per_server), sum(bases))
            spares = _spares(servers, float(_nanmax(col["spare_ratio"][at]))) if with_spares else 0
        row = dict(zip(FLEET_KEY, key, strict=True))
        # The server model when every member that names one names the same; else ''.
        row.update(
            level="fleet",
            pool="fleet",
            policy=policy,
            server=str(named[0]) if len(named) == 1 else "",
            gpus_required=int(np.nansum(col["gpus_required"][at])),
            servers=servers,
            gpus=servers * per_server,
        )
        if with_spares:
            row.update(
                spare_servers=spares,
                total_servers=servers + spares,
                total_gpus=(servers + spares) * per_server,
            )
        rows.append(row)
    return pd.DataFrame(rows)


def peak_servers(gpus_required, coincidence, servers, gpus_per_server: int) -> list[int]:
    """Whole servers each pool of a shared fleet holds at the fleet's peak: all its own
    servers when it is fully busy then (coincidence 1: a training job is gang-scheduled on
    its whole servers), else ⌈GPUs required × coincidence ÷ GPUs per server⌉, and at least
    one server for a pool with any demand (a server is scheduled by one pool's scheduler:
    Slurm for training and development, Kubernetes for serving). [servers]

    >>> peak_servers([132, 8, 8], [1.0, 0.5, 0.5], [17, 1, 1], 8)  # 17; ⌈0.5⌉ = 1; 1
    [17, 1, 1]
    >>> peak_servers([100, 0], [0.6, 1.0], [13, 0], 8)  # ⌈60 ÷ 8⌉ = 8; no demand, none
    [8, 0]
    """
    bases = []
    for req, share, own in zip(gpus_required, coincidence, servers, strict=True):
        if not req > 0:
            bases.append(0)
        elif share >= 1:
            bases.append(int(own))
        else:
            bases.append(max(1, min(int(own), math.ceil(round(req * share / gpus_per_server, 9)))))
    return bases


def fleet_shares(total: int, weights: list[int]) -> list[int]:
    """Split ``total`` whole servers among pools in proportion to ``weights`` by the
    largest-remainder (Hamilton) method: each pool gets the whole part of its quota, and
    the servers left over go to the largest fractions (the earlier pool on a tie).

    Under the shared policy a fleet sized to the coincident peak is built once; each pool's
    name range (``train-…``, ``infer-…``) holds its share, and the scheduler lends them
    across pools at the peak. [servers]

    References
    ----------
    .. [Balinski] M. L. Balinski and H. P. Young, *Fair Representation*, 2nd ed., Brookings
       Institution Press, 2001, ch. 2 (Hamilton's method of largest remainders).

    Examples
    --------
    A 248-server shared fleet for a fine-tune needing 247 servers on its own and a service
    needing 1: quotas 247.0 and 1.0, so 247 and 1. Its 13 spares in proportion to the pools'
    own spares (13 and 1): quotas 13 × 13/14 = 12.07 and 13 × 1/14 = 0.93, so 12 whole
    servers and 0, and the one left over goes to the larger fraction (0.93): 12 and 1.

    >>> fleet_shares(248, [247, 1]), fleet_shares(13, [13, 1])
    ([247, 1], [12, 1])
    >>> fleet_shares(3, [1, 1, 1]), fleet_shares(2, [1, 1, 1]), fleet_shares(0, [0, 0])
    ([1, 1, 1], [1, 1, 0], [0, 0])
    """
    weight = sum(weights)
    if total <= 0 or weight <= 0:
        return [0] * len(weights)
    quotas = [total * w / weight for w in weights]
    shares = [math.floor(q) for q in quotas]
    left = total - sum(shares)
    by_fraction = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - shares[i]), i))
    for i in by_fraction[:left]:
        shares[i] += 1
    return shares


def _named(server: object) -> bool:
    """Whether a pool row names a server model (not '', None or NaN)."""
    return server is not None and server == server and server != ""


def _nanmax(values: np.ndarray) -> float:
    """The largest value that is not NaN; NaN when there is none (as pandas' max)."""
    known = values[~pd.isna(values)]
    return known.max() if len(known) else math.nan
