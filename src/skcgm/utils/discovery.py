"""Discovery of the estimators defined in skcgm.

Adapted from ``skltemplate.utils.discovery`` (scikit-learn-contrib/project-template)
and :func:`sklearn.utils.discovery.all_estimators`.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import inspect
import pkgutil
import warnings
from importlib import import_module
from operator import itemgetter

from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClusterMixin,
    RegressorMixin,
    TransformerMixin,
)

__all__ = ["all_estimators"]

# Module names never imported while walking the package: test modules, and
# ``__main__``, whose import would run the command line.
_MODULES_TO_IGNORE = {"tests", "conftest", "__main__"}

_TYPE_FILTERS = {
    "classifier": ClassifierMixin,
    "regressor": RegressorMixin,
    "transformer": TransformerMixin,
    "cluster": ClusterMixin,
}


def _is_abstract(klass):
    return bool(getattr(klass, "__abstractmethods__", None))


def _walk_skcgm_modules():
    """Import and yield every module of skcgm, test modules excepted."""
    import skcgm

    # Ignore deprecation warnings raised at import time.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield skcgm
        for _, module_name, _ in pkgutil.walk_packages(
            path=skcgm.__path__, prefix="skcgm."
        ):
            if any(part in _MODULES_TO_IGNORE for part in module_name.split(".")):
                continue
            yield import_module(module_name)


def all_estimators(type_filter=None):
    """Get a list of all the estimators defined in skcgm.

    Walks every module of skcgm (test modules excepted) and collects the
    public subclasses of :class:`~sklearn.base.BaseEstimator` that skcgm
    defines: classes whose name starts with an underscore, abstract classes
    and classes imported from other packages (scikit-learn's own) are left
    out. Estimators living in private modules are found too, so that one
    missing from its subpackage's ``__all__`` is still tested.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "cluster", "transformer"} \
            or list of such str, default=None
        Which kind of estimators to return. None returns them all; a string
        returns the estimators of that kind only; a list returns the
        estimators of at least one of the listed kinds.

    Returns
    -------
    estimators : list of tuple
        List of ``(name, class)``, where ``name`` is the class name and
        ``class`` the class itself, sorted by name.

    Raises
    ------
    ValueError
        If ``type_filter`` holds an unknown kind.

    See Also
    --------
    sklearn.utils.discovery.all_estimators : The same for scikit-learn.

    Examples
    --------
    >>> from skcgm.utils.discovery import all_estimators
    >>> estimators = dict(all_estimators(type_filter="cluster"))
    >>> "SumOfMinKMeans" in estimators
    True
    >>> all_estimators(type_filter="sampler")
    Traceback (most recent call last):
        ...
    ValueError: Parameter type_filter must be 'classifier', 'regressor', ...
    """
    if type_filter is not None:
        kinds = [type_filter] if isinstance(type_filter, str) else list(type_filter)
        unknown = [kind for kind in kinds if kind not in _TYPE_FILTERS]
        if unknown:
            raise ValueError(
                "Parameter type_filter must be 'classifier', 'regressor', "
                f"'transformer', 'cluster' or None, got {unknown!r}."
            )

    estimators = set()
    for module in _walk_skcgm_modules():
        for name, klass in inspect.getmembers(module, inspect.isclass):
            if (
                not name.startswith("_")
                and name == klass.__name__
                and issubclass(klass, BaseEstimator)
                and klass.__module__.split(".")[0] == "skcgm"
                and not _is_abstract(klass)
            ):
                estimators.add((name, klass))

    if type_filter is not None:
        mixins = tuple(_TYPE_FILTERS[kind] for kind in kinds)
        estimators = {est for est in estimators if issubclass(est[1], mixins)}

    # Sort on the name only: classes do not compare.
    return sorted(estimators, key=itemgetter(0))
