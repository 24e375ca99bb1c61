"""One bilingual label catalogue for every name a user sees.

Each package keeps its labels in its own ``labels.csv`` (``core/`` the shared vocabulary,
each stage its findings and checks, ``views/`` the captions); the loader reads them as
one catalogue with one row per key: the unit, the English and Simplified Chinese labels,
the Excel number format and a description. Table columns,
panel captions, chart titles, finding messages and (later) xlsx headers all read it,
in the manner of PyPSA's ``component_attrs``.

Keys are stable identifiers (``gpus``, ``panel.workload.title``); languages are ``"en"``
and ``"zh"`` (aliases such as ``"zh-CN"``, ``"zh_CN"`` and ``"zh-Hans"`` are accepted:
gettext-style tags silently fall back to English elsewhere, here they are mapped).
"""

from __future__ import annotations

import csv
import string
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import HubplanError

if TYPE_CHECKING:  # pandas loads with the first table to localize: label() needs only csv,
    import pandas as pd  # so the CLI's --help starts without it

#: The columns of every labels.csv after ``key``.
_FIELDS = ("unit", "en", "zh", "excel_format", "description")

LANGUAGES = ("en", "zh")
_ALIASES = {
    "en": "en",
    "en-us": "en",
    "en_us": "en",
    "en-gb": "en",
    "english": "en",
    "zh": "zh",
    "zh-cn": "zh",
    "zh_cn": "zh",
    "zh-hans": "zh",
    "zh-hans-cn": "zh",
    "cn": "zh",
    "chinese": "zh",
    "中文": "zh",
}


def normalize_language(lang: str | None) -> str:
    """Map a language tag to ``"en"`` or ``"zh"``.

    >>> normalize_language("zh-CN")
    'zh'
    >>> normalize_language("fr")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hubplan.core.errors.HubplanError: language = 'fr': use one of 'en', 'zh' (or zh-CN, ...)
    """
    key = (lang or "en").strip().lower()
    if key not in _ALIASES:
        raise HubplanError(f"language = {lang!r}: use one of 'en', 'zh' (or zh-CN, zh_CN, zh-Hans)")
    return _ALIASES[key]


#: The package folder: every ``labels.csv`` below it belongs to the one catalogue.
_PACKAGE = Path(__file__).resolve().parent.parent


def label_files() -> list[Path]:
    """The label files: ``core/labels.csv`` (shared vocabulary: table columns, choices,
    values) and one per stage and view package (its findings, checks and captions)."""
    return sorted(_PACKAGE.glob("*/labels.csv"))


@cache
def _entries() -> dict[str, dict[str, str]]:
    """Every package's labels as key -> {unit, en, zh, excel_format, description, file}:
    plain ``csv``, so a label costs no pandas import."""
    entries: dict[str, dict[str, str]] = {}
    seen: dict[str, list[str]] = {}
    for path in label_files():
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        torn = [r["key"] for r in rows if None in r or None in r.values()]
        if torn:  # an unquoted comma shifts the Chinese text into the wrong column
            raise HubplanError(
                f"{path.parent.name}/labels.csv: rows {torn} do not have the 6 columns "
                "key,unit,en,zh,excel_format,description (quote text that holds a comma)"
            )
        for r in rows:
            seen.setdefault(r["key"], []).append(path.parent.name)
            entries[r["key"]] = {k: r.get(k) or "" for k in _FIELDS} | {"file": path.parent.name}
    dupes = [(k, f) for k, files in seen.items() if len(files) > 1 for f in files]
    if dupes:
        where = ", ".join(f"{k} ({f}/labels.csv)" for k, f in dupes)
        raise HubplanError(f"label keys defined twice: {where}")
    return entries


@cache
def _frame() -> pd.DataFrame:
    import pandas as pd

    rows = [{"key": k, **e} for k, e in _entries().items()]
    return pd.DataFrame(rows, columns=["key", *_FIELDS, "file"]).set_index("key")


def catalog() -> pd.DataFrame:
    """The label catalogue, every package's file in one DataFrame indexed by key
    (``catalog.cache_clear()`` re-reads the files)."""
    return _frame()


