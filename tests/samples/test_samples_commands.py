"""Each sample is a command of its IBM name: pyproject.toml's [project.scripts] names it, and
what it names is the console script the tests run (``conftest.SCRIPTS``). (Installed
metadata lists them once the package is installed again: test_samples.py checks those.)"""

from __future__ import annotations

import importlib
import pathlib
import tomllib

from .conftest import SCRIPTS

_PYPROJECT = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_every_sample_is_declared_as_a_command_of_its_ibm_name():
    scripts = tomllib.loads(_PYPROJECT.read_text())["project"]["scripts"]
    for name, (module, function) in SCRIPTS.items():
        assert scripts.get(name) == f"mqpy_cli.samples.{module}:{function}", name
        target = getattr(importlib.import_module(f"mqpy_cli.samples.{module}"), function)
        assert callable(target), name
