"""Scenario validation, error messages and lossless YAML round-trip."""

import errno
import re
import subprocess
import sys
import warnings

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import hubplan
from hubplan import Scenario, ScenarioError
from hubplan.scenario import SCHEMA_VERSION


def test_default_is_the_worked_example(default):
    job = default.workload.training[0]
    assert (job.params, job.data_bytes, job.days) == (70e9, 500e9, 15)
    assert default.pools.training.accelerator == "H100 SXM5 80GB"
    assert default.pools.training.gpus_per_server == 8
    assert default.workload.inference and default.workload.development


def test_round_trip_default(default, tmp_path):
    path = default.save(tmp_path / "s.yaml")
    again = hubplan.load_scenario(path)
    assert again == default
    assert again.to_yaml() == default.to_yaml()


numbers = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None, derandomize=True)  # make test: repeatable
@given(
    params=st.floats(min_value=1e6, max_value=1e13, allow_nan=False),
    tokens=st.floats(min_value=1e6, max_value=1e14, allow_nan=False),
    days=st.floats(min_value=0.1, max_value=3650, allow_nan=False),
    mfu=st.floats(min_value=0.01, max_value=0.6, allow_nan=False),
    goodput=st.floats(min_value=0.01, max_value=1.0, allow_nan=False),
    zero=st.sampled_from([0, 1, 2, 3]),
    # any text but the C0 controls no spreadsheet holds (refused, naming the field)
    name=st.text(
        st.characters(exclude_characters=[chr(c) for c in range(32) if c not in (9, 10, 13)]),
        min_size=1,
        max_size=30,
    ),
    qps=numbers,
    policy=st.sampled_from(["dedicated", "shared"]),
    accelerator=st.sampled_from(["H100 SXM5 80GB", "L40S 48GB", "MI300X 192GB"]),
    ram=st.floats(min_value=1, max_value=65536, allow_nan=False),
    spare=st.floats(min_value=0, max_value=1, allow_nan=False),
    budget=st.one_of(st.none(), st.floats(min_value=1, max_value=1e11, allow_nan=False)),
    candidates=st.lists(st.sampled_from(["H100", "B200", "MI300X", "L40S"]), max_size=4),
)
def test_round_trip_property(
    params,
    tokens,
    days,
    mfu,
    goodput,
    zero,
    name,
    qps,
    policy,
    accelerator,
    ram,
    spare,
    budget,
    candidates,
):
    s = Scenario.from_dict(
        {
            "name": name,
            "workload": {
                "training": [
                    {
                        "params": params,
                        "tokens": tokens,
                        "days": days,
                        "mfu": mfu,
                        "goodput": goodput,
                        "zero_stage": zero,
                        "name": name,
                    }
                ],
                "inference": [{"model": "Llama-3.1-8B", "peak_qps": qps}],
                "overlap": {"policy": policy},
            },
            "pools": {
                "training": {
                    "accelerator": accelerator,
                    "spare_ratio": spare,
                    "existing_servers": [{"server": "DGX A100", "count": 2}],
                },
                "development": {
                    "custom_server": {"accelerator": "L40S", "ram_gb": ram, "name": name}
                },
            },
            "accelerator": {"candidates": candidates, "budget_usd": budget},
            "server": {"ram_to_gpu_memory": 2.0},
        }
    )
    assert Scenario.from_yaml(s.to_yaml()) == s


def test_quantities_in_planner_notation():
    s = Scenario.from_dict({"workload": {"training": [{"params": "70B", "data_bytes": "500GB"}]}})
    assert s.workload.training[0].params == 70e9
    assert s.workload.training[0].data_bytes == 500e9


def test_unknown_key_gets_a_hint():
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict({"workload": {"trainig": []}})
    msg = str(err.value)
    assert "workload.trainig" in msg and "did you mean 'training'" in msg


def test_unknown_nested_key_gets_a_hint():
    with pytest.raises(ScenarioError, match=r"pools\.training\.accelerater.*'accelerator'"):
        Scenario.from_dict({"pools": {"training": {"accelerater": "H100"}}})


def test_out_of_range_names_path_value_and_range():
    bad = {"workload": {"training": [{"params": 70e9, "tokens": 1e12, "mfu": 1.5}]}}
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(bad)
    msg = str(err.value)
    assert "workload.training[0].mfu = 1.5" in msg
    assert "allowed: mfu > 0 and <= 1" in msg


