"""``python -m agents.arena ...``: the same as ``sixtysix arena ...``."""

import sys

from sixtysix_cli import main

if __name__ == "__main__":
    sys.exit(main(["arena", *sys.argv[1:]]))
