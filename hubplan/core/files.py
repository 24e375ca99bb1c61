"""Files hubplan writes and the user files it reads: all or nothing, never a hang.

Writing. Every file hubplan writes (scenarios, the xlsx appendix) goes through
:func:`atomic_path`: the content is written to a temporary file in the same folder,
synced, given the permissions a new file would have, and moved over the target with
``os.replace``. A set of files that belong together (the NetBox import files, the
scheduler files) goes through :func:`write_folder_atomic`: every file is written and
synced in a temporary folder first, then the set is swapped into place (see there for a
folder that already holds files). Any failure leaves the earlier file or files at the path
untouched and no temporary file behind, and raises one
:class:`~hubplan.core.errors.ExportError` that names the path, what failed (no permission,
a read-only or full disk, a parent that is not a folder, a virtual file system such as
``/proc``) and what to do.

Reading. :func:`read_user_file` reads a file the user named (a scenario, a catalogue CSV,
an appendix style) only if it is a regular file no larger than a stated limit, without
ever blocking: a named pipe (FIFO) or a device such as ``/dev/zero`` would otherwise hang
the reader or fill the memory.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from .errors import ExportError, FileReadError

#: Largest scenario file read, in bytes (1 MiB). The shipped ``default.yaml`` is 3.9 kB and
#: a scenario holding 200 training jobs and 200 inference services, every field written
#: out, is 239,118 bytes (``Scenario.to_yaml``); 1 MiB leaves room for comments while a
#: wrong path (a log, a dataset, a disk image) is refused before it is read into memory.
SCENARIO_MAX_BYTES = 1 << 20
#: Largest user catalogue CSV read, in bytes (8 MiB). The shipped ``accelerators.csv``
#: holds 31 parts, each with its sources, in 42 kB (about 1.4 kB a row): 8 MiB is some
#: 6,000 such rows, far more than any list of accelerator models.
CATALOG_MAX_BYTES = 8 << 20
#: Largest appendix style file read, in bytes (1 MiB): the shipped ``style.yaml`` is
#: under 2 kB of fonts, colours and a logo path.
STYLE_MAX_BYTES = 1 << 20

#: File systems that hold no user files: the kernel's views of processes, devices and
#: settings (``/proc``, ``/sys``, ``/dev``, cgroups ...). A file written there is refused
#: or lost, so hubplan refuses to write under them before it tries.
VIRTUAL_FILE_SYSTEMS = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "debugfs",
        "tracefs",
        "securityfs",
        "configfs",
        "bpf",
        "pstore",
        "efivarfs",
        "fusectl",
        "mqueue",
        "hugetlbfs",
        "binfmt_misc",
        "autofs",
        "rpc_pipefs",
        "nsfs",
        "selinuxfs",
    }
)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- reading -------------------------------------------------------------------------------

_KINDS = (
    (stat.S_ISDIR, "is a folder, not a file"),
    (
        stat.S_ISFIFO,
        "is a named pipe (FIFO), not a regular file; hubplan reads only regular "
        "files (a pipe could keep it waiting forever)",
    ),
    (stat.S_ISCHR, "is a device, not a regular file; give the path of a file"),
    (stat.S_ISBLK, "is a device, not a regular file; give the path of a file"),
    (stat.S_ISSOCK, "is a socket, not a regular file; give the path of a file"),
)


def _kind_problem(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    for test, problem in _KINDS:
        if test(mode):
            return problem
    return "is not a regular file; give the path of a file"


def _too_large(size: str, limit_bytes: int) -> str:
    return (
        f"is too large ({size} bytes; such a file holds at most {limit_bytes:,} bytes); "
        "check the path"
    )


def read_user_file(path: str | os.PathLike[str], *, limit_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit_bytes`` of them.

    The file's type is checked with ``os.stat`` before it is opened (a FIFO or a device is
    never opened), opened with ``O_NONBLOCK`` and checked again on the open descriptor (in
    case it was swapped meanwhile), and at most ``limit_bytes + 1`` bytes are read, so a
    file that grows, or a ``/proc`` file that reports size 0, cannot fill the memory.

    Raises :class:`~hubplan.core.errors.FileReadError` naming the path and the problem.

    >>> read_user_file("/dev/zero", limit_bytes=1024)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hubplan.core.errors.FileReadError: /dev/zero: is a device, not a regular file; ...
    """
    path = Path(path)
    try:
        before = os.stat(path)
        if (problem := _kind_problem(before.st_mode)) is not None:
            raise FileReadError(str(path), problem)
        if before.st_size > limit_bytes:
            raise FileReadError(str(path), _too_large(f"{before.st_size:,}", limit_bytes))
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as f:
            if (problem := _kind_problem(os.fstat(f.fileno()).st_mode)) is not None:
                raise FileReadError(str(path), problem)
            data = f.read(limit_bytes + 1)
    except FileNotFoundError:
        raise FileReadError(str(path), "no such file") from None
    except PermissionError:
        raise FileReadError(str(path), "no permission to read it") from None
    except OSError as exc:
        raise FileReadError(str(path), f"cannot read ({exc.strerror or exc})") from None
    if len(data) > limit_bytes:
        raise FileReadError(str(path), _too_large(f">{limit_bytes:,}", limit_bytes))
    return data


