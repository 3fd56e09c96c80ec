# Is a run's level held for the whole run, or a spell of time? For each long run of a
# results folder (DIR/<label>/*.jsonl): each cell's per-round costs cut into blocks of
# 10 rounds, each block's trimmed mean as a share of the cell's mean over all runs; the
# sd of the blocks within a run beside the sd of the runs' means, averaged over cells.
# Usage: python3 bench/run-blocks.py DIR [BLOCK]
import json,glob,statistics as st,collections,sys
def tmean(x):
    x=sorted(x); c=int(0.2*len(x)); x=x[c:len(x)-c]; return sum(x)/len(x)
block=int(sys.argv[2]) if len(sys.argv)>2 else 10
cells=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/*/*.jsonl')):
    v=collections.defaultdict(dict)
    for l in open(f):
        r=json.loads(l)
        if r.get('record')!='launch' or r.get('warmup') or r.get('time_to_main_ns') is None: continue
        v[(r['gc'],r['heap'])][(r['round'],r['pretouch'])]=r['time_to_main_ns']/1e6
    for k,x in v.items():
        rounds=sorted({a for a,_ in x})
        cells[k].append([x[(j,True)]-x[(j,False)] for j in rounds if (j,True) in x and (j,False) in x])
within=[];between=[]
for k,runs in sorted(cells.items()):
    m=st.mean(tmean(r) for r in runs)
    blocks=[[tmean(r[i:i+block])/m-1 for i in range(0,len(r)-block+1,block)] for r in runs]
    w=st.mean(st.pstdev(b) for b in blocks)
    b=st.pstdev([tmean(r)/m-1 for r in runs])
    within.append(w); between.append(b)
    print(k, "blocks of each run:", ' | '.join(' '.join('%+.0f'%(100*x) for x in bl) for bl in blocks))
print("sd of %d-round blocks within a run %.1f%% of the cost; sd of the runs' means %.1f%% (%d runs, mean over %d cells)"%(block,100*st.mean(within),100*st.mean(between),len(next(iter(cells.values()))),len(cells)))
