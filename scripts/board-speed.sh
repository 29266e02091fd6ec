#!/usr/bin/env bash
# Board make+undo speed of two builds, side by side (this machine's speed drifts too much for anything else).
#
#   scripts/board-speed.sh OLD NEW [pairs] [rule]     back-to-back runs of `bench board RULE 100`
#   scripts/board-speed.sh --instructions BIN [rule]  valgrind instruction count per make+undo pair
#
# OLD and NEW are binaries (e.g. a copy of target/release/pbrain-pentad made before a change). Each of the
# `pairs` rounds (default 40) runs both once, alternating which goes first, and the summary is the median of
# the NEW/OLD ratios of pairs per wall second, with its quartiles: a ratio between neighbouring runs stays
# meaningful when the machine's speed drifts. ROUNDS=n changes the bench's rounds per run (default 100).
# --instructions needs valgrind: `bench board RULE 10` minus `bench board RULE 0`, divided by the pairs.
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

if [ "$1" = "--instructions" ]; then
    bin=$2 rule=${3:-0}
    count() {
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bin" bench board "$rule" "$1" 2>&1 |
            awk '/I *refs/ {gsub(",", "", $4); i = $4} /make\+undo pairs/ {p = $5} END {print i, p}'
    }
    read -r i0 _ < <(count 0)
    read -r i1 p1 < <(count 10)
    echo "$bin rule $rule: $(( (i1 - i0) / p1 )) instructions per make+undo pair"
    exit 0
fi

old=$1 new=$2 pairs=${3:-40} rule=${4:-0}
rate() { "$1" bench board "$rule" "${ROUNDS:-100}" | tail -1 | sed -E 's/.* s wall = ([0-9]+) pairs\/s.*/\1/'; }
for i in $(seq "$pairs"); do
    if (( i % 2 )); then a=$(rate "$old"); b=$(rate "$new"); else b=$(rate "$new"); a=$(rate "$old"); fi
    echo "$a $b"
done | awk '
    { a[NR] = $1; b[NR] = $2; r[NR] = $2 / $1 }
    function median(x, n,   i, j, t, y) {
        for (i = 1; i <= n; i++) y[i] = x[i]
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (y[j] < y[i]) { t = y[i]; y[i] = y[j]; y[j] = t }
        if (n % 2) return y[(n + 1) / 2]
        return (y[n / 2] + y[n / 2 + 1]) / 2
    }
    END {
        n = NR
        for (i = 1; i <= n; i++) s[i] = r[i]
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
        printf "old median %.2f M, new median %.2f M pairs/s; new/old median %.3f (quartiles %.3f..%.3f), %d pairs\n",
            median(a, n) / 1e6, median(b, n) / 1e6, median(r, n), s[int(n / 4) + 1], s[int(3 * n / 4)], n
    }'
