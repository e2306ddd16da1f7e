"""Report builder: plan the steps of a report, run them, write the page.

The plan (the sections of :mod:`bayesnb.report`) is fixed when the builder is made: every
study gets its estimates; the study whose family ranks a generic section first feeds it
(:attr:`bayesnb.report.extension.FamilyReport.ranks`: parameters, NUTS, posterior predictive), never
a model test here; the families' own sections (:mod:`bayesnb.report.extension`) follow, in
registry order. :meth:`ReportBuilder.run` computes the steps, lays the results out
(:mod:`bayesnb.report.layout`) and writes ``index.html`` with its figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import bayesnb.report.sections as S
from bayesnb.report.data import Study, quiet
from bayesnb.report.extension import family_sections
from bayesnb.report.html import Section, render
from bayesnb.report.layout import page

__all__ = ["Progress", "ReportBuilder", "build"]

Progress = Callable[[int, int, str, float], None]


def _settings(quick: bool) -> dict:
    """Sizes of the expensive parts; ``quick`` trades resolution for speed (tests)."""
    if quick:
        return {
            "loo_draws": 200,
            "forest_draws": 300,
            "n_grid": 13,
            "cv_folds": 3,
            "repeats": 2,
            "grid_size": 80,
            "interval_draws": {"draws": 100, "chains": 2},
            "alpha_grid": 8,
            "nuts": {"n_features": 10, "draws": 200, "tune": 200, "chains": 2},
        }
    return {
        "loo_draws": 500,
        "forest_draws": 1000,
        "n_grid": 33,
        "cv_folds": 5,
        "repeats": 5,
        "grid_size": 200,
        "interval_draws": {"draws": 125, "chains": 4},
        "alpha_grid": 20,
        "nuts": {"n_features": 30, "draws": 500, "tune": 500, "chains": 4},
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
        self.cfg = _settings(quick)
        self.results: dict[str, object] = {}
        self.timings: list[tuple[str, float]] = []
        self.warnings: list[str] = []
        self.failures: list[str] = []
        self._steps: list[tuple[str, Callable[[], None]]] = []
        #: The families' own sections, in registry order (after the generic ones).
        self.family_sections = family_sections()
        self._plan(nuts, nuts_tree)

    # -- planning --------------------------------------------------------------------------
    def _plan(self, nuts: bool, nuts_tree) -> None:
        add = self._steps.append
        seed, cfg = self.seed, self.cfg
        datasets = list({id(s.data): s.data for s in self.studies}.values())
        saved = [s for s in self.studies if s.fitted is not None]
        for s in saved:
            add(
                (f"saved model: {s.data.name}", lambda s=s: self._put("saved", s, S.saved_model(s)))
            )
        add(("data summary", lambda: self._put("data", None, S.data_summary(datasets))))
        for s in self.studies:
            add(
                (
                    f"estimates: {s.label}",
                    lambda s=s: self._put(
                        "estimates", s, S.estimates(s, loo_draws=cfg["loo_draws"])
                    ),
                )
            )
        param = _pick(self.studies, "parameters")
        if param is not None:
            add(
                (
                    f"parameters: {param.label}",
                    lambda param=param: self._put(
                        "parameters",
                        param,
                        S.parameters(param, draws=cfg["forest_draws"], seed=seed),
                    ),
                )
            )
            add(
                (
                    f"smoothing: {param.label}",
                    lambda param=param: self._put(
                        "smoothing",
                        param,
                        S.smoothing(
                            param, seed=seed, n_grid=cfg["n_grid"], cv_folds=cfg["cv_folds"]
                        ),
                    ),
                )
            )
        info = _pick(self.studies, "parameters")
        if info is not None:
            add(
                (
                    f"informative features: {info.label}",
                    lambda info=info: self._put(
                        "informative", info, S.informative(info, seed=seed)
                    ),
                )
            )
        self._plan_crossval(param or self.studies[0])
        if nuts_tree is not None and saved:
            s = saved[0]
            add(
                (
                    f"NUTS (saved fit): {s.label}",
                    lambda s=s: self._put(
                        "sampler", s, S.sampler(s, tree=nuts_tree, fitted=s.fitted, seed=seed)
                    ),
                )
            )
        elif nuts:
            s = _pick(self.studies, "nuts", prefer_text=False)
            if s is None:
                self.failures.append(
                    "NUTS was requested, but only the discrete models have a PyMC declaration "
                    "here; no study qualifies."
                )
            else:
                add(
                    (
                        f"NUTS: {s.label}",
                        lambda s=s: self._put("sampler", s, S.sampler(s, seed=seed, **cfg["nuts"])),
                    )
                )
        for d in datasets:
            same = [s for s in self.studies if s.data is d and not s.report.continuous]
            ppc = _pick(same, "ppc")
            if ppc is not None:
                add(
                    (
                        f"posterior predictive: {ppc.label}",
                        lambda ppc=ppc: self._put(
                            "ppc", ppc, S.posterior_predictive(ppc, seed=seed)
                        ),
                    )
                )
            if len(same) >= 2:
                add(
                    (
                        f"event models: {d.name}",
                        lambda same=same: self._put("events", same[0], S.event_models(same)),
                    )
                )
            for fs in self.family_sections:
                target = None if fs.per_dataset is None else fs.per_dataset(same)
                if target is not None:
                    add((f"{fs.title}: {d.name}", self._family_step(fs, target)))
        for fs in self.family_sections:
            for s in self.studies:
                if fs.per_study is not None and fs.per_study(s):
                    add((f"{fs.title}: {s.data.name}", self._family_step(fs, s)))

    def _plan_crossval(self, s: Study) -> None:
        """Exact LOO against PSIS, predictive uncertainty, α three ways: the main study."""
        seed, cfg = self.seed, self.cfg
        self._steps += [
            (
                f"exact LOO against PSIS: {s.label}",
                lambda: self._put(
                    "loo_check", s, S.loo_check(s, draws=cfg["loo_draws"], seed=seed)
                ),
            ),
            (
                f"predictive uncertainty: {s.label}",
                lambda: self._put(
                    "uncertainty",
                    s,
                    S.predictive_uncertainty(s, seed=seed, **cfg["interval_draws"]),
                ),
            ),
            (
                f"smoothing chosen three ways: {s.label}",
                lambda: self._put(
                    "alpha_choice",
                    s,
                    S.alpha_choice(s, n_grid=cfg["alpha_grid"], folds=cfg["cv_folds"], seed=seed),
                ),
            ),
            (
                f"calibration and the likelihood temperature: {s.label}",
                lambda: self._put("temperature", s, S.temperature(s)),
            ),
        ]

    def _family_step(self, fs, target) -> Callable[[], None]:
        """The step computing family section ``fs`` for ``target``."""
        return lambda: self._put(fs.key, target, fs.run(target, seed=self.seed, cfg=self.cfg))

    def _put(self, family: str, study, result) -> None:
        self.results.setdefault(family, []).append(result)

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

    # -- running ---------------------------------------------------------------------------
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
            t0 = time.perf_counter()
            sections = self._sections()
        self.warnings = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
        path = self._write(Path(out), sections)
        seconds = time.perf_counter() - t0
        self.timings.append(("write the page", seconds))
        if progress is not None:
            progress(total, total, "write the page", seconds)
        return path

    # -- assembling ------------------------------------------------------------------------
    def _sections(self) -> list[Section]:
        """Every section of the page, in order (:func:`bayesnb.report.layout.page`)."""
        return page(self)

    def _write(self, out: Path, sections: list[Section]) -> Path:
        from bayesnb import __version__

        out.mkdir(parents=True, exist_ok=True)
        fig_dir = out / "figures"
        fig_dir.mkdir(exist_ok=True)
        for old in fig_dir.glob("*.png"):
            old.unlink()
        k = 0
        for sec in sections:
            for block in sec.blocks:
                for fig in block.figures:
                    k += 1
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
        page = render(self.title, subtitle, sections, footer)
        path = out / "index.html"
        tmp = out / ".index.html.tmp"
        tmp.write_text(page, encoding="utf-8")
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
