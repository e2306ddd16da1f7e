"""Order of the gallery: the subject's story, from counting words to scaling out."""

from pathlib import Path

ORDER = [
    "plot_laplace_smoothing.py",
    "plot_event_models.py",
    "plot_four_estimates.py",
    "plot_map_vs_ml_decision.py",
    "plot_deleted_estimation.py",
    "plot_learned_smoothing.py",
    "plot_temperature.py",
    "plot_unknown_words.py",
    "plot_informative_words.py",
    "plot_gda_logistic.py",
    "plot_learning_curves.py",
    "plot_semisupervised.py",
    "plot_nuts_vs_exact.py",
    "plot_arviz_compare.py",
    "plot_hyperprior.py",
    "plot_columnwise.py",
    "plot_dask_fit.py",
]


class ExampleOrder:
    """Sort key for ``within_subsection_order``: listed files first, in order, then by name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename) -> tuple[int, str]:
        name = Path(filename).name
        return (ORDER.index(name) if name in ORDER else len(ORDER), name)

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"
