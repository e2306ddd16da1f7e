"""ColumnwiseNB family methods: the PyMC declaration, one class prior and its blocks' models.

Each block declares its standalone model through its own family (any model kind); the block's
class part (its π, its label likelihood and their hyperparameters) is cut out, its variables
and feature dims get the prefix ``"{block}::"`` (``class`` and ``doc`` stay shared), and the
pieces are joined with the one class prior into a single pm.Model (PyMC's FunctionGraph
representation of models, ``pymc.model.fgraph``). The block likelihoods read the labels
through their own (prefixed) copy of the label data, so no block's declaration needs to know
about composition.
"""

from __future__ import annotations

from bayesnb.families import family_of
from bayesnb.families.columnwise.estimator import _Blocks
from bayesnb.pymc_models.declaration import (
    CLASS_HYPERPARAMETER_DIMS,
    check_class_prior_declarable,
    class_part,
    declare_class_prior,
    documents,
)
from bayesnb.pymc_models.spec import ModelSpec

__all__ = ["ColumnwisePyMC"]

_BLOCK_CLASS_VARS = frozenset(
    {"class_prior", "class_prior_log_gamma", "class_count", "y", "class_alpha", "class_prior_value"}
)
_SHARED_DIMS = frozenset({"class", "doc"})


class ColumnwisePyMC:
    """Family methods of ColumnwiseNB for pymc; see :class:`bayesnb.families.Family`."""

    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight) -> ModelSpec:
        """The composed model: the class part here, each block's by the block's family."""
        if alpha_prior is not None:
            raise ValueError(
                "alpha_prior is not supported by ColumnwiseNB.fit_pymc: each block keeps its "
                "own fixed prior (fit a block alone to learn its alpha)"
            )
        check_class_prior_declarable(est)
        if sample_weight is not None:
            documents(est, X, y, sample_weight)  # checks integer weights; fits an unfitted est
        elif not hasattr(est, "classes_"):
            est.fit(X, y)
        blocks = []
        for (name, block, _), part in zip(est._blocks(), est._block_inputs(X), strict=True):
            family = family_of(block, "bayesnb.pymc_models")
            bs = family.pymc_spec(block, part, y, likelihood, None, sample_weight)
            blocks.append((name, block, bs))
        codes = blocks[0][2].codes
        class_data, class_obs, class_structure = class_part(est, codes, likelihood)
        coords: dict[str, list] = {"class": [str(c) for c in est.classes_]}
        if likelihood == "data":
            coords["doc"] = list(range(len(codes)))
        data = dict(class_data)
        var_names = ["class_prior"]
        dims: dict[str, list[str]] = {"class_prior": ["class"]}
        for name, _, bs in blocks:
            coords |= {_prefixed_dim(k, name): v for k, v in bs.coords.items()}
            data |= {
                _prefixed(k, name): v for k, v in bs.data.items() if k not in _BLOCK_CLASS_VARS
            }
            for var in bs.var_names:
                if var != "class_prior":
                    var_names.append(_prefixed(var, name))
                    dims[_prefixed(var, name)] = [_prefixed_dim(d, name) for d in bs.dims[var]]
        spec = ModelSpec(
            kind=self.name,
            likelihood=likelihood,
            structure=(*class_structure, tuple((name, bs.key) for name, _, bs in blocks)),
            coords=coords,
            data=data,
            observed=class_obs,
            codes=codes,
            X=_Blocks([bs.X for _, _, bs in blocks], len(codes)),
            var_names=var_names,
            dims=dims,
            alpha_prior=None,
            build=_build_columnwise,
            extra={"blocks": blocks},
            hyperparameter_dims=dict(CLASS_HYPERPARAMETER_DIMS),
            missing=[bs.missing for _, _, bs in blocks],
        )
        # Keep the pm.Data the composed model reads (a compiled model knows only those).
        used = {v.name for v in spec.model().data_vars}
        spec.data = {k: v for k, v in spec.data.items() if k in used}
        return spec

    def pymc_unlabelled(self, est, X) -> tuple:
        """See :meth:`bayesnb.families.Family.pymc_unlabelled`: the sum of the blocks' terms,
        each reading its own ``"{block}::"`` variables and data."""
        data, parts = {}, []
        for (name, block, _), part in zip(est._blocks(), est._block_inputs(X), strict=True):
            values, jll = family_of(block, "bayesnb.pymc_models").pymc_unlabelled(block, part)
            data |= {_prefixed(k, name): v for k, v in values.items()}
            parts.append((name, jll))

        def jll(get):
            return sum(f(lambda var, name=name: get(_prefixed(var, name))) for name, f in parts)

        return data, jll

    def pymc_parts(self, est, spec: ModelSpec) -> list:
        """The blocks ``(name, block, block spec)``, each laid out as the child group ``name``."""
        return spec.extra.get("blocks", [])


