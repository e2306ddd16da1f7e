"""``bayesnb fit --unlabelled FOLDER``: the model fitted by EM (or, with ``--inference vb``,
variational Bayes) on the labelled documents of ``--data`` and the unlabelled documents of
FOLDER (:class:`bayesnb.SemiSupervisedNB`).

Every visible file below FOLDER, at any depth, is one unlabelled document (sub-folder names
are ignored; hidden files and folders are skipped, as in a class folder of a corpus). The
documents are counted in the labelled corpus's columns, by the vectorizer ``fit`` fitted on
it: the words only unlabelled documents use are dropped, so with λ = 0 the model is the
supervised ``bayesnb fit``'s. The file saved is the fitted estimator (``estimator_``), an
ordinary model of its family whose statistics hold the labelled counts plus the unlabelled
documents' expected counts (responsibilities × λ; under VB q(θ) is its posterior); it
records the fit in ``semisupervised_`` (the model file's ``fitted`` JSON key
``semisupervised``): ``inference`` ("em" or "vb"), ``n_unlabelled``, ``unlabelled_weight``,
``max_iter``, ``tol``, ``n_iter``, ``converged`` and, under EM, ``log_posterior`` (the
observed-data log posterior at the end) and ``log_posterior_start`` (that of the
labelled-only fit EM started from), under VB ``elbo`` and ``elbo_start`` (the evidence lower
bound likewise). A record without ``inference`` (an older file) is EM's.
``--unlabelled-weight cv`` chooses λ by cross-validation of the fit over the labelled
documents (``--cv N``: ``StratifiedKFold(N)``, ``--cv loo``: leave-one-out; by default
``SemiSupervisedNB``'s stratified folds), ``loo`` by leave-one-out
(:mod:`bayesnb.semisupervised_loo`): ``unlabelled_weight`` is then the λ chosen, and the
record adds ``unlabelled_weight_rule`` ("cv" or "loo"), ``cv`` (the ``--cv`` given, if
any), ``loo_n_splits`` and the curve, ``loo_unlabelled_weight``, ``loo_elpd`` and
``loo_alpha`` (lists, one entry per λ tried).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

from bayesnb.cli.errors import DataError, one_line
from bayesnb.cli.options import CV_HELP, parse_cv

__all__ = ["add_arguments", "check_options", "describe", "fit_em", "read_unlabelled"]

_OPTIONS = ("unlabelled_weight", "max_iter", "inference", "cv")
_INFERENCES = {"em": "EM", "vb": "VB"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of a fit on unlabelled documents (EM or VB) to ``fit``'s parser."""
    group = parser.add_argument_group(
        "unlabelled documents (EM or variational Bayes)",
        "fit by EM or variational Bayes (bayesnb.SemiSupervisedNB) on the labelled documents "
        "of --data and the unlabelled ones of FOLDER, both held in memory; --data must be "
        "text (a folder of class sub-folders, a CSV file or fortunes). EM runs to the MAP or "
        "the MLE, so its estimate is map or mle (--estimate map; --alpha above 1 smooths the "
        "MAP); VB's posterior takes any estimate. The file saved is the fitted model, which "
        "predict and inspect read as any other; it records the fit",
    )
    group.add_argument(
        "--unlabelled",
        metavar="FOLDER",
        help="a folder of unlabelled text documents, one per file, read at any depth (the "
        "names of sub-folders are ignored)",
    )
    group.add_argument(
        "--unlabelled-weight",
        metavar="λ",
        help="the weight λ >= 0 of an unlabelled document relative to a labelled one (1; 0 "
        "gives the labelled-only fit), 'cv': the λ from 0 to 1 whose fit predicts held-out "
        "labelled documents best (the folds of --cv), or 'loo': the same with "
        "every labelled document held out in turn (one fit per labelled document and λ)",
    )
    group.add_argument(
        "--max-iter", type=int, metavar="N", help="the most EM (or VB) iterations (100)"
    )
    group.add_argument(
        "--inference",
        metavar="em|vb",
        help="em: EM to the MAP or MLE (the default); vb: mean-field variational Bayes, "
        "whose q(θ) is the saved model's posterior",
    )
    group.add_argument(
        "--cv",
        metavar="N|loo",
        help=f"the folds of --unlabelled-weight cv: {CV_HELP}; by default stratified with "
        "N = min(5, the smallest class)",
    )


def _weight(text: str | None) -> float | str | None:
    """The value of ``--unlabelled-weight``: None (not given), ``"cv"``, ``"loo"`` or a
    finite number >= 0."""
    if text is None or text.strip() in ("cv", "loo"):
        return None if text is None else text.strip()
    try:
        value = float(text)
    except ValueError:
        value = np.nan
    if not (np.isfinite(value) and value >= 0):
        raise DataError(
            f"--unlabelled-weight must be a finite number >= 0, 'cv' or 'loo', got {text!r}"
        )
    return value


