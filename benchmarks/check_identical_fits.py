"""Are a refactor's fits bit-identical to before? Fit every classifier on UCI tables
(in memory, block by block, and in cross-validation's fast path), hash each
``predict_proba`` array, and save the hashes (``--save FILE``) or compare with saved
ones (``--compare FILE``).

Run it once on the old code, once on the new, in fresh processes:

    PYTHONPATH=. python benchmarks/check_identical_fits.py --save /tmp/before.json
    (change the code)
    PYTHONPATH=. python benchmarks/check_identical_fits.py --compare /tmp/before.json

It prints one row per (model, table, path): ``same``, ``DIFFERENT`` (with the largest
absolute difference when the arrays were kept by ``--arrays DIR``) or ``new``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
import warnings
from pathlib import Path

import numpy as np

from pybnc import (AODE, BSEJ, ESKDB, FAN, FSSJ, KDB, MANB, SKDB, SSTBMATAN, TAN, TANHC, TANHCSP, TBMATAN,
                   AnDE, NaiveBayes)
from pybnc.datasets import load_dataset

SMALL = ["car", "iris", "hepatitis", "votes", "glass", "cleve", "crx", "breast", "flare", "soybean"]
LARGE = ["chess", "mushroom", "nursery"]


def models() -> dict:
    """name -> (factory, tables)."""
    quiet = {"verbose": 0}
    every = SMALL + LARGE
    return {
        "NB": (lambda: NaiveBayes(), every),
        "NB-awnb": (lambda: NaiveBayes(weighting="awnb", random_state=0), SMALL),
        "NB-wanbia": (lambda: NaiveBayes(weighting="wanbia"), SMALL),
        "TAN": (lambda: TAN(), every),
        "TAN-bic": (lambda: TAN(criterion="bic", smoothing="ms"), SMALL),
        "FAN": (lambda: FAN(), every),
        "KDB": (lambda: KDB(k=2, **quiet), every),
        "KDB-hc": (lambda: KDB(k=2, search="hc", random_state=0, **quiet), SMALL[:6]),
        "KDB-hdp": (lambda: KDB(k=2, smoothing="hdp", random_state=0, **quiet), SMALL[:4]),
        "AODE": (lambda: AODE(), every),
        "AnDE": (lambda: AnDE(n=2), SMALL),
        "TBMATAN": (lambda: TBMATAN(), SMALL),
        "SSTBMATAN": (lambda: SSTBMATAN(), SMALL),
        "MANB": (lambda: MANB(), every),
        "SKDB": (lambda: SKDB(k=3, **quiet), every),
        "SKDB-hdp": (lambda: SKDB(k=2, smoothing="hdp", hdp_iterations=30, random_state=0, **quiet), SMALL[:4]),
        "ESKDB": (lambda: ESKDB(n_estimators=3, k=2, hdp_iterations=30, random_state=0, **quiet), SMALL[:6]),
        "ESKDB-bayes": (lambda: ESKDB(n_estimators=3, k=3, smoothing="bayes", random_state=1, **quiet), SMALL),
        "TANHC": (lambda: TANHC(random_state=0, **quiet), SMALL[:6]),
        "TANHCSP": (lambda: TANHCSP(random_state=0, **quiet), SMALL[:4]),
        "FSSJ": (lambda: FSSJ(random_state=0, **quiet), SMALL[:4]),
        "BSEJ": (lambda: BSEJ(random_state=0, **quiet), SMALL[:6]),
    }


def blocks_of(X, y, n_blocks=3):
    edges = np.linspace(0, len(X), n_blocks + 1).astype(int)
    return [(X.iloc[a:b], y[a:b]) for a, b in zip(edges[:-1], edges[1:])]


def runs():
    """(model, table, path) -> probabilities."""
    from pybnc.evaluation import cross_validate
    from pybnc.streaming import fit_blocks

    cache = {}
    for name, (make, tables) in models().items():
        for table in tables:
            if table not in cache:
                X, y = load_dataset(table)
                cache[table] = (X, np.asarray(y))
            X, y = cache[table]
            yield (name, table, "fit"), lambda: make().fit(X, y).predict_proba(X)
            model = make()
            try:
                can_stream = model.__class__.__name__ in ("NaiveBayes", "TAN", "FAN", "MANB", "AODE", "AnDE",
                                                          "TBMATAN", "SSTBMATAN", "KDB", "SKDB")
                can_stream = can_stream and getattr(model, "weighting", None) is None
                can_stream = can_stream and getattr(model, "search", "sahami") == "sahami"
            except Exception:
                can_stream = False
            if can_stream and table in SMALL[:5]:
                yield (name, table, "blocks"), lambda: fit_blocks(make(), blocks_of(X, y), classes=np.unique(y)) \
                    .predict_proba(X)
            if table in ("car", "votes", "flare", "soybean"):  # categorical tables: CV's fast path
                def cv():
                    _, proba = cross_validate({name: make()}, X, y, cv=3, verbose=0, return_proba=True)
                    return proba[name]
                yield (name, table, "cv"), cv


def digest(array) -> str:
    array = np.ascontiguousarray(array, dtype=np.float64)
    return hashlib.sha256(array.tobytes() + str(array.shape).encode()).hexdigest()[:20]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--save")
    parser.add_argument("--compare")
    parser.add_argument("--arrays", help="folder for the probability arrays (to measure a difference)")
    parser.add_argument("--only", help="comma-separated model names")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    before = json.loads(Path(args.compare).read_text()) if args.compare else {}
    found, different = {}, 0
    arrays = Path(args.arrays) if args.arrays else None
    if arrays:
        arrays.mkdir(parents=True, exist_ok=True)
    print(f"{'model':<12} {'table':<10} {'path':<7} {'seconds':>8}  result")
    for (name, table, path), run in runs():
        if only and name not in only:
            continue
        key = f"{name}/{table}/{path}"
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba = run()
        seconds = time.perf_counter() - start
        found[key] = digest(proba)
        stored = arrays / (key.replace("/", "__") + ".npy") if arrays else None
        verdict = "new"
        if key in before:
            verdict = "same" if before[key] == found[key] else "DIFFERENT"
            if verdict == "DIFFERENT":
                different += 1
                if stored is not None and stored.exists():
                    verdict += f" (max |diff| {np.abs(np.load(stored) - proba).max():.3g})"
        if stored is not None and (args.save or not stored.exists()):
            np.save(stored, proba)
        print(f"{name:<12} {table:<10} {path:<7} {seconds:8.2f}  {verdict}", flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(found, indent=1, sort_keys=True))
    if args.compare:
        gone = sorted(set(before) - set(found)) if not only else []
        print(f"\n{len(found)} runs: {different} different, {len(gone)} not run {gone[:5]}")


if __name__ == "__main__":
    main()
