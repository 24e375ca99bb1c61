"""Slurm's topology/block files for a GB200 NVL72 plan, checked against Slurm's own source.

Debian 12's slurmctld is 22.05, which predates the block plugin (23.11) and BlockSizes
(24.05); PyPI has no Slurm daemon. Debian 13 has slurmctld 24.11: the last test starts it
(from a minimal Debian 13 root, see the Makefile) on the exported files. The rules below
are read from SchedMD/slurm (commit 284c3b95f0, 26.11 development branch,
and the tags slurm-23-11-0-1 and slurm-24-05-0-1):

- doc/man/man5/topology.conf.5, "topology/block": ``BlockName`` (must be specified,
  unique), ``Nodes`` (child nodes), ``BlockSizes``: "List of the planning base block size,
  alongside any higher-level block sizes ... Each block must have at least the planning
  base block size count of nodes. Successive BlockSizes must be a power of two larger
  than the prior values" (lines 98-115); example ``BlockSizes=30,120`` (line 176).
- src/plugins/topology/block/block_record.c: the parser knows ``BlockName`` (with
  ``Nodes``) and ``BlockSizes`` only (lines 61, 83-84; any other key fails the file);
  each size must be a multiple of the first, the quotient a power of two, its log2 at
  most 15, else ``fatal("Invalid BlockSizes value")`` (lines 105-142).
- NEWS of 24.05.0: "topology/block - Replaced the BlockLevels with BlockSizes in
  topology.conf"; at slurm-23-11-0-1 topology_block.c reads ``BlockLevels`` (line 172).
- topology_block.c ``topology_p_eval_nodes`` (24.05 on): "Don't use eval_nodes_block()
  when there isn't any block node on node_map. This allows the allocation of nodes not
  connected by block topology (separated by partition or constraints)".
- doc/man/man5/slurm.conf.5: ``SwitchType=switch/nvidia_imex`` "For allocating unique
  channels within an NVIDIA IMEX domain" (line 6772), one channel per job (line 6744).
"""

import math
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import hubplan
from hubplan.delivery import slurm_conf, topology_conf

NVL72 = {
    "pools.training.accelerator": "GB200 186GB",
    "pools.training.gpus_per_server": 72,
    "pools.training.server": "GB200 NVL72",
}


@pytest.fixture(scope="module")
def nvl72_plan(default):
    return hubplan.build_plan(default.with_changes(NVL72))


def slurm_block_sizes(value: str) -> list[int]:
    """BlockSizes as block_record.c (lines 105-142) parses it: raises where slurmctld
    would stop with 'Invalid BlockSizes value'."""
    sizes, base = [], 0
    for text in value.split(","):
        size = int(text)
        if size <= 0:
            raise ValueError(f"Invalid BlockSizes value: {text}")
        base = base or size
        level = math.log2(size / base) if size % base == 0 else 0.5
        if level != math.floor(level) or level > 15:
            raise ValueError(f"Invalid BlockSizes value: {text}")
        sizes.append(size)
    return sizes


def test_the_rule_read_from_slurm_rejects_what_slurm_rejects():
    # topology.conf(5) example; 18 × 2 and × 4; 18 then 27 (not a power of two times 18)
    assert slurm_block_sizes("30,120") == [30, 120]
    assert slurm_block_sizes("18,36,72") == [18, 36, 72]
    with pytest.raises(ValueError, match="Invalid BlockSizes value: 27"):
        slurm_block_sizes("18,27")


def test_nvl72_topology_conf_is_one_slurm_parses(nvl72_plan):
    text = topology_conf(nvl72_plan["slurm_topology"])
    lines = [x for x in text.splitlines() if x and not x.startswith("#")]
    assert {x.split("=", 1)[0] for x in lines} == {"BlockName", "BlockSizes"}
    blocks = dict(re.findall(r"^BlockName=(\S+) Nodes=(\S+)$", text, re.M))
    # one block per NVL72 rack: 72 GPUs / 4 per tray = 18 trays (DGX GB200 user guide)
    assert blocks == {"train-nvl-01": "train-0001-t[01-18]", "train-nvl-02": "train-0002-t[01-18]"}
    (sizes,) = re.findall(r"^BlockSizes=(\S+)$", text, re.M)
    assert slurm_block_sizes(sizes) == [18, 36]  # base 18; 2 blocks = 36
    # BlockSizes is 24.05's key (23.11 read BlockLevels): the header says which Slurm
    assert "Slurm >= 24.05" in text and "23.11" in text.split("BlockSizes needs")[1]