def test_every_problem_is_listed():
    bad = {
        "workload": {
            "training": [{"params": "seventy", "tokens": 1e9, "days": -1, "zero_stage": 5}]
        }
    }
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(bad)
    paths = [p for p, _ in err.value.problems]
    assert len(paths) == 3
    assert "workload.training[0].params = 'seventy'" in paths


def test_high_mfu_needs_justification():
    job = {"params": 70e9, "tokens": 1e12, "mfu": 0.65}
    with pytest.raises(ScenarioError, match="mfu_justification"):
        Scenario.from_dict({"workload": {"training": [job]}})
    ok = Scenario.from_dict({"workload": {"training": [{**job, "mfu_justification": "FP8 bench"}]}})
    assert ok.workload.training[0].mfu == 0.65


@pytest.mark.parametrize("extra", [{"precision": "int8"}, {"use_sparse": True}])
def test_marketing_figures_refused_for_training(extra):
    job = {"params": 70e9, "tokens": 1e12, **extra}
    with pytest.raises(ScenarioError, match="force_marketing_figure"):
        Scenario.from_dict({"workload": {"training": [job]}})
    forced = Scenario.from_dict(
        {"workload": {"training": [{**job, "force_marketing_figure": True}]}}
    )
    plan = hubplan.build_plan(forced)
    assert "marketing_figure" in set(plan.findings["code"])


def test_sparse_sizing_halves_the_count_and_warns():
    # H100 sparse BF16 is 1 979 vs 989.5 dense: the forced plan needs half the GPUs.
    base = {"params": 70e9, "tokens": 2e12, "days": 60, "goodput": 1, "time_margin": 0}
    dense = hubplan.build_plan(Scenario.from_dict({"workload": {"training": [base]}}))
    sparse = hubplan.build_plan(
        Scenario.from_dict(
            {
                "workload": {
                    "training": [{**base, "use_sparse": True, "force_marketing_figure": True}]
                }
            }
        )
    )
    # 8.4e23 / (989.5e12·0.45·86 400·60) = 363.9 → 364; at 1 979: 182.0 → 182
    assert dense["training"].loc[0, "compute_bound_gpus"] == 364
    assert sparse["training"].loc[0, "compute_bound_gpus"] == 182


def test_tokens_or_bytes_exactly_one():
    with pytest.raises(ScenarioError, match="exactly one of tokens or data_bytes"):
        Scenario.from_dict({"workload": {"training": [{"params": 1e9}]}})
    with pytest.raises(ScenarioError, match="exactly one of tokens or data_bytes"):
        Scenario.from_dict(
            {"workload": {"training": [{"params": 1e9, "tokens": 1, "data_bytes": 1}]}}
        )


def test_file_errors_name_the_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ScenarioError, match=r"nope\.yaml"):
        hubplan.load_scenario(missing)
    broken = tmp_path / "broken.yaml"
    broken.write_text("workload: [unclosed\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"broken\.yaml.*not valid YAML"):
        hubplan.load_scenario(broken)
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="expected a mapping"):
        hubplan.load_scenario(listy)


def test_with_changes_validates(default):
    s = default.with_changes({"workload.training.0.days": 30})
    assert s.workload.training[0].days == 30
    assert default.workload.training[0].days == 15  # frozen: the original is untouched
    with pytest.raises(ScenarioError, match=r"workload\.training\[0\]\.days = -3"):
        default.with_changes({"workload.training.0.days": -3})


def test_scenarios_are_frozen(default):
    with pytest.raises(Exception, match="frozen"):
        default.name = "x"


def test_save_is_atomic(default, tmp_path, monkeypatch):
    # If writing fails half-way, the previous file survives intact and no temp is left.
    path = default.save(tmp_path / "plan.yaml")
    before = path.read_text(encoding="utf-8")
    import hubplan.scenario as mod

    def boom(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(mod.os, "replace", boom)
    with pytest.raises(hubplan.ExportError, match=r"scenario = .*the disk is full"):
        default.with_changes({"name": "changed"}).save(path)
    assert path.read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir()] == ["plan.yaml"]


