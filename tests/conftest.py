import ipywidgets as widgets
import pytest

import hubplan


@pytest.fixture(scope="session")
def catalog():
    return hubplan.load_catalog()


@pytest.fixture(scope="session")
def default():
    return hubplan.default_scenario()


@pytest.fixture(autouse=True)
def _close_widgets():
    # Widgets register globally; close them so tests do not leak into each other.
    yield
    widgets.Widget.close_all()


def pytest_collectstart(collector):
    # nbval: widget views and vega-lite outputs carry random ids; never compare them.
    if collector.fspath and collector.fspath.ext == ".ipynb":
        collector.skip_compare += (
            "application/vnd.jupyter.widget-view+json",
            "application/vnd.vegalite.v6+json",
            "application/vnd.vegalite.v5+json",
            "text/html",
        )
