"""Command line: ``hubplan size training|inference``, ``hubplan catalog ...``,
``hubplan compare``, ``hubplan plan``.

Application code: it turns flags into a Scenario change (``Scenario.with_changes``),
builds the Plan (``hubplan.build_plan(..., until=<stage>)``) and prints rows of its
tables and its findings. The flags are derived from the scenario sections' fields
(name, type, choices, range and help); a few short aliases the README documents
(``--qps``, ``--latency-s``, ...) override the derived names.

Exit status: 0 the plan is feasible; 1 the plan has error findings (a one-line summary
goes to stderr); 2 bad input (one line naming the flag, the value and what is allowed).

Start-up: ``hubplan --help`` and ``hubplan plan --help`` load neither pandas nor the
stages. Only the command named on the line gets its full parser (``build_parser(only=)``;
the others are one help line each), its flags come from the section models when that
command needs them, and pandas, the scenario and the views' text rendering are imported
inside the functions that use them (``make bench``: benchmarks/bench_cli.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import re
import sys
import types
import typing
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from annotated_types import Ge, Gt, Le, Lt

import hubplan

from ..core.errors import ExportError, HubplanError, InputError, ScenarioError
from ..core.labels import display_frame, format_value, label, localize, unit
from ..core.units import COUNT_NOT_BYTES, parse_number

if TYPE_CHECKING:
    import pandas as pd
    from pydantic.fields import FieldInfo

    from ..scenario import Scenario


def translate(text: str, lang: str) -> str:
    """:func:`hubplan.views.render.translate`, loaded only for Chinese (it needs pandas)."""
    if lang != "zh":
        return text
    from ..views.render import translate as render_translate

    return render_translate(text, lang)


def findings_table(findings: pd.DataFrame, lang: str) -> pd.DataFrame:
    from ..views.render import findings_table as render_findings

    return render_findings(findings, lang)


def error_text(exc: HubplanError, lang: str) -> str:
    """:func:`hubplan.views.render.error_text` without loading pandas for English."""
    if isinstance(exc, ExportError):
        return exc.text(lang)
    return translate(str(exc), lang)


# -- flags from the scenario's fields ------------------------------------------------------

#: Short names the README documents; they override the derived ``--kebab-case`` name
#: (which still works as a second spelling).
ALIASES: dict[tuple[str, str], str] = {
    ("training", "memory_headroom"): "--headroom",
    ("inference", "peak_qps"): "--qps",
    ("inference", "mean_latency_s"): "--latency-s",
    ("inference", "concurrency_per_gpu"): "--concurrency",
    ("inference", "prompt_tokens"): "--context-tokens",
    ("inference", "compute_precision"): "--precision",
}

#: Fields that are not flags: ``name`` picks the item (--job / --service); nested
#: sections have their own flags (architecture) or are YAML-only (servers).
_SKIP = {"name", "architecture", "custom_server", "existing_servers", "total_params"}


@dataclass(frozen=True)
class Flag:
    """One command-line flag derived from one scenario field."""

    target: str  # "item", "arch", "pool" or "selection"
    field: str
    names: tuple[str, ...]  # option strings; the first is the one errors name
    info: FieldInfo

    @property
    def dest(self) -> str:
        return f"{self.target}__{self.field}"


def _kebab(field: str) -> str:
    return "--" + field.replace("_", "-")


def _flags(kind: str) -> list[Flag]:
    """The flags of ``size training`` / ``size inference`` / ``compare``."""
    from ..scenario import Architecture, InferenceService, PoolSpec, Selection, TrainingJob

    if kind == "compare":
        return [Flag("selection", f, (_kebab(f),), i) for f, i in Selection.model_fields.items()]
    item_cls = TrainingJob if kind == "training" else InferenceService
    out = []
    for f, info in item_cls.model_fields.items():
        if f in _SKIP:
            continue
        alias = ALIASES.get((kind, f))
        names = (alias, _kebab(f)) if alias else (_kebab(f),)
        out.append(Flag("item", f, names, info))
    item_fields = set(item_cls.model_fields)
    for f, info in Architecture.model_fields.items():
        if f not in _SKIP and f not in item_fields:
            out.append(Flag("arch", f, (_kebab(f),), info))
    for f, info in PoolSpec.model_fields.items():
        if f not in _SKIP:
            out.append(Flag("pool", f, (_kebab(f),), info))
    return out


def _core(annotation: Any) -> Any:
    """The annotation without ``| None``."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = [a for a in typing.get_args(annotation) if a is not type(None)]
        return kinds[0] if len(kinds) == 1 else annotation
    return annotation


def _bounds(info: FieldInfo) -> str:
    parts = []
    for m in info.metadata:
        for kind, attr, sym in (
            (Gt, "gt", ">"),
            (Ge, "ge", ">="),
            (Lt, "lt", "<"),
            (Le, "le", "<="),
        ):
            if isinstance(m, kind):
                parts.append(f"{sym} {getattr(m, attr):g}")
    return ", ".join(parts)


def _number_type(flag: str, kind: str, integer: bool, lang: str):
    def parse(text: str) -> float | int:
        try:
            value = parse_number(text, flag, kind=kind)
        except HubplanError as exc:
            raise argparse.ArgumentTypeError(translate(str(exc), lang)) from None
        if integer:
            if not math.isfinite(value) or value != int(value):
                raise argparse.ArgumentTypeError(
                    translate(f"{flag} = {text}: must be a whole number", lang)
                )
            return int(value)
        return value

    return parse


def _choice_text(field: str, value: object, lang: str) -> str:
    key = f"choice.{field}.{value}"
    if lang == "zh" and _has_label(key):
        return f"{value}（{label(key, 'zh')}）"
    return str(value)


def _has_label(key: str) -> bool:
    try:
        label(key)
    except KeyError:
        return False
    return True