def _clear() -> None:
    _entries.cache_clear()
    _frame.cache_clear()


catalog.cache_clear = _clear  # type: ignore[attr-defined]


def label(key: str, lang: str = "en", **values: object) -> str:
    """The label for ``key`` in ``lang``, with ``{placeholders}`` filled from ``values``.

    >>> label("gpus", "zh")
    'GPU 数'
    >>> label("msg.binding", "en", constraint="memory")
    'Bound by: memory'
    """
    lang = normalize_language(lang)
    entry = _entries().get(key)
    if entry is None:
        raise KeyError(f"no label {key!r} in any hubplan/*/labels.csv")
    text = entry[lang] or entry["en"]
    return text.format(**values) if values else text


def bilingual(key: str, sep: str = " ") -> str:
    """Chinese then English label, as proposal tables print headers.

    >>> bilingual("gpus")
    'GPU 数 GPUs'
    """
    zh, en = label(key, "zh"), label(key, "en")
    return en if zh == en else f"{zh}{sep}{en}"


def unit(key: str) -> str:
    """The unit of a column key ('' when dimensionless)."""
    entry = _entries().get(key)
    return entry["unit"] if entry is not None else ""


def column_label(key: str, lang: str = "en") -> str:
    """Column header: the label with its unit, e.g. ``'Model state [GB]'``."""
    u = unit(key)
    text = label(key, lang) if key in _entries() else key
    return f"{text} [{u}]" if u else text


#: Columns whose values are themselves label keys: column -> key prefix.
VALUE_COLUMNS = {
    "binding": "binding",
    "token_binding": "binding",
    "failure_component": "failure_component",
    "failure_per": "failure_per",
    "interconnect": "interconnect",
    "status": "status",
    "check": "checkname",
    "quota": "choice.quota",
    "kind": "choice.pool",
    "pool": "choice.pool",
    "level": "choice.level",
    "policy": "choice.policy",
    "severity": "severity",
    "unranked": "unranked",
    "price_basis": "choice.price_basis",
    "cloud_basis": "choice.cloud_basis",
    "rule_basis": "choice.rule_basis",
    "phase": "phase",
    "criterion": "criterion",
    "step": "step",
    "verification": "verification",
    "test": "test",
    "result": "result",
    "device_type": "device_type",
    "type": "device_type",
    "scope": "device_type",
    "cooling_mode": "choice.cooling_mode",
    "sized_by": "choice.sized_by",
    "limited_by": "choice.limited_by",
    "category": "choice.category",
    "pass_if": "pass_if",
    "figure_basis": "figure_basis",
    "figure_source": "figure_source",
    "stage": "choice.area",
    "price_confidence": "choice.price_confidence",
    "cost_basis": "choice.cost_basis",
    "line_unit": "choice.line_unit",
    "gpu_cost_basis": "choice.gpu_cost_basis",
    "item_kind": "choice.item_kind",
    "precision": "choice.precision",
    "method": "choice.method",
    "recompute": "choice.recompute",
    "limit": "choice.limit",
    "scaleup_kind": "choice.scaleup_kind",
    "segment": "choice.segment",
    "marketing_basis": "choice.marketing_basis",
    "tier": "choice.tier",
    "content": "storage.content",
    "protection": "choice.protection",
    "dr": "choice.dr",
    "role": "choice.role",
    "plane": "choice.plane",
    "media": "choice.media",
    "device_role": "device_type",
    "link_segment": "choice.link_segment",
    "transport": "choice.technology",
    "layer": "choice.rdma_layer",
    "component": "choice.latency_component",
    "power_source": "choice.figure_origin",
    "size_source": "choice.figure_origin",
    "typical_source": "choice.figure_origin",
    "item": ("choice.opex_item", "checklist"),
    "cloud_pricing": "choice.cloud_pricing",
    "strategy": "choice.strategy",
    "flow": "choice.flow",
    "assumption": "cost.assumption",
    "metric": "",
    "task": "task",
    "figure_unit": "choice.figure_unit",
    "checked_by": "choice.area",
    "subject": (
        "choice.plane",
        "choice.tier",
        "choice.pool",
        "choice.precision",
        "sheet",
        "subject",
    ),
    "confidence": "choice.price_confidence",
    "technology": "choice.technology",
    "architecture": "choice.architecture",
    "per": "failure_per",
    "price_unit": "choice.line_unit",
}
"""A column mapped to ``""`` holds column keys (``cost_tornado.metric``: the figure an
assumption moves), labelled by the column's own label; a column mapped to a tuple of
prefixes tries each in turn (a ``subject`` is a plane, a tier, a pool, or a finding's
table or cost figure when it is not a model or job name; an ``item`` an opex line or a
review checklist item). A value with a trailing batch number (``rack_2``) that has no
label of its own takes its stem's (``task.rack``) with ``{n}`` filled: "上架（第 2 批）"."""

