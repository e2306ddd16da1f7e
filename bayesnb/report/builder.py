"""Report builder: plan the steps of a report, run them, write the page.

The plan (the sections of :mod:`bayesnb.report`) is fixed when the builder is made: every
study gets its estimates; the study whose family ranks a generic section first feeds it
(:attr:`bayesnb.report.extension.FamilyReport.ranks`: parameters, NUTS, posterior predictive,
few labels on text data), never a model test here; the families' own sections
(:mod:`bayesnb.report.extension`) follow, in registry order. :meth:`ReportBuilder.run`
computes the steps, lays the results out (:mod:`bayesnb.report.layout`) and writes
``index.html`` with its figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import bayesnb.report.sections as S
from bayesnb.report.data import Study, quiet
from bayesnb.report.extension import family_sections
from bayesnb.report.html import Section, render
from bayesnb.report.layout import page

__all__ = ["Progress", "ReportBuilder", "build"]

Progress = Callable[[int, int, str, float], None]


#: Sizes of the expensive parts: (quick, full); ``quick`` trades resolution for speed (tests).
_SIZES = {
    "loo_draws": (200, 500),
    "forest_draws": (300, 1000),
    "n_grid": (13, 33),
    "cv_folds": (3, 5),
    "repeats": (2, 5),
    "grid_size": (80, 200),
    "interval_draws": ({"draws": 100, "chains": 2}, {"draws": 125, "chains": 4}),
    "alpha_grid": (8, 20),
    "labels": (
        {"sizes": (1, 2, 5), "n_seeds": 2, "max_unlabelled": 300},
        {"sizes": (1, 2, 5, 10, 20, 50), "n_seeds": 5, "max_unlabelled": 5000},
    ),
    "nuts": (
        {"n_features": 10, "draws": 200, "tune": 200, "chains": 2},
        {"n_features": 30, "draws": 500, "tune": 500, "chains": 4},
    ),
}


def _pick(studies: Sequence[Study], section: str, prefer_text: bool = True):
    """The study whose family ranks ``section`` first (text data first), or None."""
    ranked = sorted(
        (s for s in studies if section in s.report.ranks),
        key=lambda s: (
            not (prefer_text and s.data.kind == "text"),
            s.report.ranks[section],
        ),
    )
    return ranked[0] if ranked else None


class ReportBuilder:
    """Plan, run and write a report.

    Parameters
    ----------
    studies : sequence of Study
    nuts : bool, default False
        Add the sampler-diagnostics section: a small NUTS fit of the first Bernoulli (else
        multinomial) study checked against the exact posterior.
    nuts_tree : xarray.DataTree, optional
        A saved NUTS fit of the first study's ``fitted`` model, used instead of sampling.
    title : str
    seed : int, default 0
        Seed of every random step (draws, splits, generated documents).
    quick : bool, default False
        Fewer draws, grid points and repeats (for tests and previews).
    """

    def __init__(
        self,
        studies: Sequence[Study],
        *,
        nuts: bool = False,
        nuts_tree=None,
        title: str = "bayesnb report",
        seed: int = 0,
        quick: bool = False,
    ) -> None:
        if not studies:
            raise ValueError("studies must hold at least one Study")
        bad = [s for s in studies if not isinstance(s, Study)]
        if bad:
            raise TypeError(f"studies must be Study objects, got {type(bad[0]).__name__}")
        self.studies = list(studies)
        self.title = title
        self.seed = seed
        self.quick = quick
        self.cfg = {k: v[0] if quick else v[1] for k, v in _SIZES.items()}
        self.results: dict[str, object] = {}
        self.timings: list[tuple[str, float]] = []
        self.warnings: list[str] = []
        self.failures: list[str] = []
        self._steps: list[tuple[str, Callable[[], None]]] = []
        #: The families' own sections, in registry order (after the generic ones).
        self.family_sections = family_sections()
        self._plan(nuts, nuts_tree)

    def _plan(self, nuts: bool, nuts_tree) -> None:
        add, seed, cfg = self._add, self.seed, self.cfg
        datasets = list({id(s.data): s.data for s in self.studies}.values())
        saved = [s for s in self.studies if s.fitted is not None]
        for s in saved:
            add(f"saved model: {s.data.name}", "saved", S.saved_model, s)
        add("data summary", "data", S.data_summary, datasets)
        for s in self.studies:
            add(f"estimates: {s.label}", "estimates", S.estimates, s, loo_draws=cfg["loo_draws"])
        p = _pick(self.studies, "parameters")
        if p is not None:
            draws = {"draws": cfg["forest_draws"], "seed": seed}
            add(f"parameters: {p.label}", "parameters", S.parameters, p, **draws)
            grid = {"n_grid": cfg["n_grid"], "cv_folds": cfg["cv_folds"], "seed": seed}
            add(f"smoothing: {p.label}", "smoothing", S.smoothing, p, **grid)
            add(f"informative features: {p.label}", "informative", S.informative, p, seed=seed)
        # Exact LOO against PSIS, predictive uncertainty, α three ways: the main study.
        m = p or self.studies[0]
        draws = {"draws": cfg["loo_draws"], "seed": seed}
        add(f"exact LOO against PSIS: {m.label}", "loo_check", S.loo_check, m, **draws)
        draws = {**cfg["interval_draws"], "seed": seed}
        name = f"predictive uncertainty: {m.label}"
        add(name, "uncertainty", S.predictive_uncertainty, m, **draws)
        grid = {"n_grid": cfg["alpha_grid"], "folds": cfg["cv_folds"], "seed": seed}
        add(f"smoothing chosen three ways: {m.label}", "alpha_choice", S.alpha_choice, m, **grid)
        name = f"calibration and the likelihood temperature: {m.label}"
        add(name, "temperature", S.temperature, m)
        if nuts_tree is not None and saved:
            s = saved[0]
            fit = {"tree": nuts_tree, "fitted": s.fitted, "seed": seed}
            add(f"NUTS (saved fit): {s.label}", "sampler", S.sampler, s, **fit)
        elif nuts:
            s = _pick(self.studies, "nuts", prefer_text=False)
            if s is None:
                self.failures.append(
                    "NUTS was requested, but only the discrete models have a PyMC declaration "
                    "here; no study qualifies."
                )
            else:
                add(f"NUTS: {s.label}", "sampler", S.sampler, s, seed=seed, **cfg["nuts"])
        for d in datasets:
            same = [s for s in self.studies if s.data is d and not s.report.continuous]
            s = _pick(same, "ppc")
            if s is not None:
                add(f"posterior predictive: {s.label}", "ppc", S.posterior_predictive, s, seed=seed)
            if len(same) >= 2:
                add(f"event models: {d.name}", "events", S.event_models, same)
            for fs in self.family_sections:
                target = None if fs.per_dataset is None else fs.per_dataset(same)
                if target is not None:
                    add(f"{fs.title}: {d.name}", fs.key, fs.run, target, seed=seed, cfg=cfg)
        # Few labels: the text study ranked first (a corpus of documents, as EM's story is).
        s = _pick([s for s in self.studies if s.data.kind == "text"], "labels")
        if s is not None:
            add(f"few labels: {s.label}", "labels", S.few_labels, s, seed=seed, **cfg["labels"])
        for fs in self.family_sections:
            for s in self.studies:
                if fs.per_study is not None and fs.per_study(s):
                    add(f"{fs.title}: {s.data.name}", fs.key, fs.run, s, seed=seed, cfg=cfg)

    def _add(self, name: str, key: str, compute: Callable, *args, **kwargs) -> None:
        """Plan step ``name``: ``compute(*args, **kwargs)``, appended to ``results[key]``."""
        self._steps.append((name, partial(self._put, key, compute, *args, **kwargs)))

    def _put(self, key: str, compute: Callable, *args, **kwargs) -> None:
        self.results.setdefault(key, []).append(compute(*args, **kwargs))

    def _draw(self, plot, result) -> bytes:
        """PNG bytes of ``plot(result)``; a failure is recorded and gives empty bytes."""
        try:
            return plot(result)
        except Exception as exc:  # one broken figure must not cost the whole report
            self.failures.append(f"figure {plot.__name__}: {type(exc).__name__}: {exc}")
            return b""

    @property
    def steps(self) -> list[str]:
        """Names of the computing steps, in order (writing the page is one more step)."""
        return [name for name, _ in self._steps] + ["write the page"]

    def run(self, out, progress: Progress | None = None) -> Path:
        """Compute every section, draw the figures and write ``out/index.html``.

        Parameters
        ----------
        out : str or path-like
            Folder to write (created if missing).
        progress : callable, optional
            Called after every step as ``progress(done, total, name, seconds)``.

        Returns
        -------
        Path
            The written ``index.html``.
        """
        total = len(self._steps) + 1
        with quiet() as caught:
            for i, (name, step) in enumerate(self._steps, start=1):
                t0 = time.perf_counter()
                try:
                    step()
                except Exception as exc:  # the page says which section is missing and why
                    self.failures.append(f"step {name!r}: {type(exc).__name__}: {exc}")
                seconds = time.perf_counter() - t0
                self.timings.append((name, seconds))
                if progress is not None:
                    progress(i, total, name, seconds)
        # Collected before the page is laid out, so its warnings section can list them.
        self.warnings = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
        t0 = time.perf_counter()
        with quiet():
            sections = page(self)
        path = self._write(Path(out), sections)
        seconds = time.perf_counter() - t0
        self.timings.append(("write the page", seconds))
        if progress is not None:
            progress(total, total, "write the page", seconds)
        return path

    def _write(self, out: Path, sections: list[Section]) -> Path:
        from bayesnb import __version__

        out.mkdir(parents=True, exist_ok=True)
        fig_dir = out / "figures"
        fig_dir.mkdir(exist_ok=True)
        for old in fig_dir.glob("*.png"):
            old.unlink()
        figures = [fig for sec in sections for block in sec.blocks for fig in block.figures]
        for k, fig in enumerate(figures, start=1):
            (fig_dir / f"{k:02d}-{fig.name}.png").write_bytes(fig.png)
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        subtitle = (
            f"bayesnb {__version__} · {stamp} · seed {self.seed} · "
            f"{len(self.studies)} stud{'y' if len(self.studies) == 1 else 'ies'}"
            + (" · quick settings" if self.quick else "")
        )
        total = sum(t for _, t in self.timings)
        footer = (
            f"Computed in {total:.0f} s. One self-contained file: figures are embedded (also "
            "saved in figures/), no network access or JavaScript needed."
        )
        path = out / "index.html"
        tmp = out / ".index.html.tmp"
        tmp.write_text(render(self.title, subtitle, sections, footer), encoding="utf-8")
        tmp.replace(path)
        return path


def build(
    out,
    studies: Sequence[Study],
    *,
    nuts: bool = False,
    nuts_tree=None,
    title: str = "bayesnb report",
    seed: int = 0,
    quick: bool = False,
    progress: Progress | None = None,
) -> Path:
    """Build the HTML report of ``studies`` into the folder ``out``.

    Parameters
    ----------
    out : str or path-like
        Folder for ``index.html`` and ``figures/``.
    studies : sequence of Study
        Data set × model pairs (see :class:`bayesnb.report.data.Study`).
    nuts, nuts_tree, title, seed, quick
        See :class:`ReportBuilder`.
    progress : callable, optional
        ``progress(done, total, name, seconds)`` after every step.

    Returns
    -------
    Path
        ``out/index.html``.
    """
    builder = ReportBuilder(
        studies, nuts=nuts, nuts_tree=nuts_tree, title=title, seed=seed, quick=quick
    )
    return builder.run(out, progress=progress)
