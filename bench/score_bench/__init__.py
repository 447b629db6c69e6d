"""The measurements of bench/bench_score.py.

- `children`: child processes, timed from spawn to exit with their own peak RSS;
- `inner`: our checker alone, run in a child (`bench_score.py _checker DIR`);
- `result`: the figures of one size (`SizeResult`);
- `measure`: `score` end to end, start-up, both checkers, one size in full;
- `judge`: the two checkers' verdicts compared, the decoder checked, the targets;
- `report`: the figures of one size printed;
- `hotspots`: cProfile of `score`.
"""
