"""Benchmark: Dask fits of MultinomialNB as documents and vocabulary grow.

A synthetic corpus (Zipf-like word frequencies with a class-specific share, Poisson(30)
tokens per document, 10 classes, fixed seeds) is written once as CSR shards of 50,000
documents (``.npz``: int32 column indices, uint8 counts, int16 labels) under
``reports/benchmarks/cache/`` (git-ignored) and fitted from disk with
:func:`bayesnb.distributed.fit` in Dask chunks of two shards, so no process ever holds the
corpus.

Two sweeps, each configuration in a fresh Python process (so that its peak RSS, read with
``resource.getrusage``, is its own):

- documents 10^4 … 10^6 (``--quick``, the default) or … 10^7 (``--full``) at 2^18 hashed
  features, with Dask's synchronous scheduler (one process, one thread): fit time and peak RSS,
  and the least-squares slope of log time against log documents (target 0.9–1.1);
- vocabulary 10^3 … 10^6 at 10^5 documents (same scheduler).

The 2-worker speed-up (target ≥ 1.5× at 10^6 documents) is measured two ways, on a
``LocalCluster`` of 2 single-threaded worker processes, once with Dask's default worker
environment and once without its ``MALLOC_TRIM_THRESHOLD_=65536`` (which makes every multi-MB
temporary a fresh, page-faulted mmap):

- on equal terms, the corpus already in memory: one process's ``MultinomialNB().fit(X, y)``
  against :func:`bayesnb.distributed.fit` on partitions the workers read themselves and keep
  (one per worker, persisted; the client never holds the data). Dask's task stream gives the
  busiest worker's compute time; the rest of the cluster's fit time is its fixed overhead
  (scheduling, shipping two K × V tables to the client, merging), and
  ``t1 / (t1/2 + overhead)`` is the best speed-up that overhead allows;
- out of core, every chunk read from disk: the synchronous scheduler (also the threaded one,
  2 threads, which cannot help: counting holds the GIL) against the cluster, at 10^6
  documents and, with ``--full``, at 10^7 where fixed costs amortise.

The peak RSS of every worker is read with ``client.run``. Peak RSS must stay below 2 GB per
process (the 10^7 case is the test of it). Fit times include building the graph and the
estimator's hyperparameter step, not starting the cluster; out-of-core times include reading
the shards, from the page cache (every job reads them once, untimed, before it starts).
Timings are the median of ``--repeats`` runs; the load average is printed with each, since
the machine may be shared (2 cores here: a busy neighbour halves what two workers can do).

The table is printed, a log–log plot written to ``reports/benchmarks/bench_scale.png`` and
the numbers to ``bench_scale.json``. ``main()`` returns the number of missed targets.

Run ``python benchmarks/bench_scale.py [--quick | --full] [--repeats N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _common import Checks, load_average, zipf_corpus

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "reports" / "benchmarks"
CACHE = OUT / "cache"

N_CLASSES = 10
TOKENS_PER_DOC = 30
HASHED_FEATURES = 2**18
SHARD_DOCS = 50_000
# Dask chunks of 100,000 documents (~3M tokens): each chunk's statistics are a full K × V
# table (2.6M cells here), so smaller chunks spend more on the tables than on counting.
SHARDS_PER_CHUNK = 2
ZIPF_EXPONENT = 1.1
CLASS_SPECIFIC = 0.1  # share of a document's tokens drawn from its class's own word ranking
DOC_SIZES_QUICK = (10_000, 30_000, 100_000, 300_000, 1_000_000)
DOC_SIZES_FULL = (*DOC_SIZES_QUICK, 3_000_000, 10_000_000)
VOCAB_SIZES = (1_000, 10_000, 100_000, 1_000_000)
VOCAB_DOCS = 100_000
SPEEDUP_DOCS = 1_000_000
RSS_BUDGET = 2e9
SLOPE_TARGET = (0.9, 1.1)
SPEEDUP_TARGET = 1.5
GB = 1e9


# -- the corpus on disk ----------------------------------------------------------------------
def write_shard(path: Path, n_docs: int, n_features: int, seed: int) -> None:
    """Write one shard of ``n_docs`` synthetic documents (atomically: temp file, rename).

    ``_common.zipf_corpus`` with the class rankings and the shared ranking of the vocabulary
    drawn from ``n_features`` alone, so every shard of a corpus follows the same law.
    """
    perm_rng = np.random.default_rng(n_features)
    rankings = np.stack([perm_rng.permutation(n_features) for _ in range(N_CLASSES + 1)])
    X, y = zipf_corpus(
        n_docs, n_features, N_CLASSES, tokens_per_doc=TOKENS_PER_DOC, exponent=ZIPF_EXPONENT,
        class_specific=CLASS_SPECIFIC, seed=seed, rankings=rankings,
    )  # fmt: skip
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(
        tmp,
        indptr=X.indptr.astype(np.int64),
        indices=X.indices.astype(np.int32),
        data=X.data.astype(np.uint8),
        y=y.astype(np.int16),
        shape=np.array(X.shape),
    )
    os.replace(tmp, path)


def load_shard(path: str) -> tuple[sp.csr_matrix, np.ndarray]:
    """One shard as (float64 CSR counts, int labels)."""
    with np.load(path) as z:
        X = sp.csr_matrix(
            (z["data"].astype(np.float64), z["indices"], z["indptr"]), shape=tuple(z["shape"])
        )
        return X, z["y"].astype(np.intp)


def corpus(n_docs: int, n_features: int) -> list[tuple[str, int]]:
    """Paths and sizes of the shards of an ``n_docs`` corpus, written if not cached yet.

    Corpora of ``SHARD_DOCS`` documents or more are prefixes of one shared series of shards;
    smaller ones get their own single shard.
    """
    folder = CACHE / f"V{n_features}"
    folder.mkdir(parents=True, exist_ok=True)
    if n_docs < SHARD_DOCS:
        specs = [(folder / f"small_{n_docs}.npz", n_docs, 10_000_000 + n_docs)]
    else:
        if n_docs % SHARD_DOCS:
            raise ValueError(f"n_docs must be a multiple of {SHARD_DOCS}, got {n_docs}")
        specs = [
            (folder / f"shard_{i:04d}.npz", SHARD_DOCS, i) for i in range(n_docs // SHARD_DOCS)
        ]
    todo = [s for s in specs if not s[0].exists()]
    if todo:
        t0 = time.perf_counter()
        for i, (path, n, seed) in enumerate(todo, 1):
            write_shard(path, n, n_features, seed)
            print(f"\r  writing {folder.name}: shard {i}/{len(todo)}", end="", file=sys.stderr)
        print(f"  ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return [(str(p), n) for p, n, _ in specs]


# -- one measurement (runs in its own process) -----------------------------------------------
def load_shards(paths: list[str]) -> tuple[sp.csr_matrix, np.ndarray]:
    """Consecutive shards stacked into one chunk."""
    parts = [load_shard(p) for p in paths]
    if len(parts) == 1:
        return parts[0]
    # Stacked by hand: sp.vstack takes a slow generic path for these index dtypes.
    offsets = np.cumsum([0] + [X.nnz for X, _ in parts[:-1]])
    indptr = np.concatenate(
        [parts[0][0].indptr[:1]]
        + [X.indptr[1:] + o for (X, _), o in zip(parts, offsets, strict=True)]
    )
    X = sp.csr_matrix(
        (
            np.concatenate([X.data for X, _ in parts]),
            np.concatenate([X.indices for X, _ in parts]),
            indptr,
        ),
        shape=(sum(X.shape[0] for X, _ in parts), parts[0][0].shape[1]),
    )
    return X, np.concatenate([y for _, y in parts])


def _dask_inputs(shards: list[tuple[str, int]], n_features: int):
    """The corpus as Dask arrays, ``SHARDS_PER_CHUNK`` shards per chunk, read lazily."""
    import dask
    import dask.array as da

    xs, ys = [], []
    meta = sp.csr_matrix((0, n_features))
    for i in range(0, len(shards), SHARDS_PER_CHUNK):
        group = shards[i : i + SHARDS_PER_CHUNK]
        n = sum(size for _, size in group)
        # Read once; the tuple feeds both the X and the y chunk.
        both = dask.delayed(load_shards)([path for path, _ in group])
        xs.append(da.from_delayed(both[0], (n, n_features), dtype=np.float64, meta=meta))
        ys.append(da.from_delayed(both[1], (n,), dtype=np.intp, meta=np.empty(0, np.intp)))
    return da.concatenate(xs), da.concatenate(ys)


def _secs(run: dict) -> float:
    return run["seconds"]


def _n_chunks(shards: list) -> int:
    return -(-len(shards) // SHARDS_PER_CHUNK)


def _peak_rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0  # Linux: KiB


def _cpu_seconds() -> float:
    """User + system CPU time of this process (all its threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _cluster(no_trim: bool):
    """A LocalCluster of 2 single-threaded worker processes and its client.

    Threads would not help: the counting (``np.add.at``) and SciPy's sparse products hold the
    GIL (two threads on two cores run them at ~1.0-1.1x the speed of one).
    """
    import dask
    from distributed import Client, LocalCluster

    if no_trim:
        # Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, which also turns
        # off glibc's adaptive mmap threshold: every multi-MB temporary (a chunk's K × V
        # count table) is then a fresh mmap, page-faulted in and unmapped again.
        key = "distributed.nanny.pre-spawn-environ"
        environ = {k: v for k, v in dask.config.get(key).items() if k != "MALLOC_TRIM_THRESHOLD_"}
        dask.config.set({key: environ})
    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        memory_limit="2GB",  # the budget: the nanny restarts a worker beyond 95%
    )
    return cluster, Client(cluster, set_as_default=False)


