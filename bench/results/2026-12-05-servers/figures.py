"""The report figures of three runs (labels PREFIX-1..3 under /tmp/srv-bench/results), each
with their range. Usage: python3 figures.py example (or tomcat)."""
import json, subprocess, sys
prefix = sys.argv[1]
labels = [f"{prefix}-{i}" for i in (1, 2, 3)]
rows = {}
for lab in labels:
    out = subprocess.run(["target/debug/pretouch", "report", "--format", "json", f"/tmp/srv-bench/results/{lab}"], capture_output=True, text=True).stdout
    j = json.loads(out)
    for c in j["cells"]:
        r = c["ready"]
        f = {
          "main cost ms": c["median_on_ms"] - c["median_off_ms"] if c.get("median_on_ms") and c.get("median_off_ms") else None,
          "ready without ms": r["ready_off_ms"], "ready with ms": r["ready_on_ms"], "ready cost ms": r["ready_cost_ms"],
          "first request without ms": r["first_request_off_ms"], "first request with ms": r["first_request_on_ms"],
          "p50 without ms": r["requests_p50_off_ms"], "p50 with ms": r["requests_p50_on_ms"],
          "p99 without ms": r["requests_p99_off_ms"], "p99 with ms": r["requests_p99_on_ms"],
          "agree from": r["requests_agree_from"] if r["requests_agree_from"] is not None else ("never" if r["requests_never_agree"] else "-"),
          "work without ms": r["workload_off_ms"], "work with ms": r["workload_on_ms"], "work change ms": r["workload_change_ms"], "net ms": r["net_ms"],
          "faults +": c["pretouch_faults"], "expected": c["expected_faults"], "faults/s": c["fault_rate_per_s"],
        }
        for k, v in f.items():
            rows.setdefault(c["heap"], {}).setdefault(k, []).append(v)
def fmt(v):
    if isinstance(v, float):
        if abs(v) >= 10000: return f"{v/1000:.1f}k"
        return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"
    return str(v)
for heap, fs in rows.items():
    print(f"\n{prefix} G1 {heap} (runs 1, 2, 3 -> range)")
    for k, vs in fs.items():
        nums = [v for v in vs if isinstance(v, (int, float)) and not isinstance(v, bool)]
        rng = f"{fmt(min(nums))} to {fmt(max(nums))}" if len(nums) == len(vs) else "see runs"
        print(f"  {k:26} {', '.join(fmt(v) for v in vs):40} {rng}")
