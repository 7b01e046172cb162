"""Sliding windows over sequences and images, read in bounded chunks.

A sequence of ``d`` features is treated as a 1 x ``d`` image, so one code
path serves both.  Windows are never materialised for all samples at once:
:func:`windows_of` returns the windows of a block of rows, and
:func:`sample_windows` gathers a random subset of (sample, window) pairs
straight from a strided view of ``X``.
"""

from numbers import Integral, Real

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def resolve_image_shape(image_shape, n_features):
    """``(H, W)`` of the inputs: ``(1, n_features)`` for sequences; checks ``H * W == n_features``."""
    if image_shape is None:
        return 1, n_features
    shape = tuple(image_shape)
    if len(shape) != 2 or not all(isinstance(s, Integral) and s >= 1 for s in shape):
        raise ValueError(f"image_shape must be None or (height, width) with positive ints; got {image_shape!r}.")
    if shape[0] * shape[1] != n_features:
        raise ValueError(
            f"X has {n_features} features but image_shape={shape} needs {shape[0] * shape[1]}: every "
            "row must be one image flattened row by row."
        )
    return int(shape[0]), int(shape[1])


def resolve_windows(window_sizes, image, is_image):
    """Window ``(h, w)`` of every grain.

    For sequences a window is an int (features) or a float in (0, 1] (that
    fraction of the sequence, rounded down).  For images it is an int (a
    square side), a pair ``(h, w)``, or a float in (0, 1]: a square window
    covering about that fraction of the pixels (side ``floor(sqrt(f H W))``).
    Fractions never give less than 1 nor more than the input; explicit sizes
    larger than the input are an error.
    """
    H, W = image
    sizes = list(window_sizes) if isinstance(window_sizes, (list, tuple)) else None
    if not sizes:
        raise ValueError(f"window_sizes must be a non-empty list or tuple; got {window_sizes!r}.")
    windows = []
    for i, size in enumerate(sizes):
        if isinstance(size, Real) and not isinstance(size, Integral):
            if not 0 < size <= 1:
                raise ValueError(f"window_sizes[{i}]={size!r}: a float window size is a fraction in (0, 1].")
            if is_image:
                side = max(1, int(np.sqrt(size * H * W) + 1e-9))  # 1e-9: 0.29 * 100 is 28.99...
                h, w = min(H, side), min(W, side)
            else:
                h, w = 1, max(1, int(size * W + 1e-9))
        elif isinstance(size, Integral) and size >= 1:
            h, w = (int(size), int(size)) if is_image else (1, int(size))
        elif (is_image and isinstance(size, (tuple, list)) and len(size) == 2
              and all(isinstance(s, Integral) and s >= 1 for s in size)):
            h, w = int(size[0]), int(size[1])
        else:
            accepted = "a positive int, a (height, width) pair or a fraction in (0, 1]" if is_image \
                else "a positive int or a fraction in (0, 1]"
            raise ValueError(f"window_sizes[{i}]={size!r} is not {accepted}.")
        if is_image and (h > H or w > W):
            raise ValueError(f"window_sizes[{i}]={size!r} gives a {h}x{w} window, larger than the image ({H}x{W}).")
        if w > W:
            raise ValueError(f"window_sizes[{i}]={size!r} is larger than the sequence ({W} features).")
        windows.append((h, w))
    return windows


def grid(image, window, stride):
    """Number of window positions ``(rows, cols)`` for ``stride`` steps in both directions."""
    (H, W), (h, w) = image, window
    return (H - h) // stride + 1, (W - w) // stride + 1


def _view(X, image, window, stride):
    """Strided view (n, rows, cols, h, w) of every window position of every row; no copy."""
    imgs = X.reshape(X.shape[0], *image)
    return sliding_window_view(imgs, window, axis=(1, 2))[:, ::stride, ::stride]


def _own_float32(a):
    """``a`` as a C-contiguous float32 array that owns its memory.

    A window view of the input is read-only; ``np.ascontiguousarray``
    returns it unchanged when it is already contiguous float32 (a window as
    large as the image).  The forests' kernels are compiled once per array
    type, and a read-only array is a type of its own: a copy keeps the
    scanner's forests on the kernels every other fit compiles.
    """
    out = np.ascontiguousarray(a, dtype=np.float32)
    return out if out.flags.writeable else out.copy()


def windows_of(X, image, window, stride):
    """All windows of the rows of ``X``, one per row of the result, sample-major, float32.

    Shape ``(n * n_windows, h * w)``; window ``j`` of sample ``i`` is row
    ``i * n_windows + j``, windows ordered row by row over the image.
    """
    view = _view(X, image, window, stride)
    return _own_float32(view.reshape(-1, window[0] * window[1]))


def sample_windows(X, image, window, stride, rows, n_max, seed):
    """Windows of the samples ``rows``: all of them, or ``n_max`` drawn without replacement.

    Zhou & Feng (2017, Sec. 3.2) allow subsampling the window instances
    when there are too many.  Returns ``(windows, sample)``: the windows
    (float32, one per row) and the index in ``rows`` of the sample each
    came from.
    """
    n_rows, n_cols = grid(image, window, stride)
    per_sample = n_rows * n_cols
    total = rows.shape[0] * per_sample
    if n_max is None or n_max >= total:
        return windows_of(X[rows], image, window, stride), np.repeat(np.arange(rows.shape[0]), per_sample)
    flat = np.sort(np.random.default_rng(seed).choice(total, size=n_max, replace=False))
    sample, pos = np.divmod(flat, per_sample)
    view = _view(X, image, window, stride)
    picked = view[rows[sample], pos // n_cols, pos % n_cols]
    return _own_float32(picked.reshape(n_max, -1)), sample
