"""Findings: one shape for every stage's observations.

A finding is data: severity, stage, subject, a code and the code's parameters. Its
message and fix are templates in the label catalogue (keys ``finding.<code>`` and
``fix.<code>``), rendered in English or Chinese only when shown
(:meth:`Finding.message`, :func:`hubplan.views.render.findings_table`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from .labels import coded_params, label

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
COLUMNS = ["severity", "stage", "subject", "code", "data"]


@dataclass(frozen=True)
class Finding:
    severity: Severity
    stage: str
    subject: str
    code: str
    params: dict[str, object] = field(default_factory=dict)

    def message(self, lang: str = "en") -> str:
        return label(f"finding.{self.code}", lang, **coded_params(self.params, lang))

    def fix(self, lang: str = "en") -> str:
        return label(f"fix.{self.code}", lang, **coded_params(self.params, lang))


def findings_frame(findings: list[Finding] | tuple[Finding, ...]) -> pd.DataFrame:
    """Findings as a table of data (no sentences), most severe first."""
    rows = [
        {
            "severity": f.severity,
            "stage": f.stage,
            "subject": f.subject,
            "code": f.code,
            "data": dict(f.params),
        }
        for f in findings
    ]
    df = pd.DataFrame(rows, columns=COLUMNS)
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return df.sort_values("severity", key=lambda s: s.map(order), kind="stable").reset_index(
        drop=True
    )
