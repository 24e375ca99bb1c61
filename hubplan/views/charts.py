"""Altair charts of Plan tables. Charts read tables; they never compute (docs/architecture.md).

Every title and axis comes from the label catalogue, in English or Chinese. Charts are
tested through ``chart.to_dict()`` (fields, encodings, titles), not pixels.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

import altair as alt
import anywidget
import numpy as np
import pandas as pd
import traitlets

from ..core.labels import label, normalize_language

#: CJK-capable fonts in order of preference: Windows, macOS, Debian (fonts-noto-cjk).
FONT = "Microsoft YaHei, PingFang SC, Noto Sans CJK SC, sans-serif"


@cache
def enable_offline() -> None:
    """Render charts in Jupyter with no internet.

    altair's default renderer loads Vega from a CDN and JupyterLab 4 has no Vega-Lite 6
    renderer; charts draw with vl-convert's bundled Vega instead, shipped to the page once
    per kernel (:class:`LiveChart`). A bare altair chart left as a cell's value is shown
    as a :class:`LiveChart` too (the ``hubplan`` renderer).
    """
    alt.JupyterChart.enable_offline()
    alt.renderers.register("hubplan", _live_renderer)
    alt.renderers.enable("hubplan")


# -- Live charts: the Vega bundle once per kernel -------------------------------------------
#
# An offline ``alt.JupyterChart`` carries vega-embed + Vega + Vega-Lite (~0.9 MB of
# JavaScript) in its ``_esm`` trait, so every chart model sends the bundle to the page again
# and the page evaluates it again (anywidget shares a module only when ``_esm`` is an
# http(s) URL). A LiveChart's ``_esm`` is a few lines that wait for the bundle on a
# page-global registry; one hidden VegaLoader widget per kernel sends the bundle and its
# ``initialize`` (run by anywidget when the model is created, with or without a view)
# imports it once and fills the registry. Entries are keyed by the bundle's hash: several
# kernels (notebooks) in one JupyterLab page share ``globalThis``, and a kernel with another
# altair/vl-convert must not draw with a different Vega.

#: Page-global registry, one deferred module per bundle key; whichever of a chart's
#: ``render`` and the loader's ``initialize`` runs first creates the entry.
_REGISTRY_JS = """
function vegaEntry(key) {
  const all = (globalThis.__hubplanVega ??= {});
  if (!all[key]) {
    const entry = { loading: false };
    entry.promise = new Promise((resolve, reject) => {
      entry.resolve = resolve;
      entry.reject = reject;
    });
    entry.promise.catch(() => {});  // reported by the loader and by each chart
    all[key] = entry;
  }
  return all[key];
}
"""

_LOADER_JS = """
export default {
  initialize({ model }) {
    const entry = vegaEntry(model.get("key"));
    if (entry.loading) return;  // another kernel on this page brought the same bundle
    entry.loading = true;
    const url = URL.createObjectURL(
      new Blob([model.get("bundle")], { type: "text/javascript" }));
    import(url)
      .then(entry.resolve, (error) => {
        console.error("[hubplan] the chart bundle did not load", error);
        entry.reject(error);
      })
      .finally(() => URL.revokeObjectURL(url));
  },
};
"""

#: How long a chart waits quietly for its bundle before saying so in its place [ms].
WAIT_NOTE_MS = 10_000

_CHART_JS = """
export default {
  async render(ctx) {
    const { model, el } = ctx;
    el.classList.add("hubplan-chart");
    const entry = vegaEntry(model.get("_vega_key"));
    const notes = model.get("_vega_notes");
    const note = setTimeout(() => {
      el.textContent = notes.waiting;
    }, WAIT_NOTE_MS);
    let vega;
    try {
      vega = await entry.promise;
    } catch (error) {
      el.textContent = notes.failed.replaceAll("{error}", String(error));
      return;
    } finally {
      clearTimeout(note);
    }
    el.textContent = "";
    return vega.default.render(ctx);
  },
};
""".replace("WAIT_NOTE_MS", str(WAIT_NOTE_MS))


@cache
def vega_bundle() -> str:
    """vl-convert's JavaScript bundle of altair's chart widget (vega-embed, Vega, Vega-Lite)."""
    alt.JupyterChart.enable_offline()
    return str(alt.JupyterChart._esm)


def bundle_key(bundle: str) -> str:
    """Registry key of a bundle on the page: its SHA-256, shortened to 16 hex digits.

    >>> bundle_key("export default {};")
    'vega-9f085b1079ab38f7'
    """
    return "vega-" + hashlib.sha256(bundle.encode()).hexdigest()[:16]


class VegaLoader(anywidget.AnyWidget):
    """Carries the Vega bundle to the page once per kernel; never displayed.

    Use :func:`vega_loader`, which keeps one per kernel.
    """

    _esm = _REGISTRY_JS + _LOADER_JS
    key = traitlets.Unicode().tag(sync=True)
    bundle = traitlets.Unicode().tag(sync=True)


_loader: dict[str, VegaLoader] = {}


def vega_loader() -> VegaLoader:
    """This kernel's :class:`VegaLoader`, created on first use (again once closed)."""
    loader = _loader.get("live")
    if loader is None or loader.comm is None:
        bundle = vega_bundle()
        loader = _loader["live"] = VegaLoader(key=bundle_key(bundle), bundle=bundle)
    return loader


@cache
def _vega_notes() -> dict[str, str]:
    # The chart does not know its panel's language: both, English first.
    return {
        note: f"{label(f'chart.vega_{note}', 'en')} / {label(f'chart.vega_{note}', 'zh')}"
        for note in ("waiting", "failed")
    }


