"""The workshop dashboard (:func:`dashboard`): the overview panel with a scenario bar
above it, to open a saved scenario, save what is on screen as a new one, compare it with
another, and export the appendix of the plan on screen.

This module sits above the views and the exports (it joins the two), below the CLI.

Scenarios come from two places: the examples shipped with hubplan
(``templates/scenarios/*.yaml``) and the user's own folder, where the bar also saves and
exports. That folder is the ``folder`` argument, else the ``HUBPLAN_SCENARIOS``
environment variable, else ``~/hubplan-scenarios``; it is made on the first save.

Nothing here computes a planning figure: opening builds the plan of the file, the
comparison is :func:`hubplan.views.overview.comparison_table` and the export is
:func:`hubplan.export.write_appendix` of the plan the dashboard shows.
"""

from __future__ import annotations

import html
import os
import re
from contextlib import contextmanager
from pathlib import Path

import ipywidgets as w

from .core.catalog import Catalog
from .core.errors import HubplanError
from .core.labels import label
from .core.paths import templates_dir
from .export import write_appendix
from .plan import build_plan
from .scenario import Scenario, load_scenario
from .views.overview import OverviewPanel, ScenarioComparison

#: Characters a file name may not hold on Linux, macOS or Windows.
_BAD_NAME = re.compile(r'[\\/:*?"<>|\x00-\x1f]')


def user_folder(folder: str | os.PathLike[str] | None = None) -> Path:
    """The user's scenario folder: ``folder``, else ``$HUBPLAN_SCENARIOS``, else
    ``~/hubplan-scenarios`` (not made here: the first save makes it)."""
    if folder is not None:
        return Path(folder).expanduser()
    env = os.environ.get("HUBPLAN_SCENARIOS")
    return Path(env).expanduser() if env else Path.home() / "hubplan-scenarios"


def saved_scenarios(folder: Path, lang: str = "en") -> list[tuple[str, str]]:
    """(shown name, path) of every scenario file: the examples, then the user's own.

    >>> names = [n for n, _ in saved_scenarios(Path("/nonexistent"))]
    >>> [n for n in names if "pretrain-16k" in n]
    ['Example: pretrain-16k']
    """
    example = label("bar.example", lang)
    found = [
        (f"{example}: {p.stem}", str(p))
        for p in sorted((templates_dir() / "scenarios").glob("*.yaml"))
    ]
    if folder.is_dir():
        found += [(p.stem, str(p)) for p in sorted(folder.glob("*.yaml")) if p.is_file()]
    return found


def file_stem(name: str) -> str:
    """A scenario name as a file name: the name itself (Chinese kept), with the characters
    no file system takes and surrounding spaces removed.

    >>> file_stem("  华东 推理/二期 ")
    '华东 推理_二期'
    """
    return _BAD_NAME.sub("_", name).strip().strip(".")


def free_path(path: Path) -> Path:
    """``path``, or when a file is there already (an earlier export, perhaps edited since)
    the first free ``<stem> (2)<suffix>``, ``(3)``, ...: an export never overwrites.

    >>> free_path(Path("/nonexistent/a-appendix.xlsx")).name
    'a-appendix.xlsx'
    """
    n = 2
    found = path
    while found.exists():
        found = path.with_name(f"{path.stem} ({n}){path.suffix}")
        n += 1
    return found


