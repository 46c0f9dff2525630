"""Fixtures of the online tests."""

import pytest


class BudgetLMO:
    """Delegates to an LMO, raising after ``budget`` calls.

    A learner whose loop would not end fails fast instead of hanging the
    suite; every other attribute (radius, contains, project, ...) is the
    wrapped LMO's.
    """

    def __init__(self, lmo, budget):
        self.lmo = lmo
        self.budget = budget
        self.n_calls = 0

    def __call__(self, direction):
        self.n_calls += 1
        if self.n_calls > self.budget:
            raise RuntimeError(f"more than {self.budget} LMO calls")
        return self.lmo(direction)

    def __getattr__(self, name):
        return getattr(self.lmo, name)


@pytest.fixture
def budget_lmo():
    """The class :class:`BudgetLMO`: ``budget_lmo(lmo, budget)``."""
    return BudgetLMO
