"""``python -m forestzoo`` runs the ``forestzoo`` command line."""

import sys

from forestzoo.bench.cli import console

if __name__ == "__main__":
    sys.exit(console())
