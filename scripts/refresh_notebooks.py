"""Re-execute the notebooks and keep only what nbval compares.

Outputs are kept for cells marked ``# NBVAL_CHECK_OUTPUT`` (the pinned numbers) and for
cells marked ``# FIRST_VIEW`` (static pictures and tables: what a freshly opened
notebook shows before anything runs; their PNG, HTML and text are kept, never a widget
view or the SVG twin of a PNG) and dropped everywhere else; widget state and other
metadata are stripped, so committed notebooks stay small and free of the 0.9 MB offline
Vega bundle.

Usage: ``make notebooks`` (or ``python scripts/refresh_notebooks.py [NOTEBOOK ...]``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


#: Output types a saved notebook shows with no kernel and no widget state.
KEEP = ("image/png", "text/html", "text/plain")


def _static(output):
    """An output reduced to what renders without a kernel, or None if nothing does."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return output
    data = {k: v for k, v in output.get("data", {}).items() if k in KEEP}
    if "application/vnd.jupyter.widget-view+json" in output.get("data", {}) or not data:
        return None
    output["data"] = data
    output["metadata"] = {}
    return output


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata = {}
        if "FIRST_VIEW" in cell.source:  # nbval refuses outputs on a cell marked unrun
            cell.outputs = [_static(o) for o in cell.outputs if _static(o) is not None]
        elif "NBVAL_CHECK_OUTPUT" not in cell.source:
            cell.outputs = []
            cell.execution_count = None
    nb.metadata = {
        "kernelspec": nb.metadata.get("kernelspec", {}),
        "language_info": {"name": "python"},
    }
    nbformat.write(nb, path)
    print(f"refreshed {path.relative_to(ROOT)}")


if __name__ == "__main__":
    targets = [Path(p).resolve() for p in sys.argv[1:]] or sorted(
        (ROOT / "notebooks").glob("*.ipynb")
    )
    for target in targets:
        refresh(target)
