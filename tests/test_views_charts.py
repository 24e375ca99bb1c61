"""Charts as the room sees them: the same colour and place for an item in English and 中文,
and a scatter's names on their own points."""

import json
import re

import pytest
import vl_convert as vlc

import hubplan
from hubplan.core.labels import label
from hubplan.views import charts
from hubplan.views.cost import cost_breakdown, own_vs_cloud
from hubplan.views.delivery import gantt


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


# The port-use legend of the default plan in 中文, by hand from the catalogue: plane then role.
PORT_USE_ZH = {
    "bmc.leaf": "带外管理（BMC）叶交换机",
    "compute.leaf": "计算叶交换机",
    "compute.spine": "计算脊交换机",
    "inband.leaf": "带内管理叶交换机",
    "storage.leaf": "存储叶交换机",
}

# Every chart that colours, stacks or orders by a coded value, with the catalogue prefix of
# its codes' labels ("" when the code is itself a key: a column name) or the code → label.
CODED = {
    "gpus_vs_deadline": (
        lambda p, lang: charts.gpus_vs_deadline(p["training_curve"], p["training"], lang),
        "",
    ),
    "pool_gpus": (lambda p, lang: charts.pool_gpus(p["pools"], lang), "chart"),
    "compute_claims": (lambda p, lang: charts.compute_claims(p["compute_claims"], lang), ""),
    "storage_capacity": (
        lambda p, lang: charts.storage_capacity(p["storage_content"], lang),
        "storage.content",
    ),
    "storage_bandwidth": (
        lambda p, lang: charts.storage_bandwidth(p["storage_bandwidth"], lang),
        "chart",
    ),
    "fabric_diagram": (lambda p, lang: charts.fabric_diagram(p["fabric"], lang), "chart.fabric"),
    "rack_elevation": (
        lambda p, lang: charts.rack_elevation(p["rack_layout"], lang),
        "device_type",
    ),
    "rack_power": (lambda p, lang: charts.rack_power(p["power_allocation"], lang), "status"),
    "cooling_map": (
        lambda p, lang: charts.cooling_map(p["cooling"], p["racks"], lang),
        "choice.cooling_mode",
    ),
    "gantt": (lambda p, lang: gantt(p["schedule"], lang), "phase"),
    "port_use": (lambda p, lang: charts.port_use(p["port_use"], lang), PORT_USE_ZH.get),
    "own_vs_cloud": (lambda p, lang: own_vs_cloud(p["cost_curve"], p["cost_summary"], lang), ""),
    "cost_breakdown": (
        lambda p, lang: cost_breakdown(p["cost_capex"], p["cost_opex"], lang),
        "choice.category",
    ),
}


def _views(spec, data=None):
    """(encoding, rows) of every single view in a (layered) spec."""
    data = spec.get("data", data)
    if "layer" in spec:
        for sub in spec["layer"]:
            yield from _views(sub, data)
    if "encoding" in spec:
        yield spec["encoding"], data


def _rows(top, data):
    return top["datasets"][data["name"]] if data and "name" in data else []


def _domain(enc, rows):
    """The colour domain Vega-Lite draws: the explicit one, else the sort list followed by
    the other values, else the values sorted (a nominal field's default)."""
    scale = enc.get("scale") or {}
    if "domain" in scale:
        return list(scale["domain"])
    values = sorted({r[enc["field"]] for r in rows})
    sort = enc.get("sort")
    if isinstance(sort, list):
        return sort + [v for v in values if v not in sort]
    return values[::-1] if sort == "descending" else values


def _coloured(spec):
    return [
        (enc["color"], _rows(spec, data))
        for enc, data in _views(spec)
        if "field" in enc.get("color", {})
    ]


def _stacking(spec):
    """Each order channel's rank of every row (the stack's order, bottom up)."""
    out = []
    for enc, data in _views(spec):
        if "order" in enc:
            rows = _rows(spec, data)
            field, sort = enc["order"]["field"], enc["order"].get("sort", "ascending")
            ranked = sorted({r[field] for r in rows}, reverse=sort == "descending")
            out.append([ranked.index(r[field]) for r in rows])
    return out


