#!/usr/bin/env bash
# Issue 52 item 4: the strongest CPU rows (cpu-parallel-sort, Boost.Sort's block_indirect_sort and
# sample_sort; a build with Boost.Sort's headers) beside ooc-sort on 2^30 u64 keys: a run on the host
# placement under a 1 GiB GPU limit, then `sort` of the same keys as a cold 8 GiB file with the
# fastest CPU sort, the parallel mode, and the external sort. Writes run and sort JSON into $OUT
# (results/h200/cpu-baselines.json merges them); needs 16 GiB of free disk under /root (DIR).
#   OUT=folder bash scripts/cpu-baselines.sh
set -e
S=build/apps/sortbench/sortbench
$S run -n 2^30 --key u64 --min-val 0 --max-val 2^64 --placement host --gpu-memory-limit 1G --algo ooc-sort,cpu-parallel-sort,cpu-boost-block-indirect-sort,cpu-boost-sample-sort --reps 1 --warmup 0 --budget 0 --json $OUT/cpu-rows.json 2>&1 | tail -6
$S gen -n 2^30 --key u64 --min-val 0 --max-val 2^64 -o ${DIR:-/root}/k.npy > /dev/null
i=0
for args in "--backend cpu --algo cpu-boost-block-indirect-sort" "--backend cpu --algo cpu-parallel-sort" "--gpu-memory-limit 1G --host-memory-limit 2G"; do
  i=$((i+1)); sync; echo 3 > /proc/sys/vm/drop_caches
  t0=$(python3 -c 'import time;print(time.time())')
  $S sort ${DIR:-/root}/k.npy -o ${DIR:-/root}/o.npy --quiet $args --json $OUT/sort-$i.json; sync
  t1=$(python3 -c 'import time;print(time.time())')
  python3 -c "print('sort $args: wall %.1f s' % ($t1 - $t0))"; rm -f ${DIR:-/root}/o.npy
done