def _help(field: str, info: FieldInfo, lang: str, choices: Sequence | None = None) -> str:
    key = f"help.{field}"
    if lang == "zh" and _has_label(key):
        text = label(key, "zh")
    else:
        text = (info.description or label(key, "en")).replace("%", "%%")
    extra = []
    if choices:
        shown = ", ".join(_choice_text(field, c, lang) for c in choices)
        extra.append(f"{label('cli.choices', lang)}: {shown}")
    bounds = _bounds(info)
    if bounds:
        extra.append(f"{label('cli.allowed', lang)}: {bounds}")
    default = info.default if info.default_factory is None else None
    if default is not None and not isinstance(default, tuple | bool) and not info.is_required():
        extra.append(f"default {default}" if lang == "en" else f"默认 {default}")
    return f"{text} ({'; '.join(extra)})" if extra else text


def _add_flag(p: argparse.ArgumentParser, flag: Flag, lang: str, kind: str) -> None:
    from ..core.section import Bytes, Quantity

    ann = _core(flag.info.annotation)
    common: dict[str, Any] = {"dest": flag.dest, "default": None, "metavar": flag.field.upper()}
    choices = None
    if ann is bool:
        p.add_argument(
            *flag.names,
            action=argparse.BooleanOptionalAction,
            help=_help(flag.field, flag.info, lang),
            **common,
        )
        return
    if typing.get_origin(ann) is Literal:
        choices = list(typing.get_args(ann))
        convert = int if isinstance(choices[0], int) else str
        common.update(
            type=convert, choices=choices, metavar="{" + ",".join(map(str, choices)) + "}"
        )
    elif ann is int:
        common["type"] = _number_type(flag.names[0], "count", True, lang)
    elif ann is Quantity:
        common["type"] = _number_type(flag.names[0], "count", False, lang)
    elif ann is Bytes or ann is float:
        common["type"] = _number_type(flag.names[0], "any", False, lang)
    elif typing.get_origin(ann) is tuple:  # candidates: comma-separated
        common["type"] = lambda text: tuple(c.strip() for c in text.split(",") if c.strip())
    if kind == "training" and flag.field in ("tokens", "data_bytes", "days"):
        return  # added in their mutually exclusive groups
    p.add_argument(*flag.names, help=_help(flag.field, flag.info, lang, choices), **common)


# -- building the scenario -----------------------------------------------------------------


class CliError(HubplanError):
    """A flag's value is not acceptable."""


def _given(args: argparse.Namespace, flags: list[Flag], target: str) -> dict[str, Any]:
    return {
        f.field: getattr(args, f.dest)
        for f in flags
        if f.target == target and getattr(args, f.dest, None) is not None
    }


def _pick(items: tuple, name: str | None, what: str) -> int:
    if name is None:
        return 0 if items else -1
    names = [it.name for it in items]
    if name not in names:
        raise CliError(f"--{what} = {name!r}: not in the scenario; use one of {names}")
    return names.index(name)


def _item_scenario(
    scenario: Scenario, kind: str, index: int, args: argparse.Namespace, flags: list[Flag]
) -> tuple[Scenario, int]:
    """The scenario with the flags given applied to one workload item and its pool."""
    from ..scenario import InferenceService, TrainingJob

    changes = _given(args, flags, "item")
    arch = _given(args, flags, "arch")
    items = [it.model_dump(mode="json") for it in getattr(scenario.workload, kind)]
    cls = TrainingJob if kind == "training" else InferenceService
    if index < 0:
        items.append(cls.model_construct().model_dump(mode="json"))
        index = len(items) - 1
    base = dict(items[index])
    if "tokens" in changes:
        base["data_bytes"] = None
    if "data_bytes" in changes:
        base["tokens"] = None
    if arch:
        if "params" not in changes:
            raise CliError("--params: required with the architecture flags (--layers ...)")
        changes["architecture"] = {"total_params": changes["params"], **arch}
    if any(k in changes for k in ("model", "architecture", "params")):
        # A new model replaces the scenario's one: what came from the old model goes
        # (its params override, shape, MoE share), so the rest is re-derived.
        base.update(model=None, architecture=None, params=None)
        if kind == "training" and "active_params" not in changes:
            base["active_params"] = None
    base.update(changes)
    items[index] = base
    dotted: dict[str, Any] = {f"workload.{kind}": items}
    dotted.update({f"pools.{kind}.{k}": v for k, v in _given(args, flags, "pool").items()})
    try:
        return scenario.with_changes(dotted), index
    except ScenarioError as exc:
        raise _flag_error(exc, flags) from None


def _flag_error(exc: ScenarioError, flags: list[Flag]) -> CliError:
    """Rename scenario field paths in an error to the flags a CLI user typed."""
    by_target = {(f.target, f.field): f.names[0] for f in flags}
    prefix = {"architecture": "arch", "pools": "pool", "accelerator": "selection"}
    lines = []
    for path, msg in exc.problems:
        where, _, value = path.partition(" = ")
        parts = [p for p in re.split(r"[.\[\]]+", where) if p]
        target = "arch" if "architecture" in parts[:-1] else prefix.get(parts[0], "item")
        flag = by_target.get((target, parts[-1]))
        msg = _fields_to_flags(msg, flags)
        if flag and value:
            lines.append(f"{flag} = {value}: {msg}")
        elif flag:
            lines.append(f"{flag}: {msg}")
        elif target == "item" and not value and len(parts) <= 3:
            lines.append(msg)  # a rule over several fields: the message names their flags
        else:
            lines.append(f"{path}: {msg}")
    return CliError("; ".join(lines))


