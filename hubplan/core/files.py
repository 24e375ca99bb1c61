"""Files written atomically: nothing a user made is lost to a failed or interrupted write.

Every file hubplan writes (scenarios, the xlsx appendix, NetBox CSVs, scheduler files) goes
through :func:`atomic_path`: the content is written to a temporary file in the same folder,
synced, given the permissions a new file would have, and moved over the target with
``os.replace``. An exception on the way leaves any earlier file at the path untouched and no
temporary file behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: str | os.PathLike[str], mode: int = 0o666) -> Iterator[Path]:
    """A temporary path to write; on success it replaces ``path``.

    ``mode`` is filtered by the process umask, as for any new file (``mkstemp`` alone
    would leave the file readable by its owner only).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("hello")
    >>> target.read_text()
    'hello'
    """
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, mode & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str, mode: int = 0o666) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically."""
    with atomic_path(path, mode) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
    return Path(path)
