"""``python -m forestzoo`` runs the ``forestzoo`` command line."""

import sys

from forestzoo.bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
