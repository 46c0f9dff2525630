"""What makes a skcgm sampler an imbalanced-learn sampler, without imbalanced-learn.

imbalanced-learn recognizes a sampler by its tags (``estimator_type='sampler'``
and a ``sampler_tags`` field, :func:`imblearn.base.is_sampler`) and its checks
read ``input_tags.dataframe``. The dataclasses below extend scikit-learn's
public tags with these fields, so that skcgm needs no import of
imbalanced-learn.
"""

from dataclasses import dataclass, fields

import numpy as np
import scipy.sparse as sp
from sklearn.utils import InputTags, Tags


@dataclass(slots=True)
class _SamplerInputTags(InputTags):
    """scikit-learn's input tags and imbalanced-learn's ``dataframe``."""

    dataframe: bool = False


@dataclass(slots=True)
class _SamplerTags:
    """imbalanced-learn's sampler tags: is ``sample_indices_`` fitted."""

    sample_indices: bool = False


@dataclass(slots=True)
class _Tags(Tags):
    """scikit-learn's tags and imbalanced-learn's ``sampler_tags``."""

    sampler_tags: _SamplerTags | None = None


class _SamplerMixin:
    """Mixin of the samplers: imbalanced-learn tags and output containers.

    Put it before :class:`~sklearn.base.BaseEstimator` in the bases.
    """

    # imbalanced-learn's is_sampler tests this attribute first.
    _estimator_type = "sampler"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        input_tags = _SamplerInputTags(
            **{f.name: getattr(tags.input_tags, f.name) for f in fields(InputTags)},
            dataframe=True,
        )
        values = {f.name: getattr(tags, f.name) for f in fields(Tags)}
        values.update(
            estimator_type="sampler",
            input_tags=input_tags,
            sampler_tags=_SamplerTags(sample_indices=True),
        )
        return _Tags(**values)


def _take_rows(array, indices):
    """Rows ``indices`` of ``array`` in its own container and dtype.

    DataFrames and Series keep their columns, name and index labels, sparse
    matrices stay sparse, lists come back as lists (as imbalanced-learn's
    samplers return them).
    """
    if hasattr(array, "iloc"):
        return array.iloc[indices]
    if sp.issparse(array):
        return array[indices]
    if isinstance(array, list):
        return np.asarray(array)[indices].tolist()
    return np.asarray(array)[indices]
