"""Property campaign: random scenarios, valid and invalid, against the plan's invariants.

A valid scenario either plans (and then every invariant below holds across the whole
plan) or fails with a ``HubplanError`` naming what cannot work; an invalid scenario or a
malformed YAML file raises ``ScenarioError`` naming the field. Nothing else may escape.

The run is bounded for ``make test``; ``HUBPLAN_LONG=1`` multiplies the examples (see
the README, "Property campaign").

Invariants (each independent of the code that builds the table it checks):

- IP plan: no address twice; every address inside its plane's supernet, not its
  subnet's network or broadcast address, and beside its gateway.
- Port map: no port of any device cabled twice; every switch port number within the
  switch's ports at the link speed (``port_use``), and ``port_use.used`` is the count of
  its cabled ports; every cabled device stands in a rack.
- Rack layout: every device (GPU servers with spares, storage nodes, switches,
  management servers) exactly once, in a rack of the rack table, its units inside the
  rack's usable height and overlapping no other device.
- The four proposal tables agree: equipment list = rack layout = IP plan in devices; the
  power allocation's per-rack devices and power = the rack layout's.
- Totals equal the sum of their rows: fleet rows vs pool rows, compute inventory total,
  facility power total, capex and opex totals vs their lines.
"""

from __future__ import annotations

import ipaddress
import math
import os

import numpy as np
import pandas as pd
import pytest
import yaml
from annotated_types import Ge, Gt, Le, Lt
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import hubplan
from hubplan import Scenario, ScenarioError
from hubplan.core.errors import HubplanError
from hubplan.core.paths import templates_dir

LONG = os.environ.get("HUBPLAN_LONG", "") not in ("", "0")
SETTINGS = settings(
    max_examples=500 if LONG else 30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=not LONG,  # make test: the same examples every run
)
FAST = settings(SETTINGS, max_examples=2000 if LONG else 150)


# -- the invariants --------------------------------------------------------------------


def _ints(addresses: pd.Series) -> np.ndarray:
    """Dotted quads as integers, vectorised."""
    parts = addresses.str.split(".", expand=True).astype(np.int64).to_numpy()
    return (parts[:, 0] << 24) | (parts[:, 1] << 16) | (parts[:, 2] << 8) | parts[:, 3]


def check_ip_plan(plan) -> None:
    ip = plan["ip_plan"]
    if ip.empty:
        return
    dupes = ip.loc[ip["address"].duplicated(keep=False), ["device", "interface", "address"]]
    assert dupes.empty, f"addresses used twice:\n{dupes.head(6)}"
    addr = _ints(ip["address"])
    prefix = ip["prefix"].to_numpy(dtype=np.int64)
    net = plan.scenario.network
    for plane, rows in ip.groupby("plane", sort=False).indices.items():
        supernet = ipaddress.ip_network(getattr(net, f"{plane}_cidr"))
        lo, hi = int(supernet.network_address), int(supernet.broadcast_address)
        a = addr[rows]
        outside = (a < lo) | (a > hi)
        assert not outside.any(), (
            f"{plane}: {ip['address'].iloc[rows[np.argmax(outside)]]} outside {supernet}"
        )
        assert (prefix[rows] >= supernet.prefixlen).all(), f"{plane}: subnet wider than {supernet}"
    host_bits = 32 - prefix
    size = np.left_shift(np.int64(1), host_bits)
    offset = addr & (size - 1)
    lan = prefix < 31
    edge = lan & ((offset == 0) | (offset == size - 1))
    assert not edge.any(), f"network or broadcast address given out:\n{ip[edge].head(3)}"
    gw = ip["gateway"].fillna("")
    has_gw = (gw != "").to_numpy()
    if has_gw.any():
        g = _ints(gw[has_gw])
        same = (g >> host_bits[has_gw]) == (addr[has_gw] >> host_bits[has_gw])
        assert same.all(), f"gateway outside the subnet:\n{ip[has_gw][~same].head(3)}"
        assert (g != addr[has_gw]).all(), "a device was given its gateway's address"
        gw_used = set(gw[has_gw]) & set(ip["address"])
        assert not gw_used, f"gateway addresses given to devices: {sorted(gw_used)[:3]}"


def check_port_map(plan) -> None:
    pm, use = plan["port_map"], plan["port_use"]
    if pm.empty:
        return
    ends = pd.concat(
        [
            pd.DataFrame({"device": pm["device_a"], "port": pm["port_a"]}),
            pd.DataFrame({"device": pm["device_b"], "port": pm["port_b"]}),
        ],
        ignore_index=True,
    )
    twice = ends[ends.duplicated(keep=False)]
    assert twice.empty, f"ports cabled twice:\n{twice.head(6)}"
    assert (pm["device_a"] != pm["device_b"]).all(), "a link from a device to itself"
    switch_ends = ends[ends["device"].isin(use["device"])]
    mgmt = switch_ends["port"] == "mgmt0"  # a switch's own management port (BMC plane)
    assert not switch_ends.loc[mgmt, "device"].duplicated().any()
    switch_ends = switch_ends[~mgmt]
    number = switch_ends["port"].str.extract(r"^p(\d+)$", expand=False)
    assert number.notna().all(), f"switch ports not named pN: {switch_ends[number.isna()][:3]}"
    cap = switch_ends["device"].map(use.set_index("device")["ports"])
    over = number.astype(int).to_numpy() > cap.to_numpy()
    assert not over.any(), f"switch port beyond the switch's ports:\n{switch_ends[over].head(3)}"
    assert (number.astype(int) >= 1).all()
    cabled = switch_ends.groupby("device").size()
    used = use.set_index("device")["used"]
    assert (used <= use.set_index("device")["ports"]).all(), "a switch over its port count"
    assert cabled.reindex(used.index, fill_value=0).astype(int).equals(used.astype(int)), (
        "port_use.used differs from the port map"
    )
    on_floor = set(plan["rack_layout"]["device"])
    loose = set(ends["device"]) - on_floor
    assert not loose, f"cabled devices in no rack: {sorted(loose)[:5]}"


