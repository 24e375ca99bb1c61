"""Write the snapshot of NetBox's CSV import forms that ``make test`` checks the NetBox
export against (``tests/netbox_forms.json``), without running NetBox.

For each file hubplan writes, the snapshot holds the import form's ``Meta.fields`` (the
column names NetBox accepts) and, for every choice field the form declares
(``CSVChoiceField`` / ``CSVTypedChoiceField`` with ``choices=SomeChoices``), the values of
that ``ChoiceSet``. It is read from NetBox's own source with :mod:`ast` (nothing of NetBox
is imported, so no Django is needed):

- ``<app>/forms/bulk_import.py`` for the forms (base classes in the same file followed),
- ``dcim/choices.py``, ``ipam/choices.py``, ``netbox/choices.py`` for the choice values
  (every string or integer constant of the ``ChoiceSet`` class).

Usage, from the NetBox source tree of a release (a git checkout of the tag's ``netbox/``
folder, or the unpacked ``netbox`` wheel from PyPI, whose top level is the same)::

    git -C netbox archive v4.6.8 netbox | tar -x -C /tmp/nb-4.6.8 --strip-components=1
    python scripts/netbox_forms_snapshot.py /tmp/nb-4.6.8 4.6.8 tests/netbox_forms.json
    unzip -q netbox-4.7.3-py3-none-any.whl -d /tmp/nb-4.7.3
    python scripts/netbox_forms_snapshot.py /tmp/nb-4.7.3 4.7.3 tests/netbox_forms.json

Each run adds (or replaces) that version's entry in the JSON file.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

#: hubplan's file -> (NetBox app, import form class, import view path).
FORMS = {
    "sites": ("dcim", "SiteImportForm", "/dcim/sites/import/"),
    "manufacturers": ("dcim", "ManufacturerImportForm", "/dcim/manufacturers/import/"),
    "device_roles": ("dcim", "DeviceRoleImportForm", "/dcim/device-roles/import/"),
    "racks": ("dcim", "RackImportForm", "/dcim/racks/import/"),
    "device_types": ("dcim", "DeviceTypeImportForm", "/dcim/device-types/import/"),
    "devices": ("dcim", "DeviceImportForm", "/dcim/devices/import/"),
    "interfaces": ("dcim", "InterfaceImportForm", "/dcim/interfaces/import/"),
    "power_panels": ("dcim", "PowerPanelImportForm", "/dcim/power-panels/import/"),
    "power_feeds": ("dcim", "PowerFeedImportForm", "/dcim/power-feeds/import/"),
    "power_ports": ("dcim", "PowerPortImportForm", "/dcim/power-ports/import/"),
    "power_outlets": ("dcim", "PowerOutletImportForm", "/dcim/power-outlets/import/"),
    "cables": ("dcim", "CableImportForm", "/dcim/cables/import/"),
    "ipam_roles": ("ipam", "RoleImportForm", "/ipam/roles/import/"),
    "vlans": ("ipam", "VLANImportForm", "/ipam/vlans/import/"),
    "prefixes": ("ipam", "PrefixImportForm", "/ipam/prefixes/import/"),
    "ip_addresses": ("ipam", "IPAddressImportForm", "/ipam/ip-addresses/import/"),
}
CHOICE_FILES = ("dcim/choices.py", "ipam/choices.py", "netbox/choices.py")
CHOICE_FIELDS = {"CSVChoiceField", "CSVTypedChoiceField", "ChoiceField", "TypedChoiceField"}


def _classes(path: Path) -> dict[str, ast.ClassDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def choice_values(cls: ast.ClassDef) -> list:
    """Every constant of a ChoiceSet class: ``STATUS_ACTIVE = 'active'`` -> 'active'."""
    out = []
    for node in cls.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.isupper()
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str | int)
        ):
            out.append(node.value.value)
    return out


def _meta_fields(cls: ast.ClassDef) -> list[str]:
    """The ``Meta.fields`` a form class lists itself; [] when it lists none."""
    fields: list[str] = []
    for node in cls.body:
        if isinstance(node, ast.ClassDef) and node.name == "Meta":
            for m in node.body:
                if isinstance(m, ast.Assign) and m.targets[0].id == "fields":
                    fields = [e.value for e in m.value.elts]
    return fields


def _own_choices(cls: ast.ClassDef) -> dict[str, str]:
    """{field: ChoiceSet name} of the choice fields a form class declares itself."""
    choices: dict[str, str] = {}
    for node in cls.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id in CHOICE_FIELDS
        ):
            for kw in node.value.keywords:
                if kw.arg == "choices" and isinstance(kw.value, ast.Name):
                    choices[node.targets[0].id] = kw.value.id
    return choices


def form_spec(forms: dict[str, ast.ClassDef], name: str) -> tuple[list[str], dict[str, str]]:
    """(Meta.fields, {field: ChoiceSet name}) of a form, following bases in the same file."""
    cls = forms[name]
    bases = [b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in forms]
    choices: dict[str, str] = {}
    for base in bases:
        choices.update(form_spec(forms, base)[1])
    choices.update(_own_choices(cls))
    fields = _meta_fields(cls)
    for base in bases if not fields else ():
        fields = form_spec(forms, base)[0]
    return fields, choices


def snapshot(root: Path, version: str) -> dict:
    choice_sets: dict[str, ast.ClassDef] = {}
    for rel in CHOICE_FILES:
        choice_sets.update(_classes(root / rel))
    forms = {app: _classes(root / app / "forms" / "bulk_import.py") for app in ("dcim", "ipam")}
    out = {}
    for name, (app, form, url) in FORMS.items():
        fields, choices = form_spec(forms[app], form)
        out[name] = {
            "form": f"{app}.forms.bulk_import.{form}",
            "url": url,
            "fields": fields,
            "choices": {
                f: choice_values(choice_sets[c])
                for f, c in sorted(choices.items())
                if f in fields and c in choice_sets
            },
        }
    return {"version": version, "forms": out}


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__)
        return 2
    root, version, target = Path(argv[0]), argv[1], Path(argv[2])
    data = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    data.setdefault(
        "about",
        "Field names and choice values of NetBox's CSV import forms, per NetBox version, "
        "read from NetBox's source by scripts/netbox_forms_snapshot.py (see its docstring).",
    )
    data.setdefault("versions", {})[version] = snapshot(root, version)["forms"]
    target.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{target}: NetBox {version}, {len(FORMS)} forms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