#: Columns that hold a comma-separated list of codes: column -> key prefix
#: (``schedule.depends_on``: "rack_1, network_1" reads "上架（第 1 批）、布线（第 1 批）").
LIST_VALUE_COLUMNS = {"depends_on": "task"}


#: Finding parameters whose values are codes with labels, beside :data:`VALUE_COLUMNS`:
#: parameter -> key prefix. A finding's ``{plane}`` reads "in-band" / "带内管理", never
#: the raw ``inband``; a list value (``fabrics``) is labelled item by item.
PARAM_VALUES = {
    "plane": "choice.plane",
    "media": "choice.media",
    "technology": "choice.technology",
    "fabrics": "choice.technology",
    "area": "choice.area",
    "tests": "test",
    "rdma_tool": "choice.tool",
    "collective_tool": "choice.tool",
    "source": "choice.tier",
}

#: How a list parameter's items are joined, per language.
_LIST_SEP = {"en": ", ", "zh": "、"}


def coded_params(params: dict, lang: str = "en") -> dict:
    """A finding's parameters with code values (a plane, a medium, a stage area, a
    ``limited_by`` code …) replaced by their labels in ``lang``; a list or tuple of codes
    becomes its labels joined; values with no label stay as they are.

    >>> coded_params({"plane": "inband", "servers": 3}, "zh")
    {'plane': '带内管理', 'servers': 3}
    >>> coded_params({"fabrics": ["infiniband", "ethernet"]}, "en")
    {'fabrics': 'InfiniBand, Ethernet'}
    """
    lang = normalize_language(lang)
    out = dict(params)
    for name, value in params.items():
        prefix = PARAM_VALUES.get(name) or VALUE_COLUMNS.get(name)
        if not prefix:
            continue
        if isinstance(value, str):
            out[name] = value_label(prefix, value, lang)
        elif isinstance(value, list | tuple):
            named = [value_label(prefix, v, lang) for v in value]
            out[name] = _LIST_SEP[lang].join(str(v) for v in named)
    return out


def _value_key(prefix: str | tuple[str, ...], value: object) -> tuple[str, dict] | None:
    """The label key (and placeholder values) for a coded cell, or None when it has none:
    ``<prefix>.<value>``; the value itself for the prefix ``""`` (a column key); else a
    numbered value's stem (``task.rack`` with ``n=2`` for ``rack_2``)."""
    keys = _entries()
    if isinstance(prefix, tuple):
        return next((k for p in prefix if (k := _value_key(p, value)) is not None), None)
    if not prefix:
        return (value, {}) if isinstance(value, str) and value in keys else None
    key = f"{prefix}.{value}"
    if key in keys:
        return key, {}
    if not isinstance(value, str):
        return None
    stem, _, n = value.rpartition("_")
    if stem and n.isdigit() and f"{prefix}.{stem}" in keys:
        return f"{prefix}.{stem}", {"n": int(n)}
    return None


def value_label(prefix: str | tuple[str, ...], value: object, lang: str = "en") -> object:
    """The label of one coded value (a key prefix of :data:`VALUE_COLUMNS`), or the value
    itself when it has none.

    >>> value_label("task", "rack_2", "zh"), value_label("choice.plane", "inband", "en")
    ('上架（第 2 批）', 'in-band management')
    >>> value_label("choice.role", "DGX H100", "zh")
    'DGX H100'
    """
    found = _value_key(prefix, value)
    if found is None:
        return value
    key, values = found
    return label(key, lang, **values)