def check_rack_layout(plan) -> None:
    lay, racks = plan["rack_layout"], plan["racks"]
    dupes = lay.loc[lay["device"].duplicated(keep=False), ["device", "rack"]]
    assert dupes.empty, f"devices placed twice:\n{dupes.head()}"
    pools = plan["pools"]
    pools = pools[pools["level"] == "pool"]
    want = {
        "gpu_server": int(pools["total_servers"].sum()),
        "storage_node": int(plan["storage_nodes"]["nodes"].sum()),
        # UFM appliances ride in the switches table (role ufm) and are racked as their
        # own device type, servers not switches
        "switch": int(plan["switches"].query("role != 'ufm'")["count"].sum()),
        "ufm": int(plan["switches"].query("role == 'ufm'")["count"].sum()),
        "management_server": plan.scenario.facility.management_servers,
    }
    got = lay["device_type"].value_counts().to_dict()
    assert {k: got.get(k, 0) for k in want} == want, f"devices in racks {got} != {want}"
    assert set(got) <= set(want), f"unexpected device types {set(got) - set(want)}"
    per_pool = lay[lay["device_type"] == "gpu_server"].groupby("pool").size()
    assert per_pool.to_dict() == {
        p: int(n) for p, n in zip(pools["pool"], pools["total_servers"], strict=True) if n
    }
    assert lay["rack"].isin(racks["rack"]).all(), "a device in a rack the rack table lacks"
    assert racks["rack"].is_unique
    top = lay["u_position"] + lay["u_height"] - 1
    usable = lay["rack"].map(racks.set_index("rack")["u_usable"])
    assert (lay["u_position"] >= 1).all()
    high = top > usable
    assert not high.any(), f"devices above the usable units:\n{lay[high].head(3)}"
    srt = lay.sort_values(["rack", "u_position"])
    nxt = srt.groupby("rack")["u_position"].shift(-1)
    clash = nxt < srt["u_position"] + srt["u_height"]
    assert not clash.any(), f"devices overlap in a rack:\n{srt[clash].head(3)}"
    per_rack = lay.groupby("rack").agg(n=("device", "size"), u=("u_height", "sum"))
    r = racks.set_index("rack")
    assert (r["devices"] == per_rack["n"].reindex(r.index)).all()
    assert np.allclose(r["u_used"], per_rack["u"].reindex(r.index))


