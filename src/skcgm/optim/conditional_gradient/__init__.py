"""The conditional gradient family: Frank-Wolfe over a linear minimization
oracle, kernel herding on it, and sublinear Frank-Wolfe policy optimization
(SFWPO) with its action-constrained MDP."""

from ._driver import FrankWolfeResult, frank_wolfe
from ._herding import KernelHerding
from ._policy import SFWPOResult, sfwpo

__all__ = ["FrankWolfeResult", "KernelHerding", "SFWPOResult", "frank_wolfe", "sfwpo"]