class LiveChart(alt.JupyterChart):
    """``alt.JupyterChart`` that draws with the kernel's shared Vega bundle.

    A drop-in for ``alt.JupyterChart(chart)``: same constructor, and ``.chart`` and
    ``.spec`` behave the same. Its JavaScript is a stub of about 1 kB; the bundle
    reaches the page once per kernel through :func:`vega_loader`, which the first LiveChart
    creates (so its model reaches the page before any chart's). Always offline.
    """

    _esm = _REGISTRY_JS + _CHART_JS
    #: :func:`bundle_key` of the bundle this chart draws with.
    _vega_key = traitlets.Unicode().tag(sync=True)
    #: What the chart's place says while it waits for the bundle or when it failed.
    _vega_notes = traitlets.Dict().tag(sync=True)

    def __init__(self, chart: alt.TopLevelMixin, *args: Any, **kwargs: Any) -> None:
        kwargs["_vega_key"] = vega_loader().key
        kwargs["_vega_notes"] = _vega_notes()
        super().__init__(chart, *args, **kwargs)

    @classmethod
    def enable_offline(cls, offline: bool = True) -> None:
        """A LiveChart is always offline; its JavaScript never changes."""


def _live_renderer(spec: dict[str, Any], **metadata: Any) -> Any:
    """altair renderer: a chart left as a cell's value becomes a :class:`LiveChart`."""
    chart = LiveChart(alt.Chart.from_dict(spec), embed_options=metadata.get("embed_options"))
    return chart._repr_mimebundle_()


def records(df: pd.DataFrame) -> list[dict]:
    """A table's rows as JSON-safe dicts, as altair inlines a DataFrame (NaN → null)."""
    return alt.utils.sanitize_pandas_dataframe(df).to_dict(orient="records")


@lru_cache(maxsize=128)
def _structure(build: Callable[..., alt.TopLevelMixin], shape: tuple) -> dict:
    return build(*shape).to_dict()  # validated against the Vega-Lite schema, once


@dataclass(frozen=True)
class SplitChart:
    """A chart as its structure and its data, so a live panel can re-show it cheaply.

    Building an altair chart and validating its Vega-Lite spec costs 15-40 ms, the
    larger part of a dashboard update; a control change usually moves only the data.
    ``build(*shape)`` makes the chart with named data sources (``alt.NamedData``) and
    depends only on ``shape`` (language, job name, axis type: hashable); ``datasets``
    fills those sources. :meth:`spec` validates the structure once per shape and adds
    the rows; :meth:`chart` is the same chart as an altair object.

    >>> import pandas as pd
    >>> def build(lang):
    ...     return alt.Chart(alt.NamedData("t")).mark_bar().encode(x="a:N", y="b:Q")
    >>> s = SplitChart(build, ("en",), {"t": pd.DataFrame({"a": ["x"], "b": [1.0]})})
    >>> s.spec()["datasets"], s.spec()["data"]
    ({'t': [{'a': 'x', 'b': 1.0}]}, {'name': 't'})
    >>> s.chart().to_dict()["datasets"] == s.spec()["datasets"]
    True
    """

    build: Callable[..., alt.TopLevelMixin]
    shape: tuple[Hashable, ...]
    datasets: dict[str, pd.DataFrame] = field(default_factory=dict)

    def _rows(self) -> dict[str, list[dict]]:
        return {name: records(df) for name, df in self.datasets.items()}

    def spec(self) -> dict:
        """The Vega-Lite spec: the cached, validated structure with this data."""
        return {**_structure(self.build, self.shape), "datasets": self._rows()}

    def chart(self) -> alt.TopLevelMixin:
        """The chart as an altair object (built and validated anew)."""
        return self.build(*self.shape).properties(datasets=self._rows())


def show_split(widget: alt.JupyterChart, split: SplitChart) -> None:
    """Show ``split`` in a JupyterChart by setting its Vega-Lite ``spec``: no altair build
    and no schema validation when the structure was seen before. The widget's ``chart``
    becomes None (it shows a spec, not an altair object; :meth:`SplitChart.chart` makes
    one); the browser gets one message."""
    with widget.hold_sync():
        widget.chart = None
        widget.spec = split.spec()


# -- Coded values: colour and order by the code, words in the language ---------------------
#
# A chart that colours, stacks or orders by a translated label gives each item another
# colour and place when the language changes (the labels sort differently). Charts encode
# the stable code with an explicit domain and show the label through ``labelExpr`` and a
# ``*_label`` tooltip field, so English and 中文 draw the same picture.


def choice(prefix: str, code: str, lang: str) -> str:
    """The label of a coded value, ``<prefix>.<code>`` in the catalogue, or the code
    itself when the vocabulary has none.

    >>> choice("choice.cooling_mode", "liquid", "zh"), choice("status", "no-such", "zh")
    ('冷板液冷', 'no-such')
    """
    try:
        return label(f"{prefix}.{code}", lang)
    except KeyError:
        return code


def names_of(codes: Iterable[str], prefix: str, lang: str) -> dict[str, str]:
    """Code → its label in ``lang`` (:func:`choice`), codes in the order first seen.

    >>> names_of(["air", "liquid", "air"], "choice.cooling_mode", "en")
    {'air': 'air', 'liquid': 'direct liquid'}
    """
    return {c: choice(prefix, c, lang) for c in dict.fromkeys(str(c) for c in codes)}