def column_value_label(column: str, value: object, lang: str = "en") -> object:
    """A cell of ``column`` as :func:`localize` shows it (its label when it is a code).

    >>> column_value_label("task", "procure_servers_1", "zh")
    '服务器采购（第 1 批）'
    >>> column_value_label("depends_on", "rack_1, network_1", "en")
    'Racking (batch 1), Cabling (batch 1)'
    """
    lang = normalize_language(lang)
    if column in LIST_VALUE_COLUMNS and isinstance(value, str):
        return _list_label(value, LIST_VALUE_COLUMNS[column], lang)
    if column in VALUE_COLUMNS:
        return value_label(VALUE_COLUMNS[column], value, lang)
    return value


def _list_label(value: str, prefix: str, lang: str) -> str:
    if not value:
        return value
    codes = [v.strip() for v in value.split(",")]
    return _LIST_SEP[lang].join(str(value_label(prefix, c, lang)) for c in codes)


def is_missing(value: object) -> bool:
    """True for a cell with no value: ``None``, a float NaN (Python's or NumPy's),
    ``pd.NA`` or ``pd.NaT`` (checked by type name, so a label costs no pandas import).

    >>> is_missing(float("nan")), is_missing(None), is_missing(0.0), is_missing("")
    (True, True, False, False)
    """
    if value is None:
        return True
    if type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return bool(value != value)  # NaN is the one value unequal to itself
    except (TypeError, ValueError):  # arrays, lists: not a missing cell
        return False


def _number_spec(fmt: str) -> tuple[bool, int, int, bool] | None:
    """An Excel number format as (thousands separator, fewest decimals, most decimals,
    percent), or None when it states no number layout ('', 'General', '@' text, dates).

    ``0`` and ``#`` after the point are required and optional digits (ECMA-376 Part 1,
    18.8.31 numFmts: "0" shows a digit or a zero, "#" only significant digits).

    >>> _number_spec("#,##0.0"), _number_spec("0.0%"), _number_spec("#,##0.##"), _number_spec("@")
    ((True, 1, 1, False), (False, 1, 1, True), (True, 0, 2, False), None)
    """
    if not fmt or fmt == "General" or any(ch not in "#,0.%" for ch in fmt):
        return None
    percent = fmt.endswith("%")
    body = fmt.rstrip("%")
    places = body.split(".", 1)[1] if "." in body else ""
    return "," in body, places.count("0"), len(places), percent


def _fixed(value: float, comma: bool, fewest: int, most: int) -> str:
    """``value`` with ``most`` decimals, trailing zeros dropped down to ``fewest``, and no
    sign on a value that rounds to zero ("-0.0" reads as a loss)."""
    text = f"{value:,.{most}f}" if comma else f"{value:.{most}f}"
    if most > fewest:
        whole, _, frac = text.partition(".")
        frac = frac[:fewest] + frac[fewest:].rstrip("0")
        text = f"{whole}.{frac}" if frac else whole
    if text.startswith("-") and not any(ch in "123456789" for ch in text):
        text = text[1:]
    return text


def _general(value: float) -> str:
    """A number with no stated format: an integer whole, with thousands separators; a
    fraction to four significant digits (the precision that decides a check: a 1.9 GHz
    CPU is not "2"), in fixed notation between 0.0001 and 10^15 (Excel's General
    switches to scientific outside about that range too)."""
    import math

    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    magnitude = abs(value)
    if magnitude >= 1e15 or magnitude < 1e-4:
        return f"{value:.3e}"
    decimals = max(0, 4 - (math.floor(math.log10(magnitude)) + 1))
    return _fixed(value, True, 0, decimals)


