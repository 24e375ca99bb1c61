"""Files: exports that fail with one named error and never half-write; user files that are
read only when they are regular files of a sensible size, never with a hang.

The suite runs as root in CI, where ``chmod`` does not stop a write. A read-only or full
disk is therefore made two ways: for real, on a small tmpfs mounted in a private user and
mount namespace (``unshare -rm``; skipped where namespaces are not allowed), and always
by making a system call fail with the errno the kernel returns (EROFS, ENOSPC, EACCES:
errno(3)) at a chosen point. The real kernel paths used are ones root cannot write
either: ``/proc`` and ``/sys`` (virtual file systems), a path under a regular file, and
the ``/dev/full`` device.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import hubplan
from hubplan.cli import main as cli_main
from hubplan.core import files as files_mod
from hubplan.core.errors import ExportError
from hubplan.core.files import (
    CATALOG_MAX_BYTES,
    SCENARIO_MAX_BYTES,
    read_user_file,
    write_folder_atomic,
)
from hubplan.core.labels import label
from hubplan.export import load_style, write_appendix, write_netbox, write_scheduler_files
from hubplan.views.render import error_text

LINUX = sys.platform.startswith("linux")
REPO = Path(__file__).resolve().parent.parent
#: Seconds a read may take before the test calls it a hang; a refused FIFO takes < 1 ms.
HANG_S = 10


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


@pytest.fixture(scope="module")
def network_plan():
    """The default plan up to the network stage: NetBox gets 6 files, not 11."""
    return hubplan.build_plan(hubplan.default_scenario(), until="network")


def _listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) with its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _fail_on_call(monkeypatch, module, name: str, n: int, code: int) -> list[int]:
    """Make ``module.name`` raise ``OSError(code)`` on its ``n``-th call (1-based), once."""
    real, calls = getattr(module, name), [0]

    def wrapper(*args, **kwargs):
        calls[0] += 1
        if calls[0] == n:
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


# -- reading: a FIFO, a device, a folder, a file too large ---------------------------------


def _read_in_thread(fifo: Path, read) -> BaseException | None:
    """Run ``read()`` in a thread; if it is still blocked after HANG_S, open the FIFO's
    writing end so the reader sees end-of-file and the suite cannot hang, then fail."""
    caught: list[BaseException] = []

    def run():
        try:
            read()
        except BaseException as exc:  # handed to the test
            caught.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(HANG_S)
    if t.is_alive():  # the reader blocks in open(): give it a writer, then an EOF
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        t.join(HANG_S)
        pytest.fail(f"reading the FIFO {fifo} blocked for {HANG_S} s")
    return caught[0] if caught else None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    # Before: path.read_text() blocked in open() until some process wrote to the pipe.
    fifo = tmp_path / "scenario.yaml"
    os.mkfifo(fifo)
    exc = _read_in_thread(fifo, lambda: hubplan.load_scenario(fifo))
    assert isinstance(exc, hubplan.ScenarioError)
    assert f"(file): cannot read {fifo}: is a named pipe (FIFO), not a regular file" in str(exc)
    csv_fifo = tmp_path / "accelerators.csv"
    os.mkfifo(csv_fifo)
    exc = _read_in_thread(csv_fifo, lambda: hubplan.load_catalog(accelerators=csv_fifo))
    assert isinstance(exc, hubplan.CatalogError) and "is a named pipe (FIFO)" in str(exc)
    style_fifo = tmp_path / "style.yaml"
    os.mkfifo(style_fifo)
    exc = _read_in_thread(style_fifo, lambda: load_style(style_fifo))
    assert isinstance(exc, hubplan.HubplanError) and "is a named pipe (FIFO)" in str(exc)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/zero") or not LINUX, reason="Linux /dev/zero")
def test_dev_zero_is_refused_not_read_until_the_memory_is_gone():
    # Before: read_text() read /dev/zero until MemoryError (a 2 GiB address-space limit
    # was reached after 18 s). The child runs under a 1 GiB limit and a timeout, so a
    # regression fails this test instead of taking the machine's memory.
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "import hubplan\n"
        "from hubplan.cli import main\n"
        "print(main(['plan', '--scenario', '/dev/zero']))\n"
        "print(main(['catalog', 'accelerators', '--accelerators-csv', '/dev/zero']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=REPO
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["2", "2"]
    assert run.stderr.splitlines() == [
        "hubplan: error: invalid scenario in /dev/zero: (file): cannot read /dev/zero: is a "
        "device, not a regular file; give the path of a file",
        "hubplan: error: /dev/zero: is a device, not a regular file; give the path of a file",
    ]


def test_a_folder_is_refused(tmp_path):
    # Before: "cannot read ...: Is a directory" (the system's words, not what to do).
    with pytest.raises(hubplan.ScenarioError, match=r"\(file\): cannot read .*: is a folder, not"):
        hubplan.load_scenario(tmp_path)
    with pytest.raises(hubplan.CatalogError, match="is a folder, not a file"):
        hubplan.load_catalog(servers=tmp_path)


def test_a_scenario_over_1_mib_is_refused_and_one_of_1_mib_is_read(tmp_path):
    # 1 MiB = 1,048,576 bytes (SCENARIO_MAX_BYTES). Before: the big file was read whole;
    # all comments, it even loaded as the default scenario.
    assert SCENARIO_MAX_BYTES == 1_048_576
    head = b"name: big\n"
    exact = tmp_path / "exact.yaml"
    exact.write_bytes(head + b"#" * (1_048_576 - len(head) - 1) + b"\n")
    assert exact.stat().st_size == 1_048_576
    assert hubplan.load_scenario(exact).name == "big"
    over = tmp_path / "over.yaml"
    over.write_bytes(head + b"#" * (1_048_576 - len(head)) + b"\n")  # 1,048,577 bytes
    with pytest.raises(
        hubplan.ScenarioError,
        match=r"is too large \(1,048,577 bytes; such a file holds at most "
        r"1,048,576 bytes\)",
    ):
        hubplan.load_scenario(over)


def test_a_catalogue_csv_over_8_mib_is_refused(tmp_path):
    # 8 MiB = 8,388,608 bytes (CATALOG_MAX_BYTES). Before: read whole, then refused for
    # its columns only after parsing 8 MiB.
    assert CATALOG_MAX_BYTES == 8_388_608
    big = tmp_path / "acc.csv"
    big.write_bytes(b"name\n" + b"x\n" * (8_388_608 // 2))
    with pytest.raises(hubplan.CatalogError, match=r"acc\.csv: is too large \(8,388,613 bytes"):
        hubplan.load_catalog(accelerators=big)


def test_a_file_that_grows_past_its_stat_size_is_cut_at_the_limit(tmp_path, monkeypatch):
    # The size from os.stat is a hint (a /proc file says 0): only limit + 1 bytes are read.
    path = tmp_path / "s.yaml"
    path.write_bytes(b"x" * 100)
    real_stat = os.stat

    def small(p, *a, **k):
        st = real_stat(p, *a, **k)
        return os.stat_result((st.st_mode, *st[1:6], 10, *st[7:]))  # st_size = 10

    monkeypatch.setattr(files_mod.os, "stat", small)
    with pytest.raises(hubplan.HubplanError, match=r"is too large \(>50 bytes"):
        read_user_file(path, limit_bytes=50)
    assert read_user_file(path, limit_bytes=100) == b"x" * 100


def test_cli_scenario_folder_is_one_line_and_exit_2(tmp_path, capsys):
    assert cli_main(["plan", "--scenario", str(tmp_path), "--lang", "zh"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"hubplan: 错误: 场景无效，文件 {tmp_path}: (file): 无法读取 {tmp_path}: 是文件夹而不是文件\n"
    )


# -- writing one file: the xlsx appendix and the scenario ----------------------------------


@pytest.mark.skipif(not LINUX, reason="/proc is Linux's")
def test_xlsx_under_proc_is_a_named_error_and_creates_nothing(plan):
    # Before: FileNotFoundError from mkstemp, a traceback (the folder /proc/self "exists").
    with pytest.raises(ExportError) as err:
        write_appendix(plan, "/proc/self/appendix.xlsx")
    assert err.value.reason == "virtual_fs" and err.value.where == "/proc (proc)"
    assert str(err.value) == (
        "xlsx = '/proc/self/appendix.xlsx': cannot write there: /proc (proc) is a virtual "
        "file system of the operating system, which holds no files; choose a folder on a disk"
    )
    assert not os.path.exists("/proc/self/appendix.xlsx")


def test_xlsx_under_a_regular_file_names_that_file(plan, tmp_path):
    # Before: "folder ... does not exist", though the folder is a file the user can see.
    blocker = tmp_path / "report"
    blocker.write_text("not a folder")
    with pytest.raises(ExportError, match=r"report is a file, not a folder") as err:
        write_appendix(plan, blocker / "a.xlsx")
    assert err.value.reason == "not_a_folder" and err.value.where == str(blocker)
    assert blocker.read_text() == "not a folder"


def test_xlsx_over_a_folder_is_refused(plan, tmp_path):
    # Before: os.replace raised IsADirectoryError, a traceback, after the whole build.
    (tmp_path / "a.xlsx").mkdir()
    with pytest.raises(ExportError, match="a folder, device or pipe of that name exists"):
        write_appendix(plan, tmp_path / "a.xlsx")
    assert [p.name for p in tmp_path.iterdir()] == ["a.xlsx"]


@pytest.mark.parametrize(
    ("code", "reason", "words"),
    [
        (errno.EROFS, "read_only", "the disk is mounted read-only"),
        (errno.ENOSPC, "no_space", "the disk is full"),
        (errno.EACCES, "not_writable", "no permission"),
    ],
)
def test_xlsx_read_only_full_or_forbidden_keeps_the_earlier_file(
    plan, tmp_path, monkeypatch, code, reason, words
):
    # The kernel reports a read-only mount (EROFS) at the rename, a full disk (ENOSPC) at
    # the write or the fsync, no permission (EACCES) at the rename over a file held open.
    # Before: the bare OSError escaped (a traceback in the CLI and the notebook).
    path = write_appendix(plan, tmp_path / "a.xlsx")
    before = path.read_bytes()
    _fail_on_call(monkeypatch, files_mod.os, "replace", 1, code)
    with pytest.raises(ExportError, match=words) as err:
        write_appendix(plan, path, "zh")
    assert err.value.reason == reason and err.value.path == str(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.xlsx"]  # no temporary file left


def test_scenario_save_under_a_file_is_a_named_error(tmp_path):
    # Before: NotADirectoryError from mkstemp.
    (tmp_path / "f").write_text("")
    with pytest.raises(ExportError, match=r"scenario = .*f is a file, not a folder"):
        hubplan.default_scenario().save(tmp_path / "f" / "s.yaml")


# A real full disk and a real read-only disk: a small tmpfs mounted in a private user and
# mount namespace (unshare -rm), which needs no privilege and is invisible outside the
# child. Skipped where user namespaces are not allowed.
_ON_A_SMALL_DISK = """
import hashlib, json, subprocess, sys
from pathlib import Path
import hubplan
from hubplan.core.errors import ExportError
from hubplan.export import write_appendix, write_netbox, write_scheduler_files

