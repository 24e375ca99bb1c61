"""hubplan beside the NVIDIA DGX SuperPOD H100 reference architecture at 1, 2 and 4 SUs,
spares off and on, every difference stated.

[RA] NVIDIA DGX SuperPOD Reference Architecture featuring DGX H100 systems,
RA-11333-001 V11 (2023-09-22): Table 4 (compute fabric component count: 31 / 63 / 127
nodes, 8 / 16 / 32 leaves, 4 / 8 / 16 spines, 252 / 508 / 1020 "Compute and UFM" cables,
256 / 512 / 1024 spine-leaf cables), Table 7 (4 SU: 8 in-band SN4600C, 8 OOB SN2201, 48
compute and 16 storage QM9700, 4 UFM appliances, 4 management servers), Table 8 (4 SU:
2 040 NDR cables, 1 536 switch + 508 system + 4 UFM OSFP transceivers). The figures are
in data/superpod_reference.csv with their table numbers.
"""

import pytest

from hubplan.network.reference import superpod_comparison, superpod_reference


@pytest.fixture(scope="module")
def comparison():
    return superpod_comparison((0.0, 0.05)).set_index(["sus", "spare_ratio", "item"])


def test_reference_file_cites_a_table_on_every_row():
    ref = superpod_reference()
    assert (ref["table"].str.startswith("Table ")).all()
    assert ref["source"].str.contains("RA-11333-001 V11").all()
    assert set(ref["sus"]) == {1, 2, 4}


# Same as the RA, spares off and on. Spares: ⌈31 × 5 %⌉ = 2, ⌈63 × 5 %⌉ = 4,
# ⌈127 × 5 %⌉ = 7; the SU's 32nd slot is the UFM pair's (Table 4 footnote 1), so every
# spare waits in the cold pool and the fabric stays the RA's (it grew a unit before).
SAME = [
    "nodes",
    "gpus",
    "compute_leaves",
    "compute_spines",
    "compute_node_cables",
    "compute_leaf_spine_cables",
]


@pytest.mark.parametrize("ratio", [0.0, 0.05])
@pytest.mark.parametrize("sus", [1, 2, 4])
def test_compute_fabric_equals_the_ra(comparison, sus, ratio):
    for item in SAME:
        row = comparison.loc[(sus, ratio, item)]
        assert row["hubplan"] == row["ra"], (sus, ratio, item)


@pytest.mark.parametrize("ratio", [0.0, 0.05])
def test_four_su_components_beside_table_7(comparison, ratio):
    row = lambda item: comparison.loc[(4, ratio, item)]  # noqa: E731
    # Equal: 4 UFM (a pair per InfiniBand fabric), 4 management servers (an input),
    # 2 040 compute cables (1 016 node + 1 024 leaf-spine).
    for item in ("ufm_appliances", "management_servers", "compute_cables_400g"):
        assert row(item)["hubplan"] == row(item)["ra"], item
    # In-band: 127 (+7 spares) × 2 + 4 management + 4 UFM + 7 OOB leaves × 2 uplinks =
    # 276 (290) ports; at 4:1 a SN4600C leaf has 51 down, 13 up: 6 leaves, and
    # max(2, ⌈6 × 13 / 64⌉) = 2 spines = 8, as Table 7 (the old divisor-of-13 rule: 19).
    assert row("inband_switches")["hubplan"] == row("inband_switches")["ra"] == 8
    # Out-of-band: 127 BMC + 4 management + 4 UFM + 48 compute + 17 storage + 8 in-band
    # mgmt0 + ⌈0.85 × 127⌉ = 108 PDU ports = 316 → ⌈316 / 48⌉ = 7 SN2201 (with spares:
    # 134 + 4 + 4 + 48 + 17 + 8 + 114 = 329 → 7). Table 8 cables 315 OOB ports, which
    # also fit 7 switches of 48; the RA builds 8 without saying why (one per rack row is
    # the likely reason). hubplan sizes from ports: one fewer.
    assert (row("oob_switches")["hubplan"], row("oob_switches")["ra"]) == (7, 8)
    # Storage: hubplan plans no storage nodes here (the RA's count "depends on specific
    # storage selected", Table 8 note 2): 127 (134) DGX × 2 + 2 UFM × 2 = 258 (272) ports
    # at 1:1 = 9 leaves of 32 and ⌈9 × 32 / 64⌉ = 5 → 8 spines (a divisor of 32) = 17;
    # the RA's 16 runs the DGX ports near 4:3 (its storage fabric section).
    assert (row("storage_switches")["hubplan"], row("storage_switches")["ra"]) == (17, 16)


def test_compute_optics_beside_table_8(comparison):
    # Table 8: 1 536 switch + 508 DGX (127 × 4 twin-port cages) + 4 UFM = 2 048 OSFP
    # modules; hubplan counts per cage (tests/test_links.py), so the two agree.
    row = comparison.loc[(4, 0.0, "compute_transceivers")]
    assert row["ra"] == 2048
    assert row["hubplan"] == 2048


def test_full_sus_keep_the_fabric_and_say_so():
    # 128 DGX (4 full SUs) + 7 spares: 32 leaves, 16 spines; the UFM pair finds no free
    # slot and the 7 spares go cold, each with a finding (tests/test_network_spares.py).
    from hubplan.network.reference import superpod_counts

    c = superpod_counts(128, 7)
    assert (c["compute_leaves"], c["compute_spines"], c["nodes"]) == (32, 16, 128)
    assert c["compute_node_cables"] == 128 * 8
