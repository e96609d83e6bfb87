"""The module tables of the developers' guide, made from the code each time the guide is built.

The directive ``club-modules`` (docs/developers/where-things-are.md) writes a heading
(``###``) for each layer of the import contract, read from ``[tool.importlinter]`` in
pyproject.toml, from the top layer down, and under it an autosummary table of the
layer's modules: each one's name and the first sentence of its docstring. Modules the
contract does not name (the settings, the servers' ways in) come last.

The modules are found on disk with ``pkgutil`` (nothing is imported to find them), so a
module added, or moved to another package, is in its layer's table at the next build
with no page to edit. Migrations are left out. Management commands get a table of their
own under their layer's modules, as what ``manage.py`` runs. An empty ``__init__.py``
only makes a folder a package and has nothing to say, so it has no row; its package's
name is in its modules' names.

autosummary imports each module to read its docstring (conf.py sets Django up first), so
a module that cannot be imported fails the build.
"""

from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
CLUB = ROOT / "club"
LEFT_OUT = {"migrations", "tests"}
COMMANDS = ".management.commands."


def layers() -> list[list[str]]:
    """The layers of the import contract, top first; each a list of modules or packages."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]
    raise ValueError("pyproject.toml has no import-linter contract of layers")


def _says_something(init: Path) -> bool:
    return init.is_file() and bool(init.read_text(encoding="utf-8").strip())


def modules(folder: Path = CLUB, prefix: str = "club") -> list[str]:
    """Every module under ``folder`` by its dotted name, a package before what it holds."""
    found: list[str] = []
    listed = {info.name: info.ispkg for info in pkgutil.iter_modules([str(folder)])}
    # A folder of modules without an __init__.py is still a package to Python (a
    # namespace package), though pkgutil does not list it.
    for sub in folder.iterdir():
        if sub.is_dir() and sub.name.isidentifier() and any(sub.glob("*.py")):
            listed.setdefault(sub.name, True)
    for name, is_package in sorted(listed.items()):
        if name in LEFT_OUT:
            continue
        dotted = f"{prefix}.{name}"
        if not is_package:
            found.append(dotted)
            continue
        if _says_something(folder / name / "__init__.py"):
            found.append(dotted)
        found += modules(folder / name, dotted)
    return found


def by_layer() -> list[tuple[list[str], list[str]]]:
    """Each layer's names with its modules, top first; last, ``[]`` with the modules the
    contract does not name. A module is in the layer of the nearest package that is."""
    tiers = layers()
    owner_of = {name: index for index, tier in enumerate(tiers) for name in tier}
    tables: list[list[str]] = [[] for _ in range(len(tiers) + 1)]
    for module in modules():
        parts = module.split(".")
        prefixes = (".".join(parts[:size]) for size in range(len(parts), 0, -1))
        owner = next((owner_of[name] for name in prefixes if name in owner_of), len(tiers))
        tables[owner].append(module)
    return [*zip(tiers, tables, strict=False), ([], tables[-1])]


def sources() -> list[Path]:
    """What the tables are made from: a change to any of these builds the page again."""
    files = [
        path for path in CLUB.rglob("*.py") if not LEFT_OUT & set(path.relative_to(CLUB).parts)
    ]
    # A folder's time changes when a module is added to it or taken away.
    folders = sorted({CLUB, *(path.parent for path in files)})
    return [ROOT / "pyproject.toml", *folders, *files]


def _table(names: list[str]) -> list[str]:
    # In rST: autosummary writes its rows with rST roles, which Markdown would not read.
    return ["```{eval-rst}", ".. autosummary::", "", *(f"   {name}" for name in names), "```", ""]


def markdown() -> list[str]:
    """The headings and tables, as the page's own Markdown."""
    lines: list[str] = []
    for tier, names in by_layer():
        if tier:
            lines += [f"### {' and '.join(f'`{name}`' for name in tier)}", ""]
        else:
            lines += ["### Outside the layers", "", "Not named by the import contract.", ""]
        lines += _table([name for name in names if COMMANDS not in name])
        commands = [name for name in names if COMMANDS in name]
        if commands:
            lines += ["The layer's commands (`python manage.py NAME`):", "", *_table(commands)]
    return lines


class ClubModules(SphinxDirective):
    """``club-modules``: a heading and a table for each layer (see the module's docstring)."""

    def run(self) -> list[nodes.Node]:
        for path in sources():
            self.env.note_dependency(str(path))
        holder = nodes.container()
        self.state.nested_parse(
            StringList(markdown(), source=__file__), self.content_offset, holder, True
        )
        return holder.children


def setup(app):
    app.add_directive("club-modules", ClubModules)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
