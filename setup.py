"""The package list, which pyproject.toml cannot state: every package under mark1/ (found,
so a new sub-package ships without a list to update) plus ``mark1.scenes``, which
pyproject's [tool.setuptools.package-dir] maps onto the top-level ``scenes/`` folder (one
copy of the built-in scenes, installed as package data). Everything else is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["mark1", "mark1.*"], exclude=["*.__pycache__"]), "mark1.scenes"])
