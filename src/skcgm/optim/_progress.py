"""The verbose lines of one solver run."""


class Progress:
    """The verbose lines of one run, in :class:`sklearn.cluster.KMeans`' words.

    ``write`` is ``print`` for a run in the caller's process and a list's
    ``append`` for a run in a joblib worker, whose lines the caller prints
    (a worker's standard output does not reach a notebook); None is silent.
    ``scale`` turns the objective :math:`F` into the reported quantity (the
    inertia, for estimators that define one).
    """

    def __init__(self, write, quantity="objective", scale=1.0):
        self.write = write
        self.quantity = quantity
        self.scale = scale

    def __call__(self, text):
        if self.write is not None:
            self.write(text)

    def iteration(self, n_iter, objective):
        self(f"Iteration {n_iter}, {self.quantity} {self.scale * objective}.")

    def converged(self, n_iter, reason):
        self(f"Converged at iteration {n_iter}: {reason}.")
