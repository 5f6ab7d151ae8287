"""No import cycle between the package's modules, imports inside functions included.

import-linter's contracts see only the packages' layers; a cycle inside a layer (the old
`catalog -> lint.catalog -> lint.engine -> catalog`) passes them, and a lazy import hides it
from a plain `import`. So the graph is built here from every module's syntax tree: each
`import` and `from ... import` anywhere in the module (top level, in a function, under
`if TYPE_CHECKING:` excepted, since that never runs), relative imports resolved against the
module's package. An edge goes to the deepest module of the package that the name is:
`from .x import y` is an edge to `x.y` when `x/y.py` exists, else to `x`.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from helpers import ROOT

SOURCE = ROOT / "src"
PACKAGE = "adhd_evals"


def _module_names(root: Path) -> dict[str, Path]:
    """Dotted name -> file of every module under `root` (a package is its __init__.py)."""
    found: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: all but those under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            stack += node.orelse
            continue
        stack += ast.iter_child_nodes(node)
    return found


def _targets(name: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The package's modules one import statement of module `name` loads."""
    if isinstance(node, ast.Import):
        bases = [alias.name for alias in node.names]
        return {_deepest(base, known) for base in bases if _deepest(base, known)}
    if node.level:
        package = name if is_package else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    found = set()
    for alias in node.names:
        target = _deepest(f"{base}.{alias.name}", known) or _deepest(base, known)
        if target:
            found.add(target)
    return found


def _deepest(dotted: str, known: set[str]) -> str:
    """The longest prefix of `dotted` that is one of the package's modules ('' for none)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return ""


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself and its own package left out)."""
    modules = _module_names(root)
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        edges = {t for node in _imports(tree) for t in _targets(name, is_package, node, known)}
        # importing a submodule runs its packages' __init__ first: not a dependency of the
        # package on its child, so a package's own ancestors are left out
        graph[name] = {t for t in edges if t != name and not name.startswith(t + ".")}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle (first module repeated at the end), or [] when the graph has none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in sorted(graph):
        if state.get(start):
            continue
        path: list[str] = [start]
        iterators = [iter(sorted(graph[start]))]
        state[start] = 1
        while iterators:
            following = next(iterators[-1], None)
            if following is None:
                state[path.pop()] = 2
                iterators.pop()
            elif state.get(following) == 1:
                return path[path.index(following) :] + [following]
            elif not state.get(following):
                state[following] = 1
                path.append(following)
                iterators.append(iter(sorted(graph.get(following, ()))))
    return []


@functools.cache
def package_graph() -> dict[str, set[str]]:
    """The package's graph, parsed once per process: both tests below read it (3-5 s of ast)."""
    return import_graph(SOURCE)


def test_no_module_of_the_package_is_in_an_import_cycle() -> None:
    cycle = find_cycle(package_graph())
    assert cycle == [], "import cycle: " + " -> ".join(cycle)


def test_the_graph_sees_lazy_and_relative_imports() -> None:
    """The graph is not empty by accident: catalog.py imports catalogrules.stream at the top;
    lint/__init__.py imports importing.formats inside a function (`from ..importing.formats
    import PROBLEMS, ReadOptions`), resolved from two dots above lint."""
    graph = package_graph()
    assert "adhd_evals.catalogrules.stream" in graph["adhd_evals.catalog"]
    assert "adhd_evals.importing.formats" in graph["adhd_evals.lint"]


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / PACKAGE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_planted_cycle_through_a_lazy_import_is_found(tmp_path: Path) -> None:
    """a -> b at the top; b -> c.d inside a function (relative, two dots); c.d -> a: the cycle
    a, b, c.d, back to a. The TYPE_CHECKING import of e from a is no edge."""
    _write(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from . import b\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import e\n",
            "b.py": "def f():\n    from .c.d import g\n",
            "c/__init__.py": "",
            "c/d.py": "from ..a import x\ng = 1\n",
            "e.py": "from .a import x\n",
        },
    )
    graph = import_graph(tmp_path)
    assert graph["adhd_evals.a"] == {"adhd_evals.b"}
    assert find_cycle(graph) == ["adhd_evals.a", "adhd_evals.b", "adhd_evals.c.d", "adhd_evals.a"]


def test_a_graph_without_a_cycle_has_none(tmp_path: Path) -> None:
    """a -> b -> c, and a -> c: a diamond, no cycle; `import adhd_evals.c` is the absolute
    spelling of the edge."""
    _write(
        tmp_path,
        {"__init__.py": "", "a.py": "from . import b, c\n", "b.py": "import adhd_evals.c\n", "c.py": ""},
    )
    graph = import_graph(tmp_path)
    assert graph["adhd_evals.b"] == {"adhd_evals.c"}
    assert find_cycle(graph) == []