def label_expr(names: Mapping[str, str]) -> str:
    """A Vega expression that shows a legend or axis entry (a code) as its label; a code
    missing from ``names`` shows as itself.

    >>> label_expr({"air": "风冷"})
    '({"air": "风冷"})[datum.label] || datum.label'
    """
    return f"({json.dumps(dict(names), ensure_ascii=False)})[datum.label] || datum.label"


def coded_color(
    field: str,
    names: Mapping[str, str],
    title: str,
    order: Iterable[str] | None = None,
    scale: Mapping[str, Any] | None = None,
    legend: Mapping[str, Any] | None = None,
) -> Any:
    """A colour encoding of the code ``field``.

    The domain is ``order`` when the codes have a natural order (curves, phases, tiers),
    else the sorted codes: the same in every language, so each item keeps its colour and
    place. The legend shows ``names[code]``. More than ten categories take the 20-colour
    scheme, so no two share a colour.

    >>> enc = coded_color("mode", {"liquid": "冷板液冷", "air": "风冷"}, "制冷").to_dict()
    >>> enc["scale"]["domain"], enc["legend"]["labelExpr"]
    (['air', 'liquid'], '({"liquid": "冷板液冷", "air": "风冷"})[datum.label] || datum.label')
    """
    domain = list(order) if order is not None else sorted(names)
    extra = dict(scale or {})
    if len(domain) > 10 and "range" not in extra:
        extra.setdefault("scheme", "tableau20")
    shown = alt.Legend(labelExpr=label_expr(names), **dict(legend or {}))
    return alt.Color(
        f"{field}:N", title=title, scale=alt.Scale(domain=domain, **extra), legend=shown
    )


def _style(chart: alt.TopLevelMixin, width: int = 520, height: int = 300) -> alt.TopLevelMixin:
    return chart.properties(width=width, height=height).configure(font=FONT)


def gpus_vs_deadline(
    curve: pd.DataFrame, training: pd.DataFrame, lang: str = "en", job: str | None = None
) -> alt.LayerChart:
    """GPUs needed against the deadline: compute-bound and memory-bound curves, the
    whole-server count, and the scenario's chosen point.

    Parameters
    ----------
    curve : DataFrame
        The Plan's ``training_curve`` table.
    training : DataFrame
        The Plan's ``training`` table (the chosen point).
    job : str, optional
        Which job; default the first.
    """
    return gpus_vs_deadline_split(curve, training, lang, job).chart()


_CURVES = ("compute_bound_gpus", "memory_bound_gpus", "gpus")


def gpus_vs_deadline_split(
    curve: pd.DataFrame, training: pd.DataFrame, lang: str = "en", job: str | None = None
) -> SplitChart:
    """:func:`gpus_vs_deadline` as a :class:`SplitChart`."""
    lang = normalize_language(lang)
    job = job if job is not None else str(training["job"].iloc[0])
    pick = curve[curve["job"] == job]
    chosen = training[training["job"] == job].iloc[0]
    series = {key: label(key, lang) for key in _CURVES}
    long = pick.melt(
        id_vars="deadline_days", value_vars=list(series), var_name="series", value_name="value"
    )
    long["series_label"] = long["series"].map(series)  # coloured by the code
    point = pd.DataFrame(
        [
            {
                "deadline_days": float(chosen["deadline_days"]),
                "value": int(chosen["gpus"]),
                "what": f"{label('chart.chosen', lang)}: {int(chosen['gpus'])} GPU",
            }
        ]
    )
    return SplitChart(_gpus_vs_deadline, (lang, job), {"curves": long, "chosen": point})


def _gpus_vs_deadline(lang: str, job: str) -> alt.LayerChart:
    names = {key: label(key, lang) for key in _CURVES}
    x = alt.X("deadline_days:Q", title=f"{label('chart.gpus_vs_days.x', lang)} [d]")
    y = alt.Y("value:Q", title=label("chart.gpus_vs_days.y", lang))
    lines = (
        alt.Chart(alt.NamedData("curves"))
        .mark_line()
        .encode(
            x=x,
            y=y,
            # Legend below the plot: at the right it is clipped when the panel is narrow.
            color=coded_color(
                "series",
                names,
                label("chart.curve", lang),
                order=_CURVES,
                legend=dict(orient="bottom", labelLimit=400),
            ),
            strokeDash=alt.StrokeDash("series:N", legend=None, scale=alt.Scale(domain=_CURVES)),
            tooltip=[
                alt.Tooltip("deadline_days:Q", format=".1f"),
                alt.Tooltip("series_label:N", title=label("chart.curve", lang)),
                "value:Q",
            ],
        )
    )
    chosen = alt.Chart(alt.NamedData("chosen"))
    point = chosen.mark_point(size=140, filled=True, color="black").encode(
        x="deadline_days:Q", y="value:Q", tooltip=["what:N"]
    )
    rule = chosen.mark_rule(strokeDash=[4, 4], color="gray").encode(x="deadline_days:Q")
    text = point.mark_text(align="left", dx=8, dy=-8).encode(text="what:N")
    chart = alt.layer(lines, rule, point, text).properties(
        title=f"{label('chart.gpus_vs_days.title', lang)} — {job}"
    )
    return _style(chart, width=440, height=260)