def test_schema_version_is_checked():
    assert Scenario().schema_version == SCHEMA_VERSION
    with pytest.raises(ScenarioError, match="schema_version = 2"):
        Scenario.from_dict({"schema_version": 2})


@pytest.mark.parametrize("text", ["\x85", "a\u2028b", "x\u2029", "中文 名称", "tab\tx", " lead"])
def test_round_trip_keeps_awkward_text(default, text):
    # U+0085/2028/2029 are YAML line breaks: PyYAML folds them inside single quotes
    # (found by the property test above); the dumper double-quotes them instead.
    s = default.with_changes({"name": text, "description": text})
    assert Scenario.from_yaml(s.to_yaml()) == s


# -- inputs that used to slip through ------------------------------------------------------


def _yaml_job(extra: str) -> str:
    return (
        "workload:\n  training:\n    - name: a\n      model: Llama-2-70B\n"
        "      tokens: 1T\n" + extra
    )


@pytest.mark.parametrize("word", ["yes", "no", "on", "true"])
def test_yaml_booleans_are_not_numbers(word):
    # YAML 1.1 reads `days: yes` as True; pydantic would make it 1 day.
    with pytest.raises(ScenarioError, match=r"days = True|days = False") as err:
        Scenario.from_yaml(_yaml_job(f"      days: {word}\n"))
    assert "not true/false" in str(err.value)


def test_booleans_refused_by_int_and_choice_fields(default):
    for path in (
        "workload.training.0.zero_stage",
        "workload.training.0.tensor_parallel",
        "workload.development.developers",
        "pools.training.gpus_per_server",
    ):
        with pytest.raises(ScenarioError, match="not true/false"):
            default.with_changes({path: True})
    # A real boolean field still takes one.
    assert default.with_changes({"workload.training.0.sequence_parallel": False})


def test_counts_refuse_byte_units(default):
    with pytest.raises(ScenarioError, match="params = '70GB': is a count, not bytes"):
        default.with_changes({"workload.training.0.params": "70GB"})
    with pytest.raises(ScenarioError, match="tokens = '2TB': is a count"):
        default.with_changes(
            {"workload.training.0.tokens": "2TB", "workload.training.0.data_bytes": None}
        )
    # 70B is seventy billion parameters; 500GB of text is 5e11 bytes.
    job = default.with_changes({"workload.training.0.params": "70B"}).workload.training[0]
    assert (job.params, job.data_bytes) == (70e9, 500e9)


def test_duplicate_yaml_keys_are_an_error():
    text = _yaml_job("      days: 10\n      days: 20\n")
    with pytest.raises(ScenarioError, match=r"duplicate key 'days' on line 7 \(first on line 6\)"):
        Scenario.from_yaml(text)


def test_job_and_service_names_are_unique(default):
    job = default.workload.training[0].model_dump(mode="json")
    with pytest.raises(ScenarioError, match=r"training names must be unique.*'industry-70b"):
        default.with_changes({"workload.training": [job, job]})
    svc = default.workload.inference[0].model_dump(mode="json")
    with pytest.raises(ScenarioError, match="inference names must be unique"):
        default.with_changes({"workload.inference": [svc, {**svc}]})
    renamed = {**job, "name": "second"}
    assert len(default.with_changes({"workload.training": [job, renamed]}).workload.training) == 2


def test_unreadable_files_are_named_errors(tmp_path):
    latin = tmp_path / "latin1.yaml"
    latin.write_bytes("name: Zürich\n".encode("latin-1"))
    with pytest.raises(ScenarioError, match=r"latin1.yaml.*not UTF-8"):
        hubplan.load_scenario(latin)
    empty = tmp_path / "empty.yaml"
    empty.write_text("  \n")
    with pytest.raises(ScenarioError, match=r"empty.yaml.*is empty"):
        hubplan.load_scenario(empty)


def test_unreadable_catalogue_files_are_named_errors(tmp_path):
    bad = tmp_path / "acc.csv"
    bad.write_bytes(b"name,vendor\n\xff\xfe,x\n")
    with pytest.raises(hubplan.CatalogError, match=r"acc.csv: not UTF-8"):
        hubplan.load_catalog(accelerators=bad)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(hubplan.CatalogError, match=r"empty.csv: is empty"):
        hubplan.load_catalog(accelerators=empty)