def check_tables_agree(plan) -> None:
    lay, eq = plan["rack_layout"], plan["equipment_list"]
    racked = eq[eq["type"].isin(lay["device_type"].unique())]
    # the other rows are parts inside the servers (NICs)
    assert set(eq["type"]) - set(racked["type"]) <= {"nic"}, set(eq["type"])
    listed = racked.groupby(["type", "model"])["quantity"].sum().astype(int)
    placed = lay.groupby(["device_type", "model"]).size()
    placed.index = placed.index.set_names(["type", "model"])
    assert listed.sort_index().to_dict() == placed.sort_index().to_dict(), (
        "equipment list differs from the rack layout"
    )
    named = set(plan["ip_plan"]["device"])
    placed_names = set(lay["device"])
    assert named == placed_names, (
        f"in racks without an address: {sorted(placed_names - named)[:5]}; "
        f"addressed but in no rack: {sorted(named - placed_names)[:5]}"
    )
    alloc = plan["power_allocation"].set_index("rack")
    sums = lay.groupby("rack").agg(n=("device", "size"), kw=("max_power_kw", "sum"))
    assert set(alloc.index) == set(sums.index), "power allocation and rack layout racks differ"
    sums = sums.reindex(alloc.index)
    assert (alloc["devices"] == sums["n"]).all()
    assert np.allclose(alloc["device_power_kw"], sums["kw"], rtol=1e-9, atol=1e-9), (
        "rack power in the power allocation differs from its devices"
    )
    assert np.allclose(alloc["headroom_kw"], alloc["supply_kw"] - alloc["allocated_kw"])


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def check_totals(plan) -> None:
    pools = plan["pools"]
    pool, fleet = pools[pools["level"] == "pool"], pools[pools["level"] == "fleet"]
    assert pool["gpus_required"].sum() == fleet["gpus_required"].sum()
    if plan.scenario.workload.overlap.policy == "dedicated":  # the fleet is the pools' sum
        for col in ("servers", "spare_servers", "total_servers", "total_gpus"):
            assert pool[col].sum() == fleet[col].sum(), f"pools.{col}: fleet rows != pool rows"
        assert _close(pool["capex_usd"].sum(), fleet["capex_usd"].sum())
    else:  # shared: each kind of server is sized to the coincident peak, never above the sum
        key = ["accelerator", "gpus_per_server"]
        by_kind = pool.groupby(key)[["servers", "total_servers"]].agg(["sum", "max"])
        f = fleet.set_index(key)
        assert (f["servers"] <= by_kind[("servers", "sum")].reindex(f.index)).all()
        assert (f["servers"] >= by_kind[("servers", "max")].reindex(f.index)).all()
        assert (f["total_gpus"] == f["total_servers"] * f.index.get_level_values(1)).all()
    inv = plan["compute_inventory"]
    rows, total = inv[inv["level"] == "pool"], inv[inv["level"] == "total"]
    if len(total):
        for col in ("servers", "gpus", "total_pflops"):
            assert _close(rows[col].sum(), total[col].iloc[0]), f"compute_inventory.{col}"
        assert total["gpus"].iloc[0] == pool["total_gpus"].sum()
    fp = plan["facility_power"]
    parts, whole = fp[fp["scope"] != "total"], fp[fp["scope"] == "total"]
    for col in ("devices", "it_nameplate_kw", "it_typical_kw", "facility_kw", "annual_mwh"):
        assert _close(parts[col].sum(), whole[col].iloc[0]), f"facility_power.{col}"
    lay = plan["rack_layout"]
    by_type = lay.groupby("device_type").agg(n=("device", "size"), kw=("max_power_kw", "sum"))
    for scope, n, kw in zip(
        parts["scope"], parts["devices"], parts["it_nameplate_kw"], strict=True
    ):
        assert n == by_type.loc[scope, "n"] and _close(kw, by_type.loc[scope, "kw"]), scope
    summary = plan["cost_summary"].iloc[0]
    capex, opex = plan["cost_capex"], plan["cost_opex"]
    assert _close(summary["capex_usd"], capex["capex_usd"].sum())
    assert summary["capex_unpriced_lines"] == (~capex["priced"].astype(bool)).sum()
    assert _close(summary["opex_usd_per_year"], opex["usd_per_year"].sum())
    assert summary["opex_unpriced_lines"] == (~opex["priced"].astype(bool)).sum()
    eq = plan["equipment_list"]
    priced = eq["unit_price_usd"].notna()
    assert np.allclose(
        eq.loc[priced, "extended_price_usd"],
        eq.loc[priced, "quantity"] * eq.loc[priced, "unit_price_usd"],
    )


def check_pools_cover_layouts(plan) -> None:
    """Each pool's working GPUs (servers without spares × GPUs per server) hold what its
    workloads occupy at the peak overlap. A training job occupies TP × PP × DP GPUs with
    DP = ⌈GPUs required ÷ (TP × PP)⌉ a whole number of replicas (Megatron-LM, Narayanan et
    al. 2021, arXiv 2104.04473 §2); the training pool carries all its jobs at once. Under
    the shared policy a pool holds at the fleet's peak its coincident share
    ⌈occupied × coincidence⌉ (borrowing the rest at its own peak, a warning)."""
    pools = plan["pools"]
    pools = pools[pools["level"] == "pool"].set_index("pool")
    jobs = {j.name: j for j in plan.scenario.workload.training}
    occupied = {
        "training": sum(
            jobs[name].tensor_parallel
            * jobs[name].pipeline_parallel
            * math.ceil(req / (jobs[name].tensor_parallel * jobs[name].pipeline_parallel))
            for name, req in zip(
                plan["training"]["job"], plan["training"]["gpus_required"], strict=True
            )
        ),
        "inference": int(plan["inference"]["gpus_required"].sum()),
    }
    shared = plan.scenario.workload.overlap.policy == "shared"
    overlap = plan.scenario.workload.overlap
    for pool, row in pools.iterrows():
        need = occupied.get(pool)
        if need is None:  # development: developers × GPUs each, no layout
            continue
        if shared:
            need = math.ceil(round(need * getattr(overlap, f"{pool}_coincidence"), 9))
        working = int(row["servers"]) * int(row["gpus_per_server"])
        assert working >= need, (
            f"pool {pool}: {row['servers']} working servers × {row['gpus_per_server']} = "
            f"{working} GPUs < {need} its layouts occupy at the peak"
        )


def check_invariants(plan) -> None:
    check_pools_cover_layouts(plan)
    check_ip_plan(plan)
    check_port_map(plan)
    check_rack_layout(plan)
    check_tables_agree(plan)
    check_totals(plan)


# -- random valid scenarios ---------------------------------------------------------------

BASES = {
    "default": hubplan.default_scenario(),
    "pretrain": hubplan.load_scenario(templates_dir() / "scenarios" / "pretrain-16k.yaml"),
}