def _load_on_workers(client, shards: list[tuple[str, int]], n_features: int):
    """The corpus read by the workers themselves and kept in their memory, one partition per
    worker (consecutive shards): the client never holds or ships the data."""
    import operator

    import dask.array as da

    workers = sorted(client.scheduler_info()["workers"])
    xs, ys = [], []
    meta = sp.csr_matrix((0, n_features))
    parts = np.array_split(np.arange(len(shards)), len(workers))
    for worker, part in zip(workers, parts, strict=True):
        paths = [shards[i][0] for i in part]
        n = sum(shards[i][1] for i in part)
        on = dict(workers=[worker], allow_other_workers=False)
        both = client.submit(load_shards, paths, pure=False, **on)
        x = client.submit(operator.getitem, both, 0, **on)
        y = client.submit(operator.getitem, both, 1, **on)
        xs.append(da.from_delayed(x, (n, n_features), dtype=np.float64, meta=meta))
        ys.append(da.from_delayed(y, (n,), dtype=np.intp, meta=np.empty(0, np.intp)))
    # Persisted: one graph key per partition (no alias tasks between the data and a fit).
    X, y = client.persist([da.concatenate(xs), da.concatenate(ys)])
    from distributed import futures_of

    futures = futures_of(X) + futures_of(y)
    while not all(f.done() for f in futures):  # distributed.wait needs a default client
        time.sleep(0.01)
    for f in futures:
        if f.status == "error":
            raise f.exception()
    return X, y


