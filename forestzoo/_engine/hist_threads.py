"""A node's histograms built on several threads (``hist_threads`` of the grower).

Boosting grows one tree per round (binary classification, regression), so
its trees cannot run side by side as a forest's do; what parallelises is the
histogram of every feature over the node's rows.  The grower hands such a
build to :func:`build_in_threads` (through ``numba.objmode``): the features
are cut into contiguous blocks (:func:`forestzoo._threads.run_blocks`), the
calling thread builds the first block and threads of a process-wide pool the
others, each with the compiled, GIL-free block builder of the criterion's task
(:func:`.splitters.hist.build_block_cls` or ``build_block_reg``).  Every
feature's histogram is still summed by one thread in node order, so the
result is bit-identical to a one-thread build whatever the number of threads.

Plain Python threads are used rather than a Numba ``parallel=True`` kernel:
Numba's thread pools are process-wide and the one it picks may refuse
concurrent launches (``workqueue``) or terminate a forked child (GNU
OpenMP), while forestzoo's forests already run trees on joblib threads.
"""

from .._threads import run_blocks
from .criteria import SQUARED_ERROR
from .splitters.hist import build_block_cls, build_block_reg

#: Least (rows x features) of a build handed to other threads (about 0.4 ms of work on one
#: thread): smaller builds stay on the grower's thread, where the hand-over (an objmode
#: call and a thread wake-up) would cost a larger share.
MIN_PARALLEL_WORK = 200_000


def build_in_threads(Xb, n_bins, idx, start, end, w, yk, wy, criterion, target, n_threads):
    """Histograms of every feature over the node ``idx[start:end]`` into ``target[f]``, on ``n_threads`` threads."""
    build_block = build_block_reg if criterion >= SQUARED_ERROR else build_block_cls
    run_blocks(build_block, Xb.shape[0], n_threads, Xb, n_bins, idx, start, end, w, yk, wy, target)
