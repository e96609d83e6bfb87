"""The results as a Markdown table, and a plot of time against data size."""

from __future__ import annotations

import json
from pathlib import Path

PRESETS = ["small", "large", "federation", "clubs"]
# The targets (p95, milliseconds), by database where they differ: the writes below; the
# pages (a kept page read 5 ms; any page rendered 15 ms on SQLite, 25 on PostgreSQL; the
# deal that ends a game 30 and 40).
TARGETS = {
    "record a deal": {"sqlite": 30.0, "postgres": 30.0},
    "record the deal that ends a game": {"sqlite": 30.0, "postgres": 40.0},
    # What the scorer waits for; the row above is the worker's whole time, with the
    # boards' work after the answer (club.web.after).
    "record the deal that ends a game, until answered": {"sqlite": 30.0, "postgres": 40.0},
    "correct deal 1 of 60": {"sqlite": 100.0, "postgres": 100.0},
}
KEPT_TARGET = 5.0
PAGE_TARGET = {"sqlite": 15.0, "postgres": 25.0}
# A season's table (benchmarks/season.py: 40 nights of 30 teams) is made at each reading:
# rendered, each page that shows it and the API's answer, 30 ms p95.
SEASON_TARGET = {"sqlite": 30.0, "postgres": 30.0}
# A link preview's picture (benchmarks/previews.py), asked for once a share, not polled:
# drawn for a new version 150 ms p95 (the standings' is the target), read kept 15.
PICTURE_TARGET = {"drawn": 150.0, "kept": 15.0}


def target_for(name: str, database: str = "sqlite", kept: bool = False) -> float | None:
    if name.startswith("export"):
        return None  # judged by deals per second and memory instead
    if "picture" in name:
        return PICTURE_TARGET["kept" if kept else "drawn"]
    if kept:
        return KEPT_TARGET
    if name.startswith(("season", "api: a season")):
        return SEASON_TARGET[database]
    return TARGETS.get(name, PAGE_TARGET)[database]


def _baseline(results: dict, out: Path | None, baseline: Path | None) -> tuple[str, dict]:
    """The run to compare with (``baseline``, else the small preset's in ``out``): its
    preset's name and its rows by scenario."""
    if baseline is None:
        if out is None:
            return "small", {}
        baseline = out / f"{results['meta']['database']}-small.json"
    if not baseline.exists():
        return "small", {}
    data = json.loads(baseline.read_text())
    name, clubs = data["meta"]["preset"], data["meta"].get("clubs", 1)
    if name == "clubs":
        name = f"{clubs} club{'s' if clubs > 1 else ''}"
    return name, {row["name"]: row for row in data["rows"]}


