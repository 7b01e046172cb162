"""The Haar feature bank of the Haar tree, computed on demand from integral images.

Appendix A.2 of "Stochastic induction of decision trees with application to
learning Haar tree" builds its features by sliding Haar filters
over the image: every filter shape of its Figure 4, every region size
``(3n, 3m)`` with ``n, m = 1..8``, every position of a 28 x 28 image (about
121,000 features, Section 5.1).  The text we have names the shapes (two- and
three-rectangle edge and line filters, a four-rectangle filter) but not the
drawing of Figure 4, so the bank below is our reconstruction on the
``(3n, 3m)`` region, read as a 3 x 3 grid of ``n x m`` cells:

=============  ==========================================================
``edge_h``     two rectangles: top half minus bottom half
``edge_v``     two rectangles: left half minus right half
``line_h``     three rectangles: middle third of the rows minus the outer two
``line_v``     three rectangles: middle third of the columns minus the outer two
``gap_h``      two rectangles: top third minus bottom third (one cell apart)
``gap_v``      two rectangles: left third minus right third
``four``       four rectangles: the two diagonal quadrants minus the other two
``center``     center cell minus the ring of eight cells around it
=============  ==========================================================

Halves are split at ``floor(size / 2)``.  Every feature is a difference of
mean intensities (each rectangle weighted by ``+-1 / its area``), so it is 0
on a flat image and comparable across sizes.  On a 28 x 28 image each shape
has ``(29 - 3n)(29 - 3m)`` positions, 15,376 over ``n, m = 1..8``: the eight
shapes give 123,008 features (the paper: about 121,000).

A rectangle sum is four entries of the integral image ``I`` (zero first row
and column, ``(H + 1) x (W + 1)``): ``I[r1, c1] - I[r0, c1] - I[r1, c0] +
I[r0, c0]``.  A feature is therefore a sparse linear combination of integral-
image entries -- 6 to 9 of them once shared corners are merged -- stored in
CSR arrays (``ptr``, ``index``, ``coef``).  That is exactly an oblique
projection of the engine (:class:`forestzoo._engine.api.Tree`), so a fitted Haar
tree is predicted by the one predictor at ``O(D)`` for the integral image
plus a handful of reads per node on the path, ``O(D + depth)``.
"""

from dataclasses import dataclass

import numpy as np

from .._jit import njit

#: Names of the filter shapes, in bank order.
SHAPES = ("edge_h", "edge_v", "line_h", "line_v", "gap_h", "gap_v", "four", "center")
CELLS = 3  # the region (3n, 3m) is a 3 x 3 grid of n x m cells


