"""``bayesnb fit``: one model on a data set, saved to a netCDF file (with ``--nuts``, its NUTS
draws beside it); a corpus on disk is streamed (:func:`fit_streamed`).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from bayesnb.cli import unlabelled
from bayesnb.cli.data import DEMO_SEED, is_corpus, load_data
from bayesnb.cli.errors import DataError, one_line
from bayesnb.cli.models import (
    alpha_models,
    build_estimator,
    check_model_data,
    cli_models,
    fit_named,
    models_help,
    save_model,
)
from bayesnb.cli.options import TEMPERATURE_HELP, parse_alpha, parse_temperature
from bayesnb.cli.text import OPTIONS, PRUNING, add_vectorizer_options, vectorizer_settings
from bayesnb.columns import record_vectorizer
from bayesnb.validation import ESTIMATES

__all__ = ["add_arguments", "fit_streamed", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The description and options of ``fit`` on its sub-command parser."""
    parser.description = (
        "Fit MODEL on every document of --data and save it to --out. An embedded data "
        "set (digits, breast_cancer, wine, iris, fortunes[:cat1,cat2]) is loaded in memory. "
        "Any other --data is a text corpus on disk, which fit streams: it reads "
        "--chunk-size documents at a time, never the whole corpus, and prints progress "
        "with documents/s on stderr. A corpus is a folder of class sub-folders (one "
        "document per file, labelled by its folder), a folder of CSV files, a CSV file "
        "(columns 'label' and 'text', one document per row), or a glob pattern of such "
        "files, quoted so the shell does not expand it ('mail/*/*.txt', 'data/*.csv.gz'). "
        "An embedded name wins over a folder of that name: write ./digits for the folder. "
        "A first pass collects the labels and the vocabulary, so the columns are the "
        "corpus's words (the in-memory fit's, which `report` and new text reuse); "
        "--hash-features N counts in a single pass into N hashed columns instead (memory "
        "bounded whatever the vocabulary; no words are saved, so `report` cannot re-read "
        "such a model's columns; `predict` hashes new text the same way). With --nuts the "
        "corpus is loaded in memory. With --unlabelled FOLDER the model is fitted by EM (or "
        "variational Bayes, --inference vb) on the labelled documents of --data and the "
        "unlabelled documents of FOLDER (see below)."
    )
    parser.add_argument(
        "model", choices=cli_models(), metavar="MODEL", help=f"one of {models_help()}"
    )
    parser.add_argument(
        "--data",
        required=True,
        metavar="SPEC",
        help="an embedded data set, or a folder, CSV file or quoted glob pattern of text files "
        "on disk (streamed; see above)",
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=10_000,
        metavar="N",
        help="documents read at a time from a corpus on disk (10000)",
    )
    parser.add_argument(
        "--hash-features",
        type=int,
        metavar="N",
        help="one pass, N hashed columns (e.g. 262144) instead of the corpus vocabulary",
    )
    parser.add_argument(
        "--estimate",
        choices=ESTIMATES,
        help="how the model scores new data (default: the model's own, mean; dcm: map, and "
        "dcm refuses bayes)",
    )
    parser.add_argument(
        "--alpha",
        metavar="N|evidence",
        help="prior concentration (poisson: Gamma shape), or 'evidence' to learn it "
        f"({alpha_models()})",
    )
    parser.add_argument("--temperature", metavar="T|loo", help=TEMPERATURE_HELP)
    parser.add_argument(
        "--nuts",
        action="store_true",
        help="also sample the PyMC model with NUTS; draws go to NAME.nuts.nc",
    )
    parser.add_argument("--draws", type=int, default=1000, help="NUTS draws per chain (1000)")
    parser.add_argument("--tune", type=int, default=1000, help="NUTS tuning steps (1000)")
    parser.add_argument("--chains", type=int, default=4, help="NUTS chains (4)")
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help="random seed (0)")
    parser.add_argument("--out", required=True, metavar="models/NAME.nc", help="the model file")
    add_vectorizer_options(parser)
    unlabelled.add_arguments(parser)


def _option(key: str) -> str:
    """The option that sets CountVectorizer parameter ``key``."""
    return next(option for option, k in OPTIONS.items() if k == key)