@st.composite
def valid_changes(draw) -> tuple[str, dict]:
    """A base scenario and dotted-path changes, each inside its field's allowed range."""
    base = draw(st.sampled_from(["default", "tiny", "pretrain"]))
    ch: dict = {}
    if base == "pretrain":
        # 97.75 days sizes 16 384 GPUs; a target of 128 .. 40 000 GPUs (the 405 B layout
        # needs 128 GPUs to hold its state).
        gpus = draw(st.integers(128, 40_000))
        ch["workload.training.0.days"] = 97.75 * 16384 / gpus
        if gpus > 60_000:
            ch["network.compute_switch"] = "SN5600"
    else:
        if base == "tiny":  # one 8-GPU server: a 1 B model on 1 B tokens, nothing else
            ch["workload.training.0.params"] = draw(st.sampled_from([1e8, 1e9, 3e9]))
            ch["workload.training.0.model"] = None
            ch["workload.training.0.data_bytes"] = None
            ch["workload.training.0.tokens"] = draw(st.sampled_from([1e8, 1e9, 1e10]))
            ch["workload.training.0.tensor_parallel"] = 1
            ch["workload.inference"] = []
            ch["workload.development.developers"] = draw(st.sampled_from([0, 0, 4]))
        ch["workload.training.0.days"] = draw(
            st.one_of(st.just(1.0), st.floats(0.5, 400, allow_nan=False))
        )  # one-day deadlines included
    if base != "pretrain":  # layouts whose replicas do not fill whole servers (TP × PP = 24)
        ch["workload.training.0.pipeline_parallel"] = draw(st.sampled_from([1, 1, 2, 3, 5]))
        if base == "default":
            ch["workload.training.0.tensor_parallel"] = draw(st.sampled_from([8, 8, 4, 2]))
    ch["workload.training.0.mfu"] = draw(st.floats(0.1, 0.6))
    ch["workload.overlap.policy"] = draw(st.sampled_from(["dedicated", "shared"]))
    ch["pools.training.spare_ratio"] = draw(st.sampled_from([0.0, 0.05, 0.1, 0.3]))
    ch["storage.dr"] = draw(st.sampled_from(["none", "offsite_backup", "warm_standby"]))
    f = "facility."
    ch[f + "rack_budget_kw"] = draw(st.sampled_from([8.0, 12.0, 20.0, 40.0, 80.0, 130.0]))
    ch[f + "support_rack_budget_kw"] = draw(st.sampled_from([8.0, 15.0, 22.0, 40.0]))
    ch[f + "power_headroom"] = draw(st.sampled_from([0.0, 0.15, 0.3]))
    ch[f + "inrush_policy"] = draw(st.sampled_from(["staggered", "sized"]))
    ch[f + "rack_units"] = draw(st.sampled_from([42, 48, 52]))
    ch[f + "reserved_units"] = draw(st.sampled_from([0, 2, 6]))
    ch[f + "max_servers_per_rack"] = draw(st.sampled_from([None, 1, 2, 4]))
    ch[f + "racks_per_row"] = draw(st.sampled_from([1, 4, 10, 20]))
    ch[f + "network_rack_position"] = draw(st.sampled_from(["end_of_row", "middle_of_row"]))
    ch[f + "management_servers"] = draw(st.sampled_from([0, 1, 3, 7]))
    n = "network."
    ch[n + "oversubscription"] = draw(st.sampled_from([1.0, 1.0, 2.0, 3.0]))
    ch[n + "storage_plane"] = draw(st.sampled_from(["separate", "separate", "compute"]))
    ch[n + "storage_ports_per_server"] = draw(st.sampled_from([0, 1, 2, 4]))
    ch[n + "inband_ports_per_server"] = draw(st.sampled_from([0, 1, 2]))
    ch[n + "growth_share"] = draw(st.sampled_from([0.0, 0.3, 1.0]))
    # tiny supernets (a /28 holds one leaf of 13 hosts) up to the defaults
    ch[n + "compute_cidr"] = f"10.0.0.0/{draw(st.sampled_from([12, 16, 20, 24, 26]))}"
    for plane, base_net, widest in (
        ("storage", "10.16", 14),
        ("inband", "10.20", 14),
        ("bmc", "10.24", 14),
    ):
        p = draw(st.sampled_from([widest, 20, 24, 27]))
        ch[f"{n}{plane}_cidr"] = f"{base_net}.0.0/{p}"
    ch[n + "loopback_cidr"] = f"10.31.0.0/{draw(st.sampled_from([16, 24, 28]))}"
    return base, ch


def _raised(fn, *args, **kw):
    """``fn``'s result, or the exception it raised (asserted on by the caller)."""
    try:
        return fn(*args, **kw)
    except Exception as exc:  # the caller asserts which kind
        return exc


def _scenario(base: str, changes: dict) -> Scenario | None:
    s = BASES["pretrain" if base == "pretrain" else "default"]
    try:
        return s.with_changes(changes)
    except ScenarioError:
        return None  # a combination a section rule refuses (checked separately)


@SETTINGS
@given(valid_changes())
def test_random_valid_scenarios_keep_every_invariant(drawn):
    base, changes = drawn
    scenario = _scenario(base, changes)
    assume(scenario is not None)
    plan = _raised(hubplan.build_plan, scenario, cache=False)
    if isinstance(plan, Exception):  # infeasible (a supernet too small, a fabric too large)
        assert isinstance(plan, HubplanError) and str(plan).strip(), repr(plan)
        return
    check_invariants(plan)


