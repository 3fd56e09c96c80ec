# Per run and cell of a `bench/in-turn.sh` campaign (DIR/<repeat>/<label>/*.jsonl): the
# trimmed mean cost, the pretouch launches' mean system and user time and the steal;
# how a run's level moves with them. Usage: python3 bench/run-shifts.py DIR
import json,glob,statistics as st,collections,sys,re
def tmean(x):
    x=sorted(x); c=int(0.2*len(x)); x=x[c:len(x)-c]; return sum(x)/len(x)
rows=[]
for f in sorted(glob.glob(sys.argv[1]+'/*/*/*.jsonl'), key=lambda p:(int(p.split('/')[-3]),p.split('/')[-1])):
    rep=int(f.split('/')[-3]); side=f.split('/')[-2]
    d=collections.defaultdict(dict)
    for l in open(f):
        r=json.loads(l)
        if r.get('record')!='launch' or r.get('warmup') or r.get('time_to_main_ns') is None: continue
        d[(r['gc'],r['heap'])][(r['round'],r['pretouch'])]=r
    for cell,v in d.items():
        rounds=sorted({k[0] for k in v})
        costs=[(v[(i,True)]['time_to_main_ns']-v[(i,False)]['time_to_main_ns'])/1e6 for i in rounds if (i,True) in v and (i,False) in v]
        sys_on=st.mean(v[(i,True)]['rusage']['stime_ns']/1e6 for i in rounds if (i,True) in v)
        usr_on=st.mean(v[(i,True)]['rusage']['utime_ns']/1e6 for i in rounds if (i,True) in v)
        steal=sum(v[k]['machine']['cpu']['steal_ns'] for k in v)/1e6
        rows.append((rep,side,f.split('/')[-1],cell,tmean(costs),sys_on,usr_on,steal))
# relative deviation of each run from its cell-side mean over all runs
by=collections.defaultdict(list)
for r in rows: by[(r[1],r[3])].append(r)
xs=[];ys=[];zs=[]
for k,v in by.items():
    m=st.mean(r[4] for r in v); ms=st.mean(r[5] for r in v); mu=st.mean(r[6] for r in v)
    for r in v:
        xs.append(r[4]/m-1); ys.append(r[5]/ms-1); zs.append(r[6]/mu-1)
def corr(a,b):
    ma,mb=st.mean(a),st.mean(b)
    return sum((x-ma)*(y-mb) for x,y in zip(a,b))/ (sum((x-ma)**2 for x in a)*sum((y-mb)**2 for y in b))**0.5
print("runs x cells:",len(xs),"sd of run cost dev %.1f%%"%(100*st.pstdev(xs)),"corr(cost, sys time with pretouch) %.2f"%corr(xs,ys),"corr(cost, user time) %.2f"%corr(xs,zs))
# run-level: average over cells of each run
runs=collections.defaultdict(list)
for (r,x,y) in zip(rows,xs,ys): runs[(r[0],r[1],r[2])].append((x,y,r[7]))
print("run  side  mean cost dev  mean sys dev  steal ms")
for k in sorted(runs):
    v=runs[k]; print(k[0],k[1],"%+6.1f%% %+6.1f%% %6.0f"%(100*st.mean(a for a,_,_ in v),100*st.mean(b for _,b,_ in v),sum(c for *_,c in v)))
# Do neighbouring runs (in time, whichever label) sit at the same level? The lag-1
# autocorrelation of the runs' mean deviations in the order they ran.
seq=[st.mean(a for a,_,_ in runs[k]) for k in sorted(runs, key=lambda k: k[2])]
m=st.mean(seq)
lag=sum((a-m)*(b-m) for a,b in zip(seq,seq[1:]))/sum((a-m)**2 for a in seq)
print("runs in time order: %d, lag-1 autocorrelation of their level %.2f" % (len(seq), lag))
