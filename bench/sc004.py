"""SC-004: characters entering the LLM before/after structured summarisation, and whether totals survive.

Run: ``.venv/bin/python bench/sc004.py [--budget 4000] [--corpus bench/data/superset_responses.jsonl]``.
The corpus holds real responses of the local Superset pair (``bench/record_corpus.py`` records it). Each
response is treated as a tool result: "before" is its compact JSON length, "after" the length of what
``tool_message_payload`` would send (the summary when over budget). A result's totals survive when every list
reachable through object keys has the same length (or ``total``) in the summary and Superset's ``count`` is kept.
Goals: ≥ 50 % fewer characters on average, totals survive in 100 % of the results.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentchat.runtime.summarise import list_totals, summarise, to_json  # noqa: E402

CORPUS = ROOT / "bench" / "data" / "superset_responses.jsonl"


def totals_survive(raw, summary) -> bool:
    """True when every key-reachable list of ``raw`` has its real length in ``summary``, and ``count`` is kept."""
    kept = list_totals(summary)
    if any(kept.get(path) != length for path, length in list_totals(raw).items()):
        return False
    if isinstance(raw, dict) and "count" in raw:
        return isinstance(summary, dict) and summary.get("count") == raw["count"]
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=4000, help="TOOL_RESPONSE_MAX_CHARS (default 4000)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()

    rows = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    before, after, survived, over, seconds = [], [], 0, [], 0.0
    for row in rows:
        raw = to_json(row["body"])
        started = time.perf_counter()
        value, summarised = summarise(row["body"], args.budget, size=len(raw))
        seconds += time.perf_counter() - started
        sent = to_json(value)
        before.append(len(raw))
        after.append(len(sent))
        survived += totals_survive(row["body"], value)
        if summarised:
            over.append((row["env"], row["path"], len(raw), len(sent)))
            assert len(sent) <= args.budget, (row["path"], len(sent))

    mean_before, mean_after = statistics.mean(before), statistics.mean(after)
    print(f"SC-004  corpus: {len(rows)} real Superset responses ({args.corpus.name}), budget {args.budget} chars")
    print(
        f"  average characters entering the LLM: before {mean_before:,.0f}  after {mean_after:,.0f}  "
        f"-> {100 * (1 - mean_after / mean_before):.1f} % less (goal >= 50 %)"
    )
    print(
        f"  median: before {statistics.median(before):,.0f}  after {statistics.median(after):,.0f};  "
        f"max after {max(after):,} (budget {args.budget})"
    )
    if over:
        ob = statistics.mean(o[2] for o in over)
        oa = statistics.mean(o[3] for o in over)
        print(
            f"  summarised: {len(over)} of {len(rows)} results; their average {ob:,.0f} -> {oa:,.0f} chars "
            f"({100 * (1 - oa / ob):.1f} % less)"
        )
    print(f"  totals survive: {survived}/{len(rows)} = {100 * survived / len(rows):.1f} % (goal 100 %)")
    print(f"  summariser time: {1000 * seconds / len(rows):.2f} ms per result on average")
    print("  largest summarised results (env, path, before -> after):")
    for env, path, b, a in sorted(over, key=lambda o: -o[2])[:8]:
        print(f"    {env:7} {path:45} {b:>8,} -> {a:>5,}")


if __name__ == "__main__":
    main()