def test_nvl72_slurm_conf_selects_the_block_plugin_and_imex_channels(nvl72_plan, default):
    conf = slurm_conf(
        nvl72_plan["slurm_nodes"],
        nvl72_plan["slurm_partitions"],
        topology=nvl72_plan["slurm_topology"],
    )
    assert "TopologyPlugin=topology/block\n" in conf
    assert "SwitchType=switch/nvidia_imex\n" in conf
    plain = hubplan.build_plan(default)
    tree = slurm_conf(
        plain["slurm_nodes"], plain["slurm_partitions"], topology=plain["slurm_topology"]
    )
    assert "TopologyPlugin=topology/tree\n" in tree and "SwitchType" not in tree


def test_a_pool_in_its_own_partition_outside_every_block_is_not_warned_of(nvl72_plan):
    # dev-0001 (L40S, partition dev) shares no partition with a block node: Slurm
    # schedules it without the block logic (topology_p_eval_nodes). Before, it was
    # warned of as a node on which 'Slurm places no job'.
    f = nvl72_plan.findings
    assert f.loc[f["code"] == "topology_nodes_missing", "subject"].tolist() == []


# -- Slurm itself: slurmctld >= 24.05 started on the exported files ---------------------

# Debian 12's slurmctld is 22.05; `make test` makes a minimal Debian 13 root with its
# slurmctld 24.11 (debootstrap, the Makefile's SYSDEPS rule) where the host's is older.
SLURM24_ROOT = Path(os.environ.get("HUBPLAN_SLURM24_ROOT", "/var/tmp/hubplan-slurm24/root"))


def _slurm24() -> list[str] | None:
    """The command prefix that runs a slurmctld >= 24.05: the host's, or the Debian 13
    root's through chroot; None when there is neither."""
    host = shutil.which("slurmctld") or shutil.which("slurmctld", path="/usr/sbin:/sbin")
    if host:
        out = subprocess.run([host, "-V"], capture_output=True, text=True).stdout.split()
        if len(out) > 1 and tuple(int(x) for x in out[1].split(".")[:2]) >= (24, 5):
            return []
    if (SLURM24_ROOT / "usr/sbin/slurmctld").exists() and os.geteuid() == 0:
        return ["chroot", str(SLURM24_ROOT)]
    return None


SESSION = """
set -u
[ -z "$ROOT" ] || mount -t proc proc "$ROOT/proc"
mount --bind "$HOSTS" "$ROOT/etc/hosts"
ip link set lo up
ip addr add 192.0.2.1/32 dev lo
$PREFIX slurmctld -D -f "$CONF" 2>"$OUT/slurmctld.stderr" &
pid=$!
i=0
while [ "$i" -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
  grep -q "Running as primary controller" "$OUT/slurmctld.log" 2>/dev/null && break
  sleep 0.1; i=$((i + 1))
done
for what in topology config; do
  SLURM_CONF="$CONF" $PREFIX scontrol show "$what" >"$OUT/scontrol-$what.txt" 2>&1
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
"""


@pytest.mark.skipif(
    _slurm24() is None,
    reason="no slurmctld >= 24.05: `make test` makes a "
    "Debian 13 root with one (the Makefile's SYSDEPS rule)",
)
def test_slurmctld_24_accepts_the_nvl72_block_files(nvl72_plan, tmp_path):
    from hubplan.delivery import ACCOUNTING_BEGIN, ACCOUNTING_END, hostnames
    from hubplan.export import write_scheduler_files

    prefix = _slurm24()
    root = SLURM24_ROOT if prefix else Path("/")
    out = Path(tempfile.mkdtemp(prefix="hubplan-slurm24-", dir=root / "tmp"))
    inner = "/" + str(out.relative_to(root))
    try:
        write_scheduler_files(nvl72_plan, out)
        text = (out / "slurm.conf").read_text()
        begin, end = text.index(ACCOUNTING_BEGIN), text.index(ACCOUNTING_END)
        site = (
            f"SlurmctldHost=localhost\nSlurmUser=root\nAuthType=auth/none\n"
            f"CredType=cred/none\nStateSaveLocation={inner}/state\n"
            f"SlurmctldPidFile={inner}/slurmctld.pid\nSlurmctldLogFile={inner}/slurmctld.log\n"
            f"SlurmdSpoolDir={inner}/spool\nMailProg=/bin/true\n"
        )
        (out / "slurm.conf").write_text(site + text[:begin] + text[end + len(ACCOUNTING_END) :])
        (out / "state").mkdir()
        names = [n for g in nvl72_plan["slurm_nodes"]["node_group"] for n in hostnames(g)]
        (out / "hosts").write_text(
            "127.0.0.1 localhost\n" + "".join(f"127.0.0.1 {n}\n" for n in names)
        )
        (root / "etc/hosts").touch()
        env = {
            **os.environ,
            "ROOT": str(root) if prefix else "",
            "HOSTS": str(out / "hosts"),
            "PREFIX": " ".join(prefix),
            "CONF": f"{inner}/slurm.conf",
            "OUT": str(out),
        }
        subprocess.run(
            ["unshare", "--mount", "--net", "sh", "-c", SESSION],
            env=env,
            timeout=120,
            capture_output=True,
        )
        log = (out / "slurmctld.log").read_text(errors="replace")
        topology = (out / "scontrol-topology.txt").read_text()
        config = (out / "scontrol-config.txt").read_text()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    assert "Running as primary controller" in log, log[-3000:]
    bad = [
        x
        for x in log.splitlines()
        if re.search(r"\b(error|fatal):", x)
        and not re.search(r"state file|Trying backup state save", x)
    ]
    assert bad == []
    # Slurm 24.11.5 (Debian 13) read the two NVL72 blocks, aggregated them into one of
    # 36 nodes (BlockSizes=18,36), and took the block plugin and the IMEX channels.
    assert re.findall(r"^BlockName=(\S+) .*Nodes=(\S+) BlockSize=(\d+)$", topology, re.M) == [
        ("train-nvl-01", "train-0001-t[01-18]", "18"),
        ("train-nvl-02", "train-0002-t[01-18]", "18"),
    ]
    assert re.search(r"^AggregatedBlock=train-nvl-\[01-02\] .*BlockSize=36$", topology, re.M)
    assert re.search(r"^TopologyPlugin\s*=\s*topology/block$", config, re.M)
    assert re.search(r"^SwitchType\s*=\s*switch/nvidia_imex$", config, re.M)
    # the only warning: the development node is in no block (its own partition)
    assert re.findall(r"warning: (.*)", log) == ["blocks lack access to 1 nodes: dev-0001"]


