"""Network findings read without raw codes, in Chinese as in English.

A finding that names a plane, a medium, a fabric technology or a stage area renders it
through its label (``choice.plane.*``, ``choice.media.*``, ``choice.technology.*``,
``choice.area.*``): "带内管理", not ``inband``.
"""

import re

import pandas as pd
import pytest

from hubplan import build_plan, default_scenario, load_scenario
from hubplan.core.findings import Finding, findings_frame
from hubplan.core.labels import coded_params, label
from hubplan.network.rdma import fabric_family_findings
from hubplan.review.rules import (
    check_management_plane,
    check_single_spine,
    check_training_oversubscription,
)
from hubplan.review.section import ReviewPolicy
from hubplan.views.render import findings_table

#: Raw codes of planes, technologies, media, pools and stage areas as the stages write
#: them. A config field (``network.inband_ports_per_server``) is not a raw code: the
#: user types it, so tokens holding '.' or '_' are left out before matching.
RAW = re.compile(
    r"\b(compute|storage|inband|bmc|loopback|infiniband|ethernet|all|network|delivery|"
    r"transceiver-[A-Za-z0-9-]+)\b"
)
FIELD = re.compile(r"[\w.-]*[._][\w.-]*")


def _raw_codes(text: str) -> list[str]:
    return RAW.findall(FIELD.sub(" ", text))


def _network_findings() -> list[Finding]:
    found: list[Finding] = []
    # the default plan: uncabled compute and storage NICs, an in-band NIC of unknown speed
    plans = [
        build_plan(default_scenario()),
        # storage on the compute fabric, for every pool
        build_plan(
            default_scenario().with_changes({"network.storage_plane": "compute"}), until="network"
        ),
        # 16 K: spares past the SU boundary, UFM without a slot
        build_plan(load_scenario("templates/scenarios/pretrain-16k.yaml"), until="network"),
    ]
    for plan in plans:
        f = plan.findings
        rows = f[(f["stage"] == "network") | (f["data"].map(lambda d: d.get("area")) == "network")]
        found += [
            Finding(r.severity, r.stage, r.subject, r.code, r.data) for r in rows.itertuples()
        ]
    # a family that scales out over Ethernet on an InfiniBand switch, one unsourced
    ascend = pd.Series({"name": "Huawei", "scaleout_fabric": "ethernet"})
    found += fabric_family_findings(ascend, "infiniband", "QM9700")
    found += fabric_family_findings(pd.Series({"name": "Biren"}), "ethernet", "SN5400")
    # review: no in-band and no BMC plane, an oversubscribed fabric, a single spine
    pools = pd.DataFrame({"level": ["pool"], "pool": ["training"], "total_servers": [18]})
    compute = pd.DataFrame(
        {"plane": ["compute"], "oversubscription": [3.0], "leaves": [4], "spines": [1]}
    )
    policy = ReviewPolicy()
    found += check_management_plane(compute, pools, policy)
    found += check_training_oversubscription(compute, policy)
    found += check_single_spine(compute, policy)
    return found


@pytest.fixture(scope="module")
def findings():
    return _network_findings()


def test_the_cases_cover_plane_technology_and_area_codes(findings):
    codes = {f.code for f in findings}
    assert {
        "uncabled_nics",
        "nic_speed_unknown",
        "storage_on_compute",
        "fabric_unsuited_to_family",
        "family_fabric_unknown",
        "review_management_on_compute",
        "review_single_spine",
    } <= codes
    planes = {f.params.get("plane") for f in findings}
    assert {"compute", "storage", "inband", "bmc"} <= planes


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_network_finding_shows_a_raw_code(findings, lang):
    table = findings_table(findings_frame(findings), lang)
    for code, message, fix in zip(table["code"], table["message"], table["fix"], strict=True):
        if lang == "zh":
            assert not _raw_codes(message), (code, message)
            assert not _raw_codes(fix), (code, fix)
        else:  # English: the in-band and BMC planes read as words, not identifiers
            assert not re.search(r"\b(inband|bmc|infiniband)\b", FIELD.sub(" ", message)), (
                code,
                message,
            )
    for f in findings:  # Finding.message renders the same sentence
        assert not _raw_codes(f.message("zh")), (f.code, f.message("zh"))


def test_plane_and_medium_labels_in_chinese():
    # the sentences a Chinese reader sees
    msg = Finding(
        "info",
        "network",
        "training",
        "uncabled_nics",
        {"pool": "training", "server": "DGX H100", "plane": "storage", "nics": 4, "cabled": 2},
    ).message("zh")
    assert msg.startswith("资源池 训练：DGX H100 有 4 个存储网卡端口")
    assert coded_params({"plane": "inband"}, "zh") == {"plane": "带内管理"}
    assert coded_params({"plane": "bmc"}, "en") == {"plane": "out-of-band (BMC)"}
    assert coded_params({"media": "transceiver-DR4"}, "zh") == {"media": "DR4 光模块（单模光纤）"}
    assert label("choice.area.network", "zh") == "网络"
