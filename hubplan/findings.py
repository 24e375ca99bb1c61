"""Findings: one shape for every stage's observations (severity, stage, code, message, fix).

Messages and fixes are templates in ``labels.csv`` (keys ``finding.<code>`` and
``fix.<code>``), so every finding reads in English and Simplified Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from .labels import label

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
COLUMNS = ["severity", "stage", "subject", "code", "message", "fix", "message_zh", "fix_zh"]


@dataclass(frozen=True)
class Finding:
    severity: Severity
    stage: str
    subject: str
    code: str
    params: dict[str, object] = field(default_factory=dict)

    def message(self, lang: str = "en") -> str:
        return label(f"finding.{self.code}", lang, **self.params)

    def fix(self, lang: str = "en") -> str:
        return label(f"fix.{self.code}", lang, **self.params)


def findings_frame(findings: list[Finding]) -> pd.DataFrame:
    """Findings as a table, most severe first, in both languages."""
    rows = [
        {
            "severity": f.severity, "stage": f.stage, "subject": f.subject, "code": f.code,
            "message": f.message("en"), "fix": f.fix("en"),
            "message_zh": f.message("zh"), "fix_zh": f.fix("zh"),
        }
        for f in findings
    ]  # fmt: skip
    df = pd.DataFrame(rows, columns=COLUMNS)
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return df.sort_values("severity", key=lambda s: s.map(order), kind="stable").reset_index(
        drop=True
    )