def read_user_text(path: str | os.PathLike[str], *, limit_bytes: int) -> str:
    """:func:`read_user_file` decoded as UTF-8, line ends made ``\\n`` as
    ``Path.read_text`` does (a ``UnicodeDecodeError`` is the caller's to name)."""
    text = read_user_file(path, limit_bytes=limit_bytes).decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- why a write failed --------------------------------------------------------------------


def _mounts() -> list[tuple[str, str]]:
    """``(mount point, file system type)`` of every mount (Linux; empty elsewhere)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) >= 5 and rest:
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])  # \040
            out.append((point, rest[0]))
    return out


def _existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists."""
    path = Path(os.path.abspath(path))
    while not os.path.lexists(path) and path != path.parent:
        path = path.parent
    return path


def virtual_file_system(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """``(mount point, type)`` if ``path`` (or, when it does not exist yet, its nearest
    existing parent) lies on one of :data:`VIRTUAL_FILE_SYSTEMS`, else None; read from
    ``/proc/self/mountinfo`` (Linux), so always None elsewhere."""
    try:
        here = os.path.realpath(_existing(Path(path)))
    except OSError:
        return None
    best: tuple[str, str] | None = None
    for point, fs in _mounts():
        inside = here == point or here.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best[0])):
            best = (point, fs)
    return best if best is not None and best[1] in VIRTUAL_FILE_SYSTEMS else None


def _not_a_folder(path: str | os.PathLike[str]) -> Path | None:
    """The first ancestor of ``path`` that exists and is not a folder, if any (as the
    user wrote it: relative if ``path`` is)."""
    for parent in reversed(Path(path).parents):
        if os.path.lexists(parent) and not parent.is_dir():
            return parent
    return None


def export_error(what: str, path: str | os.PathLike[str], exc: OSError) -> ExportError:
    """The :class:`ExportError` for ``exc``, raised while writing ``path``."""
    if (virtual := virtual_file_system(path)) is not None:
        return ExportError(what, path, "virtual_fs", where=f"{virtual[0]} ({virtual[1]})")
    code = exc.errno
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return ExportError(what, path, "no_space")
    if code == errno.EROFS:
        return ExportError(what, path, "read_only")
    if code in (errno.EACCES, errno.EPERM):
        return ExportError(what, path, "not_writable")
    bad = _not_a_folder(path)
    if code == errno.ENOTDIR or bad is not None:
        return ExportError(what, path, "not_a_folder", where=str(bad or Path(path).parent))
    if code == errno.ENOENT:
        return ExportError(what, path, "no_folder", where=str(_missing(Path(path))))
    if code == errno.EISDIR:
        return ExportError(what, path, "not_a_file")
    return ExportError(what, path, "failed", detail=exc.strerror or str(exc))