def _prefixed(name: str, prefix: str) -> str:
    return f"{prefix}::{name}" if prefix else name


def _prefixed_dim(dim: str, prefix: str) -> str:
    return dim if dim in _SHARED_DIMS else _prefixed(dim, prefix)


def _model_pieces(model, prefix: str, drop: frozenset) -> tuple[list, dict, dict]:
    """The model variables of ``model`` (without ``drop``) renamed with ``prefix``.

    Returns the FunctionGraph outputs (PyMC's ``ModelVar`` wrappers), the coords and the dim
    lengths, all under prefixed names.
    """
    import copy

    from pymc.model.fgraph import ModelNamed, ModelVar, fgraph_from_model
    from pytensor.graph.fg import FunctionGraph
    from pytensor.graph.traversal import ancestors

    fg, _ = fgraph_from_model(model)
    kept = [out for out in fg.outputs if out.owner.op.name not in drop]
    # A block's copy of the label data that its likelihood does not read (a sufficient-
    # statistic multinomial) is left out: a compiled model knows only the data it reads.
    used = set(ancestors([o for o in kept if not isinstance(o.owner.op, ModelNamed)]))
    outputs = [
        o
        for o in kept
        if not (prefix and isinstance(o.owner.op, ModelNamed) and o.owner.inputs[0] not in used)
    ]
    fg = FunctionGraph(outputs=outputs, clone=False)  # ancestors of the kept variables only
    for node in fg.toposort():
        if not isinstance(node.op, ModelVar):
            continue
        op = copy.copy(node.op)
        op.name = _prefixed(op.name, prefix)
        op.dims = tuple(_prefixed_dim(d, prefix) for d in op.dims)
        node.op = op
        node.outputs[0].name = op.name
        if prefix and isinstance(node.op, ModelNamed):
            # the shared variable of a pm.Data: compiled models set data by its name
            node.inputs[0].name = op.name
        elif prefix and len(node.inputs) == 2 and node.inputs[1].name:
            # the value variable of a free or observed RV: nutpie keys draws by its name
            node.inputs[1].name = _prefixed(node.inputs[1].name, prefix)
    coords = {_prefixed_dim(k, prefix): v for k, v in model.coords.items()}
    lengths = {_prefixed_dim(k, prefix): v for k, v in model.dim_lengths.items()}
    return outputs, coords, lengths


def _build_columnwise(spec: ModelSpec):
    """One pm.Model: the class prior, then every block's declaration without its class part."""
    import pymc as pm
    from pymc.model.fgraph import fgraph_from_model, model_from_fgraph

    pieces = [
        _model_pieces(bs.model(), name, _BLOCK_CLASS_VARS) for name, _, bs in spec.extra["blocks"]
    ]
    with pm.Model(coords=spec.coords) as root:
        # Dims a block's model has beyond the spec's coords keep that block's lengths.
        for _, coords, lengths in pieces:
            extra = {k: v for k, v in coords.items() if k not in root.coords}
            root.add_coords(extra, lengths={k: lengths[k] for k in extra})
        declare_class_prior(spec)
    fg, _ = fgraph_from_model(root)  # carries every dim the blocks' variables name
    for outputs, _, _ in pieces:
        for out in outputs:
            fg.add_output(out, import_missing=True)
    return model_from_fgraph(fg, mutate_fgraph=True)
