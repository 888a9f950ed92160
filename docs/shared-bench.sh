#!/usr/bin/env bash
# Crawls the dev reprint web (../shared/bench) with 1, 2 and 4 crawler
# processes sharing one PostgreSQL store, and prints for each: wall time,
# pages/s, pages decided twice, and score.py's coverage, robots violations,
# pairwise F1 and stories lost. Used for the figures in docs/SHARED.md.
#
#   eval "$(.ci/services.sh)"; docs/shared-bench.sh [1 2 4]
#   docs/shared-bench.sh --kills 10    # 3 processes; one is killed (-9) and
#                                      # restarted 10 times during the crawl
#
#   docs/shared-bench.sh --redis [1 2 4]   # the same with redis: set
#                                      # (NEWSCRAWL_TEST_REDIS): Redis frontier,
#                                      # politeness and robots.txt
#
# The bench server runs on its own ports (base 21480, not the default
# 18480 that `newscrawl-lab eval web` uses) and is restarted for every count, so that
# its fail-once route fails once per crawl.
set -euo pipefail
export PGOPTIONS="-c client_min_messages=warning"
cd "$(dirname "$0")/.."
: "${NEWSCRAWL_TEST_POSTGRES:?run eval \"\$(.ci/services.sh)\" first}"
kills=0
redis=()
if [ "${1:-}" = "--redis" ]; then
  : "${NEWSCRAWL_TEST_REDIS:?run eval \"\$(.ci/services.sh)\" first}"
  redis=(--redis "$NEWSCRAWL_TEST_REDIS")
  shift
fi
if [ "${1:-}" = "--kills" ]; then
  kills=$2
  shift 2
  set -- 3
fi
counts=("${@:-1 2 4}")
counts=(${counts[*]})
base_port=21480
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
shared=$(cd ../shared && pwd)

go build -o "$work/newscrawl" .
(cd "$shared/bench/server" && go build -o "$work/benchsrv" .)
sed "s/:1848\([0-9]\)/:2148\1/g; s/1848\([0-9]\)/2148\1/g" configs/bench-dev.yaml >"$work/sites.yaml"

for n in "${counts[@]}"; do
  schema="bench_p$n"
  psql -X -q "$NEWSCRAWL_TEST_POSTGRES" -c "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema"
  db="$NEWSCRAWL_TEST_POSTGRES&search_path=$schema"
  if [ ${#redis[@]} -gt 0 ]; then
    # The corpus's Redis keys (pipeline.RedisNamespace) from an earlier run.
    ns=$(python3 -c 'import hashlib, sys, urllib.parse as u
p = u.urlparse(sys.argv[1]); q = u.parse_qs(p.query)
h = hashlib.sha256((p.netloc.rsplit("@", 1)[-1] + p.path + "?search_path=" + q["search_path"][0]).encode()).hexdigest()[:16]
print("newscrawl:" + h + ":")' "$db")
    redis-cli -u "$NEWSCRAWL_TEST_REDIS" --scan --pattern "$ns*" | xargs -r redis-cli -u "$NEWSCRAWL_TEST_REDIS" del >/dev/null
  fi
  "$work/benchsrv" --root "$shared/bench/dev" --base-port $base_port >"$work/server.log" 2>&1 &
  srv=$!
  sleep 1
  start=$(date +%s.%N)
  pids=()
  for i in $(seq 1 "$n"); do
    "$work/newscrawl" crawl --site "$work/sites.yaml" --db "$db" "${redis[@]}" --progress 0 >"$work/crawl-$n-$i.log" 2>&1 &
    pids+=($!)
  done
  if [ "$kills" -gt 0 ]; then
    # Kill one of the processes (round robin) with SIGKILL every 0.7 s
    # and start a new one in its place; a crawl started after the lease
    # timeout finishes what the killed ones held.
    for k in $(seq 1 "$kills"); do
      sleep 0.7
      i=$(( (k - 1) % n ))
      kill -9 "${pids[$i]}" 2>/dev/null || true
      wait "${pids[$i]}" 2>/dev/null || true
      "$work/newscrawl" crawl --site "$work/sites.yaml" --db "$db" "${redis[@]}" --progress 0 >"$work/crawl-$n-r$k.log" 2>&1 &
      pids[$i]=$!
    done
    for p in "${pids[@]}"; do wait "$p" || { echo "crawl failed:"; cat "$work"/crawl-"$n"-*.log; exit 1; }; done
    echo "killed $kills times; waiting 31 s for the dead processes' leases"
    sleep 31
    "$work/newscrawl" crawl --site "$work/sites.yaml" --db "$db" "${redis[@]}" --progress 0 >"$work/crawl-$n-final.log" 2>&1 ||
      { echo "final crawl failed:"; cat "$work/crawl-$n-final.log"; exit 1; }
    left=$(psql -X -tA "$NEWSCRAWL_TEST_POSTGRES" -c "SELECT count(*) FROM $schema.frontier")
    echo "frontier items left after the final crawl: $left"
    echo "runs by status: $(psql -X -tA -F= -R' ' "$NEWSCRAWL_TEST_POSTGRES" -c "SELECT status, count(*) FROM $schema.runs GROUP BY status ORDER BY status")"
  fi
  for p in "${pids[@]}"; do wait "$p" || { echo "crawl failed:"; cat "$work"/crawl-"$n"-*.log; exit 1; }; done
  end=$(date +%s.%N)
  kill $srv; wait $srv 2>/dev/null || true
  "$work/newscrawl" export --db "$db" --out "$work/export-$n.jsonl" 2>/dev/null
  pages=$(psql -X -tA "$NEWSCRAWL_TEST_POSTGRES" -c "SELECT count(*) FROM $schema.pages")
  twice=$(psql -X -tA "$NEWSCRAWL_TEST_POSTGRES" -c "SELECT count(*) - count(DISTINCT url) FROM $schema.pages")
  score=$(cd "$shared/bench" && python3 score.py web --truth dev --pred "$work/export-$n.jsonl" --base-port $base_port)
  python3 - "$n" "$start" "$end" "$pages" "$twice" "$score" <<'PY'
import json, sys
n, start, end, pages, twice, score = sys.argv[1:]
s = json.loads(score)
wall = float(end) - float(start)
def pick(d, *keys):
    for k in keys:
        if isinstance(d, dict) and k in d:
            d = d[k]
        else:
            return None
    return d
print(f"processes={n} wall={wall:.1f}s pages={pages} pages/s={int(pages)/wall:.0f} decided-twice={twice}")
print("  score:", json.dumps({k: s[k] for k in s if not isinstance(s[k], (list, dict))}, ensure_ascii=False))
for k in s:
    if isinstance(s[k], dict):
        print(f"  {k}:", json.dumps({kk: vv for kk, vv in s[k].items() if not isinstance(vv, (list, dict))}, ensure_ascii=False))
PY
  psql -X -q "$NEWSCRAWL_TEST_POSTGRES" -c "DROP SCHEMA $schema CASCADE"
done