@pytest.mark.parametrize("base", ["default", "pretrain"])
def test_shipped_scenarios_keep_every_invariant(base):
    check_invariants(hubplan.build_plan(BASES[base]))


# -- random invalid scenarios --------------------------------------------------------------


def _leaves(model: BaseModel, prefix: tuple = ()) -> list[tuple[tuple, type, object]]:
    """(path, owner class, field info) of every field of a scenario, lists at item 0."""
    out = []
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        path = (*prefix, name)
        if isinstance(value, BaseModel):
            out += _leaves(value, path)
        elif isinstance(value, tuple) and value and isinstance(value[0], BaseModel):
            out += _leaves(value[0], (*path, 0))
        else:
            out.append((path, info))
    return out


def _bad_values(info) -> list:
    """Values the field's declared bounds refuse, and values of the wrong kind."""
    bad: list = [{"nested": 1}]
    if "tuple" not in str(info.annotation):  # a list is the right kind for a tuple field
        bad.append(["a", "list"])
    for m in info.metadata:
        if isinstance(m, Gt):
            bad += [m.gt, m.gt - 1]
        elif isinstance(m, Ge):
            bad += [m.ge - 1]
        elif isinstance(m, Lt):
            bad += [m.lt, m.lt * 2 + 1]
        elif isinstance(m, Le):
            bad += [m.le * 2 + 1]
    if any(isinstance(m, Gt | Ge | Lt | Le) for m in info.metadata):
        bad += ["not a number", float("nan")]
    if getattr(info.annotation, "__origin__", None) is not None and "Literal" in str(
        info.annotation
    ):
        bad += ["no-such-choice"]
    return bad


LEAVES = [(p, info) for p, info in _leaves(BASES["default"]) if _bad_values(info)]


def _shown(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _set(data: dict, path: tuple, value) -> dict:
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return data


@FAST
@given(st.data(), st.sampled_from(["dict", "yaml"]))
def test_random_invalid_fields_raise_scenario_error_naming_the_field(data, route):
    path, info = data.draw(st.sampled_from(LEAVES))
    value = data.draw(st.sampled_from(_bad_values(info)))
    doc = _set(BASES["default"].to_dict(), path, value)
    load = (
        (lambda: Scenario.from_dict(doc))
        if route == "dict"
        else (lambda: Scenario.from_yaml(yaml.safe_dump(doc, allow_unicode=True)))
    )
    with pytest.raises(ScenarioError) as err:
        load()
    assert _shown(path) in str(err.value), (path, value, str(err.value))


@FAST
@given(
    st.sampled_from(["workload", "pools.training", "network", "facility", "storage", "cost"]),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12),
)
def test_unknown_keys_are_named(section, key):
    doc = BASES["default"].to_dict()
    node = doc
    for part in section.split("."):
        node = node[part]
    assume(key not in node)
    node[key] = 1
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(doc)
    assert f"{section}.{key}" in str(err.value)


VALID_YAML = BASES["default"].to_yaml()
NOISE = st.text(alphabet=":-[]{}\t'\"#&*!|>%@`,?\n \\\x00\ufeff\u2028é中", max_size=6)


@FAST
@given(st.integers(0, len(VALID_YAML)), st.integers(0, 40), NOISE)
def test_malformed_yaml_raises_scenario_error(at, cut, noise):
    text = VALID_YAML[:at] + noise + VALID_YAML[at + cut :]
    got = _raised(Scenario.from_yaml, text)
    assert isinstance(got, Scenario | ScenarioError), repr(got)
    assert not isinstance(got, ScenarioError) or str(got).startswith("invalid scenario")


@FAST
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_arbitrary_text_is_a_scenario_or_a_scenario_error(text):
    got = _raised(Scenario.from_yaml, text)
    assert isinstance(got, Scenario | ScenarioError), repr(got)


def _nested(inner):
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)


ANY_YAML_VALUE = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
    _nested,
    max_leaves=12,
)


@FAST
@given(
    ANY_YAML_VALUE,
    st.sampled_from(["workload", "pools", "network", "facility", "storage", "cost", "delivery"]),
)
def test_random_section_values_raise_only_scenario_error(value, section):
    doc = BASES["default"].to_dict()
    doc[section] = value
    got = _raised(Scenario.from_dict, doc)
    assert isinstance(got, Scenario | ScenarioError), repr(got)
    assert not isinstance(got, ScenarioError) or section in str(got), str(got)


# -- regressions the campaign found ----------------------------------------------------------


