"""Tables of data rendered in a language: findings and balance checks.

Stages write codes and numbers; these functions turn them into the sentences a
consultant reads, in English or Simplified Chinese, from the label catalogue.
"""

from __future__ import annotations

import pandas as pd

from ..core.errors import ExportError, HubplanError
from ..core.labels import (
    catalog,
    coded_params,
    column_value_label,
    display_frame,
    label,
    normalize_language,
)


def findings_table(findings: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """``plan.findings`` with each finding's message and fix in ``lang``.

    >>> import hubplan
    >>> plan = hubplan.build_plan(hubplan.default_scenario())
    >>> findings_table(plan.findings, "zh").columns.tolist()
    ['severity', 'stage', 'subject', 'code', 'message', 'fix']
    """
    lang = normalize_language(lang)
    out = findings[["severity", "stage", "subject", "code"]].copy()
    # a pool, plane or tier subject reads in the language ("开发", not "development")
    out["subject"] = [column_value_label("subject", s, lang) for s in out["subject"]]
    params = [_coded(p, lang) for p in findings["data"]]
    out["message"] = [
        label(f"finding.{c}", lang, **p) for c, p in zip(findings["code"], params, strict=True)
    ]
    out["fix"] = [
        label(f"fix.{c}", lang, **p) for c, p in zip(findings["code"], params, strict=True)
    ]
    return out


def _coded(params: dict, lang: str) -> dict:
    """A finding's parameters with code values (those of the label catalogue's value
    columns, e.g. ``limited_by='clients'``, and of planes, media, technologies and
    areas) in ``lang``: :func:`hubplan.core.labels.coded_params`."""
    return coded_params(params, lang)


def _check_params(row: dict) -> dict:
    return {
        "server": row["server"],
        "value": row["value"],
        "required": row["required"],
        "ratio": row["ram_ratio"],
        "gpus": row["gpus"],
    }


def check_reason(row: dict, lang: str = "en") -> str:
    """Why a balance check has its status, in ``lang``."""
    if row["status"] == "unknown":
        return label("check.unknown", lang, server=row["server"])
    return label(f"check.{row['check']}", lang, **_check_params(row))


def check_fix(row: dict, lang: str = "en") -> str:
    """What to change when a balance check does not pass ('' when it passes)."""
    if row["status"] == "pass":
        return ""
    return label(f"fix.check_{row['check']}", lang, **_check_params(row))


def checks_table(checks: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """``plan["server_checks"]`` with the reason and the fix of each check in ``lang``."""
    lang = normalize_language(lang)
    out = checks[["pool", "server", "check", "status", "value", "required"]].copy()
    rows = checks.to_dict(orient="records")
    out["reason"] = [check_reason(r, lang) for r in rows]
    out["fix"] = [check_fix(r, lang) for r in rows]
    return out


def show(table: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """A Plan table as a reader sees it: headers with units, numbers in the label
    catalogue's formats, unknown values blank (never ``NaN``), in ``lang``.

    >>> import hubplan
    >>> plan = hubplan.build_plan(hubplan.default_scenario(), until="workload")
    >>> show(plan["pool_demand"]).iloc[3, -1]  # a fleet row has no coincidence of its own
    ''
    """
    return display_frame(table, lang)


def translate(text: str, lang: str) -> str:
    """An error message's fixed phrases in ``lang``; values, fields and flags stay as typed.

    The phrases are ``phrase.*`` rows of the label catalogue (pydantic's and hubplan's
    validation wording), replaced longest first.

    >>> translate("Input should be less than or equal to 1", "zh")
    '应小于或等于 1'
    """
    if normalize_language(lang) != "zh":
        return text
    cat = catalog()
    rows = cat[cat.index.str.startswith("phrase.")]
    for en, zh in sorted(zip(rows["en"], rows["zh"], strict=True), key=lambda p: -len(p[0])):
        text = text.replace(en, zh)
    return text


def error_text(exc: HubplanError, lang: str = "en") -> str:
    """What a user reads for a hubplan error, in ``lang``.

    An :class:`~hubplan.core.errors.ExportError` (a file that could not be written) has
    its own message in both languages; for other errors the fixed phrases are translated
    (:func:`translate`).

    >>> from hubplan.core.errors import ExportError
    >>> error_text(ExportError("xlsx", "/srv/a.xlsx", "read_only"), "zh")
    "xlsx = '/srv/a.xlsx'：无法写入：该磁盘为只读挂载；请选择可写磁盘上的文件夹"
    """
    if isinstance(exc, ExportError):
        return exc.text(lang)
    return translate(str(exc), lang)
