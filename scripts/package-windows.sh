#!/usr/bin/env bash
# Cross-compiles the Gomocup submission: a statically linked Windows x64 executable
# pbrain-pentad.exe, zipped as dist/pentad.zip. It is built for baseline x86-64, so it runs on every x86-64
# CPU; its move update also carries an x86-64-v3 (AVX2) copy that it picks at start when the CPU has the
# features (src/board/cpu.rs; the ABOUT line says cpu="x86-64-v3" or cpu="baseline").
#
# Needs the Rust target x86_64-pc-windows-gnu and the MinGW-w64 linker. On Debian/Ubuntu:
#   rustup target add x86_64-pc-windows-gnu
#   sudo apt-get install gcc-mingw-w64-x86-64 zip
# Usage: scripts/package-windows.sh [--v3]   (--v3: all of it for x86-64-v3, ~4% faster in search, but the exe
# then dies with an illegal instruction on a CPU without AVX2: not for a submission)
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=x86_64-pc-windows-gnu
LINKER=x86_64-w64-mingw32-gcc
CPU=x86-64
if [[ "${1:-}" == "--v3" ]]; then CPU=x86-64-v3; fi

fail() { echo "package-windows: $*" >&2; exit 1; }

# 1. The Rust standard library for the Windows target.
if ! rustc --print target-libdir --target "$TARGET" >/dev/null 2>&1 ||
   [[ ! -d "$(rustc --print target-libdir --target "$TARGET")" ]] ||
   [[ -z "$(ls "$(rustc --print target-libdir --target "$TARGET")" 2>/dev/null)" ]]; then
    fail "the Rust target $TARGET is not installed.
  Install it with:   rustup target add $TARGET
  (Without rustup, or offline: build on a Windows machine with the MSVC toolchain instead:
   set RUSTFLAGS=-C target-cpu=$CPU -C target-feature=+crt-static
   cargo build --release   -> target\\release\\pbrain-pentad.exe)"
fi

# 2. The MinGW-w64 linker.
command -v "$LINKER" >/dev/null 2>&1 ||
    fail "the linker $LINKER is not installed.
  Debian/Ubuntu:  sudo apt-get install gcc-mingw-w64-x86-64
  Fedora:         sudo dnf install mingw64-gcc
  macOS:          brew install mingw-w64"

# 3. Build. crt-static: no MinGW runtime DLLs next to the exe (the tournament machine has none).
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$LINKER"
export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=$CPU -C target-feature=+crt-static"
cargo build --release --locked --target "$TARGET" --bin pbrain-pentad

EXE="target/$TARGET/release/pbrain-pentad.exe"
[[ -f "$EXE" ]] || fail "build finished but $EXE is missing"

# 4. Check that it only needs DLLs that every Windows has.
if command -v x86_64-w64-mingw32-objdump >/dev/null 2>&1; then
    dlls=$(x86_64-w64-mingw32-objdump -p "$EXE" | awk '/DLL Name:/ {print $3}' | sort -u)
    echo "DLLs imported: $(echo $dlls)"
    for d in $dlls; do
        case "${d,,}" in
            kernel32.dll|ntdll.dll|msvcrt.dll|advapi32.dll|bcrypt.dll|bcryptprimitives.dll|ws2_32.dll|userenv.dll|api-ms-win-*) ;;
            *) fail "$EXE needs $d, which a stock Windows may not have" ;;
        esac
    done
fi

# 5. Zip: Gomocup takes a ZIP (at most 8 MB) with pbrain-<name>.exe inside.
mkdir -p dist
ZIP=dist/pentad.zip
rm -f "$ZIP"
if command -v zip >/dev/null 2>&1; then
    zip -j -9 -q "$ZIP" "$EXE"
else
    python3 - "$ZIP" "$EXE" <<'PY'
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.write(sys.argv[2], os.path.basename(sys.argv[2]))
PY
fi
size=$(stat -c %s "$ZIP")
(( size <= 8 * 1024 * 1024 )) || fail "$ZIP is $size bytes, over Gomocup's 8 MB"
echo "built $EXE ($(stat -c %s "$EXE") bytes, $CPU) -> $ZIP ($size bytes)"
