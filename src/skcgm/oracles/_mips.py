"""Maximum-inner-product search (MIPS) over a fixed set of atoms.

The Frank-Wolfe direction search over the convex hull of a finite set
:math:`S = \\{a_1, \\dots, a_n\\}` is a maximum-inner-product search: the
linear minimization oracle for a gradient :math:`g` is

.. math::

    \\arg\\min_{s \\in S} \\langle g, s \\rangle
    = \\arg\\max_{1 \\le i \\le n} \\langle -g, a_i \\rangle,

so one index built once over the atoms answers every iteration (Section 4.2
and Corollary C.3 of "Breaking the linear iteration cost barrier for some
well-known conditional gradient methods using MaxIP data-structures"). Two
indexes share one interface:

- :class:`ExactMIPS` scans all atoms with chunked BLAS products;
- :class:`LSHMIPS` hashes the atoms, padded onto the unit sphere
  (Neyshabur and Srebro's Simple-LSH), with sign random projections
  (SimHash), and only re-ranks the atoms that share a bucket with the query.

Both return ``argmax_i <q, a_i>`` together with the number of candidates
whose inner product was computed, the cost measure of the paper. The
transforms of the paper's Section 4.2 (eqs. 1-3), which turn the direction
search into a MIPS on the unit sphere, are the functions
:func:`fw_query_transform`, :func:`fw_atom_transform`,
:func:`sphere_pad_atoms` and :func:`sphere_pad_query`.
"""

import heapq
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils._params import ParamsMixin, StrictInterval
from ..utils._sklearn_compat import validate_params
from ..utils._validation import check_atoms, check_square_range
from ._mips_fast import best_inner_product, hamming_distances, union_candidates

__all__ = [
    "ExactMIPS",
    "LSHMIPS",
    "fw_atom_transform",
    "fw_query_transform",
    "sphere_pad_atoms",
    "sphere_pad_query",
]

# Elements of one block of the (n_queries, n_atoms) score matrix: 2**20
# float64 values are 8 MiB, large enough for BLAS, small enough for memory.
_BLOCK_ELEMENTS = 2**20
# Queries scored together by one matrix product.
_QUERY_CHUNK = 1024
# Codes are packed into int64.
_MAX_BITS = 62
_NOT_FITTED = (
    "This %(name)s instance is not fitted yet. Call 'fit' with the atoms before "
    "querying it."
)


class _BaseMIPS(ParamsMixin):
    """Atoms, their validation and the fitted-state check of the MIPS indexes.

    The parameters are handled as for every oracle (:mod:`._params`); this
    class adds the atoms, their validation and the fitted-state check.
    """

    def _fit_atoms(self, atoms):
        self._validate_params()
        atoms = check_atoms(atoms)
        self.atoms_ = atoms
        self.n_atoms_, self.n_features_in_ = atoms.shape
        return atoms

    def _check_query(self, q):
        check_is_fitted(self, "atoms_", msg=_NOT_FITTED)
        q = check_array(q, dtype=self.atoms_.dtype, ensure_2d=False, input_name="q")
        # The scores are inner products with atoms of the same range.
        check_square_range(q, input_name="q")
        if q.shape != (self.n_features_in_,):
            raise ValueError(
                f"q must be a 1-D array of shape (n_features,) = "
                f"({self.n_features_in_},); got shape {q.shape}."
            )
        return q

    def _check_queries(self, Q):
        check_is_fitted(self, "atoms_", msg=_NOT_FITTED)
        Q = check_array(Q, dtype=self.atoms_.dtype, input_name="Q")
        check_square_range(Q, input_name="Q")
        if Q.shape[1] != self.n_features_in_:
            raise ValueError(
                f"Q must have n_features={self.n_features_in_} columns, as the "
                f"atoms the index was fitted on; got {Q.shape[1]}."
            )
        return Q

    def query(self, q):
        """Find the atom of largest inner product with one query.

        Parameters
        ----------
        q : array-like of shape (n_features,)
            The query vector.

        Returns
        -------
        index : int
            Index of the atom returned, :math:`\\arg\\max_i \\langle q, a_i
            \\rangle` for an exact index, ties broken towards the lowest
            index.
        score : float
            Its inner product :math:`\\langle q, a_{index} \\rangle`.
        n_scored : int
            Number of atoms whose inner product with ``q`` was computed.
        """
        q = self._check_query(q)
        indices, scores, n_scored = self._query_batch(q[np.newaxis, :])
        return int(indices[0]), float(scores[0]), int(n_scored[0])

    def query_batch(self, Q):
        """Find the atom of largest inner product with each of many queries.

        Parameters
        ----------
        Q : array-like of shape (n_queries, n_features)
            The query vectors, one per row.

        Returns
        -------
        indices : ndarray of shape (n_queries,)
            Index of the atom returned for every query (see :meth:`query`).
        scores : ndarray of shape (n_queries,)
            Inner products of the queries with their atoms, in the dtype of
            the atoms.
        n_scored : ndarray of shape (n_queries,)
            Number of atoms scored for every query.
        """
        Q = self._check_queries(Q)
        return self._query_batch(Q)


