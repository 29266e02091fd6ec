#!/usr/bin/env bash
# Windows check on Linux (not part of CI): builds the Gomocup package with scripts/package-windows.sh and runs
# its pbrain-pentad.exe under wine through a protocol transcript with CRLF line ends, as Piskvork sends them
# (START, INFO, BEGIN, TURN, BOARD, ABOUT, END), once on the CPU's own path and once with the baseline path
# forced (PENTAD_CPU=baseline, as on a CPU without AVX2). Every answer and the exit status are checked.
#
# Installs what it needs from the distribution's packages and rustup (wine64, the MinGW-w64 compiler, zip, the
# Rust target x86_64-pc-windows-gnu) when missing; run as root or with sudo available.
#
# Wine before 8.13 (Debian 12 has 8.0) lacks ProcessPrng in bcryptprimitives.dll, which every Rust program
# since 1.78 imports (Windows 10 and 11 have it). For such a wine the script builds a test-only stand-in DLL
# with MinGW next to the exe in a scratch folder; it is never part of the package.
#
# Usage: scripts/windows-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "windows-check: $*"; }
fail() { echo "windows-check: FAIL: $*" >&2; exit 1; }
as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

# 1. Tools.
need=()
command -v wine >/dev/null 2>&1 || need+=(wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need+=(gcc-mingw-w64-x86-64)
command -v zip >/dev/null 2>&1 || need+=(zip)
if ((${#need[@]})); then
    say "installing ${need[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu; then
    say "adding the Rust target x86_64-pc-windows-gnu"
    rustup target add x86_64-pc-windows-gnu
fi
WINE=$(command -v wine || command -v wine64)
say "$("$WINE" --version)"

# 2. The package.
scripts/package-windows.sh
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pentad-wincheck.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
unzip -q dist/pentad.zip -d "$scratch/app"
EXE="$scratch/app/pbrain-pentad.exe"
[[ -f "$EXE" ]] || fail "dist/pentad.zip has no pbrain-pentad.exe"

# 3. A wine of its own, quiet, and the ProcessPrng stand-in if this wine lacks it.
export WINEPREFIX="$scratch/prefix" WINEDEBUG=-all
overrides="mscoree,mshtml="
wine_prim=$(find /usr/lib /usr/lib64 /opt -path '*x86_64-windows*' -name bcryptprimitives.dll 2>/dev/null | head -n 1 || true)
if [[ -z "$wine_prim" ]] || ! grep -q ProcessPrng "$wine_prim"; then
    say "this wine's bcryptprimitives.dll has no ProcessPrng: building a test-only stand-in"
    cat >"$scratch/prng.c" <<'C'
#include <windows.h>
/* advapi32's RtlGenRandom. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
/* ProcessPrng as Windows 10+ exports it from bcryptprimitives.dll: fill the buffer, always TRUE. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        length -= n;
    }
    return TRUE;
}
C
    x86_64-w64-mingw32-gcc -shared -O2 -o "$scratch/app/bcryptprimitives.dll" "$scratch/prng.c" -ladvapi32
    overrides="$overrides;bcryptprimitives=n,b"
fi
export WINEDLLOVERRIDES="$overrides"
"$WINE" wineboot -i >/dev/null 2>&1 || true

# 4. The transcript, CRLF, written at once (the brain must answer in order); every answer checked.
transcript() {
    printf '%s\r\n' "START 15" "INFO timeout_turn 1000" "INFO timeout_match 100000" "INFO time_left 100000" \
        "INFO max_memory 367001600" "INFO game_type 1" "INFO rule 0" "INFO show_detail 0" "BEGIN"
    sleep 3
    printf '%s\r\n' "INFO time_left 99000" "TURN 0,0"
    sleep 3
    printf '%s\r\n' "BOARD" "7,7,1" "8,8,2" "6,8,1" "1,1,2" "DONE"
    sleep 3
    printf '%s\r\n' "ABOUT" "END"
    sleep 2
}
run_case() {
    local label=$1 want_cpu=$2
    shift 2
    local out="$scratch/out-$label.txt" status=0
    (cd "$scratch/app" && transcript | env "$@" timeout 60 "$WINE" pbrain-pentad.exe >"$out" 2>"$scratch/err-$label.txt") ||
        status=$?
    tr -d '\r' <"$out" | grep -v '^MESSAGE ' >"$out.clean" || true
    say "$label: exit status $status, answers:"
    sed 's/^/    /' "$out.clean"
    [[ $status == 0 ]] || fail "$label: exit status $status (stderr: $(head -c 500 "$scratch/err-$label.txt"))"
    mapfile -t a <"$out.clean"
    ((${#a[@]} == 5)) || fail "$label: expected 5 answers, got ${#a[@]}"
    [[ ${a[0]} == OK ]] || fail "$label: START answered '${a[0]}'"
    local i
    for i in 1 2 3; do
        [[ ${a[$i]} =~ ^[0-9]+,[0-9]+$ ]] || fail "$label: answer $i is not a move: '${a[$i]}'"
        local x=${a[$i]%,*} y=${a[$i]#*,}
        ((x < 15 && y < 15)) || fail "$label: move ${a[$i]} is off the board"
    done
    [[ ${a[1]} == 7,7 ]] || fail "$label: the opening move on an empty 15x15 board should be 7,7, got ${a[1]}"
    [[ ${a[2]} != 0,0 && ${a[2]} != 7,7 ]] || fail "$label: move ${a[2]} is on an occupied point"
    case ${a[3]} in 7,7 | 8,8 | 6,8 | 1,1) fail "$label: move ${a[3]} is on an occupied point" ;; esac
    [[ ${a[4]} == 'name="Pentad", version="'*'", cpu="'"$want_cpu"'"' || ( $want_cpu == any && ${a[4]} == 'name="Pentad"'* ) ]] ||
        fail "$label: ABOUT answered '${a[4]}'"
    say "$label: ok (${a[4]##*, })"
}
run_case cpu-own any PENTAD_CPU=
run_case cpu-baseline baseline PENTAD_CPU=baseline
say "passed: the package plays under $("$WINE" --version) on both paths"
