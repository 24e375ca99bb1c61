"""Where hubplan's shipped files live, from a checkout or from an installed wheel.

The repository keeps ``data/`` and ``templates/`` at its top level (docs/architecture.md).
The wheel copies them into the package as ``hubplan/_data`` and ``hubplan/_templates``
(``pyproject.toml``, ``force-include``). Both layouts resolve through these functions,
so no other module spells a path.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # the hubplan package folder


def _locate(installed: str, checkout: str) -> Path:
    for candidate in (_PACKAGE / installed, _PACKAGE.parent / checkout):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"hubplan cannot find its {checkout}/ folder: looked in {_PACKAGE / installed} "
        f"and {_PACKAGE.parent / checkout}. Reinstall hubplan (pip install .)."
    )


def data_dir() -> Path:
    """Folder holding the catalogues (``accelerators.csv``, ``models.csv``, ...)."""
    return _locate("_data", "data")


def templates_dir() -> Path:
    """Folder holding templates and example scenarios."""
    return _locate("_templates", "templates")
