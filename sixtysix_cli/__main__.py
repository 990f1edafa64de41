"""``python -m sixtysix_cli ...``: the same as ``sixtysix ...``."""

import sys

from .main import main

if __name__ == "__main__":
    sys.exit(main())