def _missing(path: Path) -> Path:
    """The outermost folder of ``path``'s parents that does not exist."""
    parent = Path(path).parent
    while not parent.parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def check_target(what: str, path: str | os.PathLike[str], *, folder: bool = False) -> None:
    """Refuse before writing what cannot work: a virtual file system, a parent that is
    not a folder, a target of the wrong kind (a file where a folder is wanted, a device,
    a pipe or a folder where a file is wanted) or, for a file, a missing folder.

    Raises :class:`~hubplan.core.errors.ExportError`; an exporter calls it before the
    slow work of building what it will write.
    """
    path = Path(path)
    if (bad := _not_a_folder(path)) is not None:
        raise ExportError(what, path, "not_a_folder", where=str(bad))
    if folder and os.path.lexists(path) and not path.is_dir():
        raise ExportError(what, path, "not_a_folder", where=str(path))
    if not folder and path.exists() and not path.is_file():
        raise ExportError(what, path, "not_a_file")
    if (virtual := virtual_file_system(path)) is not None:
        raise ExportError(what, path, "virtual_fs", where=f"{virtual[0]} ({virtual[1]})")
    if not folder and not path.parent.is_dir():
        raise ExportError(what, path, "no_folder", where=str(_missing(path)))


def _fsync_dir(folder: Path) -> None:
    """Make renames in ``folder`` durable (best effort: not every system can)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- writing one file ----------------------------------------------------------------------


@contextmanager
def atomic_path(
    path: str | os.PathLike[str], mode: int = 0o666, *, what: str = "file"
) -> Iterator[Path]:
    """A temporary path to write; on success it replaces ``path``.

    ``mode`` is filtered by the process umask, as for any new file (``mkstemp`` alone
    would leave the file readable by its owner only). An ``OSError`` on the way (from the
    caller's writes too) becomes an :class:`ExportError` naming ``what`` and ``path``; any
    failure removes the temporary file and leaves an earlier file at ``path`` as it was.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("hello")
    >>> target.read_text()
    'hello'
    """
    path = Path(path)
    check_target(what, path, folder=False)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise export_error(what, path, exc) from None
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, mode & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise export_error(what, path, exc) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def write_text_atomic(
    path: str | os.PathLike[str], text: str, mode: int = 0o666, *, what: str = "file"
) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically."""
    with atomic_path(path, mode, what=what) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
    return Path(path)


# -- writing a set of files ----------------------------------------------------------------


def _write_one(path: Path, content: str | bytes, mode: int) -> None:
    data = content.encode("utf-8") if isinstance(content, str) else content
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(path, mode & ~_umask())


def write_folder_atomic(
    folder: str | os.PathLike[str],
    files: Mapping[str, str | bytes],
    *,
    modes: Mapping[str, int] | None = None,
    owned: Iterable[str] = (),
    what: str = "folder",
) -> list[Path]:
    """Write ``files`` (name → text or bytes) into ``folder``, all or nothing.

    Every file is first written and synced in a temporary folder: beside ``folder``
    (``.<name>.<random>.tmp``) when ``folder`` does not exist yet, inside it
    (``.hubplan-<random>.tmp``) when it does, so the temporary folder is always on the
    same disk and needs no more permission than the export itself. Then:

    - a new ``folder``: the temporary folder is renamed to ``folder`` in one step;
    - an existing ``folder``: each file of the set replaces its namesake with
      ``os.replace`` (the earlier one kept aside as a hard link until the end), and each
      name in ``owned`` (the names this kind of export writes) that the new set does not
      have is moved aside: an earlier export's file the new plan no longer produces
      (NetBox ``power_feeds.csv`` when the facility stage is left out) would otherwise be
      imported with the new ones. **Files of any other name are never touched.** If
      anything fails, the files already swapped are put back.

    Text is written as UTF-8 as given (no line-end translation). ``modes`` gives a file's
    permissions (default ``0o666``), filtered by the umask. Raises
    :class:`~hubplan.core.errors.ExportError` naming ``what`` and ``folder``; then the
    folder holds exactly what it held before, no temporary folder is left and parent
    folders the call had to create are removed again. Only a crash of the machine in the
    middle of the final renames (microseconds) can leave a mix, with the earlier files
    kept in the ``.hubplan-*.tmp`` folder.

    Returns the paths of the files written, in the order of ``files``.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "nb"
    >>> [p.name for p in write_folder_atomic(out, {"a.csv": "x\\n", "b.csv": "y\\n"})]
    ['a.csv', 'b.csv']
    >>> (out / "b.csv").read_text()
    'y\\n'
    """
    folder = Path(folder)
    modes = dict(modes or {})
    for name in files:
        if not name or Path(name).name != name or name.startswith("."):
            raise ValueError(f"file name {name!r}: a plain name is expected")
    check_target(what, folder, folder=True)
    exists = folder.is_dir()
    made: list[Path] = []  # parent folders this call creates, innermost first
    try:
        if exists:
            for name in files:
                if os.path.lexists(folder / name) and not (folder / name).is_file():
                    raise ExportError(what, folder / name, "not_a_file")
            staging = Path(tempfile.mkdtemp(prefix=".hubplan-", suffix=".tmp", dir=folder))
        else:
            made = _made_by_mkdir(folder.parent)
            folder.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(
                tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent)
            )
    except OSError as exc:
        _remove_empty(made)
        raise export_error(what, folder, exc) from None
    try:
        for name, content in files.items():
            _write_one(staging / name, content, modes.get(name, 0o666))
        if exists:
            _swap_into(folder, staging, list(files), [n for n in owned if n not in files])
        else:
            os.chmod(staging, 0o777 & ~_umask())
            os.rename(staging, folder)
            _fsync_dir(folder)
        _fsync_dir(folder.parent)
    except OSError as exc:
        raise export_error(what, folder, exc) from None
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
        if not folder.exists():
            _remove_empty(made)
    return [folder / name for name in files]


