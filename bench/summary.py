"""The one-pass Python script a user would otherwise write: the headline numbers of
`hermes-stats --summary` (trajectories, completed, partial, tool calls and failures, per-tool
count/success/failure) from each record's tool_stats, with the json module only.
Reads JSONL on stdin, writes one JSON object to stdout."""
import json
import sys

totals = {"trajectories": 0, "completed": 0, "partial": 0, "tool_calls": 0, "tool_failures": 0}
tools = {}
for line in sys.stdin.buffer:
    if not line.strip():
        continue
    record = json.loads(line)
    totals["trajectories"] += 1
    totals["completed"] += bool(record.get("completed"))
    totals["partial"] += bool(record.get("partial"))
    for name, stats in (record.get("tool_stats") or {}).items():
        tool = tools.setdefault(name, {"count": 0, "success": 0, "failure": 0})
        tool["count"] += stats["count"]
        tool["success"] += stats["success"]
        tool["failure"] += stats["failure"]
        totals["tool_calls"] += stats["count"]
        totals["tool_failures"] += stats["failure"]
totals["tool_statistics"] = {name: tools[name] for name in sorted(tools)}
json.dump(totals, sys.stdout)
sys.stdout.write("\n")
