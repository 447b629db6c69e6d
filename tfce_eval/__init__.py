"""tfce-eval: measure how well large language models call telecom functions.

The library is usable on its own; `tfce_eval.cli` is a thin command line over it.
"""

__version__ = "0.1.0"