def pool_gpus(pools: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """GPUs per pool, working and spare stacked, from the Plan's ``pools`` table."""
    return pool_gpus_split(pools, lang).chart()


def pool_gpus_split(pools: pd.DataFrame, lang: str = "en") -> SplitChart:
    """:func:`pool_gpus` as a :class:`SplitChart`."""
    lang = normalize_language(lang)
    rows = pools[pools["level"] == "pool"]
    long = pd.concat(
        [
            rows.assign(part="working", value=rows["servers"] * rows["gpus_per_server"]),
            rows.assign(part="spare", value=rows["spare_servers"] * rows["gpus_per_server"]),
        ]
    )[["pool", "accelerator", "server", "part", "value"]]
    long["part_label"] = [label(f"chart.{p}", lang) for p in long["part"]]
    return SplitChart(_pool_gpus, (lang,), {"pools": long})


#: Stacking order of a pool's bar, bottom up: the working GPUs, then the spares.
_PARTS = ("working", "spare")


def _pool_gpus(lang: str) -> alt.Chart:
    names = {p: label(f"chart.{p}", lang) for p in _PARTS}
    chart = (
        alt.Chart(alt.NamedData("pools"))
        .mark_bar()
        .encode(
            x=alt.X("pool:N", title=label("pool", lang), sort=None),
            y=alt.Y("sum(value):Q", title=label("gpus", lang)),
            color=coded_color("part", names, "", order=_PARTS),
            # by the code: "working" > "spare", so the working GPUs stack at the bottom
            order=alt.Order("part:N", sort="descending"),
            tooltip=[
                "pool:N",
                "accelerator:N",
                "server:N",
                alt.Tooltip("part_label:N", title=""),
                "value:Q",
            ],
        )
        .properties(title=label("chart.pools.title", lang))
    )
    return _style(chart, width=320, height=260)


def compute_claims(claims: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """The TOPS trap: each candidate's headline figure beside the dense BF16 that training
    uses, from the Plan's ``compute_claims`` table."""
    lang = normalize_language(lang)
    figures = ("bf16_dense_tflops", "marketing_figure")  # the one training uses first
    names = {f: label(f, lang) for f in figures}
    long = pd.concat(
        [
            claims.assign(figure=figures[0], value=claims["bf16_dense_tflops"], basis="BF16 dense"),
            claims.assign(
                figure=figures[1], value=claims["marketing_figure"], basis=claims["marketing_basis"]
            ),
        ]
    ).dropna(subset=["value"])[["candidate", "figure", "value", "basis"]]
    long["figure_label"] = long["figure"].map(names)
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("candidate:N", title=label("candidate", lang), sort=None),
            yOffset=alt.YOffset("figure:N", sort=list(figures)),
            x=alt.X("value:Q", title="TFLOPS / TOPS"),
            color=coded_color("figure", names, "", order=figures),
            tooltip=[
                "candidate:N",
                alt.Tooltip("figure_label:N", title=""),
                "basis:N",
                alt.Tooltip("value:Q", format=",.1f"),
            ],
        )
        .properties(title=label("chart.claims.title", lang))
    )
    return _style(chart, width=480, height=40 * max(len(claims), 1))


#: Gap between a scatter point's centre and its name [px]: clear of the largest point
#: (size 361 px², radius 11 px) and of the winner's ring (size 900 px², radius 17 px).
LABEL_GAP_PX = 20
#: How far a name sits above or below its point's centre [px], away from the neighbour:
#: about half a line of 11 px text, so two close points' names do not overprint.
LABEL_RISE_PX = 7


def _label_sides(x: pd.Series, y: pd.Series, log_x: bool = False) -> pd.Series:
    """Where each scatter point's name goes, as (horizontal, vertical) unit steps in
    screen terms (right +1, down +1): away from the point's nearest neighbour, the
    distance measured on both axes scaled to [0, 1] (``log_x`` on a log axis).

    >>> _label_sides(pd.Series([1.0, 2.0, 9.0]), pd.Series([1.0, 1.2, 5.0])).tolist()
    [(-1, 1), (1, -1), (1, -1)]
    """
    xs = np.log10(x.to_numpy(dtype=float)) if log_x else x.to_numpy(dtype=float)
    ys = y.to_numpy(dtype=float)

    def unit(v: np.ndarray) -> np.ndarray:
        span = float(v.max() - v.min()) if len(v) else 0.0
        return (v - v.min()) / span if span > 0 else np.zeros_like(v)

    ux, uy = unit(xs), unit(ys)
    sides = []
    for i in range(len(ux)):
        d = np.hypot(ux - ux[i], uy - uy[i])
        d[i] = np.inf
        if not np.isfinite(d).any():  # a lone point: its name to the right
            sides.append((1, 0))
            continue
        j = int(np.argmin(d))
        # a neighbour to the right pushes the name left; one above (larger y) pushes it down
        sides.append((-1 if ux[j] > ux[i] else 1, 1 if uy[j] >= uy[i] else -1))
    return pd.Series(sides, index=x.index, dtype=object)


