"""Only what pyproject.toml cannot say: the players' pages (docs/play/*.md) copied into the
built package as bot/docs/play/, where the help cog reads `/<game> rules` from an installed
wheel (a checkout's bot reads docs/play/ itself). The pages stay in docs/, in one place."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PAGES = Path(__file__).resolve().parent / "docs" / "play"


class BuildPyWithPages(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "bot" / "docs" / "play"
        target.mkdir(parents=True, exist_ok=True)
        for page in sorted(PAGES.glob("*.md")):
            shutil.copyfile(page, target / page.name)


setup(cmdclass={"build_py": BuildPyWithPages})