disk = Path(sys.argv[1])
plan = hubplan.build_plan(hubplan.default_scenario())
changed = hubplan.build_plan(plan.scenario.with_changes({"name": "changed"}))
exports = {
    "xlsx": lambda p: write_appendix(p, disk / "a.xlsx"),
    "slurm": lambda p: write_scheduler_files(p, disk / "slurm"),
    "netbox": lambda p: write_netbox(p, disk / "nb"),
}

def listing():
    return {str(f.relative_to(disk)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(disk.rglob("*")) if f.is_file() and f.name != "filler"}

for write in exports.values():
    write(plan)
before, result = listing(), {}
with open(disk / "filler", "wb", buffering=0) as f:  # fill the disk to the last byte
    try:
        while True:
            f.write(b"x" * 4096)
    except OSError as exc:
        result["filler"] = exc.errno
def export_all(suffix):
    for name, write in exports.items():
        try:
            write(changed)
            result[name + suffix] = "written"
        except ExportError as exc:
            result[name + suffix] = exc.reason
export_all(".full")
result["full.same"] = listing() == before
(disk / "filler").unlink()
subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
export_all(".ro")
result["ro.same"] = listing() == before
print(json.dumps(result))
"""


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="Linux namespaces")
def test_a_really_full_and_a_really_read_only_disk(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    probe = (
        subprocess.run(
            ["unshare", "--user", "--map-root-user", "--mount", "true"],
            capture_output=True,
            timeout=30,
        )
        if shutil.which("unshare")
        else None
    )
    if probe is None or probe.returncode != 0:
        pytest.skip("unprivileged user and mount namespaces are not available")
    run = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            'mount -t tmpfs -o size=4m none "$1" && exec "$2" -c "$3" "$1"',
            "sh",
            str(disk),
            sys.executable,
            _ON_A_SMALL_DISK,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.splitlines()[-1])
    assert result == {
        "filler": errno.ENOSPC,
        "xlsx.full": "no_space",
        "slurm.full": "no_space",
        "netbox.full": "no_space",
        "full.same": True,  # every earlier file byte for byte, no temporary file left
        "xlsx.ro": "read_only",
        "slurm.ro": "read_only",
        "netbox.ro": "read_only",
        "ro.same": True,
    }
    assert list(disk.iterdir()) == []  # the tmpfs was the child's alone


# -- writing a set of files: NetBox and the scheduler files --------------------------------


def test_a_full_disk_half_way_leaves_the_earlier_scheduler_files(plan, tmp_path, monkeypatch):
    # The third of five files meets a full disk at its fsync. Before: slurm.conf and
    # gres.conf were already replaced by the new ones, prolog.sh and the rest were old.
    out = tmp_path / "slurm"
    write_scheduler_files(plan, out)
    (out / "README.txt").write_text("ours")
    before = _listing(out)
    changed = hubplan.build_plan(plan.scenario.with_changes({"name": "changed"}))
    _fail_on_call(monkeypatch, files_mod.os, "fsync", 3, errno.ENOSPC)
    with pytest.raises(ExportError, match=r"slurm = .*the disk is full") as err:
        write_scheduler_files(changed, out)
    assert err.value.reason == "no_space"
    assert _listing(out) == before  # same names, same bytes, no temporary folder
    assert [p.name for p in tmp_path.iterdir()] == ["slurm"]


def test_a_failed_swap_puts_every_earlier_netbox_file_back(plan, tmp_path, monkeypatch):
    # Every file written, then the third rename into place fails (EACCES): the two
    # already swapped are put back. Before: each file was replaced as it was written.
    out = tmp_path / "nb"
    write_netbox(plan, out)
    before = _listing(out)
    changed = hubplan.build_plan(plan.scenario.with_changes({"name": "changed"}))
    calls = _fail_on_call(monkeypatch, files_mod.os, "replace", 3, errno.EACCES)
    with pytest.raises(ExportError, match="no permission"):
        write_netbox(changed, out)
    assert calls[0] >= 3 + 2  # the failed third rename, then two renames back
    assert _listing(out) == before
    monkeypatch.undo()
    write_netbox(changed, out)
    assert "changed" in (out / "sites.csv").read_text() and _listing(out) != before


def test_a_new_netbox_folder_appears_whole_or_not_at_all(plan, tmp_path, monkeypatch):
    # The second file meets a full disk. Before: nb/ (and the parents made for it) stayed,
    # holding the first file only.
    out = tmp_path / "site" / "exports" / "nb"
    _fail_on_call(monkeypatch, files_mod.os, "fsync", 2, errno.ENOSPC)
    with pytest.raises(ExportError, match="the disk is full"):
        write_netbox(plan, out)
    assert list(tmp_path.iterdir()) == []  # no site/exports/nb, no .nb.*.tmp
    monkeypatch.undo()
    files = write_netbox(plan, out)
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.csv" for n in files)
    # A new folder gets the permissions of mkdir (0o777 less the umask), not mkdtemp's 0o700.
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask


def test_an_export_never_touches_other_files_and_drops_its_own_stale_ones(
    plan, network_plan, tmp_path
):
    # The full plan writes the facility files too (racks, devices, power feeds ...); the
    # plan up to the network stage does not. Those of the first export would be imported
    # with the second one's and describe racks the new plan does not have: they go.
    # notes.txt and racks-old.csv are the user's.
    out = tmp_path / "nb"
    first = write_netbox(plan, out)
    (out / "notes.txt").write_text("keep me")
    (out / "racks-old.csv").write_text("keep me too")
    second = write_netbox(network_plan, out)
    assert {"racks", "power_feeds"} <= set(first) - set(second)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{n}.csv" for n in second] + ["notes.txt", "racks-old.csv"]
    )
    assert (out / "notes.txt").read_text() == "keep me"


def test_scheduler_files_keep_their_modes(plan, tmp_path):
    paths = write_scheduler_files(plan, tmp_path / "slurm")
    mask = os.umask(0)
    os.umask(mask)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in paths}
    assert modes["prolog.sh"] == 0o755 & ~mask and modes["slurm.conf"] == 0o644 & ~mask


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_dev_full_as_a_folder_is_refused(plan):
    # Before: mkdir(exist_ok=True) raised FileExistsError, a traceback.
    with pytest.raises(ExportError, match="/dev/full is a file, not a folder"):
        write_scheduler_files(plan, "/dev/full")


def test_write_folder_atomic_refuses_a_folder_where_a_file_goes(tmp_path):
    (tmp_path / "a.csv").mkdir()
    with pytest.raises(ExportError, match=r"'.*a\.csv': cannot write there: a folder"):
        write_folder_atomic(tmp_path, {"b.csv": "b", "a.csv": "a"}, what="netbox")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


# -- the CLI and the notebook's button -----------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="/proc and /sys are Linux's")
@pytest.mark.parametrize(
    ("flag", "path", "lang", "line"),
    [
        (
            "--xlsx",
            "/proc/self/a.xlsx",
            "en",
            "hubplan: error: xlsx = '/proc/self/a.xlsx': cannot write there: /proc (proc) is a "
            "virtual file system of the operating system, which holds no files; choose a folder "
            "on a disk",
        ),
        (
            "--netbox",
            "/sys/hubplan-nb",
            "zh",
            "hubplan: 错误: netbox = '/sys/hubplan-nb'：无法写入：/sys (sysfs) 是操作系统的虚拟文件"
            "系统，不能存放文件；请选择磁盘上的文件夹",
        ),
        (
            "--slurm",
            "/etc/hostname/slurm",
            "en",
            "hubplan: error: slurm = '/etc/hostname/slurm': cannot write there: /etc/hostname is a "
            "file, not a folder; choose a folder",
        ),
    ],
)
def test_cli_export_failures_are_one_line_and_exit_2(capsys, flag, path, lang, line):
    # Before: a traceback (FileNotFoundError, PermissionError, NotADirectoryError).
    if not Path("/etc/hostname").is_file():
        pytest.skip("needs the regular file /etc/hostname")
    assert cli_main(["plan", flag, path, "--lang", lang]) == 2
    assert capsys.readouterr().err == line + "\n"
    assert not os.path.lexists(path)


def test_every_reason_has_a_message_in_both_languages():
    for reason in ExportError.REASONS:
        err = ExportError("xlsx", "/x/a.xlsx", reason, where="/x", detail="Input/output error")
        en, zh = err.text("en"), err.text("zh")
        assert en == str(err) and en.startswith("xlsx = '/x/a.xlsx': cannot write there")
        assert zh.startswith("xlsx = '/x/a.xlsx'：无法写入") and en != zh
        assert error_text(err, "zh") == zh
    assert label(
        "export_error.no_space", "zh", what="netbox", path="'nb'", where="", detail=""
    ) == (
        "netbox = 'nb'：无法写入：磁盘已满（或配额已用完）；原有文件未改动；请释放空间或换一块"
        "磁盘，然后重新导出"
    )