def cost_vs_time(candidates: pd.DataFrame, workload: str, lang: str = "en") -> alt.Chart:
    """Hardware cost against time to train or decode throughput, one point per candidate
    sized by VRAM, the winner ringed.

    Training: days to train on what the fixed budget buys (each candidate's own count
    always meets the deadline, so that axis would be flat); without a budget, days on
    the sized count. Inference: aggregate decode tokens/s on the sized count.
    """
    lang = normalize_language(lang)
    rows = candidates[(candidates["workload"] == workload) & candidates["capex_usd"].notna()]
    kind = rows["kind"].iloc[0] if not rows.empty else "training"
    if kind == "inference":
        y_field = "decode_tokens_per_s"
    elif "days_on_budget" in rows and rows["days_on_budget"].notna().any():
        y_field = "days_on_budget"
        rows = rows[rows["days_on_budget"] < float("inf")]
    else:
        y_field = "days_to_finish"
    # One US$16 M outlier must not squeeze the others into a corner: a log axis once the
    # costs span more than a factor of four.
    spread = rows["capex_usd"].max() / rows["capex_usd"].min() if not rows.empty else 1.0
    scale = alt.Scale(type="log") if spread > 4 else alt.Scale(zero=False)
    base = alt.Chart(rows).encode(
        x=alt.X(
            "capex_usd:Q",
            title=f"{label('capex_usd', lang)} [USD]",
            axis=alt.Axis(format="~s"),
            scale=scale,
        ),
        y=alt.Y(f"{y_field}:Q", title=label(y_field, lang), scale=alt.Scale(zero=False)),
        tooltip=[
            "candidate:N",
            alt.Tooltip("gpus:Q"),
            alt.Tooltip("capex_usd:Q", format=",.0f"),
            alt.Tooltip(f"{y_field}:Q", format=",.1f"),
            "binding:N",
            "vram_gb:Q",
        ],
    )
    points = base.mark_circle(opacity=0.8).encode(
        size=alt.Size("vram_gb:Q", title=label("vram_gb", lang) + " [GB]"),
        color=alt.Color("candidate:N", title=label("candidate", lang)),
    )
    ring = base.transform_filter(alt.datum.winner).mark_point(size=900, color="black")
    # Each name starts beside its own point, on the side away from its nearest neighbour
    # (sides alternated in the table's row order sent names onto the neighbours' points).
    sides = _label_sides(rows["capex_usd"], rows[y_field], log_x=spread > 4)
    text = alt.layer(
        *[
            alt.Chart(rows[[s == side for s in sides]])
            .mark_text(
                align="left" if side[0] > 0 else "right",
                baseline="middle",
                dx=side[0] * LABEL_GAP_PX,
                dy=side[1] * LABEL_RISE_PX,
            )
            .encode(x=base.encoding.x, y=base.encoding.y, text="candidate:N")
            for side in sorted(set(sides))
        ]
    )
    chart = alt.layer(points, ring, text).properties(
        title=f"{label('chart.cost_vs_time.title', lang)} — {workload}"
    )
    return _style(chart)


def storage_capacity(content: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """Content per tier, stacked by what it is, from the Plan's ``storage_content`` table."""
    lang = normalize_language(lang)
    names = names_of(content["content"], "storage.content", lang)
    df = content.assign(what=content["content"].astype(str).map(names))
    chart = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("tier:N", title=label("tier", lang), sort=["hot", "warm", "cold"]),
            y=alt.Y("sum(tb):Q", title=f"{label('tb', lang)} [TB]"),
            color=coded_color("content", names, label("content", lang)),
            # stacked in the colour domain's order (the codes), not the labels' sort
            order=alt.Order("content:N"),
            tooltip=[
                "tier:N",
                alt.Tooltip("what:N", title=label("content", lang)),
                alt.Tooltip("tb:Q", format=",.2f"),
            ],
        )
        .properties(title=label("chart.storage_capacity.title", lang))
    )
    return _style(chart, width=300, height=260)


def storage_bandwidth(bandwidth: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """Read and write demand against the hot tier's supply, from ``storage_bandwidth``."""
    lang = normalize_language(lang)
    total = bandwidth[bandwidth["pool"] == "total"].iloc[0]
    sides = {"demand": label("chart.demand", lang), "supply": label("chart.supply", lang)}
    whats = {"read_gb_s": label("read_gb_s", lang), "write_gb_s": label("write_gb_s", lang)}
    demand, supply, read, write = "demand", "supply", "read_gb_s", "write_gb_s"
    df = pd.DataFrame(
        [
            {"what": read, "side": demand, "gb_s": float(total["read_demand_gb_s"])},
            {"what": read, "side": supply, "gb_s": float(total["supply_read_gb_s"])},
            {"what": write, "side": demand, "gb_s": float(total["write_demand_gb_s"])},
            {"what": write, "side": supply, "gb_s": float(total["supply_write_gb_s"])},
        ]
    )
    df["what_label"], df["side_label"] = df["what"].map(whats), df["side"].map(sides)
    chart = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            y=alt.Y(
                "what:N", title="", sort=[read, write], axis=alt.Axis(labelExpr=label_expr(whats))
            ),
            yOffset=alt.YOffset("side:N", sort=[demand, supply]),
            x=alt.X("gb_s:Q", title="GB/s"),
            color=coded_color("side", sides, "", order=[demand, supply]),
            tooltip=[
                alt.Tooltip("what_label:N", title=""),
                alt.Tooltip("side_label:N", title=""),
                alt.Tooltip("gb_s:Q", format=",.1f"),
            ],
        )
        .properties(title=label("chart.storage_bandwidth.title", lang))
    )
    return _style(chart, width=300, height=160)


#: Top of the hot-tier fill axis when the tier overflows: 100 % (full) and a quarter above
#: it, room enough to show the line leaving the chart without letting it set the scale.
FILL_AXIS_OVERFLOW = 1.25


