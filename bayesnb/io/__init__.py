"""I/O: a fitted estimator <-> one netCDF file holding a DataTree (never pickle).

File layout (engine h5netcdf):

- root attrs: ``model`` (class name), ``format_version`` (int), ``bayesnb_version``,
  ``params`` (the constructor parameters as JSON), ``fitted`` (learned scalars and bookkeeping
  as JSON: ``alpha_``, ``class_alpha_``, the label dtype, ..., and ``vectorizer``, the
  settings of the text vectorizer that made the columns, only for a model that records one in
  ``vectorizer_params_``: see :mod:`bayesnb.columns`; ``semisupervised``, how many unlabelled
  documents an EM fit took and how it ended, only for a model that records it in
  ``semisupervised_``: see :mod:`bayesnb.cli.unlabelled`; and ``pipeline``, the two step names
  of a text pipeline the model was saved from) and ``checksum`` (SHA-256 of the statistics
  arrays, their coordinates and the two JSON strings);
- group ``statistics``: the sufficient statistics with coordinates ``class`` (the labels in
  their own dtype: ints stay ints, strings stay strings) and ``feature`` (feature names):
  ``class_count (class)`` for every model, then the family's own arrays;
- further groups of a family (GDA's resolved ``prior``), covered by the root checksum as
  ``<group>/<name>``, and complete model trees inside the file (ColumnwiseNB's
  ``blocks/<name>``, each with its own checksum, which the root ``fitted`` JSON records).

What each family stores and how it is restored is the family's: its ``storage`` module
(``bayesnb/families/<name>/storage.py``) documents its arrays, dims and attributes and
implements the model-file methods of :class:`bayesnb.families.Family`. The generic code is
split into :mod:`bayesnb.io.codec` (JSON data, labels, checksum), :mod:`bayesnb.io.checks`
(everything a file is refused for) and :mod:`bayesnb.io.tree` (estimator <-> DataTree).

A model is rebuilt from its parameters, statistics and learned values, so ``predict_proba``
of a loaded model equals the saved one bitwise on the machine that saved it. Attrs are
parsed as data (JSON, validated against the estimator's parameters); nothing in the file is
executed. Saving writes a temporary file in the destination folder and renames it over the
target (``os.replace``), so a crash never leaves a half-written model under the target name.

Loading a file from elsewhere is safe: no pickle, no import of a name found in the file (the
``model`` attribute is looked up among the estimator classes of the registered families),
JSON attributes of bounded size decoded into numbers, strings and numeric arrays only, then
checked as the estimator checks its constructor parameters. Before anything is read into
memory, the sizes the file declares must fit in the file (HDF5 can declare a 10^15-element
array in a few bytes of metadata); after reading, the statistics must be finite, counts
non-negative, and every shape, index and width consistent with the coordinates.

Format versions: a file of a newer ``format_version`` is refused naming it. An older one is
upgraded one version at a time by the functions registered in :data:`MIGRATIONS`
(``version -> function(tree) -> tree`` of the next version, which must recompute the checksum
if it changes what it covers); without a registered path it is refused naming its version.
Version 2 added the fitted values a model predicts with that version 1 recomputed on load
(the DCM's concentration β, group ``learned``); a version-1 file is upgraded as it is and
loads and predicts as before (its β fitted again).

A loaded model predicts with the stored values, never with a recomputation that can differ:
learned hyperparameters (``alpha_``, ``class_alpha_``, GDA's resolved prior, the DCM's β)
come from the file. Across machines the numbers agree within the tolerance
:data:`bayesnb.testing.PORTABLE_RTOL` (``docs/design.md``, "Numbers across machines"); no
file is refused over a last-bit difference.
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from pathlib import Path

import xarray as xr

from bayesnb.io.checks import MIGRATIONS, ModelFileError, ModelFileWarning, check_declared_sizes
from bayesnb.io.tree import from_tree, pipeline_steps, to_tree

__all__ = ["FORMAT_VERSION", "MIGRATIONS", "ModelFileError", "ModelFileWarning", "load", "save"]

# The format this bayesnb writes and reads (older ones through MIGRATIONS).
FORMAT_VERSION = 2
_ENGINE = "h5netcdf"


# -- save --------------------------------------------------------------------------------------
def _write_netcdf(tree: xr.DataTree, path: str) -> None:
    """Write ``tree`` to ``path`` and flush it to disk (the one step a test can break)."""
    tree.to_netcdf(path, engine=_ENGINE)
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def save(est, path) -> None:
    """Save a fitted estimator as one netCDF file (atomic replace, no pickle).

    Parameters
    ----------
    est : fitted estimator of a registered family (``bayesnb.families.names()``), or a fitted
        Pipeline ending in one
        For a pipeline the file holds its last step, with the transformers' feature names (the
        vocabulary) as its features (:func:`bayesnb.pipeline.final_estimator`). A pipeline of
        one text vectorizer (``CountVectorizer`` or ``HashingVectorizer`` whose settings are
        data) and the estimator is saved with the vectorizer's settings and the step names,
        and :func:`load` returns that pipeline, which takes raw text; the transformers of
        another pipeline are not saved, and :func:`load` returns the estimator.
    path : str or path-like
        Target file; its folder must exist. An existing file is replaced only once the new
        one is completely written.
    """
    from bayesnb.pipeline import final_estimator, saved_steps

    tree = to_tree(final_estimator(est), FORMAT_VERSION, steps=saved_steps(est))
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"cannot save to {str(target)!r}: it is a folder, not a file name")
    if not target.parent.is_dir():
        raise FileNotFoundError(
            f"cannot save to {str(target)!r}: the folder {str(target.parent)!r} does not exist"
        )
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        _write_netcdf(tree, tmp)
        # mkstemp creates the file 0600; give the saved model the permissions of a normal file.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# -- load --------------------------------------------------------------------------------------
def _read(path: Path) -> xr.DataTree:
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {str(path)!r}")
    problem = ""
    hook = sys.unraisablehook
    # A damaged file leaves half-built h5netcdf objects whose __del__ fails again; that second
    # failure is noise (the first one is reported below), so it is silenced while they are
    # collected here rather than printed at some later garbage collection.
    sys.unraisablehook = lambda _: None
    try:
        try:
            with xr.open_datatree(path, engine=_ENGINE) as tree:
                check_declared_sizes(path, tree)  # lazily opened: nothing read yet
                return tree.load()
        except ModelFileError:
            raise
        except Exception as exc:  # h5py/netCDF raise many types for a damaged file
            problem = f"{type(exc).__name__}: {exc}"
        gc.collect()
    finally:
        sys.unraisablehook = hook
    raise ValueError(
        f"{str(path)!r} is not a readable bayesnb model file (truncated or corrupted?): {problem}"
    )


def load(path, expected: str | type | None = None):
    """Load a model written by :func:`save` (``est.save(path)``).

    Parameters
    ----------
    path : str or path-like
    expected : str or estimator class, optional
        Refuse a file holding another model type, e.g. ``expected="MultinomialNB"`` or
        ``expected=bnb.MultinomialNB``.

    Returns
    -------
    estimator or Pipeline
        A fitted estimator whose ``predict_proba`` equals the saved one (bitwise on the
        machine that saved it, within :data:`bayesnb.testing.PORTABLE_RTOL` elsewhere); for a
        file saved from a text pipeline (see :func:`save`), that fitted ``Pipeline``: its
        vectorizer rebuilt with the saved settings and words, so it takes raw text
        (:func:`bayesnb.pipeline.final_estimator` gives its estimator).

    Raises
    ------
    ValueError
        For a file of another model type than ``expected``, a newer ``format_version``, a
        checksum mismatch (bit flip) or an unreadable (truncated) file.
    """
    path = Path(path)
    tree = _read(path)
    est = from_tree(tree, path, expected, FORMAT_VERSION)
    steps = pipeline_steps(tree, path)
    if steps is None:
        return est
    from bayesnb.pipeline import text_pipeline

    try:
        return text_pipeline(est, steps)
    except ValueError as exc:  # a vectorizer record that is refused
        raise ValueError(f"{str(path)!r}: {exc}") from None