def _rects(shape, h, w):
    """Rectangles ``(r0, r1, c0, c1, weight)`` of one filter on an ``h x w`` region at the origin.

    Weights are ``+-1 / area``: the feature is a difference of mean intensities.
    """
    ch, cw = h // CELLS, w // CELLS
    if shape == "edge_h":
        parts = [((0, h // 2, 0, w), 1.0), ((h // 2, h, 0, w), -1.0)]
    elif shape == "edge_v":
        parts = [((0, h, 0, w // 2), 1.0), ((0, h, w // 2, w), -1.0)]
    elif shape == "line_h":
        parts = [((ch, 2 * ch, 0, w), 1.0), ((0, ch, 0, w), -0.5), ((2 * ch, h, 0, w), -0.5)]
    elif shape == "line_v":
        parts = [((0, h, cw, 2 * cw), 1.0), ((0, h, 0, cw), -0.5), ((0, h, 2 * cw, w), -0.5)]
    elif shape == "gap_h":
        parts = [((0, ch, 0, w), 1.0), ((2 * ch, h, 0, w), -1.0)]
    elif shape == "gap_v":
        parts = [((0, h, 0, cw), 1.0), ((0, h, 2 * cw, w), -1.0)]
    elif shape == "four":
        a, b = h // 2, w // 2
        parts = [((0, a, 0, b), 0.5), ((a, h, b, w), 0.5), ((0, a, b, w), -0.5), ((a, h, 0, b), -0.5)]
    elif shape == "center":
        # mean(center) - mean(ring) = S_c / a_c - (S_window - S_c) / (a_window - a_c)
        a_c, a_ring = ch * cw, h * w - ch * cw
        return [(ch, 2 * ch, cw, 2 * cw, 1.0 / a_c + 1.0 / a_ring), (0, h, 0, w, -1.0 / a_ring)]
    else:
        raise ValueError(f"Unknown Haar filter shape {shape!r}; accepted: {', '.join(SHAPES)}.")
    return [(r0, r1, c0, c1, s / ((r1 - r0) * (c1 - c0))) for (r0, r1, c0, c1), s in parts]


def _corners(rects, stride):
    """Merged integral-image offsets and coefficients of a list of rectangles."""
    acc = {}
    for r0, r1, c0, c1, wt in rects:
        for r, c, s in ((r1, c1, 1.0), (r0, c1, -1.0), (r1, c0, -1.0), (r0, c0, 1.0)):
            key = r * stride + c
            acc[key] = acc.get(key, 0.0) + s * wt
    scale = max(abs(v) for v in acc.values())
    keys = sorted(k for k, v in acc.items() if abs(v) > 1e-12 * scale)
    return np.array(keys, np.int64), np.array([acc[k] for k in keys], np.float64)


@dataclass
class HaarBank:
    """Every Haar feature of one image size, as CSR rows over integral-image entries.

    Attributes
    ----------
    image_shape : (int, int)
    ptr : int64 (n_features + 1,); feature ``f`` is ``sum_q coef[q] * I[index[q]]``
        for ``q`` in ``ptr[f]:ptr[f + 1]`` (``I`` the flattened integral image).
    index : int32 entries of the flattened ``(H + 1) x (W + 1)`` integral image.
    coef : float64 coefficients.
    shape_id, top, left, height, width : int32 (n_features,), the filter of each feature.
    """

    image_shape: tuple
    ptr: np.ndarray
    index: np.ndarray
    coef: np.ndarray
    shape_id: np.ndarray
    top: np.ndarray
    left: np.ndarray
    height: np.ndarray
    width: np.ndarray

    @property
    def n_features(self):
        return int(self.shape_id.shape[0])

    def feature(self, f):
        """``(index, coef)`` of feature ``f``: its projection on the integral image."""
        sl = slice(self.ptr[f], self.ptr[f + 1])
        return self.index[sl], self.coef[sl]

    def describe(self, f):
        """``(shape name, top, left, height, width)`` of feature ``f``."""
        return (SHAPES[self.shape_id[f]], int(self.top[f]), int(self.left[f]), int(self.height[f]),
                int(self.width[f]))


def build_bank(image_shape, max_scale=8, shapes=SHAPES):
    """The Haar bank of ``image_shape``: regions ``(3n, 3m)``, ``n, m = 1..max_scale``, every position.

    Regions larger than the image are skipped; the image is first padded to
    :func:`padded_shape`.
    """
    H, W = padded_shape(image_shape)
    stride = W + 1
    ptrs, idxs, coefs, meta = [np.zeros(1, np.int64)], [], [], []
    nnz = 0
    for s_id, shape in enumerate(shapes):
        for n in range(1, max_scale + 1):
            for m in range(1, max_scale + 1):
                h, w = CELLS * n, CELLS * m
                if h > H or w > W:
                    continue
                off, cf = _corners(_rects(shape, h, w), stride)
                top, left = np.meshgrid(np.arange(H - h + 1), np.arange(W - w + 1), indexing="ij")
                top, left = top.ravel(), left.ravel()
                base = top * stride + left
                k = off.shape[0]
                idxs.append((base[:, None] + off[None, :]).ravel())
                coefs.append(np.tile(cf, base.shape[0]))
                ptrs.append(nnz + k * np.arange(1, base.shape[0] + 1))
                nnz += k * base.shape[0]
                meta.append(np.stack([np.full_like(top, s_id), top, left, np.full_like(top, h),
                                      np.full_like(top, w)]))
    meta = np.concatenate(meta, axis=1).astype(np.int32)
    return HaarBank((H, W), np.concatenate(ptrs).astype(np.int64), np.concatenate(idxs).astype(np.int32),
                    np.concatenate(coefs), *meta)


def padded_shape(image_shape):
    """The image size the bank is built on: at least one ``3 x 3`` region in each direction.

    Images smaller than 3 pixels in a direction are zero-padded at the
    bottom / right (only tiny or one-row "images" are affected).
    """
    return tuple(max(CELLS, int(v)) for v in image_shape)


def integral_images(X, image_shape, chunk=8192):
    """Integral images of the rows of ``X`` (flattened ``image_shape`` images), float32.

    Row ``i`` of the result is the ``(H + 1) x (W + 1)`` integral image of
    image ``i`` (zero-padded to :func:`padded_shape` ``(H, W)``), flattened,
    with a zero first row and column; entry ``(r, c)`` is the sum of the
    pixels above and left of it.  Sums are accumulated in float64 and stored
    in float32 (exact for 8-bit images up to 256 x 256).
    """
    h, w = image_shape
    H, W = padded_shape(image_shape)
    n = X.shape[0]
    out = np.zeros((n, (H + 1) * (W + 1)), dtype=np.float32)
    view = out.reshape(n, H + 1, W + 1)
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        img = np.zeros((b - a, H, W))
        img[:, :h, :w] = X[a:b].reshape(b - a, h, w)
        view[a:b, 1:, 1:] = img.cumsum(axis=1).cumsum(axis=2)
    return out


@njit(inline="always")
def haar_value(II, row, f, ptr, index, coef):
    """Feature ``f`` of image ``row``, summed as the engine's predictor sums a projection."""
    s = 0.0
    for q in range(ptr[f], ptr[f + 1]):
        s += coef[q] * II[row, index[q]]
    return s