def markdown(
    results: dict, out: Path | None = Path("results"), baseline: Path | None = None
) -> str:
    meta, trivial = results["meta"], results["trivial"]
    against, small = _baseline(results, out, baseline)
    lines = [
        f"### {meta['database']} · {meta['preset']}: {meta['deals']:,} deals"
        + (f" in {meta['clubs']} clubs" if meta.get("clubs", 1) > 1 else ""),
        "",
        (f"Club measured: {meta['club']}. " if meta.get("clubs", 1) > 1 else "")
        + f"Tournament measured: {meta['tournament']} ({meta['tournament_deals']:,} deals); "
        f"game page: a {meta['game_deals']}-deal game; profile: {meta['player']}. "
        f"{meta['machine']}; Python {meta['python']}. Framework floor (trivial view through "
        f"the same middleware): median {trivial['median_ms']:.2f} ms, "
        f"p95 {trivial['p95_ms']:.2f} ms. Pages kept in "
        f"{meta.get('cache') or 'each process' + chr(39) + 's memory'}.",
        "",
        "| scenario | median ms | p95 ms | target p95 | queries | SQL floor ms "
        f"| × framework floor | × SQL floor | × {against} (median) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["rows"]:
        target = target_for(row["name"], meta["database"], row.get("kept", False))
        verdict = ""
        if target is not None:
            verdict = f"{target:.0f} ({'met' if row['p95_ms'] <= target else 'missed'})"
        versus = ""
        if row["name"] in small and (baseline is not None or meta["preset"] != "small"):
            versus = f"{row['median_ms'] / small[row['name']]['median_ms']:.2f}"
        x_sql = f"{row['x_sql_floor']:.1f}" if row["x_sql_floor"] else ""
        lines.append(
            f"| {row['name']} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | {verdict} "
            f"| {row['queries']} | {row['sql_floor_ms']:.2f} | {row['x_framework_floor']:.1f} "
            f"| {x_sql} | {versus} |"
        )
    exports = [row for row in results["rows"] if "deals_per_second" in row]
    if exports:
        lines.append("")
        for row in exports:
            lines.append(
                f"- {row['name']}: {row['deals_per_second']:,.0f} deals/s, "
                f"peak Python memory {row['peak_memory_mb']:.1f} MB (tracemalloc)"
            )
    for fmt, figures in results.get("archive", {}).items():
        if "error" in figures:
            lines.append(f"- whole archive as {fmt.upper()}: failed ({figures['error']})")
        else:
            lines.append(
                f"- whole archive as {fmt.upper()} (`archive.stream_{fmt}()` to /dev/null, "
                f"own process): "
                f"{figures['deals']:,} deals in {figures['seconds']:.1f} s = "
                f"{figures['deals_per_second']:,.0f} deals/s, peak RSS "
                f"{figures['peak_rss_mb']:.0f} MB, {figures['bytes'] / 2**20:.0f} MB written"
            )
    rebuild = results.get("rebuild")
    if rebuild:
        lines.append(
            f"- every leaderboard figure and rating recomputed from scratch "
            f"(`rebuild_leaderboards`, target 60 s): {rebuild['seconds']:.1f} s "
            f"(figures {rebuild['figures_seconds']:.1f} s, ratings "
            f"{rebuild['ratings_seconds']:.1f} s) over {rebuild['games']:,} games"
        )
    return "\n".join(lines) + "\n"


def summary(out: Path = Path("results")) -> str:
    """Every scenario's p95 at every preset on both databases, with its queries: one table."""
    runs = {}
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text())
        if "meta" in data and "rows" in data:
            runs[(data["meta"]["database"], data["meta"]["preset"])] = data
    columns = [(db, preset) for db in ("sqlite", "postgres") for preset in PRESETS]
    columns = [column for column in columns if column in runs]
    if not columns:
        return ""
    names = [row["name"] for row in runs[columns[-1]]["rows"]]
    head = " | ".join(f"{db} {preset} p95" for db, preset in columns)
    lines = [
        f"| scenario | target p95 ms (SQLite / PostgreSQL) | {head} | queries (every preset) |",
        "|---|---:|" + "---:|" * len(columns) + "---|",
    ]
    for name in names:
        cells, queries, kept = [], set(), False
        for column in columns:
            row = next((r for r in runs[column]["rows"] if r["name"] == name), None)
            cells.append("" if row is None else f"{row['p95_ms']:.1f}")
            if row is not None:
                queries.add(row["queries"])
                kept = row.get("kept", False)
        targets = {target_for(name, db, kept) for db in ("sqlite", "postgres")}
        shown = " / ".join(f"{t:.0f}" for t in sorted(targets) if t is not None)
        lines.append(
            f"| {name} | {shown} | {' | '.join(cells)} "
            f"| {', '.join(str(q) for q in sorted(queries))} |"
        )
    return "\n".join(lines) + "\n"


def plot(out: Path, target: Path) -> None:
    """Median time of every scenario against the number of deals, one line per database."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text())
        if "meta" in data and "rows" in data:
            runs.append(data)
    if not runs:
        return
    databases = sorted({run["meta"]["database"] for run in runs})
    fig, axes = plt.subplots(1, len(databases), figsize=(7 * len(databases), 9.5), squeeze=False)
    for axis, database in zip(axes[0], databases, strict=True):
        mine = sorted(
            (run for run in runs if run["meta"]["database"] == database),
            key=lambda run: run["meta"]["deals"],
        )
        names = [row["name"] for row in mine[-1]["rows"]]
        colours = plt.get_cmap("tab20").colors
        for index, name in enumerate(names):
            xs, ys = [], []
            for run in mine:
                for row in run["rows"]:
                    if row["name"] == name:
                        xs.append(run["meta"]["deals"])
                        ys.append(row["median_ms"])
            axis.plot(xs, ys, marker="os^D"[index % 4], color=colours[index % 20], label=name)
        line = PAGE_TARGET[database]
        axis.axhline(line, color="grey", linestyle="--", linewidth=1)
        axis.text(xs[0] if xs else 1, line * 1.08, f"{line:.0f} ms page target", color="grey")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("deals in the database")
        axis.set_ylabel("median time per request (ms)")
        axis.set_title(f"{database}: time against data size")
        axis.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    # Fifty scenarios: the legend takes the lower part of the figure, under the plots.
    fig.tight_layout(rect=(0, 0.3, 1, 1))
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target, dpi=110)
    plt.close(fig)
