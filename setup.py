"""Ships the built-in dataset (questions/, answers/, functions/) inside the wheel.

The dataset lives at the top of the repository, where dataset authors edit it; a plain
`pip install .` copies it to `tfce_eval/data/` so that the installed command finds it.
An editable install reads it from the repository directly (see
tfce_eval/dataset/paths.py). MANIFEST.in puts the three folders in the source
distribution, so that a wheel built from it (`python -m build`) holds them too.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_DIRS = ("questions", "answers", "functions")


class BuildWithData(build_py):
    def run(self) -> None:
        if not self.editable_mode:
            # A build directory kept from an earlier build (`pip install .` builds in the
            # tree) may hold modules and data files removed since: start it afresh.
            shutil.rmtree(Path(self.build_lib) / "tfce_eval", ignore_errors=True)
        super().run()
        if self.editable_mode:
            return
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "tfce_eval" / "data"
        for name in DATA_DIRS:
            src = root / name
            if src.is_dir():
                shutil.copytree(
                    src,
                    target / name,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                )


setup(cmdclass={"build_py": BuildWithData})