def _inference(text: str | None) -> str:
    """The value of ``--inference``: ``"em"`` (also when not given) or ``"vb"``."""
    value = "em" if text is None else text.strip().lower()
    if value not in _INFERENCES:
        raise DataError(f"--inference must be em or vb, got {text!r}")
    return value


def _cv(args) -> int | str | None:
    """The value of ``--cv`` (None: not given), which only ``--unlabelled-weight cv`` takes."""
    cv = parse_cv(args.cv)
    weight = None if args.unlabelled_weight is None else args.unlabelled_weight.strip()
    if cv is not None and weight != "cv":
        raise DataError(
            f"--cv {args.cv!r} gives the folds of --unlabelled-weight cv, got "
            f"--unlabelled-weight {args.unlabelled_weight!r}"
        )
    return cv


def check_options(args) -> list[Path] | None:
    """The unlabelled documents' files (None without ``--unlabelled``), after refusing
    options that do not go with it; nothing is read but the folder's listing.

    Raises
    ------
    DataError
        EM or VB options without ``--unlabelled``, ``--nuts``, ``--hash-features`` or a glob
        pattern ``--data`` with it, a missing or empty FOLDER, a bad λ, inference or
        ``--cv`` (or ``--cv`` without ``--unlabelled-weight cv``).
    """
    from bayesnb.corpora import CorpusLog, class_documents, is_pattern

    if args.unlabelled is None:
        given = [f"--{k.replace('_', '-')}" for k in _OPTIONS if getattr(args, k) is not None]
        if given:
            raise DataError(
                f"{', '.join(given)}: options of a fit on unlabelled documents (EM or VB), "
                "which --unlabelled FOLDER asks for"
            )
        return None
    for flag, why in (
        ("nuts", "NUTS samples the labelled-only model"),
        ("hash_features", "the unlabelled documents are counted in the corpus's words"),
    ):
        if getattr(args, flag):
            raise DataError(f"--{flag.replace('_', '-')} does not go with --unlabelled ({why})")
    if is_pattern(str(args.data).strip()):
        raise DataError(
            "--unlabelled holds --data in memory: a folder of class sub-folders, a CSV file or "
            f"fortunes, not the glob pattern {args.data!r}"
        )
    _weight(args.unlabelled_weight)
    _inference(args.inference)
    _cv(args)
    folder = Path(str(args.unlabelled).strip())
    if not folder.exists():
        raise DataError(f"--unlabelled {str(folder)!r}: no such folder")
    if not folder.is_dir():
        raise DataError(f"--unlabelled {str(folder)!r} is a file, not a folder of documents")
    log = CorpusLog()
    files = class_documents(folder, log)
    log.warn(stacklevel=2)
    if not files:
        raise DataError(f"--unlabelled {str(folder)!r} holds no documents (no visible files)")
    return files


def read_unlabelled(files: list[Path], vocabulary, vectorizer):
    """The count matrix of the documents ``files`` in the columns ``vocabulary``, tokenised as
    ``vectorizer`` (unfitted: its settings) tokenises; undecodable bytes are replaced and
    empty documents kept, each said in one :class:`~bayesnb.corpora.CorpusWarning`."""
    from bayesnb.cli.data import vectorize
    from bayesnb.corpora import CorpusLog, read_text

    log = CorpusLog()
    try:
        texts = [log.document(str(f), read_text(f, log)) for f in files]
    except OSError as exc:
        raise DataError(f"--unlabelled: cannot read a document: {one_line(exc)}") from exc
    log.warn(stacklevel=2)
    return vectorize(texts, vocabulary, vectorizer)[0]


def _with_unlabelled(y: np.ndarray, n: int) -> np.ndarray:
    """The labels ``y`` followed by ``n`` marks of an unlabelled row in their dtype (-1 for
    numbers, ``""`` for strings, None for objects: see
    :func:`bayesnb.semisupervised.unlabelled_mask`)."""
    from bayesnb.semisupervised import unlabelled_mask

    if unlabelled_mask(y).any():
        raise DataError(
            "--unlabelled: a label of --data marks an unlabelled row (-1 for numeric labels); "
            "rename that class"
        )
    mark = -1 if y.dtype.kind in "iuf" else "" if y.dtype.kind in "US" else None
    return np.concatenate([y, np.full(n, mark, dtype=y.dtype)])


