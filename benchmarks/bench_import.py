"""``import pybnc`` in a fresh interpreter: this tree against another checkout (``main``).

Each run starts a new Python process that imports pybnc and nothing else (its CPU seconds,
which a loaded machine disturbs less than the wall clock); the two trees
take turns (:func:`_turns.taking_turns`) and the least of the runs is kept. Also: which
subpackages the import loaded (``pybnc.io``, ``pybnc.datasets``, ``pybnc.plotting`` load on
first use), and that ``pybnc.datasets`` works with no import of its own.

    python benchmarks/bench_import.py [--other /work/main] [--repeats 9]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _turns import taking_turns  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
PROBE = ("import sys, time; t = time.process_time(); import pybnc; t = time.process_time() - t; "
         "print(t, ' '.join(m for m in ('pybnc.io', 'pybnc.datasets', 'pybnc.plotting') if m in sys.modules))")


def _run(tree: Path):
    def call():  # the seconds of the import itself, inside the fresh process
        out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(tree)}, cwd="/").stdout.split(maxsplit=1)
        return float(out[0]), out[1].strip() if len(out) > 1 else ""
    return call


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--other", default="/work/main")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    other = Path(args.other)
    here, there, loaded_here, loaded_other = taking_turns(args.repeats, _run(HERE), _run(other))
    print(f"| tree | import pybnc (CPU s, least of {args.repeats} fresh processes) | subpackages loaded |")
    print("|---|---|---|")
    print(f"| this ({HERE.name}) | {here:.3f} | {loaded_here or '-'} |")
    print(f"| other ({other}) | {there:.3f} | {loaded_other or '-'} |")
    check = subprocess.run([sys.executable, "-c", "import pybnc; print(pybnc.datasets.load_dataset('car')[0].shape)"],
                           capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(HERE)}, cwd="/")
    print(f"pybnc.datasets after import pybnc alone: {check.stdout.strip() or check.stderr.strip()[-200:]}")


if __name__ == "__main__":
    main()
