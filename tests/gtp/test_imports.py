"""The gtp modules import one another without a cycle, in the dependency order gtp/__init__ lists."""
import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import gtp

GTP = Path(gtp.__file__).parent


def gtp_imports(path: Path) -> set[str]:
    """The gtp modules a file imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n.split(".")[1] for n in names if n.startswith("gtp.") and (GTP / f"{n.split('.')[1]}.py").exists()}
    return found


def test_no_import_cycle_among_gtp_modules():
    graph = {path.stem: gtp_imports(path) - {path.stem} for path in GTP.glob("*.py") if path.stem != "__main__"}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        raise AssertionError(f"import cycle: {e.args[1]}") from None
    assert order.index("tactics_commands") < order.index("server") < order.index("cli")
