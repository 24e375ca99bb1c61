"""An installed wheel (not only an editable checkout) finds its data and templates."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_carries_catalogues_and_templates(tmp_path):
    wheel_dir, target = tmp_path / "wheel", tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheel_dir),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheel_dir.glob("hubplan-*.whl")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    probe = (
        "import hubplan, hubplan.core.paths as p;"
        "print(hubplan.__file__); print(p.data_dir()); print(p.templates_dir());"
        "c = hubplan.load_catalog(); print(len(c.accelerators), len(c.models));"
        "print(int(hubplan.build_plan(hubplan.default_scenario())['training'].loc[0, 'gpus']))"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    assert out[0].startswith(str(target))  # imported from the wheel, not the checkout
    assert out[1] == str(target / "hubplan" / "_data")
    assert out[2] == str(target / "hubplan" / "_templates")
    n_acc, n_models = map(int, out[3].split())
    assert n_acc >= 21 and n_models >= 10
    assert out[4] == "136"
