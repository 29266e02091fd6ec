#!/usr/bin/env bash
# SPRT of the working tree against an earlier build: the way every strength change is proven.
#
#   scripts/sprt.sh OLD [extra match options ...]
#
# OLD is a saved binary (e.g. a copy of target/release/pbrain-pentad made before the change), or a git revision
# (e.g. main, HEAD~1), which is then built in a temporary worktree. The working tree's release build is copied
# aside so rebuilding during the match is safe. Defaults: H0 0 Elo, H1 5 Elo, alpha = beta = 0.05, pentanomial,
# freestyle 15x15, 100 ms per move, the balanced freestyle-15 suite (shuffled, each opening twice with colours
# swapped), at most 20000 games, one game at a time, under `nice`. Override with the environment:
#   TC=ms  GAMES=n  CONCURRENCY=n  RULE=0|1|4|8|9  OPENINGS=file  SIZE=15  SEED=n  ELO0=0  ELO1=5
# (ELO1=20 decides a large gain in a few hundred games; keep 5 for small changes.)
# Extra arguments go to `pbrain-pentad match` (e.g. --draw-after 200, --log, --out DIR).
# The last lines printed are the summary; "Result line:" is the one to put in the commit message.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
old_arg=$1
shift

TC=${TC:-100}
GAMES=${GAMES:-20000}
CONCURRENCY=${CONCURRENCY:-1}
RULE=${RULE:-0}
SIZE=${SIZE:-15}
SEED=${SEED:-$(date +%s)}
ELO0=${ELO0:-0}
ELO1=${ELO1:-5}
case "$RULE" in
    1) default_openings=openings/standard-15.txt ;;
    4) default_openings=openings/renju-15.txt ;;
    *) default_openings=openings/freestyle-15.txt ;;
esac
[ "$SIZE" = 20 ] && default_openings=openings/freestyle-20.txt
OPENINGS=${OPENINGS:-$default_openings}

work=$(mktemp -d "${TMPDIR:-/tmp}/pentad-sprt.XXXXXX")
cleanup() {
    if [ -n "${old_tree:-}" ]; then git worktree remove --force "$old_tree" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Both builds get the same code generation, whether or not the old revision has .cargo/config.toml (which
# sets target-cpu=native); RUSTFLAGS replaces that file's flags.
export RUSTFLAGS="${RUSTFLAGS--C target-cpu=native}"

if [ -f "$old_arg" ]; then
    cp "$old_arg" "$work/pbrain-pentad-old"
elif git rev-parse --verify --quiet "$old_arg^{commit}" >/dev/null; then
    old_tree="$work/old-tree"
    echo "building $old_arg in a temporary worktree ..." >&2
    git worktree add --detach "$old_tree" "$old_arg" >/dev/null
    (cd "$old_tree" && nice -n 10 cargo build --release --quiet)
    cp "$old_tree/target/release/pbrain-pentad" "$work/pbrain-pentad-old"
else
    echo "sprt.sh: $old_arg is neither a file nor a git revision" >&2
    exit 2
fi

echo "building the working tree ..." >&2
nice -n 10 cargo build --release --quiet
cp target/release/pbrain-pentad "$work/pbrain-pentad-new"

nice -n 10 "$work/pbrain-pentad-new" match \
    --rule "$RULE" --size "$SIZE" --tc "$TC" --games "$GAMES" --concurrency "$CONCURRENCY" \
    --openings "$OPENINGS" --shuffle --seed "$SEED" \
    --sprt elo0="$ELO0" elo1="$ELO1" alpha=0.05 beta=0.05 model=pentanomial \
    --out "matches/sprt-$(date +%Y%m%d-%H%M%S)" --quiet \
    "$@" \
    "new=$work/pbrain-pentad-new" "old=$work/pbrain-pentad-old"
