"""Compute-fabric tiers from the fat-tree arithmetic, worked by hand.

k-ary fat tree (Al-Fares, Loukissas & Vahdat, SIGCOMM 2008, §3.1): with k-port switches
at 1:1, two tiers reach k²/2 endpoints and three tiers k³/4. Here k = 64 (QM9700, 64 ×
NDR 400G; NVIDIA QM97X0 user manual, "Interfaces"), 8 rails per DGX H100 (one endpoint
per rail), SU = 32 servers (NVIDIA DGX SuperPOD H100 RA, RA-11333-001 V11), 1:1:
k²/2 = 2 048 endpoints, k³/4 = 65 536 endpoints.
"""

import numpy as np
import pytest

from hubplan.core.errors import HubplanError
from hubplan.network import size_fabric
from hubplan.network.ports import compute_links, server_name_array


def test_sixteen_k_gpus_by_hand():
    # 16 384 GPUs = 2 048 DGX = 16 384 endpoints; 2 048 < 16 384 ≤ 65 536: three tiers.
    # Leaves: 16 384 endpoints / 32 down = 512 (64 SUs × 8 rails). Pods: a spine has 32
    # ports down, so a pod holds 32 leaves = 4 SUs; 64 / 4 = 16 pods. Spines: 512 leaves
    # × 32 up / 32 down = 512 (32 per pod). Cores: 512 spines × 32 up / 64 ports = 256
    # (32 groups of 16 pods × 32 / 64 = 8). The B200 RA's 64-SU row lists 512 / 512 / 256.
    f = size_fabric(2048, 8, 64)
    assert (f.tiers, f.pods, f.leaves, f.spines, f.cores) == (3, 16, 512, 512, 256)
    assert f.cores_per_group == 8


def test_seventeen_pods_do_not_double_the_cores():
    # 68 SUs (2 176 DGX, 17 408 GPUs): 544 leaves, 17 pods of 32 spines = 544 spines.
    # Spine uplinks 544 × 32 = 17 408; at 64 ports a core, at least 272 cores. Grouped
    # (spine j of each pod to group j): each group takes 17 × 32 = 544 links, ⌈544/64⌉ =
    # 9 cores, × 32 groups = 288. A divisor-of-32 rule gave 16 per group = 512 cores.
    f = size_fabric(2176, 8, 64)
    assert (f.tiers, f.pods, f.leaves, f.spines, f.cores_per_group, f.cores) == (
        3,
        17,
        544,
        544,
        9,
        288,
    )


def test_seventeen_pods_wire_every_core_port_once():
    f = size_fabric(2176, 8, 64)
    groups = compute_links(
        f,
        server_name_array("train", 2176),
        400.0,
        None,
        (3, 50, 500),
        media_of=lambda gbps, m: "DAC" if m <= 3 else "transceiver",
    )
    (core,) = [g for g in groups if g.segment == "spine-core"]
    assert len(core) == 544 * 32
    ports = np.char.add(core.device_b.astype(str), core.port_b.astype(str))
    assert len(np.unique(ports)) == len(core)  # no core port used twice
    port_no = np.array([int(p[1:]) for p in core.port_b])
    # 544 links per group over 9 cores round-robin: at most ⌈544/9⌉ = 61 ≤ 64 ports
    assert port_no.max() == 61
    assert len(np.unique(core.device_b)) == 288


def test_largest_three_tier_fabric_is_k_cubed_over_four():
    # 8 192 DGX × 8 = 65 536 = k³/4 endpoints: the full k = 64 fat tree, k²/2 = 2 048
    # leaves, 2 048 spines, (k/2)² = 1 024 cores.
    f = size_fabric(8192, 8, 64)
    assert (f.tiers, f.pods, f.leaves, f.spines, f.cores) == (3, 64, 2048, 2048, 1024)


def test_131k_gpus_by_hand():
    # 131 072 GPUs = 16 384 DGX = 131 072 endpoints > k³/4 = 65 536 for k = 64: three
    # tiers of QM9700 cannot reach them at 1:1; hubplan says so instead of a wrong plan.
    with pytest.raises(HubplanError, match="65,536 endpoints"):
        size_fabric(16384, 8, 64)
    # With k = 128 (SN5600: 64 × 800G split to 128 × 400G; SN5000 user manual):
    # k²/2 = 8 192 < 131 072 ≤ k³/4 = 524 288, three tiers. Leaf 64 down, 64 up; SU = 64
    # servers; 256 SUs × 8 rails = 2 048 leaves. A spine has 64 down: a pod is 64 leaves
    # = 8 SUs; 32 pods. Spines: 2 048 × 64 / 64 = 2 048 (64 per pod). Cores: 2 048 × 64
    # up / 128 = 1 024 (64 groups of ⌈32 × 64 / 128⌉ = 16).
    f = size_fabric(16384, 8, 128)
    assert (f.tiers, f.servers_per_unit, f.units, f.pods) == (3, 64, 256, 32)
    assert (f.leaves, f.spines, f.cores) == (2048, 2048, 1024)


def test_two_tiers_up_to_k_squared_over_two():
    # 256 DGX × 8 = 2 048 = k²/2: 64 leaves under 32 spines, two tiers; one SU more and
    # the 72 leaves no longer fit under 64-port spines.
    assert size_fabric(256, 8, 64).tiers == 2
    assert size_fabric(257, 8, 64).tiers == 3
