"""Denoising random forests (Hibino et al. 2017).

Depth-limited forests whose test-time path errors are detected by denoising
autoencoders over leaf-indicator vectors and hedged by multi-path estimation.
"""

from ._forest import DenoisingConvergenceWarning, DenoisingRandomForestClassifier, DenoisingRandomForestRegressor
from ._noise import MeanReplacementNoise, corrupt, normalized_l1_error

__all__ = ["DenoisingRandomForestRegressor", "DenoisingRandomForestClassifier"]