def fit_streamed(args) -> int:
    """``fit`` of a corpus on disk: read in chunks, counted chunk by chunk, never held whole.

    The default columns are the corpus's words, collected by a first pass (what the in-memory
    ``CountVectorizer`` gives, so ``report`` and new text use the same columns); with
    ``--hash-features`` one pass counts hashed columns and no vocabulary is kept.
    """
    from types import SimpleNamespace

    from bayesnb import streaming

    spec = str(args.data).strip()
    settings = vectorizer_settings(args)
    pruning = [_option(k) for k in PRUNING if k in settings]
    if args.hash_features and pruning:
        raise DataError(
            f"{', '.join(pruning)} choose words of a vocabulary: --hash-features keeps none "
            "(use --stop-words and --ngram-range with it, or drop --hash-features)"
        )
    corpus = SimpleNamespace(name=Path(spec).name or spec, kind="text", binarize=0.0)
    check_model_data(args.model, corpus)
    est = _estimator(args, corpus)  # a configuration it refuses fails before the corpus is read
    t0 = time.perf_counter()
    try:
        # Undecodable bytes become U+FFFD, as when load_data reads a folder in memory.
        if args.hash_features:
            vec = streaming.default_vectorizer(args.hash_features).set_params(**settings)
            files, classes, total = spec, None, None  # labels: fit_files's cheap first pass
        else:
            scan = streaming.scan_files(
                spec, CountVectorizer(**settings), args.chunk_size, errors="replace"
            )
            files, vec, classes, total = scan.files, scan.vectorizer, scan.classes, scan.n_documents
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if not args.hash_features:  # the scan has said what the corpus holds
                warnings.simplefilter("ignore", streaming.CorpusWarning)
            streaming.fit_files(
                est, files, vec, args.chunk_size, classes, errors="replace", total=total
            )
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot fit {args.model} to --data {spec!r}: {one_line(exc)}") from exc
    seconds = time.perf_counter() - t0
    # The model file records how the columns were made, so `predict` maps new text the same way.
    record_vectorizer(est, vec)
    out = Path(args.out)
    save_model(est, out)
    n_docs = round(float(np.sum(est.class_count_)))
    columns = f"{est.n_features_in_:,} " + ("hashed features" if args.hash_features else "words")
    print(
        f"{_fitted(est)} on {n_docs:,} documents × {columns}, {len(est.classes_)} classes in "
        f"{seconds:.2f} s, streamed from disk in chunks of {args.chunk_size:,} documents "
        f"({n_docs / max(seconds, 1e-9):,.0f} documents/s); log evidence {est.log_evidence():.1f}"
    )
    print(f"saved: {out}")
    return 0


def run(args) -> int:
    """``bayesnb fit``: 0 when saved, 1 when NUTS failed (the model is saved); input errors
    raise :class:`DataError`."""
    from bayesnb.report.sections import sampler

    files = unlabelled.check_options(args)  # the unlabelled documents, listed not read
    if is_corpus(args.data) and not args.nuts and files is None:
        return fit_streamed(args)  # NUTS and EM need the documents in memory: load_data below
    settings = vectorizer_settings(args)
    vectorizer = CountVectorizer(**settings)
    data = load_data(args.data, vectorizer=vectorizer, seed=args.seed)
    if settings and data.kind != "text":
        given = ", ".join(_option(k) for k in settings)
        raise DataError(f"{given}: options of text data; --data {args.data!r} is {data.kind}")
    check_model_data(args.model, data)
    est = _estimator(args, data)
    t0 = time.perf_counter()
    if files is not None:
        est = unlabelled.fit_em(est, data, args, files, vectorizer)
    try:
        if files is None:
            fit_named(est, data.X, data.y, data.feature_names)
        if data.kind == "text":  # load_data's words: the vectorizer's columns
            record_vectorizer(est, vectorizer)
    except ValueError as exc:
        raise DataError(
            f"{args.model} cannot be fitted to --data {args.data!r}: {one_line(exc)}"
        ) from exc
    out = Path(args.out)
    save_model(est, out)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*does not have valid feature names")
        acc = float(np.mean(est.predict(data.X) == data.y))
    # An EM fit's statistics hold soft counts: its objective is the log posterior, not the
    # evidence of those counts.
    docs, tail = "labelled documents", ""
    if files is None:
        docs, tail = "documents", f"; log evidence {est.log_evidence():.1f}"
    print(
        f"{_fitted(est)} on {data.X.shape[0]} {docs} × {data.X.shape[1]} features, "
        f"{len(est.classes_)} classes in {time.perf_counter() - t0:.2f} s; "
        f"training accuracy {acc:.4f}{tail}"
    )
    if files is not None:
        print(unlabelled.describe(est.semisupervised_))
    if args.nuts:
        from bayesnb.report import Study

        study = Study(data, args.model, estimator=est)
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # SamplingWarning's findings are in the summary printed below.
                warnings.simplefilter("ignore")
                sizes = {k: getattr(args, k) for k in ("draws", "tune", "chains")}
                tree = est.fit_pymc(
                    data.X, data.y, random_seed=args.seed, progressbar=False, **sizes
                )
        except Exception as exc:  # the saved model stands; say why NUTS did not
            print(f"bayesnb: NUTS failed: {one_line(exc)}", file=sys.stderr)
            print(f"saved: {out}")
            return 1
        nuts_path = out.with_suffix(".nuts.nc")
        tree.to_netcdf(nuts_path, engine="h5netcdf")
        seconds = time.perf_counter() - t0
        check = sampler(study, tree=tree, fitted=est, wall_time=seconds)
        print(check.reading)
        print(f"NUTS draws: {nuts_path}")
    print(f"saved: {out}")
    return 0


def _fitted(est) -> str:
    """``fitted MODEL (estimate=..., alpha=..., temperature=...)``: how a summary line starts
    (a learned or fixed alpha where the model has one, the temperature where it is not 1)."""
    alpha = getattr(est, "alpha_", None)
    tau = est.temperature_ if "temperature" in est.get_params(deep=False) else 1.0
    return (
        f"fitted {type(est).__name__} (estimate={est.estimate}"
        + (f", alpha={float(np.mean(alpha)):.4g}" if alpha is not None else "")
        + ("" if tau == 1.0 else f", temperature={tau:.4g}")
        + ")"
    )


def _estimator(args, data):
    """The estimator of ``fit``'s options (model, estimate, alpha, temperature) for ``data``."""
    alpha, tau = parse_alpha(args.alpha), parse_temperature(args.temperature)
    return build_estimator(args.model, data, args.estimate, alpha, tau)
