"""The figures of a load run: quantiles, the per-count rows, process CPU and database commits."""

import os
from pathlib import Path


def quantile(values: list[float], p: float) -> float | None:
    """Linear-interpolation quantile (as ``percentile_cont``); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = p * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def ms(value: float | None) -> str:
    return "—" if value is None else f"{value * 1000:7.1f}"


def summarise(result: dict, stats: dict | None = None) -> dict:
    """The figures of one run: sent, answered (a final ``message``), refused ``busy``, failed (another ``error``),
    lost (none of these by the end), latencies, answered turns per second (first send → last answer), frames/s."""
    turns = result["turns"]
    answered = [t for t in turns if t.final is not None and not t.error]
    busy = [t for t in turns if t.error == "busy"]
    failed = [t for t in turns if t.error and t.error != "busy"]
    first = [t.first - t.sent for t in answered]
    final = [t.final - t.sent for t in answered]
    window = (max(t.final for t in answered) - min(t.sent for t in turns)) if answered else 0.0
    out = {
        "sent": len(turns),
        "answered": len(answered),
        "busy": len(busy),
        "failed": len(failed),
        "failed_codes": sorted({t.error for t in failed}),
        "lost": len(turns) - len(answered) - len(busy) - len(failed),
        "errors": len(busy) + len(failed),
        "busy_p99": quantile([t.final - t.sent for t in busy], 0.99),
        "busy_max": max((t.final - t.sent for t in busy), default=None),
        "final_max": max(final, default=None),
        "turns_s": len(answered) / window if window else 0.0,
        "first_p50": quantile(first, 0.5),
        "first_p99": quantile(first, 0.99),
        "final_p50": quantile(final, 0.5),
        "final_p99": quantile(final, 0.99),
        "frames_s": result["frames"] / result["elapsed"] if result["elapsed"] else 0,
        "abnormal_closes": result.get("abnormal_closes", []),
    }
    if stats is not None:
        overhead, inbound, outbound = [], [], []
        for t in answered:
            s = stats.get(t.nonce)
            if s:
                inbound.append(s["arrived"] - t.sent)
                outbound.append(t.final - s["done"])
                overhead.append(inbound[-1] + outbound[-1])
        out |= {
            "overhead_n": len(overhead),
            "overhead_p50": quantile(overhead, 0.5),
            "overhead_p99": quantile(overhead, 0.99),
            "in_p50": quantile(inbound, 0.5),
            "out_p50": quantile(outbound, 0.5),
        }
    return out


def share(part: int, whole: int) -> str:
    return f"{part / whole * 100:5.1f}%" if whole else "  —  "


def print_row(n: int, agent: dict, echo: dict) -> None:
    """Three lines per count: the agent's answers, the echo consumer's, the agent's overhead beside the echo."""
    sent = agent["sent"]
    print(
        f"{n:6d} chats | agent: sent {sent:5d} answered {share(agent['answered'], sent)} busy "
        f"{share(agent['busy'], sent)} failed {share(agent['failed'], sent)} {agent['failed_codes'] or ''} lost "
        f"{agent['lost']:4d} | {agent['turns_s']:6.1f} turns/s | first p50 {ms(agent['first_p50'])} p99 "
        f"{ms(agent['first_p99'])} | final p50 {ms(agent['final_p50'])} p99 {ms(agent['final_p99'])} max "
        f"{ms(agent['final_max'])} ms | busy answered within p99 {ms(agent['busy_p99'])} max {ms(agent['busy_max'])} ms"
        f" | abnormal closes {agent['abnormal_closes'] or 0}"
    )
    print(
        f"{'':6s}       | echo:  sent {echo['sent']:5d} lost {echo['lost']:4d}         "
        f"p50 {ms(echo['final_p50'])} p99 {ms(echo['final_p99'])} ms | {echo['frames_s']:6.0f} frames/s"
    )
    print(
        f"{'':6s}       | agent overhead/turn (LLM excluded, n={agent['overhead_n']}): p50 {ms(agent['overhead_p50'])} "
        f"p99 {ms(agent['overhead_p99'])} ms (send→LLM p50 {ms(agent['in_p50'])}, LLM done→message p50 "
        f"{ms(agent['out_p50'])}) | echo round trip p50 {ms(echo['final_p50'])} p99 {ms(echo['final_p99'])} ms"
    )


def echo_result_count(result: dict) -> int:
    return sum(1 for t in result["turns"] if t.final is not None)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (``/proc/<pid>/stat``), seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy so far, summed over its cores (``/proc/stat``'s ``cpu`` line:
    every state but idle and iowait). Its growth over a wall-clock span divided by the span is how many cores were
    busy: the agent, the load generator, PostgreSQL, Redis and the LLM stub share this machine."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def db_commits(name: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", [name])
        return cursor.fetchone()[0]