def _made_by_mkdir(folder: Path) -> list[Path]:
    """The folders ``folder.mkdir(parents=True)`` would create, innermost first."""
    out = []
    while not os.path.lexists(folder) and folder != folder.parent:
        out.append(folder)
        folder = folder.parent
    return out


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders an export created for itself, innermost first, while empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _swap_into(folder: Path, staging: Path, names: list[str], stale: list[str]) -> None:
    """Move ``names`` from ``staging`` into ``folder`` and ``stale`` out of it, putting
    everything back if one step fails."""
    aside = staging / ".previous"
    aside.mkdir()
    replaced: list[tuple[str, bool]] = []  # (name, an earlier file was kept aside)
    removed: list[str] = []
    try:
        for name in names:
            target, had = folder / name, os.path.lexists(folder / name)
            if had:
                try:
                    os.link(target, aside / name, follow_symlinks=False)
                except (OSError, NotImplementedError):  # no hard links (FAT, some NAS)
                    os.replace(target, aside / name)
            os.replace(staging / name, target)
            replaced.append((name, had))
        for name in stale:
            if os.path.lexists(folder / name) and (folder / name).is_file():
                os.replace(folder / name, aside / name)
                removed.append(name)
    except BaseException:
        for name in removed:
            os.replace(aside / name, folder / name)
        for name, had in reversed(replaced):
            if had:
                os.replace(aside / name, folder / name)
            else:
                (folder / name).unlink(missing_ok=True)
        for name in names[len(replaced) :]:  # a file moved aside before its swap failed
            if os.path.lexists(aside / name) and not os.path.lexists(folder / name):
                os.replace(aside / name, folder / name)
        raise
    _fsync_dir(folder)
