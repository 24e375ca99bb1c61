"""Exports of a Plan: the proposal appendix (xlsx), NetBox import files and the scheduler
configuration.

This is the only hubplan package that imports openpyxl (an import contract in
``pyproject.toml``). It reads a Plan and the stages' public text functions; it never
computes a planning figure, and every file it writes is written atomically.
"""

from .netbox import NETBOX_VERSION, write_netbox
from .scheduler import write_scheduler_files
from .style import AppendixStyle, load_style
from .summary import assumption_register, headline_figures
from .xlsx import SHEET_TABLES, build_appendix, save_atomic, sheet_name, write_appendix

__all__ = [
    "NETBOX_VERSION",
    "SHEET_TABLES",
    "AppendixStyle",
    "assumption_register",
    "build_appendix",
    "headline_figures",
    "load_style",
    "save_atomic",
    "sheet_name",
    "write_appendix",
    "write_netbox",
    "write_scheduler_files",
]