def _fields_to_flags(msg: str, flags: list[Flag]) -> str:
    """Field names inside a whole-item message (``mfu_justification``) as flags."""
    names = {f.field: f.names[0] for f in flags if f.target == "item"}
    for field in sorted(names, key=len, reverse=True):
        msg = re.sub(rf"(?<![\w-]){field}(?![\w])", names[field], msg)
    msg = msg.replace("allowed: --", "allowed: ")  # keep '(allowed: mfu > 0 ...)'
    # "set --force-marketing-figure: true" reads as YAML; say it as a flag and as YAML.
    return re.sub(
        r"set --([\w-]+): true",
        lambda m: f"add --{m[1]} ({m[1].replace('-', '_')}: true in a scenario file)",
        msg,
    )


# -- output --------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.datetime):  # schedule dates (a pandas Timestamp is a datetime)
        if value != value:  # NaT
            return None
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat()
    if hasattr(value, "item"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN or Infinity
    return value


def _dumps(payload: Any) -> str:
    return json.dumps(_jsonable(payload), ensure_ascii=False, indent=2, allow_nan=False)


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [_jsonable(r) for r in df.to_dict(orient="records")]


def _width(text: str) -> int:
    """Display width: CJK characters take two terminal columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cell(key: str, value: Any, lang: str) -> str:
    import numpy as np

    if isinstance(value, bool | np.bool_):
        return label("value.yes" if value else "value.no", lang)
    return format_value(key, value)


def _print_rows(row: dict, lang: str) -> None:
    import pandas as pd

    shown = localize(pd.DataFrame([row]), lang).iloc[0]
    headers = [
        label(k, lang) if k.startswith("cli.") else h for k, h in zip(row, shown.index, strict=True)
    ]
    width = max(_width(h) for h in headers)
    for key, header, value in zip(row, headers, shown.to_numpy(), strict=True):
        print(f"{header}{' ' * (width - _width(header))}  {_cell(key, value, lang)}")


def _table(df: pd.DataFrame, lang: str) -> str:
    return _table_text(display_frame(df, lang))


def _table_text(shown: pd.DataFrame) -> str:
    """A frame of display text as aligned columns (CJK counted two columns wide)."""
    import pandas as pd

    with pd.option_context(
        "display.width", 200, "display.max_columns", 30, "display.unicode.east_asian_width", True
    ):
        return shown.to_string(index=False)


def _findings(findings: pd.DataFrame, lang: str, codes: bool = True) -> pd.DataFrame:
    """Findings with message and fix in ``lang``; ``codes``: the subject as the plan
    holds it (``development``, for JSON), else as a reader sees it (开发)."""
    out = findings_table(findings, lang).assign(data=findings["data"].to_numpy())
    return out.assign(subject=findings["subject"].to_numpy()) if codes else out


def _print_findings(findings: pd.DataFrame, lang: str) -> None:
    for f in _findings(findings, lang, codes=False).to_dict(orient="records"):
        print(f"[{label('severity.' + f['severity'], lang)}] {f['subject']}: {f['message']}")
        print(f"    → {f['fix']}")


class PlanHasErrors(Exception):
    """The plan was built and printed, but it has error findings (exit status 1)."""


def _finish(findings: pd.DataFrame, lang: str) -> None:
    errors = findings[findings["severity"] == "error"]
    if not errors.empty:
        first = _findings(errors.head(1), lang, codes=False).iloc[0]
        raise PlanHasErrors(
            label(
                "cli.plan_errors",
                lang,
                n=len(errors),
                first=f"{first['subject']}: {first['message']}",
            )
        )


def _emit(args, inputs: dict, results: dict, findings: pd.DataFrame, extra=None) -> None:
    """Print results and findings; with --json, one object: inputs, results, findings."""
    if args.json:
        rendered = _records(_findings(findings, args.lang))
        print(_dumps({"inputs": inputs, "results": results, "findings": rendered, **(extra or {})}))
    else:
        _print_rows(results, args.lang)
        _print_findings(findings, args.lang)
    _finish(findings, args.lang)


# -- commands ------------------------------------------------------------------------------


def _scenario(args: argparse.Namespace) -> Scenario:
    """The scenario file (or the default), with the ``--set`` changes applied."""
    from ..scenario import default_scenario, load_scenario

    scenario = load_scenario(args.scenario) if args.scenario else default_scenario()
    return _apply_sets(scenario, getattr(args, "set", None))


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def set_value(text: str) -> Any:
    """The value of ``--set PATH=VALUE`` as a scenario file would give it: a YAML scalar
    (``30``, ``0.4``, ``null``, ``shared``) or flow list (``[H100, B200]``); a number
    YAML 1.1 reads as text (``2.5e6``) is a number. Unit suffixes (``2T``, ``500GB``,
    ``2k``) stay text: the fields that take them parse them, as they do in a file.

    >>> set_value("30"), set_value("2.5e6"), set_value("2T"), set_value("null")
    (30, 2500000.0, '2T', None)
    >>> set_value("[H100, B200]")
    ['H100', 'B200']
    """
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text  # the field's own validation names what it takes
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return float(value)
    return value


def parse_set(text: str) -> tuple[str, str]:
    """``PATH=VALUE`` split at the first ``=`` (argparse type of ``--set``)."""
    path, eq, value = text.partition("=")
    path = path.strip()
    if not eq or not path or not re.fullmatch(r"[\w.]+", path):
        raise argparse.ArgumentTypeError(
            f"{text!r}: write PATH=VALUE with a dotted scenario path, "
            "e.g. --set workload.training.0.days=30 (list items by index from 0)"
        )
    return path, value


def _field_at(path: str) -> FieldInfo | None:
    """The scenario field a dotted path names (list indices skipped), or None."""
    from pydantic import BaseModel

    from ..scenario import Scenario

    owner: Any = Scenario
    info = None
    for part in path.split("."):
        if part.isdigit():
            continue
        fields = getattr(owner, "model_fields", None)
        if not fields or part not in fields:
            return None
        info = fields[part]
        owner, todo = None, [info.annotation]
        while todo:  # the model inside list[...] or ... | None, if any
            a = todo.pop()
            if isinstance(a, type) and issubclass(a, BaseModel):
                owner = a
                break
            todo += typing.get_args(a)
    return info


def _set_number(path: str, text: str, value: Any) -> Any:
    """A number field's text (``2k``, ``70B``, ``500GB``) as the flags read it: counts
    refuse byte units; other text goes to the field's validation unchanged."""
    from ..core.section import Bytes, Quantity

    info = _field_at(path)
    if info is None or not isinstance(value, str):
        return value
    ann = _core(info.annotation)
    if ann is int or ann is Quantity:
        kind = "count"
    elif ann is float or ann is Bytes:
        kind = "any"
    else:
        return value
    try:
        return parse_number(value, path, kind=kind)
    except InputError as exc:
        if kind == "count" and exc.allowed == COUNT_NOT_BYTES:
            raise CliError(f"--set {path}={text}: {exc.allowed}") from None
        return value  # not a number: the field's validation says what it takes


def _apply_sets(scenario: Scenario, sets: Sequence[tuple[str, str]] | None) -> Scenario:
    """``scenario.with_changes`` for the ``--set`` pairs; a bad path or value is one
    :class:`CliError` naming the ``--set``, its value and what the field allows."""
    if not sets:
        return scenario
    changes = {path: _set_number(path, text, set_value(text)) for path, text in sets}
    typed = {path: text for path, text in sets}
    try:
        return scenario.with_changes(changes)
    except ScenarioError as exc:
        lines = []
        for where, msg in exc.problems:
            field = where.partition(" = ")[0]
            dotted = re.sub(r"\[(\d+)\]", r".\1", field)
            owner = next(
                (
                    p
                    for p in typed
                    if p == dotted or p.startswith(dotted + ".") or dotted.startswith(p + ".")
                ),
                None,
            )
            if owner is None:  # a rule over several fields: the message names them
                lines.append(f"--set: {field}: {msg}")
            else:
                lines.append(f"--set {owner}={typed[owner]}: {msg}")
        raise CliError("; ".join(lines)) from None


def _catalog(args: argparse.Namespace):
    return hubplan.load_catalog(**{what: getattr(args, f"{what}_csv") for what in CATALOG_TABLES})


def _named(exc: HubplanError, args: argparse.Namespace, flags: list[Flag]) -> HubplanError:
    """A catalogue error about a field the user gave as a flag names that flag."""
    text = str(exc)
    for f in flags:
        if getattr(args, f.dest, None) is not None and text.startswith(f"{f.field} = "):
            return CliError(f"{f.names[0]}: {text}")
    return exc


def _model_text(item, lang: str) -> str:
    if item.model is not None:
        return item.model
    params = item.params if item.params is not None else item.architecture.total_params
    return label("cli.custom_model", lang, params=params)


def cmd_size_training(args: argparse.Namespace) -> None:
    flags = args.flags
    scenario = _scenario(args)
    index = _pick(scenario.workload.training, args.job, "job")
    scenario, index = _item_scenario(scenario, "training", index, args, flags)
    catalog = _catalog(args)
    try:
        plan = hubplan.build_plan(scenario, catalog, until="workload")
    except HubplanError as exc:
        raise _named(exc, args, flags) from None
    job = scenario.workload.training[index]
    pool = scenario.pools.training
    mine = plan.findings[plan.findings["subject"] == job.name]
    if args.gpus is not None:
        # The workload stage sizes a job for its deadline; a fixed GPU count is the
        # inverse question, which no plan table answers: ask the public calculator.
        from ..core.findings import findings_frame
        from ..workload import training_on_gpus

        row, raw = training_on_gpus(job, pool, catalog, args.gpus)
        mine = findings_frame(raw)
    else:
        row = plan["training"].iloc[index].to_dict()
    layout = label(
        "cli.layout.training",
        args.lang,
        tp=job.tensor_parallel,
        pp=job.pipeline_parallel,
        zero=job.zero_stage,
    )
    results = {"cli.row.model": _model_text(job, args.lang), "cli.row.layout": layout, **row}
    inputs = {
        **job.model_dump(mode="json"),
        **pool.model_dump(mode="json"),
        "accelerator": row["accelerator"],
        "gpus_given": args.gpus,
    }
    shown = {k: v for k, v in results.items() if not k.startswith("cli.")}
    # JSON readers get ``days`` (time to finish on ``gpus``) beside the table's columns.
    json_results = {**shown, "model": job.model, "days": row["days_to_finish"]}
    if args.json:
        _emit(args, inputs, json_results, mine)
    else:
        _emit(args, inputs, results, mine)


def cmd_size_inference(args: argparse.Namespace) -> None:
    flags = args.flags
    scenario = _scenario(args)
    index = _pick(scenario.workload.inference, args.service, "service")
    scenario, index = _item_scenario(scenario, "inference", index, args, flags)
    catalog = _catalog(args)
    try:
        plan = hubplan.build_plan(scenario, catalog, until="workload")
    except HubplanError as exc:
        raise _named(exc, args, flags) from None
    service = scenario.workload.inference[index]
    pool = scenario.pools.inference
    row = plan["inference"].iloc[index].to_dict()
    mine = plan.findings[plan.findings["subject"] == service.name]
    tp = row.get("tensor_parallel")
    layout = (
        label("cli.layout.inference", args.lang, tp=int(tp))
        if tp == tp and tp is not None
        else label("cli.layout.none", args.lang)
    )
    inputs = {
        **service.model_dump(mode="json"),
        **pool.model_dump(mode="json"),
        "accelerator": row["accelerator"],
    }
    # The per-size alternatives are not a plan table: the token model lists them.
    from ..workload import inference_token_model

    options = inference_token_model(service, pool, catalog)
    extra = {"tensor_parallel_options": _records(options)}
    if args.json:
        _emit(args, inputs, {**row, "model": service.model}, mine, extra)
    else:
        results = {
            "cli.row.model": _model_text(service, args.lang),
            "cli.row.layout": layout,
            **row,
        }
        _emit(args, inputs, results, mine)


#: The catalogue tables, each with a ``--<table>-csv`` flag and a ``catalog <table>`` listing
#: (each named as ``load_catalog``'s argument).
CATALOG_TABLES = (
    "accelerators",
    "models",
    "servers",
    "switches",
    "storage",
    "failure_rates",
    "cloud",
)
#: The Catalog attribute of a table whose flag name differs (``--cloud-csv``).
_CATALOG_ATTRIBUTE = {"cloud": "cloud_offers"}
#: Tables ``catalog`` lists that are not a ``load_catalog`` argument: the price catalogue
#: (``data/prices.csv``; a client's prices go in the scenario's ``cost.quotes``) and the
#: grid emission factors (``data/grid_carbon.csv``), the acceptance figures measured on
#: real systems (``data/acceptance_measured.csv``) and NVIDIA's driver branches
#: (``data/driver_branches.csv``).
LISTED_ONLY = ("prices", "grid_carbon", "acceptance_measured", "driver_branches")

#: Columns the text listing shows per catalogue (--json gives every column).
_CATALOG_COLUMNS = {
    "accelerators": [
        "name",
        "vendor",
        "segment",
        "bf16_dense_tflops",
        "bf16_sparse_tflops",
        "int8_dense_tops",
        "vram_gb",
        "mem_bw_tb_s",
        "scaleup_kind",
        "tdp_w",
        "confidence",
    ],
    "models": [
        "name",
        "architecture",
        "total_params",
        "active_params",
        "layers",
        "hidden_size",
        "attention_heads",
        "kv_heads",
        "context_tokens",
    ],
    "servers": [
        "name",
        "accelerator",
        "gpus",
        "cpu_cores_total",
        "ram_gb",
        "compute_nics",
        "compute_nic_gbps",
        "pcie_gen",
        "confidence",
    ],
    "switches": [
        "name",
        "technology",
        "ports",
        "port_gbps",
        "rack_units",
        "max_power_kw",
        "typical_power_kw",
        "confidence",
    ],
    "storage": [
        "name",
        "role",
        "read_gb_s",
        "write_gb_s",
        "raw_tb",
        "nic_ports",
        "nic_gbps",
        "rack_units",
        "confidence",
    ],
    "failure_rates": ["name", "per", "per_million_hours", "events", "units", "hours", "confidence"],
    "cloud": [
        "name",
        "accelerator",
        "pricing",
        "price_per_gpu_hour",
        "currency",
        "usd_per_gpu_hour",
        "term_months",
        "price_date",
        "confidence",
    ],
    "grid_carbon": ["name", "kg_co2_per_kwh", "year", "as_of", "confidence"],
    "acceptance_measured": ["test", "subject", "value", "figure_unit", "as_of", "confidence"],
    "driver_branches": ["name", "branch_kind", "end_of_life", "as_of", "confidence"],
    "prices": [
        "item_kind",
        "name",
        "price_unit",
        "currency",
        "price",
        "price_low",
        "price_high",
        "price_as_of",
        "confidence",
    ],
}


def catalog_where(df, conditions: list[str], table: str):
    """The rows of a catalogue table whose column contains each given text, case-insensitive
    (``--where vendor=huawei --where accelerator=910B``): a consultant's filter, not a query
    language. A condition without ``=`` or naming no column of the table is refused with
    the columns it may name.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"name": ["Atlas 800T A2", "DGX H100"], "vendor": ["Huawei", "NVIDIA"]})
    >>> list(catalog_where(t, ["vendor=hua"], "servers")["name"])
    ['Atlas 800T A2']
    """
    for cond in conditions:
        column, sep, text = cond.partition("=")
        column = column.strip()
        if not sep or column not in df.columns:
            raise CliError(
                f"--where {cond!r}: write COLUMN=TEXT with a column of {table}: "
                f"{', '.join(map(str, df.columns))}"
            )
        values = df[column].astype(str).str.lower()
        df = df[values.str.contains(text.strip().lower(), regex=False).to_numpy()]
    return df


def cmd_catalog(args: argparse.Namespace) -> None:
    if args.table == "prices":
        from ..cost import price_table

        df = price_table().rename(columns={"unit": "price_unit"})
    else:
        df = getattr(_catalog(args), _CATALOG_ATTRIBUTE.get(args.table, args.table))
    df = catalog_where(df, args.where or [], args.table)
    if args.json:
        print(_dumps(_records(df)))
        return
    shown = df[_CATALOG_COLUMNS[args.table]]
    if args.table == "failure_rates":  # a rate's name is the component it counts (GPU, 网卡)
        shown = shown.rename(columns={"name": "failure_component"})
    print(_table(shown, args.lang))


def cmd_compare(args: argparse.Namespace) -> None:
    """Without SCENARIO files: candidate accelerators within one scenario (``--candidates``
    ...). With them: the scenarios' headline figures side by side."""
    if args.scenarios:
        _compare_scenarios(args)
        return
    flags = args.flags
    scenario = _scenario(args)
    changes = {f"accelerator.{k}": v for k, v in _given(args, flags, "selection").items()}
    if changes:
        try:
            scenario = scenario.with_changes(changes)
        except ScenarioError as exc:
            raise _flag_error(exc, flags) from None
    try:
        plan = hubplan.build_plan(scenario, _catalog(args), until="accelerator")
    except HubplanError as exc:
        raise _named(exc, args, flags) from None
    table = plan["candidates"]
    f = plan.findings
    shown = f[(f["stage"] == "accelerator") | (f["severity"] == "error")]
    if args.json:
        print(
            _dumps(
                {
                    "candidates": _records(table),
                    "compute_claims": _records(plan["compute_claims"]),
                    "findings": _records(_findings(f, args.lang)),
                }
            )
        )
    else:
        cols = [
            "workload",
            "rank",
            "candidate",
            "gpus",
            "binding",
            "capex_usd",
            "power_kw",
            "interconnect",
        ]
        print(_table(table.sort_values(["workload", "rank"])[cols], args.lang))
        _print_findings(shown, args.lang)
    _finish(f, args.lang)


#: The rows of ``hubplan compare a.yaml b.yaml``: (Plan.headline() key, label key).
COMPARE_ROWS = (
    ("gpus", "total_gpus"),
    ("servers", "total_servers"),
    ("racks", "overview.racks"),
    ("it_mw", "overview.it_mw"),
    ("facility_mw", "overview.facility_mw"),
    ("capex_usd", "xlsx.capex_total"),
    ("capex_unpriced_lines", "capex_unpriced_lines"),
    ("opex_usd_per_year", "opex_usd_per_year"),
    ("opex_unpriced_lines", "opex_unpriced_lines"),
    ("cost_per_useful_gpu_hour_usd", "cost_per_useful_gpu_hour_usd"),
    ("breakeven_month", "breakeven_month"),
    ("errors", "xlsx.errors"),
    ("warnings", "xlsx.warnings"),
    ("infos", "cli.info_findings"),
)


def _figure_text(key: str, label_key: str, value: Any, lang: str, basis: str = "") -> str:
    if key == "breakeven_month" and basis == "no_offer":  # nothing to compare: not "never"
        return label("choice.cloud_basis.no_offer", lang)
    if isinstance(value, float) and math.isinf(value):
        return label("overview.never", lang) if key == "breakeven_month" else "∞"
    if key in ("it_mw", "facility_mw"):
        return f"{value:,.2f}"
    return format_value(label_key, value)


def _compare_scenarios(args: argparse.Namespace) -> None:
    """``hubplan compare a.yaml b.yaml [c.yaml ...]``: every scenario's whole plan, its
    headline figures (:meth:`hubplan.Plan.headline`) one column per scenario. One file
    with ``--set``: that file before and after the changes."""
    from ..scenario import load_scenario

    given = [f.names[0] for f in args.flags if getattr(args, f.dest, None) is not None]
    if given:
        raise CliError(
            f"{given[0]}: compares accelerators within one scenario (hubplan "
            f"compare --scenario FILE {given[0]} ...), not with SCENARIO files; "
            "change a scenario file's field with --set PATH=VALUE"
        )
    if args.scenario:
        raise CliError(
            "--scenario: give the scenarios to compare as SCENARIO files "
            "(hubplan compare a.yaml b.yaml), not with --scenario"
        )
    if len(args.scenarios) == 1 and not args.set:
        raise CliError(
            f"compare {args.scenarios[0]}: give two or more SCENARIO files, "
            "or one with --set PATH=VALUE to see it before and after the "
            "change"
        )
    runs: list[tuple[str, str, Scenario, dict[str, str]]] = []
    sets = dict(args.set or [])
    for path in args.scenarios:
        scenario = load_scenario(path)
        if len(args.scenarios) == 1:
            runs.append((scenario.name, path, scenario, {}))
            name = label("cli.compare.changed", args.lang, name=scenario.name)
            runs.append((name, path, _apply_sets(scenario, args.set), sets))
        else:
            runs.append((scenario.name, path, _apply_sets(scenario, args.set), sets))
    names = [r[0] for r in runs]
    for i, (name, path, scenario, changed) in enumerate(runs):
        if names.count(name) > 1:  # two files with one scenario name: tell them apart
            runs[i] = (f"{name} ({path})", path, scenario, changed)
    catalog = _catalog(args)
    plans = [hubplan.build_plan(scenario, catalog) for _, _, scenario, _ in runs]
    heads = [plan.headline() for plan in plans]
    if args.json:
        print(
            _dumps(
                {
                    "scenarios": [{"name": n, "file": f, "set": c} for n, f, _, c in runs],
                    "figures": [
                        {
                            "figure": key,
                            "label": label(lab, args.lang),
                            "unit": unit(lab),
                            "values": [h[key] for h in heads],
                        }
                        for key, lab in COMPARE_ROWS
                    ],
                }
            )
        )
    else:
        header = [
            label("cli.compare.figure", args.lang),
            label("cli.compare.unit", args.lang),
            *(r[0] for r in runs),
        ]
        rows = [header]
        for key, lab in COMPARE_ROWS:
            rows.append(
                [
                    label(lab, args.lang),
                    unit(lab),
                    *(_figure_text(key, lab, h[key], args.lang, h["cloud_basis"]) for h in heads),
                ]
            )
        widths = [max(_width(r[i]) for r in rows) for i in range(len(header))]
        for r in rows:
            cells = [
                c + " " * (w - _width(c)) if i < 2 else " " * (w - _width(c)) + c
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            print("  ".join(cells).rstrip())
    for (name, *_), plan in zip(runs, plans, strict=True):
        try:
            _finish(plan.findings, args.lang)
        except PlanHasErrors as exc:
            raise PlanHasErrors(f"{name}: {exc}") from None


def _print_capex(plan, lang: str) -> None:
    """The capex lines: equipment, quantity, unit price and line total; a line with no
    price says so in both price cells (it is left out of the total, not counted as 0)."""
    capex = plan["cost_capex"]
    cols = {
        "category": "category",
        "item": "item",
        "line_quantity": "line_quantity",
        "line_unit": "cli.line_unit",
        "line_unit_usd": "line_unit_usd",
        "capex_usd": "cli.line_total_usd",
    }
    lines = capex[list(cols)].rename(columns=cols)
    # A line priced as a whole (fit-out, installation, network spares) is named by its
    # category code: show the category's label.
    lines["item"] = [
        label(f"choice.category.{i}", lang) if i == c else i
        for i, c in zip(lines["item"], lines["category"], strict=True)
    ]
    shown = display_frame(lines, lang)
    unpriced = ~capex["priced"].to_numpy(dtype=bool)
    marker = label("cli.unpriced", lang)
    price, total = shown.columns[-2], shown.columns[-1]
    shown.loc[unpriced, total] = marker
    shown.loc[unpriced & (shown[price] == "").to_numpy(), price] = marker
    print(label("cli.capex_lines", lang))
    print(_table_text(shown))
    summary = plan["cost_summary"].iloc[0]
    n = int(summary["capex_unpriced_lines"])
    if n:
        print(
            label(
                "cli.capex_total", lang, total=format_value("capex_usd", summary["capex_usd"]), n=n
            )
        )
    else:  # a complete bill: its point and its range over the prices' low and high ends
        print(
            label(
                "cli.capex_complete",
                lang,
                total=format_value("capex_usd", summary["capex_point_usd"]),
                low=format_value("capex_usd", summary["capex_low_usd"]),
                high=format_value("capex_usd", summary["capex_high_usd"]),
            )
        )


def _headlines(plan, lang: str) -> list[dict[str, Any]]:
    from ..export import headline_figures

    rows = []
    for r in headline_figures(plan).to_dict(orient="records"):
        u = unit(r["figure"])
        text = (
            label(f"choice.cloud_basis.{r['value']}", lang)
            if r["figure"] == "cloud_basis"
            else format_value(r["figure"], r["value"])
        )
        rows.append(
            {
                "figure": label(r["figure"], lang),
                "subject": r["subject"],
                "value": r["value"],
                "unit": u,
                "text": text,
            }
        )
    return rows


def cmd_plan(args: argparse.Namespace) -> None:
    if args.scenario_file and args.scenario:
        raise CliError("give the scenario once: as SCENARIO or as --scenario FILE")
    if args.scenario_file:
        args.scenario = args.scenario_file
    plan = hubplan.build_plan(_scenario(args), _catalog(args))
    from ..export import write_appendix, write_netbox, write_scheduler_files

    files: dict[str, str] = {}
    if args.xlsx:
        files["xlsx"] = str(write_appendix(plan, args.xlsx, args.lang, style=args.xlsx_style))
    if args.netbox:
        for name, path in write_netbox(plan, args.netbox).items():
            files[f"netbox.{name}"] = str(path)
    if args.slurm:
        for path in write_scheduler_files(plan, args.slurm):
            files[f"scheduler.{path.name}"] = str(path)
    if args.json:
        payload: dict[str, Any] = {name: _records(df) for name, df in plan.tables.items()}
        payload["findings"] = _records(_findings(plan.findings, args.lang))
        payload["headline"] = _headlines(plan, args.lang)
        payload["files"] = files
        print(_dumps(payload))
    else:
        print(plan.scenario.name)
        for h in _headlines(plan, args.lang):
            what = f"{h['figure']} ({h['subject']})" if h["subject"] else h["figure"]
            print(f"  {what}: {h['text']}{' ' + h['unit'] if h['unit'] else ''}")
        print(_table(plan["pools"], args.lang))
        _print_capex(plan, args.lang)
        _print_findings(plan.findings, args.lang)
        if "xlsx" in files:
            print(label("cli.wrote_xlsx", args.lang, path=files["xlsx"]))
        if args.netbox:
            n = sum(k.startswith("netbox.") for k in files)
            print(label("cli.wrote_netbox", args.lang, n=n, path=str(args.netbox)))
        if args.slurm:
            n = sum(k.startswith("scheduler.") for k in files)
            print(label("cli.wrote_scheduler", args.lang, n=n, path=str(args.slurm)))
    _finish(plan.findings, args.lang)


# -- parser --------------------------------------------------------------------------------


class _Formatter(argparse.HelpFormatter):
    lang = "en"

    def add_usage(self, usage, actions, groups, prefix=None):  # type: ignore[override]
        if prefix is None:
            prefix = label("cli.usage", self.lang)
        return super().add_usage(usage, actions, groups, prefix)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2 (no usage dump), and
    its own words (usage, group titles, errors) follow ``--lang``."""

    lang = "en"

    def __init__(self, *a, **kw):
        lang = kw.pop("lang", "en")
        formatter = type("Formatter", (_Formatter,), {"lang": lang})
        super().__init__(*a, formatter_class=formatter, add_help=False, **kw)
        self.lang = lang
        self._positionals.title = label("cli.positionals", lang)
        self._optionals.title = label("cli.options", lang)
        self.add_argument(
            "-h", "--help", action="help", default=argparse.SUPPRESS, help=label("help.help", lang)
        )

    def error(self, message: str) -> typing.NoReturn:  # type: ignore[override]
        text = translate(message, self.lang)
        print(
            f"{self.prog}: {label('cli.error', self.lang)}: {text} "
            f"({label('cli.see_help', self.lang)})",
            file=sys.stderr,
        )
        raise SystemExit(2)


def _common(p: argparse.ArgumentParser, lang: str) -> None:
    p.add_argument("--scenario", metavar="FILE", help=label("help.scenario", lang))
    p.add_argument("--json", action="store_true", help=label("help.json", lang))
    p.add_argument("--lang", default="en", choices=["en", "zh"], help=label("help.lang", lang))
    for what in CATALOG_TABLES:
        p.add_argument(
            f"--{what.replace('_', '-')}-csv", metavar="FILE", help=label(f"help.{what}_csv", lang)
        )


def _set_flag(p: argparse.ArgumentParser, lang: str) -> None:
    p.add_argument(
        "--set",
        action="append",
        type=parse_set,
        metavar="PATH=VALUE",
        help=label("help.set", lang).replace("%", "%%"),
    )


def _size_parser(size, kind: str, lang: str) -> None:
    p = size.add_parser(
        kind,
        help=label(f"cli.size.{kind}", lang),
        description=label(f"cli.size.{kind}", lang),
        lang=lang,
    )
    _common(p, lang)
    _set_flag(p, lang)
    pick = "job" if kind == "training" else "service"
    p.add_argument(f"--{pick}", help=label(f"help.{pick}", lang))
    flags = _flags(kind)
    for flag in flags:
        _add_flag(p, flag, lang, kind)
    if kind == "training":
        by = {f.field: f for f in flags}
        data = p.add_mutually_exclusive_group()
        for field in ("tokens", "data_bytes"):
            from ..core.section import Quantity

            ann = _core(by[field].info.annotation)
            parse = _number_type(
                by[field].names[0], "count" if ann is Quantity else "any", False, lang
            )
            data.add_argument(
                *by[field].names,
                dest=by[field].dest,
                type=parse,
                metavar=field.upper(),
                help=_help(field, by[field].info, lang),
            )
        solve = p.add_mutually_exclusive_group()
        solve.add_argument(
            "--days",
            dest=by["days"].dest,
            metavar="DAYS",
            type=_number_type("--days", "any", False, lang),
            help=_help("days", by["days"].info, lang),
        )
        solve.add_argument(
            "--gpus",
            metavar="GPUS",
            type=_number_type("--gpus", "count", True, lang),
            help=label("help.gpus", lang),
        )
    p.set_defaults(
        func=cmd_size_training if kind == "training" else cmd_size_inference, flags=flags
    )


#: The commands, and the sub-commands of ``size``.
COMMANDS = ("size", "catalog", "compare", "plan")
SIZE_KINDS = ("training", "inference")


def build_parser(lang: str = "en", only: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``hubplan`` parser in ``lang``.

    ``only`` names the command a line asks for (``("size", "training")``, ``("plan",)``,
    ``()`` for none): that command gets its whole parser, every other one a help line
    only, so ``hubplan --help`` derives no flags from the section models and loads no
    pandas. ``None`` (the default) builds every command in full.
    """

    def full(*path: str) -> bool:
        return only is None or tuple(only[: len(path)]) == path

    parser = _Parser(prog="hubplan", description=label("cli.description", lang), lang=lang)
    title = label("cli.commands", lang)
    sub = parser.add_subparsers(dest="command", required=True, title=title, parser_class=_Parser)

    size_p = sub.add_parser("size", help=label("cli.size", lang), lang=lang)
    size = size_p.add_subparsers(
        dest="what", required=True, title=label("cli.commands", lang), parser_class=_Parser
    )
    for kind in SIZE_KINDS:
        if full("size", kind):
            _size_parser(size, kind, lang)
        else:
            size.add_parser(kind, help=label(f"cli.size.{kind}", lang), lang=lang)

    cat = sub.add_parser("catalog", help=label("cli.catalog", lang), lang=lang)
    if full("catalog"):
        cat.add_argument(
            "table", choices=[*CATALOG_TABLES, *LISTED_ONLY], help=label("help.table", lang)
        )
        cat.add_argument(
            "--where", action="append", metavar="COLUMN=TEXT", help=label("help.where", lang)
        )
        _common(cat, lang)
        cat.set_defaults(func=cmd_catalog, flags=[])

    cmp_ = sub.add_parser(
        "compare",
        help=label("cli.compare", lang),
        description=label("cli.compare.description", lang),
        lang=lang,
    )
    if full("compare"):
        cmp_.add_argument(
            "scenarios", nargs="*", metavar="SCENARIO", help=label("help.compare_scenarios", lang)
        )
        _common(cmp_, lang)
        _set_flag(cmp_, lang)
        flags = _flags("compare")
        for flag in flags:
            _add_flag(cmp_, flag, lang, "compare")
        cmp_.set_defaults(func=cmd_compare, flags=flags)

    pl = sub.add_parser("plan", help=label("cli.plan", lang), lang=lang)
    if full("plan"):
        pl.add_argument(
            "scenario_file", nargs="?", metavar="SCENARIO", help=label("help.scenario", lang)
        )
        _common(pl, lang)
        _set_flag(pl, lang)
        pl.add_argument("--xlsx", metavar="OUT", help=label("help.xlsx", lang))
        pl.add_argument("--xlsx-style", metavar="FILE", help=label("help.xlsx_style", lang))
        pl.add_argument("--netbox", metavar="DIR", help=label("help.netbox", lang))
        pl.add_argument("--slurm", metavar="DIR", help=label("help.slurm", lang))
        pl.set_defaults(func=cmd_plan, flags=[])
    return parser


def _wanted(argv: Sequence[str]) -> tuple[str, ...]:
    """The command (and ``size``'s sub-command) a command line asks for: the first
    words, as argparse reads them (the top level and ``size`` take no other words)."""
    words = [a for a in argv if not a.startswith("-")][:2]
    if not words or words[0] not in COMMANDS:
        return ()
    return tuple(words) if words[0] == "size" else (words[0],)


# -- language of fixed text ----------------------------------------------------------------


def _language(argv: Sequence[str]) -> str:
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return "zh" if argv[i + 1] == "zh" else "en"
        if arg.startswith("--lang="):
            return "zh" if arg.split("=", 1)[1] == "zh" else "en"
    return "en"


_NEGATIVE = re.compile(r"^-(\d|\.\d)")


def _join_negatives(argv: Sequence[str]) -> list[str]:
    """``--params -70B`` → ``--params=-70B``: argparse would read -70B as a flag."""
    out: list[str] = []
    for arg in argv:
        if out and _NEGATIVE.match(arg) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = _language(argv)
    parser = build_parser(lang, only=_wanted(argv))
    args = parser.parse_args(_join_negatives(argv))
    try:
        args.func(args)
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except PlanHasErrors as exc:
        print(f"hubplan: {exc}", file=sys.stderr)
        return 1
    except HubplanError as exc:
        text = error_text(exc, lang)
        one_line = "; ".join(line.strip() for line in text.splitlines() if line.strip())
        print(f"hubplan: {label('cli.error', lang)}: {one_line}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file hubplan did not expect to fail: one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"hubplan: {label('cli.error', lang)}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0