def hot_fill(
    curve: pd.DataFrame, lang: str = "en", days_to_full: float | None = None
) -> alt.LayerChart:
    """Hot-tier fill over the run with the alert line, from the Plan's ``hot_fill`` table.

    The fill axis runs from 0 to 100 %: fill is a share of the tier's usable capacity,
    and what a room decides on (the alert line, the day the tier fills) lies in that
    range. A run that keeps checkpoints past what the tier holds would set an
    auto-scaled axis by its last day (the 16 384-GPU pre-training run with every
    checkpoint on 4 nodes ends at 2 203 %) and squeeze the alert line and the day it
    fills into the bottom twentieth of the chart. So when the fill passes 100 % the axis
    stops at :data:`FILL_AXIS_OVERFLOW` (125 %), the line is clamped along its top, a rule
    marks 100 % and the day the tier fills, and the subtitle says that day and the
    fill the run would reach (``chart.hot_fill.overflow``; the storage stage reports the
    same as its ``hot_tier_fills`` error).

    Parameters
    ----------
    curve : DataFrame
        The Plan's ``hot_fill`` table.
    days_to_full : float, optional
        The day the tier fills, ``checkpoint_plan.days_to_full`` (the stage finds it on
        every checkpoint; the curve keeps a sample of them). Without it, the first day
        of the curve at or past 100 %.
    """
    lang = normalize_language(lang)
    peak = float(curve["fill"].max()) if not curve.empty else 0.0
    alert_fill = float(curve["alert_fill"].iloc[0]) if not curve.empty else 0.0
    overflow = peak > 1.0
    top = FILL_AXIS_OVERFLOW if overflow else max(1.0, alert_fill)
    x = alt.X("day:Q", title=f"{label('day', lang)} [d]")
    y_scale = alt.Scale(domain=[0, top], clamp=True, nice=False)
    line = (
        alt.Chart(curve)
        .mark_line(interpolate="step-after")
        .encode(
            x=x,
            y=alt.Y("fill:Q", title=label("fill", lang), axis=alt.Axis(format="%"), scale=y_scale),
            tooltip=[
                alt.Tooltip("day:Q", format=".2f"),
                alt.Tooltip("used_tb:Q", format=",.1f"),
                alt.Tooltip("fill:Q", format=".1%"),
            ],
        )
    )
    alert = (
        alt.Chart(curve.head(1))
        .mark_rule(color="#b00020", strokeDash=[6, 4])
        .encode(
            y="alert_fill:Q",
            tooltip=[alt.Tooltip("alert_fill:Q", title=label("alert_fill", lang), format=".0%")],
        )
    )
    layers = [line, alert]
    title: alt.TitleParams | str = label("chart.hot_fill.title", lang)
    if overflow:
        first = float(curve.loc[curve["fill"] >= 1.0, "day"].iloc[0])
        day = (
            first
            if days_to_full is None or not math.isfinite(days_to_full)
            else float(days_to_full)
        )
        end = float(curve["day"].iloc[-1])
        full = pd.DataFrame({"day": [day]})
        layers.append(
            alt.Chart(pd.DataFrame({"fill": [1.0]})).mark_rule(color="#444").encode(y="fill:Q")
        )
        layers.append(
            alt.Chart(full)
            .mark_rule(color="#b00020")
            .encode(x="day:Q", tooltip=[alt.Tooltip("day:Q", format=".1f")])
        )
        note = label("chart.hot_fill.overflow", lang, day=day, end=end, peak=peak)
        title = alt.TitleParams(text=title, subtitle=note, subtitleColor="#b00020")
    chart = alt.layer(*layers).properties(title=title)
    return _style(chart, width=420, height=260)


#: The fabric's tiers bottom up: the diagram's rows and its colours.
_TIERS = ("server", "leaf", "spine", "core")

#: Most nodes a fabric diagram draws per tier; more are elided with a count label.
DIAGRAM_MAX_NODES = 32


def _tier_nodes(tier: str, count: int, y: float, lang: str) -> pd.DataFrame:
    shown = min(int(count), DIAGRAM_MAX_NODES)
    x = [(i + 0.5) / shown for i in range(shown)] if shown else []
    name = label(f"chart.fabric.{tier}", lang)
    return pd.DataFrame(
        {"tier": tier, "tier_label": name, "k": range(shown), "x": x, "y": y, "count": int(count)}
    )


