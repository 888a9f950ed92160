#!/usr/bin/env bash
# Decisions per second of 1, 2 and 3 `newscrawl import` processes deciding
# into one PostgreSQL store at once (each its own slice of a synthetic
# corpus, ../shared/bench/scale/gen.py), for docs/SHARED.md.
#
#   eval "$(.ci/services.sh)"; docs/fleet-import-bench.sh [PER_PROCESS] [ROUNDS]
#
# Prints per count: records decided, wall time, decisions/s of the fleet,
# and the load average while it ran.
set -euo pipefail
export PGOPTIONS="-c client_min_messages=warning"
cd "$(dirname "$0")/.."
: "${NEWSCRAWL_TEST_POSTGRES:?run eval \"\$(.ci/services.sh)\" first}"
per=${1:-600}
rounds=${2:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shared=$(cd ../shared && pwd)
go build -o "$work/newscrawl" .
python3 "$shared/bench/scale/gen.py" $((per * 3)) "$work/corpus.jsonl" 7 >/dev/null
python3 - "$work" "$per" <<'PY'
import json, sys
work, per = sys.argv[1], int(sys.argv[2])
docs = [json.loads(l) for l in open(work + "/corpus.jsonl", encoding="utf-8")]
for k in range(3):
    with open(f"{work}/part{k}.jsonl", "w", encoding="utf-8") as f:
        for d in docs[k * per:(k + 1) * per]:
            f.write(json.dumps({"url": f"https://news.example/a/{d['id']}.html", "site": "bench",
                                "title": d["title"], "text": d["text"]}, ensure_ascii=False) + "\n")
PY
printf 'storage: unused.db\nsites:\n  - name: bench\n    start_urls: ["https://news.example/"]\n    allowed_domains: ["news.example"]\n    article_url: "/a/"\n' >"$work/sites.yaml"
for round in $(seq 1 "$rounds"); do
  for n in 1 2 3; do
    schema="fleet_import_$n"
    psql -X -q "$NEWSCRAWL_TEST_POSTGRES" -c "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema"
    db="$NEWSCRAWL_TEST_POSTGRES&search_path=$schema"
    start=$(date +%s.%N)
    pids=()
    for k in $(seq 0 $((n - 1))); do
      "$work/newscrawl" import --site "$work/sites.yaml" --db "$db" --in "$work/part$k.jsonl" --progress 0 >"$work/out$k" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || { cat "$work"/out*; exit 1; }; done
    end=$(date +%s.%N)
    decided=$(psql -X -tA "$NEWSCRAWL_TEST_POSTGRES" -c "SELECT count(*) FROM $schema.pages")
    # Each importer prints "N read in Xs": the decision phase after its
    # start-up (dictionary, index). The fleet's rate is the records decided
    # over the longest decision phase (they start within a second).
    python3 - "$n" "$decided" "$start" "$end" "$round" "$work" <<'PY'
import re, sys
n, d, s, e, rnd, work = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
phases = []
for k in range(n):
    m = re.search(r"(\d+) read in ([0-9.]+)s", open(f"{work}/out{k}").read())
    phases.append(float(m.group(2)))
load = open("/proc/loadavg").read().split()[0]
print(f"round {rnd} importers={n} decided={d} wall={e - s:.1f}s decision phase={max(phases):.1f}s fleet={d / max(phases):.0f}/s load={load}")
PY
    psql -X -q "$NEWSCRAWL_TEST_POSTGRES" -c "DROP SCHEMA $schema CASCADE"
  done
done
