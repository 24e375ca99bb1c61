"""Device weights from their sheets, rack weights and floor loading against the room.

Hand arithmetic: g_n = 9.806 65 m/s²; a 600 × 1 200 mm rack stands on 0.72 m²; a 12 kPa
floor (TIA-942 Rated-3) carries 12 000 × 0.72 / 9.806 65 = 881.04 kg on it; the empty
APC NetShelter SX AR3300 cabinet weighs 134.09 kg (NetBox device-type library), leaving
746.95 kg of equipment. DGX H100: 130.45 kg (NVIDIA DGX BasePOD RA); GB200 NVL72 rack:
1 360 kg (NVIDIA DGX GB200 user guide); SN2201 7.41 kg, QM9700 14.8 kg (NetBox device-type
library).
"""

import pytest

import hubplan
from hubplan.core.errors import ScenarioError
from hubplan.facility.racks import floor_load_kpa
from hubplan.facility.section import Facility


def codes(plan):
    f = plan.findings
    return set(f.loc[f["stage"] == "facility", "code"])


def test_floor_load_by_hand():
    assert floor_load_kpa(1360, 0.72) == pytest.approx(18.5237, abs=1e-4)
    f = Facility()
    assert f.floor_limit_kg == pytest.approx(881.04, abs=0.01)
    assert f.rack_weight_limit_kg == pytest.approx(746.95, abs=0.01)
    # 1.5 kPa carries 1 500 × 0.72 / 9.806 65 = 110 kg on a rack's footprint, less than
    # the empty cabinet's 134.09 kg: refused, naming the fields
    with pytest.raises(ScenarioError, match="rack_cabinet_kg"):
        hubplan.default_scenario().with_changes({"facility.floor_rating_kpa": 1.5})


@pytest.fixture(scope="module")
def plan(default):
    return hubplan.build_plan(default)


def test_racks_carry_weight_and_floor_load(plan):
    racks = plan["racks"].set_index("rack")
    a01 = racks.loc["A01"]  # three DGX H100
    assert a01["weight_kg"] == pytest.approx(3 * 130.45)
    # (391.35 + 134.09) kg × g / 0.72 m² = 7.157 kPa
    assert a01["floor_load_kpa"] == pytest.approx(7.1567, abs=1e-4)
    assert a01["max_kg"] == pytest.approx(746.95, abs=0.01)
    assert "rack_over_weight" not in codes(plan)


def test_weights_reach_the_layout_and_the_equipment_list(plan):
    layout = plan["rack_layout"].set_index("device")
    assert layout.loc["train-0001", "weight_kg"] == 130.45
    assert layout.loc["bmc-leaf-01", "weight_kg"] == 7.41  # from data/weights.csv
    eq = plan["equipment_list"].set_index("model")
    dgx = eq.loc["DGX H100"]
    assert dgx["unit_weight_kg"] == 130.45
    assert dgx["total_weight_kg"] == pytest.approx(dgx["quantity"] * 130.45)
    # Models no sheet weighs are named, not weighed at 0 kg without a word.
    f = plan.findings
    unknown = f[f["code"] == "weights_unknown"].iloc[0]["data"]
    assert "SN4600C" in unknown["models"] and "QM9700" not in unknown["models"]
    assert layout.loc["compute-leaf-01", "weight_kg"] == 14.8  # QM9700, data/weights.csv


def test_a_weaker_floor_spreads_servers_over_more_racks(default):
    # 5 kPa: 5 000 × 0.72 / 9.806 65 = 367.10 kg − 134.09 = 233.01 kg: one DGX H100 a rack
    plan = hubplan.build_plan(default.with_changes({"facility.floor_rating_kpa": 5}))
    racks = plan["racks"].set_index("rack")
    assert racks.loc["A01", "max_kg"] == pytest.approx(233.01, abs=0.01)
    layout = plan["rack_layout"]
    per_rack = layout[layout["pool"] == "training"].groupby("rack").size()
    assert set(per_rack) == {1}


def test_nvl72_rack_over_a_12_kpa_floor_is_a_finding(default):
    plan = hubplan.build_plan(
        default.with_changes(
            {
                "pools.training.accelerator": "GB200 186GB",
                "pools.training.gpus_per_server": 72,
                "pools.training.server": "GB200 NVL72 rack",
            }
        )
    )
    racks = plan["racks"]
    nvl = racks[racks["kind"] == "compute"].iloc[0]
    # its 1 360 kg include its rack: no cabinet added; 18.52 kPa on a 12 kPa floor
    assert nvl["weight_kg"] == 1360
    assert nvl["floor_load_kpa"] == pytest.approx(18.5237, abs=1e-4)
    f = plan.findings
    row = f[f["code"] == "rack_over_weight"].iloc[0]
    assert row["severity"] == "warning"
    assert row["data"]["load"] == pytest.approx(18.5237, abs=1e-4)
    assert row["data"]["rating"] == 12
