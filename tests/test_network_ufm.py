"""UFM appliances are servers running the InfiniBand subnet manager, not switches: every
table a reviewer reads types them as their own kind, in English and Chinese; the capex
prices them as a stated estimate.

The default plan has two InfiniBand fabrics (compute and storage on QM9700) with a pair
of UFM appliances each: 4, as RA-11333-001 V11 Table 7 lists for the DGX SuperPOD
("NVIDIA Unified Fabric Manager Appliance 3.1", 4 for the compute and storage fabrics).
"""

import math

import pytest

from hubplan import build_plan, default_scenario
from hubplan.core.labels import label, localize
from hubplan.export.netbox import _frames

UFM_MODEL = "UFM Enterprise Appliance 3.1"


@pytest.fixture(scope="module")
def plan():
    return build_plan(default_scenario())


def test_equipment_list_has_one_ufm_row_unpriced(plan):
    eq = plan.tables["equipment_list"]
    ufm = eq[eq["model"] == UFM_MODEL]
    assert ufm["type"].tolist() == ["ufm"]
    assert int(ufm["quantity"].iloc[0]) == 4
    # no price is sourced (pricing is not invented): unpriced, never 0
    assert math.isnan(ufm["unit_price_usd"].iloc[0])
    assert math.isnan(ufm["extended_price_usd"].iloc[0])
    assert not eq.loc[eq["type"] == "switch", "model"].str.contains("UFM").any()


def test_rack_layout_and_power_type_ufm_apart(plan):
    layout = plan.tables["rack_layout"]
    named = layout[layout["device"].str.contains("-ufm-")]
    names = ["compute-ufm-01", "compute-ufm-02", "storage-ufm-01", "storage-ufm-02"]
    assert sorted(named["device"]) == names
    assert set(named["device_type"]) == {"ufm"}
    power = plan.tables["facility_power"].set_index("scope")
    assert "ufm" in power.index
    # four appliances at the management server's stand-in 0.8 kW each (unrated)
    assert power.loc["ufm", "it_nameplate_kw"] == pytest.approx(4 * 0.8)


def test_capex_lines_of_ufm_are_estimate_priced(plan):
    capex = plan.tables["cost_capex"].set_index("item")
    # data/prices.csv prices the appliance as an ESTIMATE (no source prices it): its
    # hardware, the 1U management server of the Tufts Research Technology price list
    # ($17 000, 2 x 32 cores, 256 GB, 2025-04), is the low end; the point is twice that
    # for the UFM software and support (34 000) and the high end five times (85 000).
    # A pair per fabric: 2 x 34 000 = 68 000, range 2 x 17 000 = 34 000 to 2 x 85 000
    # = 170 000, each line marked an estimate so a reviewer replaces it with a quote.
    for fabric in ("compute", "storage"):
        ufm = capex.loc[f"{fabric} ufm {UFM_MODEL}"]
        assert ufm["priced"] and ufm["line_quantity"] == 2
        assert ufm["capex_usd"] == 68_000
        assert (ufm["capex_low_usd"], ufm["capex_high_usd"]) == (34_000, 170_000)
        assert ufm["price_confidence"] == "estimate"
        assert ufm["price_as_of"] == "2025-04" and "TuftsRT" in ufm["price_source"]


def test_netbox_role_and_type_of_ufm(plan):
    frames = _frames(plan, "site")
    devices = frames["devices"]
    ufm = devices[devices["name"].str.contains("-ufm-")]
    assert set(ufm["role"]) == {"ufm"} and set(ufm["device_type"]) == {UFM_MODEL}
    assert "ufm" in set(frames["device_roles"]["name"])
    assert UFM_MODEL in set(frames["device_types"]["model"])


def test_ufm_type_reads_in_both_languages(plan):
    assert label("device_type.ufm", "en") == "UFM appliance (subnet manager)"
    assert label("device_type.ufm", "zh") == "UFM 设备（子网管理器）"
    zh = localize(plan.tables["equipment_list"], "zh")
    assert "UFM 设备（子网管理器）" in set(zh.iloc[:, 0])
    assert "ufm" not in set(zh.iloc[:, 0])
