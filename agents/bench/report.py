"""Bench reports: Markdown, JSON and a PNG of one bench, and the leaderboard of many."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from agents.arena.fairness import share_text
from agents.arena.report import md_code, md_table
from agents.core.forfeits import kinds_text


def _pct(x: float | None, ci: Sequence[float | None]) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.0f}% [{100 * (ci[0] or 0):.0f}, {100 * (ci[1] or 0):.0f}]"


def points_text(x: float | None, ci: Sequence[float | None]) -> str:
    if x is None or ci[0] is None or ci[1] is None:
        return "-" if x is None else f"{x:+.2f}"
    return f"{x:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]"


def _plain(r: dict[str, Any]) -> str:
    return points_text(r.get("points_per_deal"), r.get("points_per_deal_ci") or (None, None))


def _aivat(r: dict[str, Any]) -> list[str]:
    """A rung's corrected points per deal with its interval (the plain one, marked, where the correction
    would have widened it), and the SD ratio ("-": none, plain only)."""
    a = r.get("aivat")
    if not isinstance(a, dict) or not a.get("corrected_games"):
        return ["-", "-"]
    ratio = a.get("sd_ratio")
    plain = " (plain: the correction did not narrow it)" if a.get("used") == "plain" else ""
    return [points_text(a.get("points_per_deal"), a.get("ci") or (None, None)) + plain,
            "-" if ratio is None else f"{ratio:.2f}"]


def _forfeits(r: dict[str, Any]) -> str:
    """``"0/2 (rung: time 2)"``: the bot's and the rung's forfeits, by kind."""
    parts = [f"{who}: {kinds_text(r[f'{side}_forfeit_kinds'])}" for who, side in (("bot", "a"), ("rung", "b"))
             if r[f"{side}_forfeits"]]
    return f"{r['a_forfeits']}/{r['b_forfeits']}" + (f" ({'; '.join(parts)})" if parts else "")


def seed_text(result: dict[str, Any]) -> str:
    """How the deals were drawn: secret per rung, or from a public seed anyone can recompute them from."""
    if result.get("seed_kind") == "public":
        return (f"public seed {result.get('seed')} (a bot can recompute every deal from it: a rating for "
                "trusted bots only)")
    if result.get("seed_kind") == "secret":
        return "secret deals per rung"
    return "deals per rung (seed kind not recorded)"


def conditions_text(result: dict[str, Any]) -> str:
    """The bot's kind, where it ran, metering and replayed games, as one sentence ("-" parts when older)."""
    label = result.get("bot_label") or "kind not recorded"
    metering = result.get("metering") or "not recorded"
    lax = " (not bounded: rated with --unmetered)" if result.get("unmetered") else ""
    deaths = result.get("worker_deaths") or 0
    died = f"; {deaths} games whose worker process died counted against the bot" if deaths else ""
    return (f"Bot: {label}; metering: {metering}{lax}; games replayed: {replays_text(result)}{died}; "
            f"{seed_text(result)}.")


def replays_text(result: dict[str, Any]) -> str:
    """The games played again, or why there is no count (older results, or an arena that kept none)."""
    if "replays" not in result:
        return "not recorded"
    n = result["replays"]
    return "not counted by the arena" if n is None else str(n)


def notes(result: dict[str, Any]) -> list[str]:
    """The warnings of a bench: a trusted in-process plug-in, a public seed, forfeits that decided
    matches, a low CPU share."""
    out = []
    if result.get("trusted"):
        out.append("**Trusted, in-process**: the operator declared this plug-in trusted; its code ran in "
                   "the arena's process, where it could read the game state: the rating holds only as far "
                   "as that trust does.")
    if result.get("seed_kind") == "public":
        out.append("**Public seed**: a bot that knows it can recompute every deal; rate untrusted bots on "
                   "secret seeds.")
    if result["unreliable"]:
        f = result["forfeits"]
        out.append(f"**Rating unreliable**: forfeits decided matches (bot: {kinds_text(f['bot'])}; "
                   f"ladder: {kinds_text(f['ladder'])}).")
    share = share_text(result["cpu_share"])
    return out + ([share + "."] if share else [])


def markdown(result: dict[str, Any]) -> str:
    """The bench of one bot as Markdown: its rating, then one line per rung, then the warnings."""
    lo, hi = result["elo_ci"]
    lad = result["ladder"]
    own = result.get("move_time", lad["move_time"])
    at = f"{own:g} s (the rungs {lad['move_time']:g} s)" if own != lad["move_time"] else f"{own:g} s"
    head = ["rung", "rung Elo", "games", "match wins", "deal wins", "points per deal", "forfeits bot/rung",
            "SPRT"]
    aivat = any("aivat" in r for r in result["rungs"])
    if aivat:
        head[6:6] = ["points per deal, aivat", "SD plain/aivat"]
    rows = [[r["rung"], f"{r['rung_elo']:.0f}", str(r["games"]), _pct(r["win_rate"], r["win_rate_ci"]),
             _pct(r["deal_win_rate"], r["deal_win_rate_ci"]),
             points_text(r["points_per_deal"], r["points_per_deal_ci"]), *(_aivat(r) if aivat else []),
             _forfeits(r),
             r["sprt_verdict"] or "-"]
            for r in result["rungs"]]
    return "\n".join([
        f"# Bench: {md_code(result['bot'])}", "",
        f"**Rating {result['elo']:.0f}** (95% interval {lo:.0f} to {hi:.0f}; {lad['scale']}), "
        f"{result['games']} matches at {at} of {lad.get('clock', 'wall')} time per move, "
        f"{seed_text(result)}, duplicate deals; rates from the bot's side, 95% intervals.", "",
        conditions_text(result), "",
        md_table(head, rows), "", *(f"{n}\n" for n in notes(result))])


