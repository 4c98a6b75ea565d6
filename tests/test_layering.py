"""The packages import down the layering only: engine <- priors <- gtp <- bench (engine imports neither
priors nor gtp, priors neither gtp nor bench, bench never gtp: benches reach the engine through GTP
subprocesses or engine.builder)."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# `import x`, `from x import`, `from x cimport`, `cimport x`, at any indentation (lazy imports count).
IMPORT = re.compile(r"^\s*(?:from|c?import)\s+([a-z_]+)", re.MULTILINE)
FORBIDDEN = {"engine": {"priors", "gtp", "bench"}, "priors": {"gtp", "bench"}, "bench": {"gtp"}}


def sources(package: str) -> list[Path]:
    return [p for ext in ("*.py", "*.pyx", "*.pxd") for p in (ROOT / package).rglob(ext)
            if "results" not in p.relative_to(ROOT).parts]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_against_the_layering(package):
    found = [f"{path.relative_to(ROOT)} imports {name}" for path in sources(package)
             for name in IMPORT.findall(path.read_text()) if name in FORBIDDEN[package]]
    assert found == []
