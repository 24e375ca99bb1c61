"""Errors a user can act on: each names the field, the value and what is allowed."""

from __future__ import annotations


class HubplanError(ValueError):
    """Base class for every error hubplan raises about its inputs."""


class ScenarioError(HubplanError):
    """A scenario (YAML file, dict or keyword change) is not valid.

    ``problems`` lists ``(field_path, message)`` pairs, one per invalid field.
    """

    def __init__(self, problems: list[tuple[str, str]], source: str | None = None):
        self.problems = problems
        self.source = source
        where = f" in {source}" if source else ""
        lines = [f"{path}: {msg}" for path, msg in problems]
        if len(lines) == 1:
            super().__init__(f"invalid scenario{where}: {lines[0]}")
        else:
            body = "\n  ".join(lines)
            super().__init__(f"invalid scenario{where} ({len(lines)} problems):\n  {body}")


class ScenarioMovedWarning(UserWarning):
    """A scenario gave a field at the place it had before it moved: it was read at its new
    place (:data:`hubplan.scenario.MOVED_FIELDS`); saving the scenario writes it there."""


class CatalogError(HubplanError):
    """A catalogue lookup or a user catalogue file is not valid."""


class InputError(HubplanError):
    """A calculator argument is out of its allowed range."""

    def __init__(self, field: str, value: object, allowed: str):
        self.field, self.value, self.allowed = field, value, allowed
        super().__init__(f"{field} = {value!r}: {allowed}")


class FileReadError(HubplanError):
    """A file the user gave hubplan to read (a scenario, a catalogue CSV, a style) is not
    one it can read: missing, not a regular file (a folder, a named pipe, a device) or
    larger than such a file can be. Readers re-raise it as their own error class
    (:class:`ScenarioError`, :class:`CatalogError`) with ``problem`` as the message.
    """

    def __init__(self, path: str, problem: str):
        self.path, self.problem = path, problem
        super().__init__(f"{path}: {problem}")


class ExportError(HubplanError):
    """A file or folder hubplan was asked to write (the xlsx appendix, NetBox or scheduler
    files, a saved scenario) could not be written; nothing at the path was changed.

    ``what`` names the output as the user asked for it (``xlsx``, ``netbox``, ``slurm``,
    ``scenario``), ``path`` the file or folder, ``reason`` what failed (one of
    :attr:`REASONS`), ``where`` the part of the path at fault (a missing or non-folder
    parent, a virtual file system's mount point) and ``detail`` the system's words for an
    unclassified failure. The message is the label ``export_error.<reason>`` in English;
    :meth:`text` gives it in Chinese too.
    """

    #: What can fail, each with a label ``export_error.<reason>`` saying what to do.
    REASONS = (
        "not_writable",
        "read_only",
        "no_space",
        "not_a_folder",
        "no_folder",
        "not_a_file",
        "virtual_fs",
        "failed",
    )

    def __init__(
        self, what: str, path: str, reason: str, *, where: str = "", detail: str = ""
    ) -> None:
        if reason not in self.REASONS:
            raise ValueError(f"reason = {reason!r}: use one of {self.REASONS}")
        self.what, self.path, self.reason = what, str(path), reason
        self.where, self.detail = str(where), detail
        super().__init__(self.text("en"))

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` (``"en"`` or ``"zh"``): the output, the path, what
        failed and what to do."""
        from .labels import label  # labels imports this module

        return label(
            f"export_error.{self.reason}",
            lang,
            what=self.what,
            path=repr(self.path),
            where=self.where,
            detail=self.detail,
        )


def check_range(
    field: str,
    value: float,
    *,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> float:
    """Raise :class:`InputError` unless ``value`` lies in the given bounds.

    >>> check_range("mfu", 0.45, gt=0, le=1)
    0.45
    >>> check_range("mfu", 1.5, gt=0, le=1)
    Traceback (most recent call last):
    ...
    hubplan.core.errors.InputError: mfu = 1.5: must be > 0 and <= 1
    """
    parts = []
    ok = value == value  # NaN fails every bound
    if gt is not None:
        parts.append(f"> {gt:g}")
        ok &= value > gt
    if ge is not None:
        parts.append(f">= {ge:g}")
        ok &= value >= ge
    if lt is not None:
        parts.append(f"< {lt:g}")
        ok &= value < lt
    if le is not None:
        parts.append(f"<= {le:g}")
        ok &= value <= le
    if not ok:
        raise InputError(field, value, "must be " + " and ".join(parts))
    return value