def test_switch_names_agree_past_99_switches_of_a_role():
    # A one-day deadline at 25 % MFU: 6 × 70e9 params × 125e9 tokens (500 GB at 4 B/token)
    # = 5.25e22 FLOP over 86 400 s / 1.3 margin at 989.5 TFLOPS × 0.25 × 0.9 goodput
    # = 3 548 GPUs → 444 DGX (+ 23 spares, in the free slots or the cold pool) →
    # ⌈444 / 32⌉ = 14 SUs × 8 rails = 112 compute leaves. The rack layout named them
    # compute-leaf-01 … -112 while the port map and IP plan wrote compute-leaf-001 …: the
    # cabled leaves stood in no rack.
    s = BASES["default"].with_changes(
        {"workload.training.0.days": 1.0, "workload.training.0.mfu": 0.25}
    )
    plan = hubplan.build_plan(s)
    leaves = int(plan["fabric"].set_index("plane").loc["compute", "leaves"])
    assert leaves == 112
    lay = plan["rack_layout"]
    racked = set(lay.loc[lay["device_type"] == "switch", "device"])
    assert f"compute-leaf-{leaves:03d}" in racked and "compute-leaf-001" in racked
    cabled = set(plan["port_map"]["device_a"]) | set(plan["port_map"]["device_b"])
    assert cabled <= set(lay["device"])


def test_management_servers_have_in_band_and_bmc_addresses():
    # The default scenario racks 3 management servers (facility.management_servers); each
    # gets one in-band and one BMC port and address, like a storage node.
    plan = hubplan.build_plan(BASES["default"])
    ip = plan["ip_plan"]
    mgmt = ip[ip["device_role"] == "management_server"]
    assert sorted(mgmt["device"].unique()) == ["mgmt-01", "mgmt-02", "mgmt-03"]
    assert sorted(mgmt.groupby("plane").size().items()) == [("bmc", 3), ("inband", 3)]
    pm = plan["port_map"]
    assert (pm["device_a"].str.startswith("mgmt-")).sum() == 6
    none = BASES["default"].with_changes({"facility.management_servers": 0})
    assert not hubplan.build_plan(none)["ip_plan"]["device"].str.startswith("mgmt-").any()


def test_unknown_key_with_a_bracket_is_named():
    # 's[chema_version' (a stray '[' typed into a key) raised IndexError from the error
    # formatter instead of naming the key.
    with pytest.raises(ScenarioError, match=r"s\[chema_version: unknown key; did you mean"):
        Scenario.from_yaml("s[chema_version: 1\n")


def test_shared_fleet_is_what_the_racks_hold():
    # Found by the campaign: a one-day fine-tune and the service on shared H100 servers.
    # On their own: training 247 + 13 spares, inference 1 + 1 spare = 262 servers; the
    # shared fleet: ⌈(1 972 + 8) / 8⌉ = 248 + ⌈248 × 0.05⌉ = 13 spares = 261. Before, the
    # rack layout and the capex carried 262. Each pool now holds its share (largest
    # remainders): servers 248 × 247/248 and × 1/248 = 247 and 1; spares 13 × 13/14 = 12.07
    # and 13 × 1/14 = 0.93, so 12 and 1: training 259, inference 2.
    s = BASES["default"].with_changes(
        {"workload.overlap.policy": "shared", "workload.training.0.days": 1.0}
    )
    plan = hubplan.build_plan(s)
    pools = plan["pools"]
    fleet = pools[(pools["level"] == "fleet") & (pools["accelerator"] == "H100 SXM5 80GB")]
    assert int(fleet["total_servers"].iloc[0]) == 261
    share = pools[pools["level"] == "pool"].set_index("pool")
    assert share.loc["training", ["servers", "spare_servers", "total_servers"]].tolist() == [
        247,
        12,
        259,
    ]
    assert share.loc["inference", ["servers", "spare_servers", "total_servers"]].tolist() == [
        1,
        1,
        2,
    ]
    # the pools' own demand stays visible: the one-day fine-tune needs 1 972 GPUs, and its
    # TP-8 layout occupies ⌈1 972 ÷ 8⌉ = 247 replicas = 1 976, what its pool must hold
    assert plan["training"]["gpus_required"].iloc[0] == 1972
    assert share.loc["training", "gpus_required"] == 1976
    lay = plan["rack_layout"]
    racked = lay[(lay["device_type"] == "gpu_server") & (lay["model"] == "DGX H100")]
    assert len(racked) == 261
    # bought once: 261 DGX H100 in the capex, no owned servers
    capex = plan["cost_capex"]
    dgx = capex["item"].str.endswith(": DGX H100")
    assert capex.loc[dgx, "line_quantity"].tolist() == [259.0, 2.0]
    check_invariants(plan)