@pytest.mark.parametrize("name", sorted(CODED))
def test_a_language_switch_keeps_every_colour_and_place(plan, name):
    build, prefix = CODED[name]
    en, zh = (build(plan, lang).to_dict() for lang in ("en", "zh"))
    colours = {lang: _coloured(spec) for lang, spec in (("en", en), ("zh", zh))}
    assert colours["en"], f"{name} has no coloured view"
    for (c_en, rows_en), (c_zh, rows_zh) in zip(colours["en"], colours["zh"], strict=True):
        # the item at place i of the domain takes colour i: the same domain in both
        # languages is the same colour for the same item
        domain = _domain(c_en, rows_en)
        assert domain == _domain(c_zh, rows_zh)
        assert c_en["field"] == c_zh["field"]
        # the legend speaks the language: the zh map names every code in Chinese
        found = re.fullmatch(
            r"\((\{.*\})\)\[datum\.label\] \|\| datum\.label",
            c_zh.get("legend", {}).get("labelExpr", ""),
        )
        assert found, f"{name}: no labelExpr naming the codes in the zh legend"
        names = json.loads(found.group(1))
        if callable(prefix):
            assert names == {c: prefix(c) for c in domain}
        else:
            key = (lambda c: f"{prefix}.{c}") if prefix else (lambda c: c)
            assert names == {c: label(key(c), "zh") for c in domain}
    # stacks (an order channel) pile the same items in the same order
    assert _stacking(en) == _stacking(zh)


def test_known_legends_in_chinese(plan):
    # Hand-checked against the catalogue's 中文 column: a pool's bar stacks the working
    # GPUs (在用) under the spares (备用); the English labels sort Working after Spare
    # descending, the Chinese 在用 (U+5728) after 备用 (U+5907): the old chart swapped them.
    spec = charts.pool_gpus(plan["pools"], "zh").to_dict()
    color = spec["encoding"]["color"]
    assert color["scale"]["domain"] == ["working", "spare"]
    assert '"working": "在用"' in color["legend"]["labelExpr"]
    assert spec["encoding"]["order"] == {"field": "part", "type": "nominal", "sort": "descending"}
    # the default plan's racks are air and rear-door cooled (tests/test_facility.py),
    # the lighter mode first
    cool = charts.cooling_map(plan["cooling"], plan["racks"], "zh").to_dict()
    assert cool["encoding"]["color"]["scale"]["domain"] == ["air", "rear_door"]
    assert '"rear_door": "背板换热（冷背门）"' in cool["encoding"]["color"]["legend"]["labelExpr"]


def _nodes(scene):
    """Every dict node of a Vega scenegraph, depth first."""
    stack = [scene]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))


def _marks(scene, marktype):
    """(name, items) of every mark of a type in a Vega scenegraph."""
    return [
        (n.get("name"), n.get("items", []))
        for n in _nodes(scene)
        if n.get("marktype") == marktype and n.get("role") == "mark"
    ]


def _legend(scene):
    """Candidate → its colour, from the drawn legend's symbols and labels."""
    fills, texts = [], []
    for node in _nodes(scene):
        if node.get("role") == "legend-symbol":
            fills.extend(i["fill"] for i in node["items"])
        if node.get("role") == "legend-label":
            texts.extend(i["text"] for i in node["items"])
    return dict(zip(texts, fills, strict=False))


@pytest.mark.parametrize("workload", ["industry-70b-finetune", "industry-70b-online"])
def test_scatter_names_sit_on_their_own_points(plan, workload):
    # Drawn by Vega (vl-convert's scenegraph): every name is anchored on its own card's
    # point, and the place its text starts (anchor + dx, dy) is nearer its own point than
    # any other. Before, sides alternated in the table's row order: in the fine-tune
    # chart "H100 SXM5 80GB" started 4 px from the H200's point and 14 px from its own.
    chart = charts.cost_vs_time(plan["candidates"], workload)
    scene = vlc.vegalite_to_scenegraph(chart.to_dict())
    cards = plan["candidates"]
    cards = set(
        cards.loc[(cards["workload"] == workload) & cards["capex_usd"].notna(), "candidate"]
    )
    colour = {n: f for n, f in _legend(scene).items() if n in cards}  # not the size legend
    assert set(colour) == cards
    (_, points), *_ = _marks(scene, "symbol")  # the first symbol mark: the points
    at = {}
    for name, fill in colour.items():
        (pt,) = [(p["x"], p["y"]) for p in points if p["fill"] == fill]
        at[name] = pt
    texts = [t for _, items in _marks(scene, "text") for t in items]
    assert sorted(t["text"] for t in texts) == sorted(at)  # every card named once
    for t in texts:
        assert (t["x"], t["y"]) == pytest.approx(at[t["text"]])
        start = (t["x"] + (t.get("dx") or 0), t["y"] + (t.get("dy") or 0))
        dist = {n: ((start[0] - x) ** 2 + (start[1] - y) ** 2) ** 0.5 for n, (x, y) in at.items()}
        assert min(dist, key=dist.get) == t["text"], (t["text"], dist)
