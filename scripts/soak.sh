#!/usr/bin/env bash
# Soak test (issue 6): Pentad self-play through `pbrain-pentad match` over every rule (0 1 4 8 9) and both 15x15
# and 20x20, round after round (4 games per rule and size per round, shuffled openings), until GAMES games are
# played or the DEADLINE (unix time) passes. A sampler reads every brain process's peak resident memory (VmHWM)
# and unique set size (USS, private pages: what GomocupJudge measures) from /proc while the games run.
# At the end: games, endings, faults (crashes, timeouts, malformed answers), illegal moves, the slowest move
# relative to the turn limit (from the .psq records), peak memory per process.
#
#   scripts/soak.sh                                   # 2000 games, 100 ms/move, 10 s/game
#   GAMES=400 TC=100 DEADLINE=$(date -d 19:40 +%s) CONCURRENCY=2 scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-2000}
TC=${TC:-100}
MATCH_MS=${MATCH_MS:-10000}
CONCURRENCY=${CONCURRENCY:-2}
DEADLINE=${DEADLINE:-0}
OUT=${OUT:-matches/soak-$(date +%s)}
mkdir -p "$OUT"
[ -x target/release/pbrain-pentad ] || cargo build --release
# A copy with its own path, so the sampler finds exactly this soak's brains.
BRAIN="$(cd "$OUT" && pwd)/pbrain-soak"
cp target/release/pbrain-pentad "$BRAIN"

sample() {
    local peak_hwm=0 peak_uss=0 n=0
    while :; do
        for d in /proc/[0-9]*; do
            [ "$(readlink "$d/exe" 2>/dev/null)" = "$BRAIN" ] || continue
            local hwm uss
            hwm=$(awk '/^VmHWM:/ {print $2}' "$d/status" 2>/dev/null || echo 0)
            uss=$(awk '/^Private_(Clean|Dirty):/ {s += $2} END {print s + 0}' "$d/smaps_rollup" 2>/dev/null || echo 0)
            [ "${hwm:-0}" -gt "$peak_hwm" ] && peak_hwm=$hwm
            [ "${uss:-0}" -gt "$peak_uss" ] && peak_uss=$uss
        done
        n=$((n + 1))
        echo "$peak_hwm $peak_uss $n" > "$OUT/memory.txt"
        sleep 0.2
    done
}
sample &
SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null || true' EXIT

opening() { # rule size -> suite
    if [ "$2" = 20 ]; then echo openings/freestyle-20.txt; return; fi
    case $1 in
        1) echo openings/standard-15.txt ;;
        4) echo openings/renju-15.txt ;;
        *) echo openings/freestyle-15.txt ;;
    esac
}

played=0
round=0
while [ "$played" -lt "$GAMES" ]; do
    round=$((round + 1))
    for size in 15 20; do
        for rule in 0 1 4 8 9; do
            if [ "$DEADLINE" -gt 0 ] && [ "$(date +%s)" -ge "$DEADLINE" ]; then break 3; fi
            [ "$played" -lt "$GAMES" ] || break 3
            extra=()
            [ "$rule" = 4 ] && extra=(--draw-after 200)
            dir="$OUT/r$round-rule$rule-$size"
            nice -n 10 "$BRAIN" match --rule "$rule" --size "$size" --tc "$TC" --match-time "$MATCH_MS" \
                --games 4 --openings "$(opening "$rule" "$size")" --shuffle --seed $((round * 100 + rule * 3 + size)) \
                --concurrency "$CONCURRENCY" --quiet --out "$dir" "${extra[@]}" "$BRAIN" "$BRAIN" > "$dir.log" 2>&1 \
                || echo "match failed: $dir (see $dir.log)"
            played=$((played + 4))
        done
    done
    echo "soak: round $round done, $played games, $(date +%T)"
done
kill $SAMPLER 2>/dev/null || true
wait $SAMPLER 2>/dev/null || true

# Summary over all rounds.
cat "$OUT"/r*/summary.json | awk -v tc="$TC" '
    { n = split($0, a, /"games":/); g += a[2] + 0 }
    /"faults":\{"[^}]*"[a-z]/ { faulty++ }
    { line = $0; sub(/.*"endings":\{/, "", line); sub(/\}.*/, "", line); m = split(line, e, ",");
      for (i = 1; i <= m; i++) { split(e[i], kv, ":"); gsub(/"/, "", kv[1]); if (kv[1] != "") end[kv[1]] += kv[2] } }
    END { printf "games %d\nendings:", g; for (k in end) printf " %s %d", k, end[k]; printf "\nmatches with faults: %d\n", faulty + 0 }'
grep -h '"faults"' "$OUT"/r*/summary.json | sed 's/.*"faults"://' | sort | uniq -c | sed 's/^/faults: /'
awk -F, -v tc="$TC" 'NF == 3 && $3 + 0 > max { max = $3 + 0; where = FILENAME } NF == 3 { moves++ }
    END { printf "moves %d, slowest move %d ms = %.2f x the %d ms limit (%s)\n", moves, max, max / tc, tc, where }' "$OUT"/r*/game-*.psq
read -r hwm uss samples < "$OUT/memory.txt"
echo "peak memory of one brain process: VmHWM $((hwm / 1024)) MB, USS $((uss / 1024)) MB ($samples samples)"
echo "records: $OUT"