def _exact_argmax(atoms, Q, block_size=None):
    """Chunked ``argmax`` of ``Q @ atoms.T`` along the atoms.

    Blocks of atoms are visited in increasing order and a later block only
    replaces the running maximum when strictly larger, so ties go to the
    lowest index, as with :func:`numpy.argmax`.
    """
    n_atoms = atoms.shape[0]
    n_queries = Q.shape[0]
    indices = np.zeros(n_queries, dtype=np.int64)
    scores = np.empty(n_queries, dtype=atoms.dtype)
    for q_start in range(0, n_queries, _QUERY_CHUNK):
        q_stop = min(q_start + _QUERY_CHUNK, n_queries)
        Qc = Q[q_start:q_stop]
        step = block_size or max(1, _BLOCK_ELEMENTS // Qc.shape[0])
        best = np.full(Qc.shape[0], -np.inf, dtype=atoms.dtype)
        best_idx = np.zeros(Qc.shape[0], dtype=np.int64)
        for start in range(0, n_atoms, step):
            block = Qc @ atoms[start : start + step].T
            local = np.argmax(block, axis=1)
            values = block[np.arange(block.shape[0]), local]
            better = values > best
            best[better] = values[better]
            best_idx[better] = local[better] + start
        indices[q_start:q_stop] = best_idx
        scores[q_start:q_stop] = best
    return indices, scores


class ExactMIPS(_BaseMIPS):
    """Exact maximum-inner-product search by a chunked scan of all atoms.

    Computes :math:`\\arg\\max_{1 \\le i \\le n} \\langle q, a_i \\rangle` with
    matrix products over blocks of atoms, so memory stays bounded for many
    atoms and many queries. Every query scores all :math:`n` atoms
    (``n_scored = n``), the linear cost the LSH index of :class:`LSHMIPS`
    avoids. Ties go to the lowest index, as with :func:`numpy.argmax`.

    Parameters
    ----------
    block_size : int, default=None
        Number of atoms scored by one matrix product. None picks it so that
        a block of scores holds about :math:`2^{20}` values.

    Attributes
    ----------
    atoms_ : ndarray of shape (n_atoms, n_features)
        The atoms, float64 or float32 as given.
    n_atoms_ : int
        Number of atoms :math:`n`.
    n_features_in_ : int
        Dimension of the atoms and the queries.

    See Also
    --------
    LSHMIPS : Approximate search scoring a fraction of the atoms.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import ExactMIPS
    >>> atoms = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    >>> mips = ExactMIPS().fit(atoms)
    >>> mips.query([0.2, 1.0])
    (1, 1.0, 3)
    >>> indices, scores, n_scored = mips.query_batch([[1.0, 0.0], [-1.0, 0.0]])
    >>> indices, scores, n_scored
    (array([0, 2]), array([1., 1.]), array([3, 3]))
    """

    _parameter_constraints: dict = {
        "block_size": [StrictInterval(Integral, 1, None, closed="left"), None]
    }

    def __init__(self, block_size=None):
        self.block_size = block_size

    def fit(self, atoms):
        """Store the atoms to search.

        Parameters
        ----------
        atoms : array-like of shape (n_atoms, n_features)
            The finite set :math:`S`, one atom per row; float32 is kept.

        Returns
        -------
        self : ExactMIPS
            The fitted index.
        """
        self._fit_atoms(atoms)
        return self

    def _query_batch(self, Q):
        indices, scores = _exact_argmax(self.atoms_, Q, self.block_size)
        return indices, scores, np.full(Q.shape[0], self.n_atoms_, dtype=np.int64)


class LSHMIPS(_BaseMIPS):
    """Approximate maximum-inner-product search with SimHash over Simple-LSH.

    The paper treats the LSH as a black box (Theorem A.3); this is its
    standard realization:

    1. The atoms are padded onto the unit sphere (Neyshabur and Srebro's
       Simple-LSH, :func:`sphere_pad_atoms`),
       :math:`P(a) = [a / M; \\sqrt{1 - \\|a\\|^2 / M^2}]` with
       :math:`M = \\max_i \\|a_i\\|`, and a query to
       :math:`Q(q) = [q / \\|q\\|; 0]` (:func:`sphere_pad_query`), so that
       :math:`\\langle Q(q), P(a) \\rangle = \\langle q, a \\rangle /
       (M \\|q\\|)`: the ranking of the atoms is unchanged, and the largest
       inner product is the smallest angle on the sphere.
    2. Each of ``n_tables`` tables hashes a point :math:`v` to the
       ``n_bits`` signs :math:`[\\langle r_j, v \\rangle > 0]` of Gaussian
       random projections :math:`r_j \\sim N(0, I)` (SimHash; two points at
       angle :math:`\\theta` agree on a bit with probability
       :math:`1 - \\theta / \\pi`).
    3. A query's candidates are the union over the tables of the atoms in
       its bucket and, with ``n_probes > 0``, in the ``n_probes`` neighbouring
       buckets of every table most likely to hold near neighbours
       (query-directed multi-probe, Lv et al., 2007: the buckets reached by
       flipping the bits whose projections are closest to zero).
    4. With ``n_candidates`` set and more candidates than that, only the
       ``n_candidates`` whose codes, over all tables, differ from the query's
       in the fewest bits are kept: the number of differing bits out of
       :math:`LK` estimates the angle :math:`\\theta` to the query, since each
       bit differs with probability :math:`\\theta / \\pi`.
    5. The candidates are re-ranked by their exact inner product with the
       query, ties towards the lowest index. ``n_scored`` counts them.

    More tables and probes raise the chance that the true maximizer is a
    candidate (recall) and the number of candidates; more bits make buckets
    smaller; ``n_candidates`` caps the inner products computed per query,
    whatever the skew of the buckets. ``n_bits=0`` puts every atom in one
    bucket, an exact scan.

    **Fallback.** When no table has an atom in the query's bucket, the
    index scans all atoms exactly, and ``n_scored`` is ``n_atoms``. A zero
    query, for which every atom is a maximizer, returns atom 0 with score 0
    and ``n_scored = 0``.

    Parameters
    ----------
    n_tables : int, default=16
        Number of hash tables :math:`L`.
    n_bits : int, default=8
        Number of sign projections :math:`K` per table, at most 62.
    n_probes : int, default=0
        Extra buckets probed per table (multi-probe); 0 probes only the
        query's own bucket.
    n_candidates : int, default=None
        Largest number of candidates re-ranked exactly per query, chosen by
        Hamming distance of the codes; None re-ranks them all.
    random_state : int, RandomState instance or None, default=None
        Seeds the Gaussian projections.

    Attributes
    ----------
    atoms_ : ndarray of shape (n_atoms, n_features)
        The atoms, float64 or float32 as given.
    n_atoms_ : int
        Number of atoms :math:`n`.
    n_features_in_ : int
        Dimension of the atoms and the queries.
    max_norm_ : float
        The padding scale :math:`M = \\max_i \\|a_i\\|` (1 if all atoms are
        zero).
    projections_ : ndarray of shape (n_tables, n_bits, n_features + 1)
        The Gaussian projections :math:`r_j`, table by table.
    codes_ : ndarray of shape (n_atoms, n_tables)
        The bucket code of every atom in every table, its bits packed into
        an integer.
    buckets_ : list of dict
        One dictionary per table mapping a code to the sorted indices of the
        atoms in that bucket.

    See Also
    --------
    ExactMIPS : Exact search scoring every atom.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import LSHMIPS
    >>> rng = np.random.RandomState(0)
    >>> atoms = rng.standard_normal((200, 5))
    >>> mips = LSHMIPS(n_tables=32, n_bits=4, random_state=0).fit(atoms)
    >>> q = rng.standard_normal(5)
    >>> index, score, n_scored = mips.query(q)
    >>> bool(index == np.argmax(atoms @ q)), n_scored < 200
    (True, True)
    """

    _parameter_constraints: dict = {
        "n_tables": [StrictInterval(Integral, 1, None, closed="left")],
        "n_bits": [StrictInterval(Integral, 0, _MAX_BITS, closed="both")],
        "n_probes": [StrictInterval(Integral, 0, None, closed="left")],
        "n_candidates": [StrictInterval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self, n_tables=16, n_bits=8, *, n_probes=0, n_candidates=None, random_state=None
    ):
        self.n_tables = n_tables
        self.n_bits = n_bits
        self.n_probes = n_probes
        self.n_candidates = n_candidates
        self.random_state = random_state

    def fit(self, atoms):
        """Hash the atoms into the tables.

        Costs :math:`O(n L K d)` for :math:`n` atoms of dimension :math:`d`.

        Parameters
        ----------
        atoms : array-like of shape (n_atoms, n_features)
            The finite set :math:`S`, one atom per row; float32 is kept for
            re-ranking, hashing runs in float64.

        Returns
        -------
        self : LSHMIPS
            The fitted index.
        """
        atoms = self._fit_atoms(atoms)
        # The compiled re-ranking reads rows in place.
        self.atoms_ = atoms = np.ascontiguousarray(atoms)
        rng = check_random_state(self.random_state)
        padded, self.max_norm_ = sphere_pad_atoms(atoms, return_max_norm=True)
        self.projections_ = rng.standard_normal(
            (self.n_tables, self.n_bits, padded.shape[1])
        )
        self.codes_ = self._hash(padded)
        # Scratch for de-duplicating candidates (see union_candidates).
        self._marks = np.zeros(self.n_atoms_, dtype=np.int32)
        self._stamp = 0
        self.buckets_ = []
        for table in range(self.n_tables):
            codes = self.codes_[:, table]
            order = np.argsort(codes, kind="stable")
            unique, starts = np.unique(codes[order], return_index=True)
            groups = np.split(order, starts[1:])
            self.buckets_.append(dict(zip(unique.tolist(), groups)))
        return self

    def _hash(self, points, return_margins=False):
        """Codes of shape (n_points, n_tables) of padded unit vectors.

        With ``return_margins``, also the projections of shape (n_points,
        n_tables, n_bits) whose signs are the bits, for multi-probing.
        """
        n_points = points.shape[0]
        n_tables, n_bits, dim = self.projections_.shape
        codes = np.zeros((n_points, n_tables), dtype=np.int64)
        margins = np.zeros((n_points, n_tables, n_bits)) if return_margins else None
        if n_bits == 0:
            return (codes, margins) if return_margins else codes
        flat = self.projections_.reshape(n_tables * n_bits, dim)
        weights = np.left_shift(np.int64(1), np.arange(n_bits, dtype=np.int64))
        step = max(1, _BLOCK_ELEMENTS // (n_tables * n_bits))
        for start in range(0, n_points, step):
            projected = (points[start : start + step] @ flat.T).reshape(
                -1, n_tables, n_bits
            )
            codes[start : start + step] = (projected > 0).astype(np.int64) @ weights
            if return_margins:
                margins[start : start + step] = projected
        return (codes, margins) if return_margins else codes

    def _query_batch(self, Q):
        n_queries = Q.shape[0]
        indices = np.zeros(n_queries, dtype=np.int64)
        scores = np.zeros(n_queries, dtype=self.atoms_.dtype)
        n_scored = np.zeros(n_queries, dtype=np.int64)
        nonzero = np.abs(Q).max(axis=1) > 0
        padded = _pad_query(np.asarray(Q[nonzero], dtype=np.float64))
        codes, margins = self._hash(padded, return_margins=True)
        for row, qi in enumerate(np.flatnonzero(nonzero)):
            q = np.ascontiguousarray(Q[qi])
            candidates = self._candidates(codes[row], margins[row])
            if candidates.size == 0:
                # Fallback: no atom shares a bucket with the query.
                idx, score = _exact_argmax(self.atoms_, q[np.newaxis, :])
                indices[qi], scores[qi] = idx[0], score[0]
                n_scored[qi] = self.n_atoms_
                continue
            indices[qi], scores[qi] = best_inner_product(self.atoms_, candidates, q)
            n_scored[qi] = candidates.size
        return indices, scores, n_scored

    def _candidates(self, codes, margins):
        """Atoms to re-rank for one query: its buckets, probes, Hamming cut."""
        found = []
        for table, (bucket, code) in enumerate(zip(self.buckets_, codes.tolist())):
            for mask in _probe_masks(margins[table], self.n_probes):
                atoms = bucket.get(code ^ mask)
                if atoms is not None:
                    found.append(atoms)
        if not found:
            return np.empty(0, dtype=np.intp)
        self._stamp += 1
        if self._stamp == np.iinfo(np.int32).max:
            self._marks[:] = 0
            self._stamp = 1
        candidates = union_candidates(np.concatenate(found), self._marks, self._stamp)
        budget = self.n_candidates
        if budget is not None and candidates.size > budget:
            distances = hamming_distances(self.codes_, candidates, codes)
            keep = np.argpartition(distances, budget - 1)[:budget]
            candidates = candidates[keep]
        return candidates


def _probe_masks(margins, n_probes):
    """Bit masks of the buckets one table probes, best first.

    Query-directed multi-probe (Lv et al., 2007): flipping the sign bits whose
    projections :math:`z_j = \\langle r_j, Q(q) \\rangle` are closest to zero
    gives the neighbouring buckets most likely to hold near neighbours. A set
    :math:`A` of flipped bits scores :math:`\\sum_{j \\in A} z_j^2`; the
    sets are generated in increasing score with a heap of "shift" and
    "expand" moves over the bits sorted by :math:`|z_j|`. The first mask is
    0, the query's own bucket.
    """
    masks = [0]
    n_bits = margins.shape[0]
    if n_probes == 0 or n_bits == 0:
        return masks
    order = np.argsort(np.abs(margins), kind="stable")
    sq = margins[order] ** 2
    bit = [1 << int(j) for j in order]
    # Entries: (score, position of the last sorted bit, mask).
    heap = [(float(sq[0]), 0, bit[0])]
    while heap and len(masks) <= n_probes:
        score, last, mask = heapq.heappop(heap)
        masks.append(mask)
        if last + 1 < n_bits:
            shifted = mask ^ bit[last] ^ bit[last + 1]
            heapq.heappush(heap, (score - sq[last] + sq[last + 1], last + 1, shifted))
            heapq.heappush(heap, (score + sq[last + 1], last + 1, mask ^ bit[last + 1]))
    return masks


def fw_query_transform(grad, x):
    """Map a Frank-Wolfe iterate to its MIPS query, :math:`\\phi_0` of eq. (1).

    .. math::

        \\phi_0(x) = [\\nabla g(x); \\langle x, \\nabla g(x) \\rangle]
        \\in \\mathbb{R}^{d+1},

    paired with :func:`fw_atom_transform` so that (eq. 2)

    .. math::

        \\langle y - x, \\nabla g(x) \\rangle
        = -\\langle \\phi_0(x), \\psi_0(y) \\rangle,

    and the Frank-Wolfe vertex :math:`\\arg\\min_y \\langle y - x, \\nabla
    g(x) \\rangle` is the maximizer of :math:`\\langle \\phi_0(x), \\psi_0(y)
    \\rangle`, whose value is the duality gap. Only the value needs the
    extra coordinate: the ranking is that of a plain MIPS with query
    :math:`-\\nabla g(x)` over the raw atoms (Corollary C.3 of the paper).

    Parameters
    ----------
    grad : array-like of shape (n_features,)
        The gradient :math:`\\nabla g(x)`.
    x : array-like of shape (n_features,)
        The iterate :math:`x`.

    Returns
    -------
    query : ndarray of shape (n_features + 1,)
        :math:`\\phi_0(x)`.

    See Also
    --------
    fw_atom_transform : The matching transform of the atoms.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import fw_atom_transform, fw_query_transform
    >>> grad, x, y = np.array([1.0, -2.0]), np.array([0.5, 0.5]), np.array([2.0, 1.0])
    >>> float(fw_query_transform(grad, x) @ fw_atom_transform(y[None])[0])
    -0.5
    >>> float(-(y - x) @ grad)
    -0.5
    """
    grad = check_array(grad, ensure_2d=False, input_name="grad")
    x = check_array(x, ensure_2d=False, input_name="x")
    if grad.ndim != 1 or grad.shape != x.shape:
        raise ValueError(
            f"grad and x must be 1-D of the same shape; got {grad.shape} and {x.shape}."
        )
    return np.append(grad, grad @ x)


def fw_atom_transform(atoms):
    """Map atoms to their MIPS data points, :math:`\\psi_0` of eq. (1).

    .. math::

        \\psi_0(y) = [-y; 1] \\in \\mathbb{R}^{d+1}.

    See :func:`fw_query_transform` for the identity it satisfies.

    Parameters
    ----------
    atoms : array-like of shape (n_atoms, n_features)
        The atoms :math:`y`, one per row.

    Returns
    -------
    points : ndarray of shape (n_atoms, n_features + 1)
        :math:`\\psi_0(y)` for every atom, in the dtype of the atoms.

    See Also
    --------
    fw_query_transform : The matching transform of the iterate.

    Examples
    --------
    >>> from skcgm.oracles import fw_atom_transform
    >>> fw_atom_transform([[1.0, 2.0]])
    array([[-1., -2.,  1.]])
    """
    atoms = check_atoms(atoms)
    ones = np.ones((atoms.shape[0], 1), dtype=atoms.dtype)
    return np.hstack([-atoms, ones])


@validate_params(
    {
        "atoms": ["array-like"],
        "max_norm": [StrictInterval(Real, 0, None, closed="neither"), None],
        "return_max_norm": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def sphere_pad_atoms(atoms, max_norm=None, return_max_norm=False):
    """Pad atoms onto the unit sphere (Simple-LSH, data side of eq. 3).

    .. math::

        P(a) = [a / M; \\sqrt{1 - \\|a\\|^2 / M^2}] \\in \\mathbb{R}^{d+1},

    with :math:`M \\ge \\max_i \\|a_i\\|`. Every :math:`P(a)` has unit norm and
    :math:`\\langle [q; 0], P(a) \\rangle = \\langle q, a \\rangle / M`, so the
    ranking of the atoms against any query is unchanged. The paper's
    :math:`\\psi_1` appends a second, zero coordinate, matched by the query's
    padding in :math:`\\phi_1`; with a normalized query that padding is
    zero too and the two forms rank alike (Corollary C.3).

    Parameters
    ----------
    atoms : array-like of shape (n_atoms, n_features)
        The atoms, one per row.
    max_norm : float, default=None
        The scale :math:`M`, at least the largest atom norm. None uses the
        largest atom norm, or 1 if every atom is zero.
    return_max_norm : bool, default=False
        Whether to return :math:`M` too.

    Returns
    -------
    padded : ndarray of shape (n_atoms, n_features + 1)
        The padded atoms, float64.
    max_norm : float
        The scale :math:`M`; only when ``return_max_norm`` is True.

    See Also
    --------
    sphere_pad_query : The matching transform of the queries.

    Examples
    --------
    >>> from skcgm.oracles import sphere_pad_atoms
    >>> sphere_pad_atoms([[3.0, 4.0], [0.0, 3.0]])
    array([[0.6, 0.8, 0. ],
           [0. , 0.6, 0.8]])
    """
    atoms = np.asarray(check_atoms(atoms), dtype=np.float64)
    sq_norms = np.einsum("ij,ij->i", atoms, atoms)
    largest = float(np.sqrt(sq_norms.max()))
    if max_norm is None:
        max_norm = largest if largest > 0 else 1.0
    elif max_norm < largest:
        raise ValueError(
            f"max_norm must be at least the largest atom norm {largest}; got "
            f"{max_norm!r}."
        )
    pad = np.sqrt(np.clip(1.0 - sq_norms / max_norm**2, 0.0, None))
    padded = np.hstack([atoms / max_norm, pad[:, np.newaxis]])
    return (padded, float(max_norm)) if return_max_norm else padded


def sphere_pad_query(Q):
    """Normalize queries and pad them with a zero (query side of eq. 3).

    .. math::

        Q(q) = [q / \\|q\\|; 0] \\in \\mathbb{R}^{d+1},

    the partner of :func:`sphere_pad_atoms`. A zero query stays zero.

    Parameters
    ----------
    Q : array-like of shape (n_queries, n_features) or (n_features,)
        The queries, one per row, or a single query.

    Returns
    -------
    padded : ndarray of shape (n_queries, n_features + 1) or (n_features + 1,)
        The padded unit queries, float64, with the shape of ``Q`` plus one
        column.

    See Also
    --------
    sphere_pad_atoms : The matching transform of the atoms.

    Examples
    --------
    >>> from skcgm.oracles import sphere_pad_query
    >>> sphere_pad_query([3.0, 4.0])
    array([0.6, 0.8, 0. ])
    """
    Q = check_array(Q, dtype=np.float64, ensure_2d=False, input_name="Q")
    if Q.ndim == 1:
        return _pad_query(Q[np.newaxis, :])[0]
    return _pad_query(Q)


def _pad_query(Q):
    """:func:`sphere_pad_query` of a validated 2-D float64 array."""
    # Rows are divided by their largest entry first: the squares of a tiny
    # query underflow to a zero norm, those of a huge one overflow.
    scale = np.abs(Q).max(axis=1, keepdims=True)
    unit = np.divide(Q, scale, out=np.zeros_like(Q), where=scale > 0)
    norms = np.linalg.norm(unit, axis=1, keepdims=True)
    unit = np.divide(unit, norms, out=np.zeros_like(Q), where=norms > 0)
    return np.hstack([unit, np.zeros((Q.shape[0], 1))])