def fabric_diagram(fabric: pd.DataFrame, lang: str = "en") -> alt.LayerChart:
    """Leaf/spine(/core) diagram of the compute fabric, from the Plan's ``fabric`` table.

    Draws one scalable unit: its servers, its leaves (one per rail), and the spines (and
    cores) it uplinks to; links are rules. A fabric of several units is labelled with how
    many times the unit repeats. Tiers wider than ``DIAGRAM_MAX_NODES`` are elided and
    labelled with their full count.
    """
    lang = normalize_language(lang)
    row = fabric[fabric["plane"] == "compute"]
    if row.empty:
        empty = alt.Chart(pd.DataFrame({"t": [label("chart.fabric.none", lang)]}))
        return alt.layer(empty.mark_text(size=14).encode(text="t:N")).properties(
            title=label("chart.fabric.title", lang)
        )
    r = row.iloc[0]
    units = int(r["units"])
    leaves, spines, cores = int(r["leaves"]) // units, int(r["spines"]), int(r["cores"])
    # With a core tier each unit has its own spine group; with two tiers all units share
    # the spines.
    spines_drawn = spines // units if cores else spines
    tiers = [
        ("server", int(r["servers_per_unit"]), 0.0),
        ("leaf", leaves, 1.0),
        ("spine", spines_drawn, 2.0),
    ] + ([("core", cores, 3.0)] if cores else [])
    nodes = {t: _tier_nodes(t, n, y, lang) for t, n, y in tiers}
    links = []
    for low, high in itertools.pairwise(tiers):
        # every server has one rail on every leaf of its unit; every leaf uplinks to the
        # spines drawn, every spine to the cores
        pairs = nodes[low[0]].merge(nodes[high[0]], how="cross", suffixes=("", "2"))
        links.append(pairs[["x", "y", "x2", "y2"]])
    edges = pd.concat(links, ignore_index=True)
    allnodes = pd.concat(nodes.values(), ignore_index=True)
    allnodes["caption"] = [
        f"{t} × {c:,}" if k == 0 else ""
        for t, c, k in zip(allnodes["tier_label"], allnodes["count"], allnodes["k"], strict=True)
    ]
    rules = (
        alt.Chart(edges)
        .mark_rule(opacity=0.25, strokeWidth=0.6, color="#888")
        .encode(
            x=alt.X("x:Q", axis=None, scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("y:Q", axis=None, scale=alt.Scale(domain=[-0.4, len(tiers) - 0.6])),
            x2="x2:Q",
            y2="y2:Q",
        )
    )
    drawn = [t for t in _TIERS if t in nodes]
    names = {t: label(f"chart.fabric.{t}", lang) for t in drawn}
    points = (
        alt.Chart(allnodes)
        .mark_square(size=90)
        .encode(
            x="x:Q",
            y="y:Q",
            color=coded_color("tier", names, label("chart.fabric.tier", lang), order=drawn),
            tooltip=[
                alt.Tooltip("tier_label:N", title=label("chart.fabric.tier", lang)),
                alt.Tooltip("count:Q", format=","),
            ],
        )
    )
    captions = (
        alt.Chart(allnodes[allnodes["k"] == 0])
        .mark_text(align="left", dx=-8, dy=-14, fontSize=11)
        .encode(x=alt.value(0), y="y:Q", text="caption:N")
    )
    title = label("chart.fabric.title", lang, model=r["model"], tiers=int(r["tiers"]))
    sub = label(
        "chart.fabric.repeat",
        lang,
        units=units,
        leaves=int(r["leaves"]),
        spines=spines,
        cores=cores,
    )
    chart = alt.layer(rules, points, captions).properties(
        title=alt.TitleParams(title, subtitle=[sub])
    )
    return _style(chart, width=520, height=70 * len(tiers) + 40)


def port_use(use: pd.DataFrame, lang: str = "en", per_device_up_to: int = 64) -> alt.Chart:
    """Ports used against ports available per switch, from the Plan's ``port_use`` table.

    Up to ``per_device_up_to`` switches: one bar per switch with its port count as a tick.
    Beyond that: how many switches sit at each share of their ports used, per plane and
    role (the same data, readable at 16 384 GPUs).
    """
    lang = normalize_language(lang)
    title = label("chart.port_use.title", lang)
    # coloured by the code "plane.role"; the legend names it in the language
    df = use.assign(what=use["plane"].astype(str) + "." + use["role"].astype(str))
    names = {
        code: label(
            "chart.port_use.switch",
            lang,
            plane=choice("choice.plane", code.split(".")[0], lang),
            role=choice("chart.port_use.role", code.split(".")[1], lang),
        )
        for code in dict.fromkeys(df["what"])
    }
    df["what_label"] = df["what"].map(names)
    color = coded_color("what", names, label("role", lang))
    if len(df) <= per_device_up_to:
        y = alt.Y("device:N", title=label("device", lang), sort=None)
        bars = (
            alt.Chart(df)
            .mark_bar()
            .encode(
                y=y,
                x=alt.X("used:Q", title=label("used", lang)),
                color=color,
                tooltip=[
                    "device:N",
                    alt.Tooltip("what_label:N", title=label("role", lang)),
                    "used:Q",
                    "ports:Q",
                ],
            )
        )
        cap = (
            alt.Chart(df)
            .mark_tick(color="#b00020", thickness=2)
            .encode(y=y, x="ports:Q", tooltip=["device:N", "ports:Q"])
        )
        return _style(
            alt.layer(bars, cap).properties(title=title), width=420, height=max(120, 14 * len(df))
        )
    chart = (
        alt.Chart(df)
        .transform_calculate(share="datum.used / datum.ports")
        .mark_bar()
        .encode(
            x=alt.X(
                "share:Q",
                bin=alt.Bin(step=0.05),
                title=label("chart.port_use.share", lang),
                axis=alt.Axis(format="%"),
            ),
            y=alt.Y("count():Q", title=label("chart.port_use.switches", lang)),
            color=color,
        )
        .properties(title=title)
    )
    return _style(chart, width=420, height=240)


def rack_elevation(layout: pd.DataFrame, lang: str = "en", racks: int = 12) -> alt.Chart:
    """Rack elevation: each device as a bar from its lowest unit up its height, per rack.

    Parameters
    ----------
    layout : DataFrame
        The Plan's ``rack_layout`` table.
    racks : int
        Show the first this many racks (a 16 384-GPU plan has hundreds).
    """
    lang = normalize_language(lang)
    shown = layout[layout["rack"].isin(list(dict.fromkeys(layout["rack"]))[:racks])].copy()
    shown["u_top"] = shown["u_position"] + shown["u_height"]
    names = names_of(shown["device_type"], "device_type", lang)
    shown["type"] = shown["device_type"].astype(str).map(names)
    chart = (
        alt.Chart(shown)
        .mark_bar(stroke="white", strokeWidth=1)
        .encode(
            x=alt.X("rack:N", title=label("rack", lang), sort=None),
            y=alt.Y("u_position:Q", title=f"{label('u_position', lang)} [U]"),
            y2="u_top:Q",
            color=coded_color("device_type", names, label("device_type", lang)),
            tooltip=[
                "device:N",
                alt.Tooltip("type:N", title=label("device_type", lang)),
                "model:N",
                "rack:N",
                "u_position:Q",
                "u_height:Q",
                alt.Tooltip("max_power_kw:Q", format=".2f"),
            ],
        )
        .properties(title=label("chart.rack_elevation.title", lang))
    )
    return _style(chart, width=max(240, 40 * shown["rack"].nunique()))


def rack_power(allocation: pd.DataFrame, lang: str = "en", racks: int = 40) -> alt.LayerChart:
    """Power per rack against its supply, with the headroom line (supply × (1 − headroom)).

    Parameters
    ----------
    allocation : DataFrame
        The Plan's ``power_allocation`` table.
    """
    lang = normalize_language(lang)
    df = allocation.head(racks).copy()
    df["limit_kw"] = df["supply_kw"] * (1 - df["required_headroom_pct"])
    statuses = ("ok", "low_headroom", "over")
    names = {s: choice("status", s, lang) for s in statuses}
    df["status_label"] = df["status"].astype(str).map(lambda s: choice("status", s, lang))
    x = alt.X("rack:N", title=label("rack", lang), sort=None)
    bars = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=x,
            y=alt.Y("allocated_kw:Q", title=f"{label('allocated_kw', lang)} [kW]"),
            color=coded_color(
                "status",
                names,
                label("status", lang),
                order=statuses,
                scale=dict(range=["#4c78a8", "#f58518", "#e45756"]),
            ),
            tooltip=[
                "rack:N",
                alt.Tooltip("allocated_kw:Q", format=".1f"),
                alt.Tooltip("supply_kw:Q", format=".1f"),
                alt.Tooltip("headroom_pct:Q", format=".1%"),
                alt.Tooltip("status_label:N", title=label("status", lang)),
            ],
        )
    )
    supply = alt.Chart(df).mark_tick(color="black", thickness=2).encode(x=x, y="supply_kw:Q")
    limit = (
        alt.Chart(df)
        .mark_tick(color="gray", strokeDash=[4, 2], thickness=2)
        .encode(x=x, y="limit_kw:Q")
    )
    layered = alt.layer(bars, supply, limit).properties(title=label("chart.rack_power.title", lang))
    return _style(layered, width=max(240, 16 * len(df)))


