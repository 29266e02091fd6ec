//! Zobrist keys from a fixed seed (splitmix64), computed at compile time.

/// Cells covered (padded indices of the largest board stay below this).
const CELLS: usize = 2048;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn build() -> [[u64; CELLS]; 2] {
    let mut keys = [[0u64; CELLS]; 2];
    let mut state = 0x5045_4E54_4144_2026; // fixed seed: hashes are reproducible across runs
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CELLS {
            let (s, v) = splitmix(state);
            state = s;
            keys[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    keys
}

static KEYS: [[u64; CELLS]; 2] = build();

/// Key XORed in when white is to move.
pub(super) const SIDE: u64 = splitmix(0x0123_4567_89AB_CDEF).1;

/// Key of a stone of colour index `c` on padded cell `p`.
#[inline]
pub(super) fn key(c: usize, p: usize) -> u64 {
    KEYS[c][p]
}
