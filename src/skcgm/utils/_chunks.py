"""The row chunks of a dask array: the source the passes over data beyond memory read.

A solver's pass over data in memory hands the whole array to a compiled
kernel, which cuts it into blocks on its own threads. On a
:class:`dask.array.Array` the same pass is one task per chunk of rows, run
on the workers where the chunk lives; only each task's small result (a sum,
a gradient, a few drawn rows) reaches the client. :class:`RowChunks` is
that source: the chunks of ``X`` with the arrays chunked as its rows (the
targets, the sample weights), their first rows, and the tasks of a pass.
dask is imported only when a pass runs.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import collections
import uuid

import numpy as np

__all__ = ["RowChunks"]

# Whether the last pass over a dask array (by its name) ran backwards, for
# the arrays of the last fits: a fit's first pass runs the other way.
_LAST_PASS_REVERSED = collections.OrderedDict()
_REMEMBERED_ARRAYS = 64


class RowChunks:
    """The row chunks of a dask array and of the arrays aligned with it.

    Every pass (:meth:`compute`) runs the chunks in the direction opposite
    to the last pass over the same array, by this source or an earlier one
    (a fit before): a worker whose memory holds only part of its chunks
    (dask spills the least recently used to disk) then starts each pass
    with the chunks the last one left in memory, where a cyclic order would
    read every chunk back from disk. The first pass over an array runs
    backwards, against the order in which ``persist`` computed its chunks.

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features)
        Chunked by rows, with one chunk across the columns.
    *aligned : dask array of shape (n_samples,) or None
        Arrays chunked as the rows of ``X`` (targets, sample weights); None
        gives None to every task.

    Attributes
    ----------
    n_chunks : int
        Number of row chunks.
    starts : ndarray of shape (n_chunks,)
        The first row of every chunk.
    reverse : bool
        The direction of the next pass: backwards when True.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from skcgm.utils._chunks import RowChunks
    >>> X = da.from_array(np.arange(10.0).reshape(5, 2), chunks=(2, 2))
    >>> chunks = RowChunks(X, None)
    >>> chunks.compute(lambda block, y, start: (start, float(block.sum())))
    ((0, 6.0), (2, 22.0), (4, 17.0))
    >>> chunks.reverse  # the first pass ran backwards, the next runs forwards
    False
    """

    def __init__(self, X, *aligned):
        self.X = X
        self.aligned = aligned
        self.n_chunks = len(X.chunks[0])
        self.starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(int)
        self.reverse = not _LAST_PASS_REVERSED.get(X.name, False)

    def tasks(self, func, *args, with_start=True, seeds=None):
        """One delayed call of ``func`` per chunk, in chunk order.

        ``func(chunk, *aligned_chunks, start, *args, seed)``: ``start`` (the
        chunk's first row) unless ``with_start`` is False, ``seed`` only
        when ``seeds`` (one per chunk) are given. The tasks of a call are
        named once: hashing the arguments of every task (dask's default
        name) cost the client about 1 ms a task while the workers waited.
        dask runs tasks of equal priority in the order of their names,
        which number the chunks in the direction of the next pass
        (:attr:`reverse`).

        Returns
        -------
        tasks : list of dask.delayed.Delayed
        """
        import dask

        blocks = self.X.to_delayed().ravel()
        columns = [
            [None] * len(blocks) if array is None else array.to_delayed().ravel()
            for array in self.aligned
        ]
        call = dask.delayed(func)
        name = f"{getattr(func, '__name__', 'pass')}-{uuid.uuid4().hex}"
        last = len(blocks) - 1
        reverse = self.reverse
        tasks = []
        for j, block in enumerate(blocks):
            head = [block, *(column[j] for column in columns)]
            if with_start:
                head.append(int(self.starts[j]))
            tail = () if seeds is None else (int(seeds[j]),)
            key = f"{name}-{last - j if reverse else j:09d}"
            tasks.append(call(*head, *args, *tail, dask_key_name=key))
        return tasks

    def compute(self, func, *args, **options):
        """One pass: :meth:`tasks` computed, their results in chunk order.

        The next pass runs the other way.
        """
        import dask

        results = dask.compute(*self.tasks(func, *args, **options))
        name = self.X.name
        _LAST_PASS_REVERSED[name] = self.reverse
        _LAST_PASS_REVERSED.move_to_end(name)
        if len(_LAST_PASS_REVERSED) > _REMEMBERED_ARRAYS:
            _LAST_PASS_REVERSED.popitem(last=False)
        self.reverse = not self.reverse
        return results

    def rows(self, indices):
        """Rows ``indices`` of ``X`` and of the aligned arrays, computed.

        A few rows, not a pass: dask reads only the chunks that hold them.

        Returns
        -------
        rows : tuple of ndarray
            The rows of ``X``, then those of every aligned array (None for
            None).
        """
        import dask

        parts = [self.X[indices]]
        parts += [None if array is None else array[indices] for array in self.aligned]
        computed = dask.compute(*[part for part in parts if part is not None])
        computed = iter(computed)
        return tuple(None if part is None else next(computed) for part in parts)