def test_servers_and_storage_nodes_are_racked_under_their_network_names():
    # The campaign found storage nodes named stor-hot-oss-001 in the port map (the network
    # pads to the largest count, here 120 nodes) but stor-hot-oss-01 in the rack layout;
    # the same held for a pool of 10 000 servers or more (train-00001 vs train-0001).
    from hubplan.facility import Facility, device_table, empty_switches
    from hubplan.network import server_names, storage_node_names

    servers = pd.DataFrame(
        [
            {
                "pool": "training",
                "partition": "train",
                "model": "DGX H100",
                "servers": 10_000,
                "rack_scale": False,
                "u_height": 8.0,
                "max_power_kw": 10.2,
                "typical_power_kw": 8.16,
                "weight_kg": 130.45,
                "price_usd": 270000.0,
                "power_source": "catalog",
            }
        ]
    )
    nodes = pd.DataFrame(
        {
            "tier": ["hot", "cold"],
            "role": ["oss", "capacity"],
            "model": ["a", "b"],
            "nodes": [120, 3],
            "rack_units": [2, 4],
            "max_power_kw": [2.0, 1.0],
            "typical_power_kw": [1.6, 0.8],
            "price_usd": [np.nan, np.nan],
            "nic_ports": [2, 2],
            "nic_gbps": [400.0, 100.0],
        }
    )
    d = device_table(servers, nodes, empty_switches(), Facility(management_servers=0))
    racked = d["device"].tolist()
    assert racked[0] == "train-00001" and racked[9_999] == "train-10000"
    assert racked[:10_000] == server_names("train", 10_000).tolist()
    assert sorted(racked[10_000:]) == sorted(storage_node_names(nodes)["device"])
    assert "stor-hot-oss-001" in racked and "stor-cold-capacity-003" in racked


# -- every mix of workloads: plans, exports and panels -------------------------------------
#
# A centre may train (pre-train or fine-tune), serve, host developers, or any mix of them
# (a serving-only centre once raised KeyError 'job' in the storage stage); its pools may
# be dedicated or one shared fleet; its cards from any vendor; its name in any script.

#: (training: none / a full fine-tune / a LoRA fine-tune, inference, development)
MIXES = [
    (t, i, d)
    for t in ("none", "full", "lora")
    for i in (False, True)
    for d in (False, True)
    if t != "none" or i or d
]
#: One card of each vendor and generation the catalogue carries.
FAMILIES = [
    "H100 SXM5 80GB",
    "A100 SXM4 80GB",
    "L40S 48GB",
    "B200 180GB",
    "MI300X 192GB",
    "MI355X 288GB",
    "Gaudi 3 128GB",
    "Ascend 910B 64GB",
    "Ascend 910C 128GB",
    "MLU370-X8 48GB",
    "MTT S4000 48GB",
    "BR100 64GB",
    "MetaX C500 64GB",
]
NAMES = ["scenario", "华东智算中心（一期）", 'centre / 2026 "A" <draft>', "東京 AI センター"]


def mix_scenario(
    mix,
    policy: str = "dedicated",
    one_pool: bool = False,
    family: str | None = None,
    name: str = "scenario",
) -> Scenario:
    """The default scenario carrying ``mix``; ``one_pool``: every workload on the training
    pool's card and server, so under the shared policy they form one fleet; ``family``:
    every pool on that card, in generic 8-card servers."""
    training, inference, development = mix
    ch: dict = {"name": name, "workload.overlap.policy": policy}
    if training == "none":
        ch["workload.training"] = []
    elif training == "lora":
        ch["workload.training.0.method"] = "lora"
    if not inference:
        ch["workload.inference"] = []
    if not development:
        ch["workload.development.developers"] = 0
    if one_pool or family:
        card = family or BASES["default"].pools.training.accelerator
        for pool in ("training", "inference", "development"):
            ch[f"pools.{pool}.accelerator"] = card
            ch[f"pools.{pool}.gpus_per_server"] = 8
            ch[f"pools.{pool}.server"] = None if family else "DGX H100"
            ch[f"pools.{pool}.custom_server"] = None
    return BASES["default"].with_changes(ch)


def export_everything(plan, folder) -> None:
    """The appendix in both languages, the NetBox files and the scheduler files: each
    written and not empty."""
    from hubplan.export import write_appendix, write_netbox, write_scheduler_files

    written = [
        write_appendix(plan, folder / "appendix-zh.xlsx", "zh"),
        write_appendix(plan, folder / "appendix-en.xlsx", "en", write_only=True),
    ]
    written += list(write_netbox(plan, folder / "netbox").values())
    written += write_scheduler_files(plan, folder / "scheduler")
    assert all(p.stat().st_size > 0 for p in written), written


def render_every_panel(scenario: Scenario) -> dict:
    """Each panel built on the scenario as the notebooks build it, in Chinese and then
    English, with no error shown; the panels by class name."""
    from hubplan import views

    panels = {}
    for name in (
        "OverviewPanel",
        "WorkloadPanel",
        "AcceleratorPanel",
        "ServerPanel",
        "StoragePanel",
        "NetworkPanel",
        "FacilityPanel",
        "CostPanel",
    ):
        panel_class = getattr(views, name)
        panel = panel_class(scenario, lang="zh")
        panel.language.value = "en"
        assert panel.error is None, (panel_class.__name__, panel.error)
        assert panel.result.scenario.name == scenario.name
        panels[panel_class.__name__] = panel
    from hubplan.views import gantt  # the delivery view: a chart, no panel

    gantt(panels["OverviewPanel"].result["schedule"], "zh").to_dict()
    return panels


def check_mix(plan, mix) -> None:
    """The pools a mix needs, and only those; every stage built."""
    training, inference, development = mix
    assert set(plan.tables) >= {
        "pools",
        "rack_layout",
        "cost_summary",
        "review_checklist",
        "slurm_nodes",
        "k8s_pools",
    }
    pools = plan["pools"]
    got = set(pools.loc[pools["level"] == "pool", "pool"])
    want = {
        p
        for p, on in (
            ("training", training != "none"),
            ("inference", inference),
            ("development", development),
        )
        if on
    }
    assert got == want, (got, want)
    assert len(plan["training"]) == (training != "none") and "job" in plan["training"]
    assert len(plan["inference"]) == inference and "service" in plan["inference"]


