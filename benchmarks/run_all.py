"""Run every ``benchmarks/bench_*.py`` in turn (``make bench``).

Each benchmark's ``main()`` runs in its own Python process, so one benchmark's memory and
imports cannot distort the next. A benchmark signals failed targets by returning their
number (an int) from ``main()``; this script exits 1 when any benchmark failed a target or
crashed. ``python benchmarks/run_all.py gda`` runs only the files whose name contains "gda".
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# Load the file as a module (not as __main__) and call its main() with sys.argv reset, so a
# main() that parses the command line uses its defaults; the benchmarks' folder goes on
# sys.path, as when a benchmark runs as a script, so each imports _common. An int result is
# the number of failed targets (the exit status); anything else (None) counts as success.
_RUNNER = """
import os, runpy, sys
path = sys.argv[1]
sys.argv = [path]
sys.path.insert(1, os.path.dirname(path))
result = runpy.run_path(path, run_name="bench")["main"]()
sys.exit(result if isinstance(result, int) else 0)
"""


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks whose file names contain any of ``argv`` (default: all).

    Returns
    -------
    int
        0 when every benchmark met its targets, 1 otherwise.
    """
    selected = argv if argv is not None else sys.argv[1:]
    files = sorted(HERE.glob("bench_*.py"))
    if selected:
        files = [f for f in files if any(s in f.name for s in selected)]
    if not files:
        print(f"no benchmarks/bench_*.py matched {selected or ''}", file=sys.stderr)
        return 1
    results = []
    for file in files:
        print(f"\n######## {file.name}", flush=True)
        t0 = time.perf_counter()
        # cwd = the repository root, so the source tree's bayesnb is the one imported.
        rc = subprocess.run([sys.executable, "-c", _RUNNER, str(file)], cwd=ROOT).returncode
        results.append((file.name, rc, time.perf_counter() - t0))
    print("\n######## summary")
    for name, rc, seconds in results:
        status = "ok" if rc == 0 else f"exit {rc}: failed targets or an error (see above)"
        print(f"{name:<32} {seconds:7.1f} s  {status}")
    return int(any(rc != 0 for _, rc, _ in results))


if __name__ == "__main__":
    sys.exit(main())
