"""Faults with pretouch less without, medians of a run: up to main() (the agent's stamp)
and over the whole process (rusage). Usage: python3 whole.py example, for the labels
example-1..3 under /tmp/srv-bench/results (the folders the runs of 2026-12-05-servers.md wrote)."""
import json, glob, statistics, sys
prefix=sys.argv[1]
for i in (1,2,3):
    for f in glob.glob(f"/tmp/srv-bench/results/{prefix}-{i}/*.jsonl"):
        ls=[json.loads(l) for l in open(f) if '"record":"launch"' in l.replace(' ','')]
        ls=[l for l in ls if not l.get("warmup") and not l.get("failure")]
        for heap in sorted({l["heap"] for l in ls}):
            def med(p, key):
                return statistics.median([key(l) for l in ls if l["heap"]==heap and l["pretouch"]==p])
            whole=med(True, lambda l:l["rusage"]["minflt"])-med(False, lambda l:l["rusage"]["minflt"])
            main=med(True, lambda l:l["stamps"]["main"]["minflt"])-med(False, lambda l:l["stamps"]["main"]["minflt"])
            print(f"{prefix}-{i} {heap}: up to main() {main/1000:.1f}k, whole life {whole/1000:.1f}k")
