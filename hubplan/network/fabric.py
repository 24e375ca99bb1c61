"""Compute fabric sizing: a rail-optimised leaf/spine(/core) fat tree in scalable units.

The DGX SuperPOD practice (NVIDIA RA-11333-001, DGX H100): a scalable unit (SU) of 32
servers; rail k of every server lands on leaf k of its SU; leaf uplinks spread evenly
over the spines; two tiers while every leaf can reach every spine, a core layer above.
The fabric is built for full units so that growth needs no re-cabling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.errors import HubplanError, check_range


def leaf_ports(radix: int, oversubscription: float) -> tuple[int, int]:
    """A leaf's downlinks and uplinks at a downlink : uplink ratio. [ports]

    Notes
    -----
    down = ⌊radix × o / (1 + o)⌋, up = ⌈down / o⌉.

    References
    ----------
    NVIDIA DGX SuperPOD H100 RA (RA-11333-001): a 64-port QM9700 leaf serves 32 servers
    with 32 uplinks (1:1).

    Examples
    --------
    >>> leaf_ports(64, 1), leaf_ports(64, 2), leaf_ports(48, 3)
    ((32, 32), (42, 21), (36, 12))
    """
    check_range("oversubscription", oversubscription, ge=1)
    down = math.floor(radix * oversubscription / (1 + oversubscription) + 1e-9)
    return down, math.ceil(round(down / oversubscription, 9))


def divisor_at_least(n: int, need: int) -> int:
    """The smallest divisor of ``n`` that is at least ``need`` (``n + 1`` when none is).

    Spine counts are divisors of a leaf's uplinks, so each leaf sends the same number of
    links to every spine. DGX SuperPOD H100 with 3 SUs: 24 leaves × 32 uplinks need 12
    spines of 64 ports, and the RA builds 16 (RA-11333-001, Table 2):

    >>> divisor_at_least(32, 12), divisor_at_least(32, 4), divisor_at_least(32, 33)
    (16, 4, 33)
    """
    for d in range(max(1, need), n + 1):
        if n % d == 0:
            return d
    return n + 1


@dataclass(frozen=True)
class Fabric:
    """The switch counts of one leaf/spine(/core) fabric.

    ``pod_spines`` lists the spines of each pod (three tiers; one pod in two tiers).
    """

    servers: int
    rails: int
    servers_per_unit: int
    units: int
    tiers: int
    radix: int
    leaf_down: int
    leaf_up: int
    leaves: int
    units_per_pod: int
    pod_spines: tuple[int, ...]
    spine_down: int
    spine_up: int
    cores_per_group: int
    cores: int
    #: Every spine reaches every core (one core group of ``cores``), as a management
    #: plane's small core is built; False: spine j of every pod feeds core group j.
    core_mesh: bool = False

    @property
    def spines(self) -> int:
        return sum(self.pod_spines)

    @property
    def pods(self) -> int:
        return len(self.pod_spines)

    @property
    def oversubscription(self) -> float:
        return self.leaf_down / self.leaf_up if self.leaf_up else math.inf


def two_tier_spines(leaves: int, leaf_up: int, radix: int) -> int | None:
    """Spines of a two-tier fabric, or None when two tiers cannot reach every leaf.

    Notes
    -----
    s = the smallest divisor of the leaf uplinks ≥ ⌈leaves × up / radix⌉; two tiers
    while s ≤ up and leaves × up / s ≤ radix (every leaf reaches every spine).

    Examples
    --------
    SuperPOD (64-port leaves, 32 up): 1, 2, 3, 4, 8 SUs of 8 leaves, and 9 SUs:

    >>> [two_tier_spines(8 * su, 32, 64) for su in (1, 2, 3, 4, 8, 9)]
    [4, 8, 16, 16, 32, None]
    """
    if leaves <= 0 or leaf_up <= 0:
        return 0
    s = divisor_at_least(leaf_up, math.ceil(leaves * leaf_up / radix))
    if s > leaf_up or leaves * (leaf_up // s) > radix:
        return None
    return s


def size_fabric(
    servers: int,
    rails: int,
    radix: int,
    oversubscription: float = 1.0,
    servers_per_unit: int | None = None,
    *,
    leaf: tuple[int, int] | None = None,
    spine_radix: int | None = None,
) -> Fabric:
    """Size a rail-optimised fabric for ``servers`` with ``rails`` NICs each.

    Parameters
    ----------
    servers : int
        Servers to cable (spares included).
    rails : int
        Compute NICs per server: one leaf per rail per scalable unit.
    radix : int
        Switch ports at the NIC speed (leaf, spine and core use one model).
    oversubscription : float
        Leaf downlink : uplink (1 = 1:1).
    servers_per_unit : int, optional
        Scalable-unit size; default one leaf's downlinks.
    leaf : (int, int), optional
        A leaf's (downlinks, uplinks) when fixed by the switch (a 48 × 1 GbE BMC switch
        with 4 uplinks); default from ``radix`` and ``oversubscription``.
    spine_radix : int, optional
        Spine and core ports at the uplink speed; default ``radix``.

    Returns
    -------
    Fabric

    Notes
    -----
    The fat-tree arithmetic (Leiserson 1985; Al-Fares, Loukissas & Vahdat, "A Scalable,
    Commodity Data Center Network Architecture", SIGCOMM 2008, §3.1): with k-port
    switches at 1:1, a leaf gives k/2 ports down and k/2 up, a middle switch k/2 down and
    k/2 up, the top switch all k down. So

    - two tiers reach k · k/2 = k²/2 endpoints (k leaves of k/2 under k/2 spines);
    - three tiers reach k · (k/2)² = k³/4 (k pods of k/2 leaves and k/2 spines, under
      (k/2)² cores).

    Here an endpoint is one server port (one rail); a server with R rails takes R
    endpoints. At a leaf ratio o:1 the leaf has d = ⌊k·o/(1+o)⌋ down and u = ⌈d/o⌉ up
    (:func:`leaf_ports`) and the tiers above stay 1:1.

    The counts, as the DGX SuperPOD builds them (rail-optimised scalable units, fabric
    for full units so growth needs no re-cabling):

    - units = ⌈servers / SU⌉, leaves L = units × R.
    - Two tiers while L ≤ k (:func:`two_tier_spines`): spines = the smallest divisor of
      u that is ≥ ⌈L·u / k⌉, so each leaf sends the same number of links to every spine.
    - Else three tiers. A pod is ⌊(k/2) / R⌋ units (at most k/2 leaves under spines of
      k/2 down, k/2 up); pods P = ⌈units / units per pod⌉; spines per pod by the same
      divisor rule against k/2 spine downlinks. Spine j of every pod feeds core group j;
      a group needs c = ⌈P · (k/2) / k⌉ = ⌈P/2⌉ cores (its k-port cores take the k/2
      uplinks of P spines), so cores = (spines of a full pod) × c. Three tiers while
      c ≤ k/2, i.e. P ≤ k: k³/4 endpoints at 1:1. A spine's k/2 uplinks go round-robin
      over its group's c cores, so c need not divide k/2 (17 pods: 9 cores per group, not
      the 16 a divisor would force).
    - Beyond three tiers: an error naming the reach, not a silently wrong plan.

    Worked by hand (k = 64, R = 8, 1:1; the tests carry these): 16 384 GPUs = 2 048
    servers = 16 384 endpoints; k²/2 = 2 048 < 16 384 ≤ k³/4 = 65 536, three tiers;
    L = 64 units × 8 = 512 leaves, 16 pods of 4 units, 32 spines each = 512 spines,
    c = ⌈16/2⌉ = 8 per group × 32 groups = 256 cores (as the B200 RA's 64-SU row).
    131 072 GPUs = 131 072 endpoints > 65 536: more than three tiers of 64 ports.

    References
    ----------
    NVIDIA DGX SuperPOD H100 RA, RA-11333-001 (SU = 32 DGX, eight NDR400 rails, full fat
    tree); DGX SuperPOD B200 RA, "Larger DGX SuperPOD component counts"
    (https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html).

    Examples
    --------
    16 SUs of 32 DGX (4 096 GPUs): 128 leaves, 128 spines, 64 cores (B200 RA table):

    >>> f = size_fabric(512, 8, 64)
    >>> f.tiers, f.leaves, f.spines, f.cores
    (3, 128, 128, 64)
    """
    check_range("servers", servers, ge=1)
    check_range("rails", rails, ge=1)
    down, up = leaf if leaf is not None else leaf_ports(radix, oversubscription)
    leaf_radix, radix = radix, spine_radix or radix
    spu = servers_per_unit or down
    if spu > down:
        raise HubplanError(
            f"network.servers_per_unit = {spu}: a leaf has only {down} downlinks at "
            f"{oversubscription:g}:1 on a {leaf_radix}-port switch; use at most {down}"
        )
    units = math.ceil(servers / spu)
    leaves = units * rails
    spines = two_tier_spines(leaves, up, radix)
    if spines is not None:
        return Fabric(
            servers, rails, spu, units, 2, radix, down, up, leaves, units, (spines,), radix, 0, 0, 0
        )
    spine_down = radix // 2
    spine_up = radix - spine_down
    per_pod = spine_down // rails
    if per_pod < 1:
        raise HubplanError(
            f"{rails} rails per server do not fit a {radix}-port spine pod; choose a "
            "switch with more ports"
        )
    pods = math.ceil(units / per_pod)
    pod_units = [per_pod] * (pods - 1) + [units - per_pod * (pods - 1)]
    pod_spines = []
    for n in pod_units:
        s = divisor_at_least(up, math.ceil(n * rails * up / spine_down))
        pod_spines.append(s)
    c = math.ceil(pods * spine_up / radix)
    if c > spine_up:
        reach = radix * per_pod * spu  # pods ≤ radix
        raise HubplanError(
            f"{servers:,} servers × {rails} rails need more than three tiers of {radix}-port "
            f"switches (three tiers reach {radix} pods × {per_pod} units × {spu} servers = "
            f"{reach:,} servers, {reach * rails:,} endpoints, at {oversubscription:g}:1); "
            "choose a switch with more ports or raise network.oversubscription"
        )
    return Fabric(
        servers,
        rails,
        spu,
        units,
        3,
        radix,
        down,
        up,
        leaves,
        per_pod,
        tuple(pod_spines),
        spine_down,
        spine_up,
        c,
        pod_spines[0] * c,
    )


def max_two_tier_servers(radix: int, rails: int, oversubscription: float = 1.0) -> int:
    """The most servers a two-tier rail-optimised fabric of this switch reaches. [servers]

    Notes
    -----
    The largest whole number of units whose leaves (units × rails) fit under
    :func:`two_tier_spines`, times the unit size.

    Examples
    --------
    64-port NDR switches, 8 rails: 8 SUs of 32 = 256 DGX (2 048 GPUs; the B200 RA's last
    two-tier row); a 128-port switch (SN5600 at 400G): 16 SUs of 64 = 1 024 servers:

    >>> max_two_tier_servers(64, 8), max_two_tier_servers(128, 8)
    (256, 1024)
    """
    down, up = leaf_ports(radix, oversubscription)
    units = 0
    while two_tier_spines((units + 1) * rails, up, radix) is not None:
        units += 1
    return units * down