@pytest.mark.parametrize("mix", MIXES, ids=["-".join(map(str, m)) for m in MIXES])
def test_every_workload_mix_plans_and_exports(mix, tmp_path, capsys):
    # make test: each of the 11 mixes once, one shared fleet for the even ones, dedicated
    # pools for the odd ones, names in several scripts; the appendix (the slowest export,
    # ~2 s a file) for development only, where both the training and the inference tables
    # are empty (make properties writes it for every mix).
    i = MIXES.index(mix)
    scenario = mix_scenario(
        mix, ("dedicated", "shared")[i % 2], one_pool=i % 2 == 0, name=NAMES[i % len(NAMES)]
    )
    plan = hubplan.build_plan(scenario)
    check_mix(plan, mix)
    check_invariants(plan)
    from hubplan.export import write_netbox, write_scheduler_files

    assert write_netbox(plan, tmp_path / "netbox")
    write_scheduler_files(plan, tmp_path / "scheduler")
    if mix == ("none", False, True):
        export_everything(plan, tmp_path)
        # and the command line, from the saved file (a name in Chinese)
        from hubplan.cli.main import main

        path = scenario.save(tmp_path / "centre.yaml")
        code = main(
            [
                "plan",
                str(path),
                "--netbox",
                str(tmp_path / "nb"),
                "--slurm",
                str(tmp_path / "slurm"),
            ]
        )
        out, err = capsys.readouterr()
        assert code == 0, err
        assert scenario.name in out and (tmp_path / "slurm" / "slurm.conf").exists()


def test_every_panel_opens_on_a_centre_without_training():
    # Development only: no training job, no service. The dashboard and the workload panel
    # refused it ("needs a scenario with at least one training job"). Its one pool: 16
    # developers × 1 GPU × 0.5 at the peak = 8 L40S, one 8-card server, no spare.
    panels = render_every_panel(mix_scenario(("none", False, True), name=NAMES[1]))
    assert panels["OverviewPanel"].figures["gpus_by_pool"] == {"development": 8}
    assert "params_b" not in panels["OverviewPanel"].controls  # no training job to edit
    assert "No training job" in panels["WorkloadPanel"].summary.value
    assert "No training job or inference service" in panels["AcceleratorPanel"].summary.value


@pytest.mark.skipif(not LONG, reason="the long campaign: make properties (HUBPLAN_LONG=1)")
@settings(SETTINGS, max_examples=100)  # ~10 s each: every export and panel
@given(
    mix=st.sampled_from(MIXES),
    policy=st.sampled_from(["dedicated", "shared"]),
    one_pool=st.booleans(),
    family=st.one_of(st.none(), st.sampled_from(FAMILIES)),
    name=st.sampled_from(NAMES)
    | st.text(st.characters(exclude_categories=("Cc", "Cs")), min_size=1, max_size=20),
    pipeline=st.sampled_from([1, 2, 3, 4]),
)
def test_random_workload_mixes_plan_export_and_render(
    mix, policy, one_pool, family, name, pipeline, tmp_path_factory
):
    # make properties (HUBPLAN_LONG=1) only: every stage, every export and every panel on
    # fresh combinations of mix, overlap policy, pooling, card family and scenario name.
    scenario = mix_scenario(mix, policy, one_pool, family, name)
    if mix[0] != "none":
        scenario = scenario.with_changes({"workload.training.0.pipeline_parallel": pipeline})
    plan = _raised(hubplan.build_plan, scenario)
    if isinstance(plan, Exception):  # infeasible on that card (a fabric too large, ...)
        assert isinstance(plan, HubplanError) and str(plan).strip(), repr(plan)
        return
    check_mix(plan, mix)
    check_invariants(plan)
    export_everything(plan, tmp_path_factory.mktemp("export"))
    render_every_panel(scenario)


def test_a_name_with_a_control_character_is_named_not_a_broken_appendix():
    # A NUL or U+001F typed into a name planned, then the appendix raised openpyxl's
    # IllegalCharacterError: no xlsx cell holds C0 control characters but tab, LF and CR
    # (XML 1.0 §2.2, "Char"). Any text field of the scenario is refused with its path.
    with pytest.raises(ScenarioError, match=r"^invalid scenario: name = 'a\\x00b': contains"):
        BASES["default"].with_changes({"name": "a\x00b"})
    with pytest.raises(ScenarioError, match=r"workload\.training\[0\]\.name = .*U\+001F"):
        BASES["default"].with_changes({"workload.training.0.name": "x\x1fy"})
    from hubplan.views.render import translate

    zh = translate(str(_raised(BASES["default"].with_changes, {"name": "\x01"})), "zh")
    assert "含有控制字符 U+0001，电子表格无法容纳" in zh
    assert BASES["default"].with_changes({"name": "一期\t二期\n"}).name == "一期\t二期\n"