@pytest.mark.parametrize(
    "path",
    [
        "workload.training.5.days",
        "workload.training.x.days",
        "name.x",
        "workload.training.0.days.x",
    ],
)
def test_with_changes_bad_paths_are_named(default, path):
    with pytest.raises(ScenarioError, match=rf"{path}: no such field"):
        default.with_changes({path: 1})


@pytest.mark.parametrize(
    ("path", "value", "bound"),
    [
        ("workload.training.0.params", 1.5e40, "<= 1e+14"),
        ("workload.inference.0.peak_qps", 1e9, "<= 1e+07"),
        ("workload.development.developers", 10**7, "<= 1e+06"),
        ("accelerator.budget_usd", 1e15, "<= 1e+12"),
    ],
)
def test_plausibility_bounds(default, path, value, bound):
    with pytest.raises(ScenarioError, match=f"allowed: .*{re.escape(bound)}"):
        default.with_changes({path: value})


def test_plausible_largest_values_pass(default):
    # Kimi-K2 has 1.04e12 parameters and Llama 3 saw 15.6e12 tokens: far inside the bounds.
    s = default.with_changes(
        {
            "workload.training.0.params": 1.04e12,
            "workload.training.0.data_bytes": None,
            "workload.training.0.tokens": 15.6e12,
        }
    )
    assert s.workload.training[0].tokens == 15.6e12


def test_training_pool_stays_exclusive_when_one_field_is_written():
    s = Scenario.from_yaml("pools:\n  training:\n    spare_ratio: 0.1\n")
    assert (s.pools.training.quota, s.pools.training.spare_ratio) == ("exclusive", 0.1)
    assert s.pools.inference.quota == "fair_share"
    written = Scenario.from_yaml("pools:\n  training:\n    quota: preemptible\n")
    assert written.pools.training.quota == "preemptible"


# -- fields that moved ------------------------------------------------------------------

OLD_TARIFF_FILE = """schema_version: 1
name: an old file
facility:
  pue: 1.3
  electricity_usd_per_kwh: 0.12
"""


def test_an_old_file_with_the_tariff_under_facility_loads_with_a_message(tmp_path):
    from hubplan.core.errors import ScenarioMovedWarning

    path = tmp_path / "old.yaml"
    path.write_text(OLD_TARIFF_FILE)
    with pytest.warns(
        ScenarioMovedWarning,
        match=r"facility\.electricity_usd_per_kwh has "
        r"moved to cost\.electricity_usd_per_kwh",
    ):
        s = hubplan.load_scenario(path)
    assert s.cost.electricity_usd_per_kwh == 0.12 and s.facility.pue == 1.3
    # saved, the tariff sits under cost, and the file loads again without a message
    s.save(path)
    assert "electricity_usd_per_kwh" in yaml.safe_load(path.read_text())["cost"]
    assert "electricity_usd_per_kwh" not in yaml.safe_load(path.read_text())["facility"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hubplan.load_scenario(path) == s


def test_the_tariff_at_both_places_is_an_error():
    text = OLD_TARIFF_FILE + "cost:\n  electricity_usd_per_kwh: 0.09\n"
    with pytest.raises(
        hubplan.ScenarioError,
        match=r"facility\.electricity_usd_per_kwh.*has "
        r"moved to cost\.electricity_usd_per_kwh, which this file also gives",
    ):
        hubplan.Scenario.from_yaml(text)


def test_a_change_at_the_old_path_lands_at_the_new_one():
    from hubplan.core.errors import ScenarioMovedWarning

    with pytest.warns(ScenarioMovedWarning):
        s = hubplan.default_scenario().with_changes({"facility.electricity_usd_per_kwh": 0.2})
    assert s.cost.electricity_usd_per_kwh == 0.2


def test_the_cli_says_what_moved_and_plans(tmp_path):
    # the default scenario as a file written before the tariff moved
    data = hubplan.default_scenario().to_dict()
    data["facility"]["electricity_usd_per_kwh"] = data["cost"].pop("electricity_usd_per_kwh")
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    done = subprocess.run(
        [sys.executable, "-m", "hubplan.cli", "plan", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "has moved to cost.electricity_usd_per_kwh" in done.stderr