#: Cooling modes from the lightest to the heaviest heat: the cooling map's colours.
_COOLING_MODES = ("air", "rear_door", "liquid", "beyond")


def cooling_map(cooling: pd.DataFrame, racks: pd.DataFrame, lang: str = "en") -> alt.Chart:
    """Cooling mode of every rack on the floor: rows down, positions across.

    Parameters
    ----------
    cooling : DataFrame
        The Plan's ``cooling`` table.
    racks : DataFrame
        The Plan's ``racks`` table (row and position of each rack).
    """
    lang = normalize_language(lang)
    df = cooling[cooling["level"] == "rack"].merge(racks[["rack", "position"]], on="rack")
    present = set(df["cooling_mode"].astype(str))
    modes = [m for m in _COOLING_MODES if m in present] + sorted(present - set(_COOLING_MODES))
    names = {m: choice("choice.cooling_mode", m, lang) for m in modes}
    df["mode"] = [choice("choice.cooling_mode", m, lang) for m in df["cooling_mode"]]
    chart = (
        alt.Chart(df)
        .mark_rect(stroke="white")
        .encode(
            x=alt.X("position:O", title=label("position", lang)),
            y=alt.Y("row:N", title=label("row", lang)),
            color=coded_color("cooling_mode", names, label("cooling_mode", lang), order=modes),
            tooltip=[
                "rack:N",
                alt.Tooltip("heat_kw:Q", format=".1f"),
                alt.Tooltip("mode:N", title=label("cooling_mode", lang)),
                "status:N",
            ],
        )
        .properties(title=label("chart.cooling_map.title", lang))
    )
    return _style(chart, width=360, height=max(60, 18 * df["row"].nunique()))


class StaticChart:
    """A chart as a picture: PNG and SVG rendered in the kernel by vl-convert (offline).

    Notebook cells that only show a chart use this instead of a JupyterChart widget: the
    output is an image, so a saved notebook reopened without a kernel (and without
    widget state, which the project never commits) still shows it, and the page carries
    no Vega JavaScript for it. JupyterLab shows the SVG in trusted notebooks and the PNG
    in untrusted ones (a freshly cloned workbook).
    """

    def __init__(self, chart: alt.TopLevelMixin, scale: float = 1.0):
        self.chart = chart
        self.scale = scale

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, object]:
        import vl_convert as vlc

        spec = self.chart.to_dict()
        title = spec.get("title", "")
        title = title.get("text", "") if isinstance(title, dict) else title
        return {
            "image/png": vlc.vegalite_to_png(spec, scale=self.scale, allowed_base_urls=[]),
            "image/svg+xml": vlc.vegalite_to_svg(spec, allowed_base_urls=[]),
            "text/plain": f"<chart: {title}>",
        }


def static(chart: alt.TopLevelMixin, scale: float = 1.0) -> StaticChart:
    """Show ``chart`` as a static image (see :class:`StaticChart`)."""
    return StaticChart(chart, scale)
