#!/bin/sh
# The long profile of the hostile-input fuzz suite (docs/reliability.md): 720 inputs per source, 8 sources,
# 5,760 inputs in all. Outcome counts (error / warning / ok per source and mutation) are appended as one JSON
# line to $MRSIM_FUZZ_REPORT (default fuzz-long.jsonl). Any traceback, hang or invariant violation fails it.
# Usage: scripts/fuzz_long.sh [EXAMPLES_PER_SOURCE]
set -eu
cd "$(dirname "$0")/.."
export MRSIM_FUZZ_EXAMPLES="${1:-720}"
export MRSIM_FUZZ_REPORT="${MRSIM_FUZZ_REPORT:-fuzz-long.jsonl}"
${PYTHON:-python3} -m pytest -q -p no:cacheprovider tests/hostile/test_fuzz.py
${PYTHON:-python3} - "$MRSIM_FUZZ_REPORT" <<'PY'
import json, sys
from collections import Counter
last = [json.loads(line) for line in open(sys.argv[1])][-1]
total, by_outcome = 0, Counter()
for key, n in last["outcomes"].items():
    total += n
    by_outcome[key.rsplit(":", 1)[1]] += n
print(f"{total} inputs ({last['examples_per_source']} per source): " +
      ", ".join(f"{k} {v}" for k, v in sorted(by_outcome.items())) + "; 0 tracebacks, 0 hangs")
PY