class ScenarioBar:
    """Open, save, compare and export, for an :class:`~hubplan.views.OverviewPanel`.

    Attributes
    ----------
    pick : Dropdown
        Choosing a file opens it in the dashboard (new controls, its plan).
    name, save : Text, Button
        Save the scenario on screen as ``<folder>/<name>.yaml``; an existing file is never
        overwritten (the message asks for another name).
    other, compare : Dropdown, Button
        The headline figures of the scenario on screen beside the chosen file's.
    export : Button
        The xlsx appendix of the plan on screen, ``<folder>/<name>-appendix.xlsx`` (or
        ``... (2).xlsx`` when that file exists: nothing is overwritten); refused while an
        input error shows (the figures on screen are then not the inputs').
    status : HTML
        What the last action did, or why it could not.
    """

    def __init__(self, panel: OverviewPanel, folder: str | os.PathLike[str] | None = None):
        self.panel = panel
        self.folder = user_folder(folder)
        self._quiet = 0  # > 0 while the bar sets its own lists: no file is opened
        lay = w.Layout(width="260px")
        self.pick = w.Dropdown(layout=lay)
        self.name = w.Text(layout=w.Layout(width="200px"))
        self.save = w.Button(icon="save", layout=w.Layout(width="auto"))
        self.other = w.Dropdown(layout=lay)
        self.compare = w.Button(icon="columns", layout=w.Layout(width="auto"))
        self.export = w.Button(icon="file-excel-o", layout=w.Layout(width="auto"))
        self.status = w.HTML()
        self.comparison = w.HTML()
        self.labels = {k: w.Label() for k in ("pick", "name", "other")}
        row = w.Layout(flex_flow="row wrap", align_items="center", grid_gap="4px 8px")
        self.widget = w.VBox(
            [
                w.HBox(
                    [
                        self.labels["pick"],
                        self.pick,
                        self.labels["name"],
                        self.name,
                        self.save,
                        self.export,
                    ],
                    layout=row,
                ),
                w.HBox([self.labels["other"], self.other, self.compare], layout=row),
                self.status,
                self.comparison,
            ]
        )
        self._refresh()
        self.name.value = panel.base.name
        self.pick.observe(self._on_pick, names="value")
        self.save.on_click(lambda _: self.save_current())
        self.compare.on_click(lambda _: self.compare_with())
        self.export.on_click(lambda _: self.export_current())
        self.relabel()

    # -- language -------------------------------------------------------------------
    def relabel(self) -> None:
        lang = self.panel.lang
        for key, lab in self.labels.items():
            lab.value = label(f"bar.{key}", lang)
        self.save.description = label("bar.save", lang)
        self.compare.description = label("bar.compare", lang)
        self.export.description = label("bar.export", lang)
        self.name.placeholder = label("bar.name_hint", lang)
        self._refresh()

    def _refresh(self) -> None:
        """The file lists, keeping what was chosen (no file is opened by a refresh)."""
        options = saved_scenarios(self.folder, self.panel.lang)
        blank = [(label("bar.choose", self.panel.lang), "")]
        for dropdown in (self.pick, self.other):
            value = dropdown.value if dropdown.value in {p for _, p in options} else ""
            with self._muted():
                dropdown.options = blank + options
                dropdown.value = value

    @contextmanager
    def _muted(self):
        """Set a file list without opening a file."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    def _say(self, key: str, bad: bool = False, **params) -> None:
        colour = "#b00020" if bad else "#225"
        text = html.escape(label(f"bar.{key}", self.panel.lang, **params))
        self.status.value = f'<div id="hubplan-bar-status" style="color:{colour}">{text}</div>'

    # -- actions --------------------------------------------------------------------
    def _on_pick(self, change: dict) -> None:
        if change["new"] and not self._quiet:
            self.open(change["new"])

    def open(self, path: str | os.PathLike[str]) -> None:
        """Open a scenario file in the dashboard; a file that does not load says why and
        leaves the dashboard as it was."""
        try:
            scenario = load_scenario(path)
            build_plan(scenario, self.panel.catalog, until=self.panel.until)
        except HubplanError as exc:
            self._say("open_failed", bad=True, path=str(path), error=str(exc))
            return
        self.panel.load(scenario)
        self.name.value = scenario.name
        self._say("opened", path=str(path))

    def save_current(self) -> Path | None:
        """Save the scenario on screen under :attr:`name` in the user's folder."""
        if self.panel.error:
            self._say("input_error", bad=True)
            return None
        stem = file_stem(self.name.value)
        if not stem:
            self._say("name_missing", bad=True)
            return None
        path = self.folder / f"{stem}.yaml"
        if path.exists():
            self._say("exists", bad=True, path=str(path))
            return None
        scenario = self.panel.scenario()
        if scenario.name != self.name.value.strip():
            scenario = scenario.with_changes({"name": self.name.value.strip()})
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            scenario.save(path)
        except (OSError, HubplanError) as exc:
            self._say("save_failed", bad=True, path=str(path), error=str(exc))
            return None
        self._refresh()
        self.panel.load(scenario)  # the dashboard now shows the saved scenario, by its name
        self._say("saved", path=str(path))
        return path

    def compare_with(self) -> None:
        """The headline figures of the scenario on screen beside the chosen file's."""
        if not self.other.value:
            self._say("choose_other", bad=True)
            return
        if self.panel.error:
            self._say("input_error", bad=True)
            return
        try:
            other = load_scenario(self.other.value)
            plan = build_plan(other, self.panel.catalog, until=self.panel.until)
        except HubplanError as exc:
            self._say("open_failed", bad=True, path=self.other.value, error=str(exc))
            return
        here = label("bar.on_screen", self.panel.lang)
        shown = ScenarioComparison(
            {here: self.panel.result, other.name: plan}, self.panel.lang
        ).display_table()
        shown.index.names = [None, None]
        self.comparison.value = shown.to_html(classes="hubplan-compare", border=0)
        self._say("compared", name=other.name)

    def export_current(self) -> Path | None:
        """Write the xlsx appendix of the plan on screen to the user's folder."""
        if self.panel.error:
            self._say("input_error", bad=True)
            return None
        stem = file_stem(self.name.value) or file_stem(self.panel.base.name) or "hubplan"
        path = free_path(self.folder / f"{stem}-appendix.xlsx")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_appendix(self.panel.result, path, self.panel.lang)
        except (OSError, HubplanError) as exc:
            self._say("export_failed", bad=True, path=str(path), error=str(exc))
            return None
        self._say("exported", path=str(path))
        return path


def dashboard(
    scenario: Scenario | None = None,
    catalog: Catalog | None = None,
    lang: str = "en",
    folder: str | os.PathLike[str] | None = None,
) -> OverviewPanel:
    """The workshop dashboard: an :class:`~hubplan.views.OverviewPanel` with the
    :class:`ScenarioBar` above its figures (``make present`` shows this and nothing else).

    Parameters
    ----------
    scenario : Scenario, optional
        What the dashboard opens on; default :func:`~hubplan.default_scenario`.
    catalog : Catalog, optional
    lang : str
        ``"en"`` or ``"zh"``; the panel's toggle changes it live.
    folder : path, optional
        The user's scenario folder (see :func:`user_folder`).
    """
    panel = OverviewPanel(scenario, catalog, lang)
    bar = ScenarioBar(panel, folder)
    panel.bar = bar
    panel.bar_slot.children = [bar.widget]
    panel.language_hooks.append(bar.relabel)
    return panel
