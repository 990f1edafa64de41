"""``python -m training.team.ship RUN/last.pt OUT.pt``: a team checkpoint to ship, the policy alone.

Keeps the header, the config and the policy's weights (what ``net:PATH``
plays) and the counters that say what it cost; drops the critic, the
optimizer, the snapshots and the RNG states. The input is checked whole
(:func:`agents.four.net.load_team`), the output written atomically.
"""

from __future__ import annotations

import sys

from agents.checkpoint import save_atomic
from agents.four.net import load_team, validate_team

KEEP = ("format", "version", "obs_size", "config", "policy", "update", "global_step", "cpu_s")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m training.team.ship RUN/last.pt OUT.pt", file=sys.stderr)
        return 2
    try:
        ckpt = load_team(args[0])
        out = {k: ckpt[k] for k in KEEP if k in ckpt}
        validate_team(out, args[1])
        save_atomic(out, args[1])
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args[1]}: the policy of {args[0]} (update {out.get('update')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