def format_value(key: str, value: object) -> str:
    """Text for a table cell, using the column's Excel number format from the catalogue.

    A missing value (NaN, None, NA, NaT) is an empty cell; an infinite one is "∞". The
    format's decimals are kept as stated ('0.0%' shows 99.6 %, not 100 %), optional
    decimals ('#,##0.##') drop their trailing zeros, and a column with no number format
    shows whole numbers whole and fractions to four significant digits.

    >>> format_value("gpu_days", 1516.26), format_value("mfu", 0.45), format_value("flops", 5.25e22)
    ('1,516', '0.45', '5.25e+22')
    >>> format_value("expected_goodput", 0.99589), format_value("line_quantity", 18.0)
    ('99.6%', '18')
    """
    import numbers

    if is_missing(value):
        return ""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        value = int(value)
    elif isinstance(value, numbers.Real):
        value = float(value)
    else:
        return str(value)
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "-∞"
    entry = _entries().get(key)
    fmt = entry["excel_format"] if entry is not None else ""
    if fmt == "0.00E+00":
        return f"{value:.2e}"
    spec = _number_spec(fmt)
    if spec is None:
        return _general(value)
    comma, fewest, most, percent = spec
    if percent:
        return _fixed(value * 100, comma, fewest, most) + "%"
    return _fixed(value, comma, fewest, most)


def localize(df: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """Return ``df`` with column headers, and label-valued cells, in ``lang``.

    Text columns that come in pairs (``message`` / ``message_zh``) keep the one in
    ``lang`` under the plain name.
    """
    lang = normalize_language(lang)
    out = df.copy()
    for col in [c for c in out.columns if f"{c}_zh" in out.columns]:
        if lang == "zh":
            out[col] = out[f"{col}_zh"]
        out = out.drop(columns=f"{col}_zh")
    keys = _entries()
    for col, prefix in VALUE_COLUMNS.items():
        if col in out.columns:
            out[col] = _label_values(out[col], prefix, keys, lang)
    for col, prefix in LIST_VALUE_COLUMNS.items():
        if col in out.columns:
            out[col] = _label_values(out[col], prefix, keys, lang, listed=True)
    out = out.rename(columns={c: column_label(c, lang) for c in out.columns})
    if out.index.name:
        out.index.name = column_label(out.index.name, lang)
    return out


def _label_values(
    values: pd.Series, prefix: str, keys: dict, lang: str, listed: bool = False
) -> pd.Series:
    """``values`` with each value that has a label (:func:`value_label`) replaced by it;
    ``listed``: each value a comma-separated list of codes, labelled item by item.

    Each distinct value is looked up once (a 600 000-link port map has a handful of
    distinct roles), so the cost is one pass over the column.
    """
    import numpy as np
    import pandas as pd

    def one(v):
        if listed:
            return _list_label(v, prefix, lang) if isinstance(v, str) else v
        return value_label(prefix, v, lang)

    def coded(v):
        if listed and isinstance(v, str):
            return any(_value_key(prefix, c.strip()) for c in v.split(","))
        return _value_key(prefix, v) is not None

    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists): look each one up
        return values.map(one)
    if not any(coded(v) for v in uniques):
        return values  # nothing to translate (numbered steps, free names)
    labelled = [one(v) for v in uniques]
    shown = np.empty(len(uniques) + 1, dtype=object)
    shown[:-1] = labelled
    out = shown[codes]  # code -1 (missing) picks the last slot; put the original back
    missing = codes == -1
    out[missing] = values.to_numpy(dtype=object)[missing]
    return pd.Series(out, index=values.index, name=values.name).infer_objects()


def display_frame(df: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """``df`` as text for printing: localized headers and values, catalogue formats."""
    import numpy as np

    shown = localize(df, lang)
    keys = [c for c in df.columns if not (c.endswith("_zh") and c[:-3] in df.columns)]
    yes, no = label("value.yes", lang), label("value.no", lang)
    for key, header in zip(keys, shown.columns, strict=True):
        shown[header] = [
            (yes if v else no) if isinstance(v, bool | np.bool_) else format_value(key, v)
            for v in shown[header]
        ]
    return shown


def placeholders(text: str) -> set[str]:
    """Names of the ``{placeholders}`` in a template (used by the parity test)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}
