"""No import cycles among the project's modules, lazy imports (inside functions) included.

Read from the sources with `ast`, nothing imported: an edge runs from a module to each
first-party module it imports (`from package import name` counts as importing the module
`package.name` where there is one, else the package; `importlib.import_module("literal")`
counts too). Imports under `if TYPE_CHECKING:` never run and do not count. The jail's programs
import each other, and the files the jail gets beside them, by bare name (see
verifier/sandbox/jail/__init__.py); those edges count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

from verifier.sandbox.backend import jail_files

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("verifier", "rlvr_contract", "rl_client", "trainer")
_DYNAMIC_IMPORTS = ("importlib.import_module", "import_module", "__import__")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES
            for path in sorted((ROOT / package).rglob("*.py"))}


def jail_names() -> dict[str, str]:
    """Bare name -> module, for what a jail program can import by bare name."""
    return {Path(host).stem: module_name(Path(host)) for host in jail_files().values()}


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif (isinstance(node, ast.Call) and ast.unparse(node.func) in _DYNAMIC_IMPORTS
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            found.append(ast.Import(names=[ast.alias(name=node.args[0].value)]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path],
               bare: dict[str, str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()

    def add(dotted: str) -> None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        if dotted and dotted != name:
            targets.add(dotted)

    for node in _runtime_imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in bare:
                    targets.add(bare[alias.name])
                elif alias.name.split(".")[0] in PACKAGES:
                    add(alias.name)
            continue
        if node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            source = f"{base}.{node.module}" if node.module else base
        elif node.module in bare:
            targets.add(bare[node.module])
            continue
        else:
            source = node.module or ""
        if source.split(".")[0] not in PACKAGES:
            continue
        for alias in node.names:
            add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source)
    return targets


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    jail_package = module_name(ROOT / "verifier/sandbox/jail/__init__.py")
    bare = jail_names()
    return {name: imports_of(name, path, modules,
                             bare if name.startswith(jail_package + ".") or
                             name in bare.values() else {})
            for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, or with a self-edge
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def test_the_detector_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    tree = ast.parse("import os\nif TYPE_CHECKING:\n    import x\nelse:\n    import y\n"
                     "def f():\n    import z\n    importlib.import_module('w')\n")
    assert [alias.name for node in _runtime_imports(tree) for alias in node.names] == \
        ["os", "y", "z", "w"]


def test_the_graph_sees_lazy_and_bare_imports() -> None:
    graph = import_graph()
    assert "verifier.sandbox.jail.linux" in graph["verifier.sandbox.jail.launch"]
    assert "verifier.sandbox.worker_jail" in graph["verifier.sandbox.jail.runner"]
    assert "verifier.sandbox.bubblewrap" in graph["verifier.sandbox.factory"]


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_service_and_the_contract_import_no_client() -> None:
    """The contract is the one thing the service and the client share: the service imports
    nothing of the client (which may be a different version, or absent), and the contract
    imports neither side."""
    graph = import_graph()
    upward = sorted(f"{name} -> {target}" for name, targets in graph.items()
                    for target in targets
                    if (name.startswith("verifier") and target.startswith("rl_client"))
                    or (name.startswith("rlvr_contract")
                        and target.split(".")[0] in {"verifier", "rl_client", "trainer"}))
    assert not upward, "imports across the contract:\n" + "\n".join(upward)