def test_nvl72_acceptance_tests_the_whole_nvlink_domain_and_imex(nvl72_plan):
    a = nvl72_plan["acceptance"]
    domain = a[a["scope"] == "domain"].set_index("test")
    # one run per NVL72 rack (2 racks), across its 18 trays × 4 GPUs; per-GPU NVLink bus
    # bandwidth 900 GB/s one way (NVLink 5) × 0.82 = 738 GB/s, the same as inside a tray.
    # Before: only 'all_reduce_perf -g 4' inside each tray, which never crosses one.
    run = domain.loc["nvlink_domain_all_reduce"]
    assert (run["count"], run["tool"]) == (2, "all_reduce_perf (MPI), 18 nodes × 4")
    assert run["expected"] == pytest.approx(738.0)
    imex = domain.loc["imex_domain"]
    assert (imex["tool"], imex["count"], imex["expected"], imex["pass_if"]) == (
        "nvidia-imex-ctl -N",
        2,
        18.0,
        "equal",
    )
    # the node tests run tray by tray and name the tray (before: the rack, 36 times)
    node = a[(a["scope"] == "node") & (a["pool"] == "training")].set_index("test")
    assert node.loc["gpu_count", "subject"] == "DGX GB200 compute tray"
    assert node.loc["rdma_write_bw", ["subject", "count"]].tolist() == [
        "DGX GB200 compute tray",
        144,
    ]  # 36 trays × 4 ConnectX-7 (DGX GB200 user guide)
    steps = nvl72_plan["deployment_steps"].set_index("step")
    assert steps.loc["nvlink_domain", "order"] == 5
    assert "nvidia-imex-ctl -N" in steps.loc["nvlink_domain", "tool"]


def test_a_plan_without_rack_scale_nvlink_has_no_domain_rows(default):
    plan = hubplan.build_plan(default)
    assert "domain" not in set(plan["acceptance"]["scope"])
    assert "nvlink_domain" not in set(plan["deployment_steps"]["step"])
    assert len(plan["deployment_steps"]) == 6


def test_an_ascend_supernode_gets_blocks_but_no_nvidia_imex(default):
    # Atlas 800T A3: 8 × Ascend 910C a server in a 384-NPU supernode (data/servers.csv,
    # accelerators.csv): Slurm blocks of servers, but IMEX and the NVLink domain bring-up
    # are NVIDIA's. Before: slurm.conf had SwitchType=switch/nvidia_imex and the runbook
    # 'nvidia-smi -q ... nvidia-imex-ctl -N' for any block topology.
    plan = hubplan.build_plan(
        default.with_changes(
            {
                "pools.training.server": "Huawei Atlas 800T A3",
                "pools.training.accelerator": "Ascend 910C 128GB",
                "pools.training.gpus_per_server": 8,
            }
        )
    )
    conf = slurm_conf(
        plan["slurm_nodes"], plan["slurm_partitions"], topology=plan["slurm_topology"]
    )
    assert "TopologyPlugin=topology/block\n" in conf and "SwitchType" not in conf
    assert "nvlink_domain" not in set(plan["deployment_steps"]["step"])
