"""``python -m training.expert --config configs/expert.yaml``: expert iteration (training.expert.loop)."""

# isort: off
import training.threads  # noqa: F401 - first: torch's threads must not spin (training/threads.py)
# isort: on
import sys

from training.expert.loop import main

if __name__ == "__main__":
    sys.exit(main())