def _warm_page_cache(paths: list[str]) -> None:
    """Read every shard once, untimed: fits are timed from the page cache, not the disk.

    The cache of a 10^7-document corpus is 1.4 GB; on a shared machine it is evicted between
    runs, and a cold read from disk (~30 s here) would be timed as fitting.
    """
    for path in paths:
        with open(path, "rb") as fh:
            while fh.read(1 << 24):
                pass


def _worker_compute(task_stream: list[dict]) -> dict[str, float]:
    """Seconds each worker spent computing tasks (transfers and idle time excluded)."""
    busy: dict[str, float] = {}
    for task in task_stream:
        for ss in task["startstops"]:
            if ss["action"] == "compute":
                busy[task["worker"]] = busy.get(task["worker"], 0.0) + ss["stop"] - ss["start"]
    return busy


def run_job(job: dict) -> dict:
    """Fit once per repeat under ``job["scheduler"]``: median wall and CPU time, peak RSS.

    Schedulers: ``synchronous``/``threads`` (one process) and ``cluster``/``cluster-no-trim``
    (2 workers) fit from disk, chunk by chunk; ``memory`` is ``est.fit(X, y)`` on the corpus
    already in this process's memory and ``cluster-memory[-no-trim]`` is
    ``distributed.fit`` on the corpus already in the workers' memory (one partition each).

    CPU seconds are this process's (threads included; with a cluster it also runs the
    scheduler) and, for a cluster, each worker's, read with ``getrusage`` around every fit;
    ``compute`` is each worker's task time from Dask's task stream.
    """
    import dask

    from bayesnb import MultinomialNB, distributed

    shards = [tuple(s) for s in job["shards"]]
    n_features = job["n_features"]
    scheduler = job["scheduler"]
    _warm_page_cache([path for path, _ in shards])
    classes = np.arange(N_CLASSES)  # declared: no first pass that would read every shard
    client = cluster = None
    if scheduler.startswith("cluster"):
        cluster, client = _cluster(scheduler.endswith("no-trim"))
    times, cpu, worker_cpu, compute, paired = [], [], [], [], []
    try:
        if scheduler == "memory":
            X, y = load_shards([path for path, _ in shards])  # not timed: data in memory
            fit = lambda: MultinomialNB().fit(X, y)  # noqa: E731
            MultinomialNB().fit(X[:2000], y[:2000])  # warm-up
        elif scheduler.startswith("cluster-memory"):
            # The one-process fit again, here, alternating with the cluster's: on a shared
            # machine both then see the same neighbours (their ratio is the "paired" speed-up).
            local_X, local_y = load_shards([path for path, _ in shards])
            MultinomialNB().fit(local_X[:2000], local_y[:2000])
            X, y = _load_on_workers(client, shards, n_features)
            fit = lambda: distributed.fit(  # noqa: E731
                MultinomialNB(), X, y, classes=classes, client=client
            )
            fit()  # warm-up: imports and first-call caches on every worker
        else:
            if client is not None:
                client.run(lambda: __import__("bayesnb.distributed"))
            warm_X, warm_y = _dask_inputs(shards[:2], n_features)
            distributed.fit(
                MultinomialNB(), warm_X[:2000], warm_y[:2000], classes=classes, client=client
            )

            def fit():
                X, y = _dask_inputs(shards, n_features)
                if client is not None:
                    return distributed.fit(MultinomialNB(), X, y, classes=classes, client=client)
                with dask.config.set(scheduler=scheduler, num_workers=2):
                    return distributed.fit(MultinomialNB(), X, y, classes=classes)

        for _ in range(job["repeats"]):
            if scheduler.startswith("cluster-memory"):
                t0 = time.perf_counter()
                MultinomialNB().fit(local_X, local_y)
                paired.append(time.perf_counter() - t0)
            w0 = client.run(_cpu_seconds) if client is not None else {}
            c0, t0 = _cpu_seconds(), time.perf_counter()
            if client is not None:
                from distributed import get_task_stream

                with get_task_stream(client) as stream:
                    est = fit()
                compute.append(sorted(_worker_compute(stream.data).values()))
            else:
                est = fit()
            times.append(time.perf_counter() - t0)
            cpu.append(_cpu_seconds() - c0)
            if client is not None:
                w1 = client.run(_cpu_seconds)
                worker_cpu.append(sorted(w1[k] - w0[k] for k in w0))
        n_docs = int(est.class_count_.sum())
        assert n_docs == sum(n for _, n in shards), "every document must be counted"
        workers = []
        if client is not None:
            workers = sorted(client.run(_peak_rss).values())
    finally:
        if client is not None:
            client.close()
            cluster.close()
    best = int(np.argsort(times)[len(times) // 2])  # the median run
    return {
        "seconds": times[best],
        "cpu": cpu[best],
        "worker_cpu": worker_cpu[best] if worker_cpu else [],
        "compute": compute[best] if compute else [],
        "times": times,
        "paired": paired,
        "rss": _peak_rss(),
        "worker_rss": workers,
        "tokens": float(est.feature_count_.sum()),
    }


def _measure(job: dict) -> dict:
    """Run ``job`` in a fresh Python process (its own peak RSS) and return its result."""
    proc = subprocess.run(
        [sys.executable, __file__, "--job", json.dumps(job)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark job {job['label']} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- reporting -------------------------------------------------------------------------------
def _slope(x, t) -> float:
    return float(np.polyfit(np.log10(x), np.log10(t), 1)[0])


def _plot(doc_rows: list[dict], vocab_rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for ax, rows, key, label in (
        (axes[0], doc_rows, "docs", "documents"),
        (axes[1], vocab_rows, "features", "vocabulary (features)"),
    ):
        x = np.array([r[key] for r in rows], dtype=float)
        ax.loglog(x, [r["seconds"] for r in rows], "o-", label="fit time (s)")
        ax.loglog(x, [r["rss"] / GB for r in rows], "s--", label="peak RSS (GB)")
        ax.set_xlabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    slope = _slope([r["docs"] for r in doc_rows], [r["seconds"] for r in doc_rows])
    axes[0].set_title(f"MultinomialNB on Dask, 2^18 features: slope {slope:.2f}")
    axes[1].set_title(f"{VOCAB_DOCS:,} documents")
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="documents up to 10^6 (default)")
    size.add_argument("--full", action="store_true", help="documents up to 10^7 (~1.5 GB cache)")
    parser.add_argument("--repeats", type=int, default=3, help="fits per timing (median)")
    parser.add_argument("--job", help=argparse.SUPPRESS)  # internal: one measurement
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the sweeps, print the table, save plot and JSON; return the number of missed targets."""
    args = _parser().parse_args(argv)
    if args.job:
        print(json.dumps(run_job(json.loads(args.job))))
        return 0
    sizes = DOC_SIZES_FULL if args.full else DOC_SIZES_QUICK
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"bench_scale: {os.cpu_count()} CPUs, load average {load_average()} (1 min)")

    def job(label, shards, n_features, scheduler, repeats=args.repeats):
        result = _measure(
            dict(
                label=label,
                shards=shards,
                n_features=n_features,
                scheduler=scheduler,
                repeats=repeats,
            )
        )
        result["load"] = os.getloadavg()[0]
        return result

    doc_rows = []
    for n in sizes:
        shards = corpus(n, HASHED_FEATURES)
        repeats = args.repeats if n <= SPEEDUP_DOCS else 1
        r = job(f"docs={n}", shards, HASHED_FEATURES, "synchronous", repeats)
        doc_rows.append({"docs": n, "features": HASHED_FEATURES, "chunks": _n_chunks(shards), **r})
        print(f"  {n:>10,} documents: {r['seconds']:8.2f} s  {r['rss'] / GB:5.2f} GB")
    vocab_rows = []
    for v in VOCAB_SIZES:
        shards = corpus(VOCAB_DOCS, v)
        r = job(f"features={v}", shards, v, "synchronous")
        vocab_rows.append({"docs": VOCAB_DOCS, "features": v, "chunks": _n_chunks(shards), **r})
        print(f"  {v:>10,} features:  {r['seconds']:8.2f} s  {r['rss'] / GB:5.2f} GB")
    # The target measured on equal terms: the same corpus already in memory, one
    # process's est.fit(X, y) against distributed.fit on the workers' own partitions.
    mem_shards = corpus(SPEEDUP_DOCS, HASHED_FEATURES)
    in_memory = {
        s: job(s, mem_shards, HASHED_FEATURES, s)
        for s in ("memory", "cluster-memory", "cluster-memory-no-trim")
    }
    # Out of core: every chunk read from disk, by one process or by the workers.
    speed = {}
    for n in sorted({SPEEDUP_DOCS, sizes[-1]}):
        shards = corpus(n, HASHED_FEATURES)
        runs = {"synchronous": next(r for r in doc_rows if r["docs"] == n)}
        repeats = args.repeats if n <= SPEEDUP_DOCS else 1
        for scheduler in ("threads", "cluster", "cluster-no-trim"):
            runs[scheduler] = job(scheduler, shards, HASHED_FEATURES, scheduler, repeats)
        speed[n] = runs

    print(
        f"\n{'documents':>11} {'features':>9} {'chunks':>6} {'fit s':>8} {'CPU s':>7} "
        f"{'docs/s':>10} {'peak RSS GB':>11} {'load':>5}"
    )
    for r in doc_rows + vocab_rows:
        print(
            f"{r['docs']:>11,} {r['features']:>9,} {r['chunks']:>6} {r['seconds']:>8.2f} "
            f"{r['cpu']:>7.2f} {r['docs'] / r['seconds']:>10,.0f} {r['rss'] / GB:>11.2f} "
            f"{r['load']:>5.2f}"
        )
    slope = _slope([r["docs"] for r in doc_rows], [r["seconds"] for r in doc_rows])
    big = [r for r in doc_rows if r["docs"] >= 100_000]
    slope_big = _slope([r["docs"] for r in big], [r["seconds"] for r in big])

    names = {
        "synchronous": "one process, 1 thread (synchronous)",
        "threads": "one process, 2 threads",
        "cluster": "LocalCluster, 2 workers x 1 thread",
        "cluster-no-trim": "  same, no MALLOC_TRIM_THRESHOLD_",
        "memory": "one process, est.fit(X, y)",
        "cluster-memory": "LocalCluster, 2 workers x 1 thread",
        "cluster-memory-no-trim": "  same, no MALLOC_TRIM_THRESHOLD_",
    }

    def show(runs: dict, base: dict) -> None:
        print(
            f"  {'':<36} {'fit s':>6} {'speed-up':>8} {'busiest worker s':>16} "
            f"{'overhead s':>10}  {'CPU s (driver; workers)':<24} peak RSS GB"
        )
        for key, r in runs.items():
            busy = max(r["compute"]) if r["compute"] else None
            cols = f"{busy:>16.3f} {r['seconds'] - busy:>10.3f}" if busy else f"{'':>16} {'':>10}"
            workers = "; " + ", ".join(f"{c:.2f}" for c in r["worker_cpu"])
            cpu = f"{r['cpu']:.2f}" + (workers if r["worker_cpu"] else "")
            rss = ", ".join(f"{v / GB:.2f}" for v in [r["rss"], *r["worker_rss"]])
            print(
                f"  {names[key]:<36} {r['seconds']:>6.3f} {base['seconds'] / r['seconds']:>7.2f}x "
                f"{cols}  {cpu:<24} {rss}  (load {r['load']:.2f})"
            )

    t1 = in_memory["memory"]["seconds"]
    best_mem = min(in_memory["cluster-memory"], in_memory["cluster-memory-no-trim"], key=_secs)
    busy = max(best_mem["compute"])
    overhead = best_mem["seconds"] - busy
    reachable = t1 / (t1 / 2 + overhead)
    # Insensitive to neighbours' load: CPU seconds, not wall time.
    cpu_bound = in_memory["memory"]["cpu"] / max(best_mem["worker_cpu"])
    print(
        f"\n{SPEEDUP_DOCS:,} documents, {HASHED_FEATURES:,} features, already in memory: one "
        "process vs distributed.fit on the workers' own partitions (one each)"
    )
    show(in_memory, in_memory["memory"])
    for key in ("cluster-memory", "cluster-memory-no-trim"):
        r = in_memory[key]
        print(
            f"  paired with {names[key].strip()}: one-process fits interleaved with the "
            f"cluster's took {np.median(r['paired']):.3f} s -> "
            f"{np.median(r['paired']) / r['seconds']:.2f}x"
        )
    print(
        f"  busiest worker = its task time (counting its half); overhead = fit time - that "
        f"(scheduling, two K x V tables of {N_CLASSES * HASHED_FEATURES * 8 / 1e6:.0f} MB "
        "shipped to the client and merged, hyperparameters)"
    )
    print(
        f"  reachable with this overhead: t1 / (t1/2 + overhead) = {t1:.3f} / ({t1 / 2:.3f} + "
        f"{overhead:.3f}) = {reachable:.2f}x; the workers took {busy:.3f} s for half the "
        f"counting (ideal {t1 / 2:.3f} s)"
    )
    print(f"  CPU-bound speed-up (one process's CPU / busiest worker's CPU): {cpu_bound:.2f}x")
    for n, runs in speed.items():
        base = runs["synchronous"]
        print(
            f"\n{n:,} documents, {HASHED_FEATURES:,} features, out of core "
            f"({base['chunks']} chunks read from disk)"
        )
        show(runs, base)
        bound = base["cpu"] / max(runs["cluster-no-trim"]["worker_cpu"])
        print(
            f"  CPU-bound speed-up of the cluster (1-thread CPU / busiest worker's CPU): "
            f"{bound:.2f}x"
        )
    print(f"load average now {load_average()} (1 min); {os.cpu_count()} CPUs")

    every = [
        *doc_rows,
        *vocab_rows,
        *in_memory.values(),
        *(r for runs in speed.values() for r in runs.values()),
    ]
    peak = max(max([r["rss"], *r["worker_rss"]]) for r in every)
    lo, hi = SLOPE_TARGET
    speedup_mem = t1 / best_mem["seconds"]
    # Interleaved with the cluster's fits in the same job: the same neighbours' load.
    paired = float(np.median(best_mem["paired"]) / best_mem["seconds"])
    ok_mem = max(speedup_mem, paired) >= SPEEDUP_TARGET
    cap = "below the target: out of reach here" if reachable < SPEEDUP_TARGET else "enough"
    why = (
        ""
        if ok_mem
        else (
            f". With perfectly halved counting ({t1 / 2:.3f} s) the measured fixed overhead "
            f"({overhead:.3f} s) allows {reachable:.2f}x ({cap}); the workers counted their "
            f"halves in {busy:.3f} s on {os.cpu_count()} cores shared with the scheduler, the "
            f"client and other load (load {best_mem['load']:.2f}); CPU-bound speed-up "
            f"{cpu_bound:.2f}x"
        )
    )
    checks = Checks()
    checks.add(
        lo <= slope <= hi,
        f"time ~ documents^{slope:.2f} over {sizes[0]:,}..{sizes[-1]:,} "
        f"(>= 10^5 only: {slope_big:.2f}); target {lo}-{hi}",
    )
    checks.add(
        ok_mem,
        f"LocalCluster(2) speed-up at {SPEEDUP_DOCS:,} documents, same data in memory: "
        f"{speedup_mem:.2f}x (one process {t1:.3f} s, cluster {best_mem['seconds']:.3f} s; "
        f"{paired:.2f}x against one-process fits interleaved with the cluster's); target "
        f">= {SPEEDUP_TARGET}x" + why,
    )
    for n, runs in speed.items():
        base = runs["synchronous"]["seconds"]
        trim, no_trim = base / runs["cluster"]["seconds"], base / runs["cluster-no-trim"]["seconds"]
        checks.add(
            max(trim, no_trim) >= SPEEDUP_TARGET,
            f"LocalCluster(2) speed-up at {n:,} documents out of core (chunks read from "
            f"disk): {no_trim:.2f}x ({trim:.2f}x with MALLOC_TRIM_THRESHOLD_); target >= "
            f"{SPEEDUP_TARGET}x",
        )
    checks.add(
        peak <= RSS_BUDGET,
        f"peak RSS per process {peak / GB:.2f} GB; budget "
        f"{RSS_BUDGET / GB:.0f} GB (largest corpus {sizes[-1]:,} documents)",
    )

    png = OUT / "bench_scale.png"
    _plot(doc_rows, vocab_rows, png)
    summary = {
        "documents": doc_rows,
        "vocabulary": vocab_rows,
        "speedup": {str(n): runs for n, runs in speed.items()},
        "speedup_in_memory": {
            **in_memory,
            "reachable": reachable,
            "overhead": overhead,
            "cpu_bound": cpu_bound,
            "paired": paired,
        },
        "slope": slope,
        "slope_from_1e5": slope_big,
        "cpus": os.cpu_count(),
    }
    (OUT / "bench_scale.json").write_text(json.dumps(summary, indent=2))
    print(f"plot: {png.relative_to(ROOT)}; numbers: {(OUT / 'bench_scale.json').relative_to(ROOT)}")
    return checks.report()


if __name__ == "__main__":
    sys.exit(main())
