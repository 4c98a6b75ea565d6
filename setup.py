"""Build Tesuji's Cython extensions and install its packages and the `tesuji` command."""
import glob
import os
import re

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

# Hot code is checked by tests in the same build; these directives apply everywhere and are overridden
# per function only with a comment saying why.
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}
# TESUJI_OPT=-O0 builds without optimisation in a third of the time, for builds that check the packaging
# (tests/test_install.py), not the speed.
FLAGS = [os.environ.get("TESUJI_OPT", "-O3"), "-march=native", "-fno-strict-aliasing", "-Wno-unused-function",
         "-Wno-unreachable-code"]


def extensions():
    # TESUJI_BUILD_ONLY=engine.board,engine.playout limits a development build to those modules.
    only = [m for m in os.environ.get("TESUJI_BUILD_ONLY", "").split(",") if m]
    exts = []
    for pyx in sorted(p for package in PACKAGES for p in glob.glob(f"{package.replace('.', os.sep)}/*.pyx")):
        name = os.path.splitext(pyx)[0].replace(os.sep, ".")
        if only and name not in only:
            continue
        exts.append(Extension(name, [pyx], include_dirs=[numpy.get_include()],
                              extra_compile_args=FLAGS + ["-pthread"], extra_link_args=["-pthread"],
                              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]))
    return cythonize(exts, compiler_directives=DIRECTIVES, nthreads=2)


# Every package below the top-level folders, and with it every `.pyx` they hold, subpackages' too.
PACKAGES = find_packages(include=["engine*", "priors*", "gtp*", "bench*"])
VERSION = re.search(r'__version__ = "(.+)"', open("engine/__init__.py").read()).group(1)

setup(
    name="tesuji",
    version=VERSION,
    description="Monte-Carlo tree search Go engine with learned move-prediction priors, speaking GTP",
    # The YAML presets stay in the top-level configs/ folder and install as engine/presets/, where
    # engine.config finds them with importlib.resources (`tesuji gtp --preset NAME`, `tesuji presets`).
    # priors/models/ holds the models those presets load and nothing else (tests/priors/test_presets.py);
    # experiment configs (bench/configs/) and records (bench/results/) are not package data.
    packages=PACKAGES + ["engine.presets"],
    package_dir={"engine.presets": "configs"},
    package_data={"": ["*.pxd"], "priors": ["models/*.npz"], "engine.presets": ["*.yaml"]},
    ext_modules=extensions(),
    # `pip install .` compiles the extensions on every core, as `make build`'s `-j 2` does
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
    python_requires=">=3.9",
    install_requires=["numpy", "sgfmill", "pyyaml", "tqdm", "matplotlib", "dask[distributed]", "choix", "scipy"],
    entry_points={"console_scripts": ["tesuji = gtp.cli:main"]},
    zip_safe=False,
)