def fit_em(est, data, args, files: list[Path], vectorizer):
    """``est`` (unfitted, the configuration of ``fit``'s options) fitted by EM or VB
    (``--inference``) on ``data`` and the unlabelled documents ``files``: the fitted
    estimator, with its feature names and the record of the fit (``semisupervised_``).

    Raises
    ------
    DataError
        Data that is not text, an estimator the fit refuses (EM: an estimate other than
        map/mle; both: a learned alpha or temperature; VB: a family without its expected
        log-likelihood), labels that clash with the unlabelled mark.
    """
    import scipy.sparse as sp
    from sklearn.exceptions import ConvergenceWarning

    from bayesnb.semisupervised import SemiSupervisedNB

    if data.kind != "text":
        raise DataError(
            f"--unlabelled takes text documents; --data {args.data!r} holds {data.kind}"
        )
    kwargs = {"unlabelled_weight": _weight(args.unlabelled_weight)}
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if args.max_iter is not None:
        kwargs["max_iter"] = args.max_iter
    inference, cv = _inference(args.inference), _cv(args)
    name = _INFERENCES[inference]
    em = SemiSupervisedNB(est, inference=inference, cv=cv, **kwargs)
    try:
        em._check_params()  # before the documents are read
    except (TypeError, ValueError) as exc:
        raise DataError(f"--unlabelled ({name}): {one_line(exc)}") from exc
    Xu = read_unlabelled(files, data.feature_names, vectorizer)
    X = sp.vstack([data.X, Xu], format="csr")
    y = _with_unlabelled(np.asarray(data.y), Xu.shape[0])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", ConvergenceWarning)  # ``converged`` says it
            em.fit(X, y)
    except ValueError as exc:
        raise DataError(
            f"{args.model} cannot be fitted by {name} to --data {args.data!r} and --unlabelled "
            f"{str(args.unlabelled)!r}: {one_line(exc)}"
        ) from exc
    fitted = em.estimator_
    fitted._set_feature_names([str(f) for f in data.feature_names])
    objective = "log_posterior" if inference == "em" else "elbo"
    history = getattr(em, f"{objective}_")
    fitted.semisupervised_ = {
        "inference": inference,
        "n_unlabelled": int(Xu.shape[0]),
        "unlabelled_weight": float(em.unlabelled_weight_),
        "max_iter": int(em.max_iter),
        "tol": float(em.tol),
        "n_iter": int(em.n_iter_),
        "converged": bool(em.converged_),
        objective: float(history[-1]),
        f"{objective}_start": float(history[0]),
    }
    curve = getattr(em, "loo_curve_", None)
    if curve is not None:
        fitted.semisupervised_ |= {} if cv is None else {"cv": cv}
        fitted.semisupervised_ |= {
            "unlabelled_weight_rule": str(em.unlabelled_weight),
            "loo_n_splits": int(curve["n_splits"]),
            "loo_unlabelled_weight": [float(v) for v in curve["unlabelled_weight"]],
            "loo_elpd": [float(v) for v in curve["elpd_cv"]],
            "loo_alpha": [float(v) for v in curve["alpha"]],
        }
    return fitted


def describe(record: dict) -> str:
    """One line on an EM or VB fit from its record (``fit``'s summary, ``inspect``); a record
    without ``inference`` is EM's (an older file), one of other entries (a file written by
    hand) is shown as it is."""
    name = "VB" if record.get("inference") == "vb" else "EM"
    objective, what = ("log_posterior", "log posterior") if name == "EM" else ("elbo", "ELBO")
    try:
        start = record.get(f"{objective}_start")
        rise = "" if start is None else f" from {start:.6g}"
        ended = "converged" if record["converged"] else "not converged"
        chosen = ""
        rule = record.get("unlabelled_weight_rule")
        if rule in ("cv", "loo"):
            tried = record["loo_unlabelled_weight"]
            best = record["loo_elpd"][tried.index(record["unlabelled_weight"])]
            folds = (
                "leave-one-out"
                if rule == "loo" or record.get("cv") == "loo"
                else f"{record['loo_n_splits']}-fold cross-validation"
            )
            chosen = (
                f" chosen by {folds} of {name} over the labelled documents among {len(tried)} "
                f"values, elpd {best:.6g}"
            )
        text = (
            f"{record['n_unlabelled']:,} unlabelled documents (unlabelled_weight "
            f"λ={record['unlabelled_weight']:g}{chosen}; {record['n_iter']} iterations of at most "
            f"{record['max_iter']}, {ended}; {what} {record[objective]:.6g}{rise})"
        )
    except (KeyError, TypeError, ValueError):
        text = ", ".join(f"{k}={v!r}" for k, v in sorted(record.items()))
    return (
        f"fitted by {name} with {text}; the statistics hold the unlabelled documents' expected "
        "counts (responsibilities × λ)"
    )