def plot(result: dict[str, Any], path: str) -> None:
    """The ladder's ratings and the bot's rating with its interval, as a PNG."""
    import matplotlib  # only here: slow to import, and the backend must be set first

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = result["ladder"]["ratings"]
    names = sorted(ratings, key=ratings.__getitem__)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.scatter([ratings[n] for n in names], range(len(names)), color="grey")
    lo, hi = result["elo_ci"]
    ax.axvspan(lo, hi, color="tab:blue", alpha=0.2)
    ax.axvline(result["elo"], color="tab:blue", label=f"{result['bot']}: {result['elo']:.0f}")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel(result["ladder"]["scale"])
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_reports(result: dict[str, Any], out: str) -> None:
    """``bench.json``, ``bench.md`` and ``bench.png`` in ``out``."""
    with open(os.path.join(out, "bench.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "bench.md"), "w", encoding="utf-8") as f:
        f.write(markdown(result))
    plot(result, os.path.join(out, "bench.png"))


def leaderboard(results: Sequence[dict[str, Any]]) -> str:
    """Several benches as one Markdown table, best first (match win rate against each rung)."""
    rungs: list[str] = []
    for res in results:
        rungs += [r["rung"] for r in res["rungs"] if r["rung"] not in rungs]
    head = ["#", "bot", "Elo", "95% interval", "matches", "forfeits bot/ladder", *(f"vs {r}" for r in rungs)]
    rows = []
    for k, res in enumerate(sorted(results, key=lambda r: -r["elo"]), 1):
        by = {r["rung"]: r for r in res["rungs"]}
        rates = [f"{100 * by[r]['win_rate']:.0f}%" if r in by and by[r]["win_rate"] is not None else "-"
                 for r in rungs]
        mark = (" (unreliable)" if res.get("unreliable") else "") + (
            " (trusted, in-process)" if res.get("trusted") else "")
        rows.append([str(k), md_code(res['bot']), f"{res['elo']:.0f}{mark}",
                     f"{res['elo_ci'][0]:.0f} to {res['elo_ci'][1]:.0f}", str(res["games"]),
                     _total_forfeits(res), *rates])
    return md_table(head, rows) + "\n" + _conditions_table(results) + _points_table(results, rungs)


def _conditions_table(results: Sequence[dict[str, Any]]) -> str:
    """How each bot was benched, one list item per bot: kind and isolation, seed kind, sandbox,
    metering, replayed games ("not recorded" in older results)."""
    items = []
    for res in sorted(results, key=lambda r: -r["elo"]):
        boxed = res.get("sandbox")
        sandbox = "sandbox not recorded" if boxed is None else "sandboxed" if boxed else "no sandbox"
        lax = " (unbounded, --unmetered)" if res.get("unmetered") else ""
        items.append(f"- {md_code(res['bot'])}: {res.get('bot_label', 'kind not recorded')}; "
                     f"{res.get('seed_kind', 'not recorded')} seed; {sandbox}; metering "
                     f"{res.get('metering', 'not recorded')}{lax}; "
                     f"games replayed: {replays_text(res)}")
    return "\nHow each bot was benched:\n\n" + "\n".join(items) + "\n"


def _points_table(results: Sequence[dict[str, Any]], rungs: list[str]) -> str:
    """With aivat figures in any result: points per deal against each rung, plain then aivat (95%)."""
    if not any("aivat" in r for res in results for r in res["rungs"]):
        return ""
    head = ["bot", *(f"vs {r}: plain / aivat pts/deal" for r in rungs)]
    rows = []
    for res in sorted(results, key=lambda r: -r["elo"]):
        by = {r["rung"]: r for r in res["rungs"]}
        cells = [f"{_plain(by[r])} / {_aivat(by[r])[0]}" if r in by else "-" for r in rungs]
        rows.append([md_code(res['bot']), *cells])
    return "\nPoints per deal (game points, 95% intervals): plain duplicate / AIVAT-corrected.\n\n" + \
        md_table(head, rows) + "\n"


def _total_forfeits(res: dict[str, Any]) -> str:
    """The bot's and the ladder's forfeits of a bench, by kind (older results: "-")."""
    f = res.get("forfeits")
    if not isinstance(f, dict) or not all(isinstance(f.get(s), dict) for s in ("bot", "ladder")):
        return "-"
    n = [sum(v for v in f[s].values() if type(v) is int) for s in ("bot", "ladder")]
    kinds = "; ".join(f"{s}: {kinds_text(f[s])}" for s, c in zip(("bot", "ladder"), n, strict=True) if c)
    return f"{n[0]}/{n[1]}" + (f" ({kinds})" if kinds else "")
