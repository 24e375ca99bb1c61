"""The review's fabric-acceptance fix names the plan's family's tools, or none.

Tools from data/families.csv, as the acceptance runbook reads them: NVIDIA
``ib_write_bw --use_cuda`` (perftest with CUDA) and nccl-tests' ``all_reduce_perf``;
Huawei's row names the HCCL Test (``all_reduce_test``) and no RDMA test.
"""

import pandas as pd

from hubplan.core.catalog import load_catalog
from hubplan.review.rules import check_fabric_acceptance
from hubplan.review.section import ReviewPolicy
from hubplan.review.stage import fabric_tools_of

POOLS = pd.DataFrame(
    {"level": ["pool"], "pool": ["training"], "total_servers": [4], "gpus_per_server": [8]}
)
NO_FABRIC_TESTS = pd.DataFrame({"pool": ["training"], "test": ["stability_run"]})


def _fix(accelerator: str, lang: str) -> str:
    pools = POOLS.assign(accelerator=accelerator)
    tools = fabric_tools_of(pools, load_catalog())
    (finding,) = check_fabric_acceptance(NO_FABRIC_TESTS, pools, tools, ReviewPolicy())
    return finding.fix(lang)


def test_nvidia_plan_names_perftest_and_nccl_tests():
    assert _fix("H100 SXM5 80GB", "en") == (
        "Add a per-NIC RDMA write-bandwidth test (ib_write_bw --use_cuda) and a multi-node "
        "all-reduce test (all_reduce_perf (MPI)) to the acceptance plan."
    )


def test_ascend_plan_names_no_nvidia_tool():
    for lang in ("en", "zh"):
        text = _fix("910B", lang)
        assert "ib_write_bw" not in text and "all_reduce_perf" not in text
        assert "all_reduce_test (MPI)" in text  # the HCCL Test, Huawei's row
    assert "该加速卡系列自有工具" in _fix("910B", "zh")  # no RDMA test sourced: none named


def test_unknown_family_names_no_tool():
    tools = fabric_tools_of(POOLS.assign(accelerator="not-a-card"), load_catalog())
    assert tools == {"rdma_tool": "unknown", "collective_tool": "unknown"}
    (finding,) = check_fabric_acceptance(NO_FABRIC_TESTS, POOLS, tools, ReviewPolicy())
    assert "ib_write_bw" not in finding.fix("en")
    # the missing tests read as their labels, not their codes
    assert finding.message("zh") == (
        "训练资源池验收缺少：每网卡 RDMA 写带宽、跨节点 all_reduce 总线带宽（交付）。"
    )
