"""Exports: files written from a Plan (scheduler configuration; later xlsx and NetBox).

Exports read a Plan and call the stages' public text functions; they compute no planning
figure and are the only code that writes these files.
"""

from .scheduler import write_scheduler_files

__all__ = ["write_scheduler_files"]
