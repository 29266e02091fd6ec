//! Transposition table: lock-free buckets of `AtomicU64` words, shared safely between search threads.
//!
//! Each entry is two words: `key ^ data` and `data` (the "xor trick"): a torn write from another thread makes the
//! verification fail instead of returning a mixed entry, so no locks and no `unsafe` races are needed.
//! Four entries make a 64-byte bucket. Replacement prefers deep entries of the current search and ages out
//! entries of earlier searches. The table is allocated lazily, zeroed by the allocator (calloc-like), so a large
//! table costs no touched memory until entries are written.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::board::Pos;

/// Entries per bucket (one cache line of two-word entries).
const BUCKET_ENTRIES: usize = 4;
/// Words per bucket.
const BUCKET_WORDS: usize = BUCKET_ENTRIES * 2;
/// Bytes per bucket.
const BUCKET_BYTES: usize = BUCKET_WORDS * 8;
/// Generations wrap at this value (6 bits in the entry).
const GENERATION_MASK: u8 = 63;

/// What kind of bound a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at most the stored score (fail low).
    Upper = 1,
    /// The true score is at least the stored score (fail high).
    Lower = 2,
    /// The stored score is exact.
    Exact = 3,
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// Best or refuting move, if any.
    pub mv: Option<Pos>,
    /// Stored score (mate scores relative to the stored node, see `score_to_tt`).
    pub score: i32,
    /// Static evaluation of the position.
    pub eval: i32,
    /// Remaining depth the score was searched to.
    pub depth: i32,
    /// Bound type of `score`.
    pub bound: Bound,
}

/// Packs an entry into one data word.
fn pack(mv: Option<Pos>, score: i32, eval: i32, depth: i32, bound: Bound, generation: u8) -> u64 {
    let m = mv.map_or(0u64, |p| u64::from(p) + 1) & 0xFFFF;
    let s = u64::from(score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16);
    let e = u64::from(eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16);
    let d = depth.clamp(0, 255) as u64;
    m | s << 16
        | e << 32
        | d << 48
        | (bound as u64) << 56
        | u64::from(generation & GENERATION_MASK) << 58
}

/// Bound bits of a data word (0 = empty slot).
fn bound_bits(data: u64) -> u64 {
    (data >> 56) & 3
}

/// Generation of a data word.
fn generation_of(data: u64) -> u8 {
    ((data >> 58) & u64::from(GENERATION_MASK)) as u8
}

/// Depth of a data word.
fn depth_of(data: u64) -> i32 {
    ((data >> 48) & 0xFF) as i32
}

/// Move of a data word.
fn move_of(data: u64) -> Option<Pos> {
    let m = (data & 0xFFFF) as u16;
    if m == 0 {
        None
    } else {
        Some(m - 1)
    }
}

/// Decodes a non-empty data word.
fn unpack(data: u64) -> TtEntry {
    let bound = match bound_bits(data) {
        1 => Bound::Upper,
        2 => Bound::Lower,
        _ => Bound::Exact,
    };
    TtEntry {
        mv: move_of(data),
        score: i32::from((data >> 16) as u16 as i16),
        eval: i32::from((data >> 32) as u16 as i16),
        depth: depth_of(data),
        bound,
    }
}

/// Allocates `words` zeroed atomic words without touching the pages (the allocator hands out zero pages).
fn zeroed_words(words: usize) -> Box<[AtomicU64]> {
    let raw = Box::<[AtomicU64]>::new_zeroed_slice(words);
    // Safety: `AtomicU64` has the same in-memory representation as `u64`, and the all-zero bit pattern is a valid
    // `AtomicU64` (value 0). Allocating zeroed memory this way (instead of writing zeros) is what keeps a large
    // table from touching memory before it is used (issue 3: a 350 MB limit must cost nothing up front).
    unsafe { raw.assume_init() }
}

/// The shared transposition table.
pub struct Tt {
    /// Bucket words; `None` until the first search (lazy allocation).
    words: Option<Box<[AtomicU64]>>,
    /// Requested size in bytes.
    bytes: usize,
    /// Current search generation, for aging.
    generation: u8,
}

impl Tt {
    /// A table of `bytes` bytes, not yet allocated.
    pub fn new(bytes: usize) -> Tt {
        Tt {
            words: None,
            bytes,
            generation: 0,
        }
    }

    /// Changes the size; the memory is released now and allocated again on the next `ensure_allocated`.
    pub fn resize(&mut self, bytes: usize) {
        if bytes != self.bytes {
            self.bytes = bytes;
            self.words = None;
        }
    }

    /// Requested size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets everything: drops the memory (a fresh zeroed allocation later is cheaper than writing zeros and
    /// keeps untouched pages untouched).
    pub fn clear(&mut self) {
        self.words = None;
        self.generation = 0;
    }

    /// Allocates the table if it is not allocated yet.
    pub fn ensure_allocated(&mut self) {
        if self.words.is_none() {
            let buckets = (self.bytes / BUCKET_BYTES).max(1);
            self.words = Some(zeroed_words(buckets * BUCKET_WORDS));
        }
    }

    /// Starts a new search: entries of older searches become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & GENERATION_MASK;
    }

    /// The bucket's first word index for `key`.
    fn bucket(&self, words: &[AtomicU64], key: u64) -> usize {
        let buckets = (words.len() / BUCKET_WORDS) as u128;
        ((u128::from(key) * buckets) >> 64) as usize * BUCKET_WORDS
    }

    /// Looks `key` up.
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let words = self.words.as_deref()?;
        let b = self.bucket(words, key);
        for i in 0..BUCKET_ENTRIES {
            let k = words[b + 2 * i].load(Ordering::Relaxed);
            let d = words[b + 2 * i + 1].load(Ordering::Relaxed);
            if bound_bits(d) != 0 && k ^ d == key {
                return Some(unpack(d));
            }
        }
        None
    }

    /// Stores a result for `key`.
    pub fn store(
        &self,
        key: u64,
        mv: Option<Pos>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let Some(words) = self.words.as_deref() else {
            return;
        };
        let b = self.bucket(words, key);
        let gen = self.generation;
        // 1. Same position already stored: overwrite unless it holds a deeper result of this search.
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for i in 0..BUCKET_ENTRIES {
            let k = words[b + 2 * i].load(Ordering::Relaxed);
            let d = words[b + 2 * i + 1].load(Ordering::Relaxed);
            if bound_bits(d) == 0 {
                // 2. An empty slot is the cheapest victim.
                if victim_worth > i32::MIN {
                    victim = i;
                    victim_worth = i32::MIN;
                }
                continue;
            }
            if k ^ d == key {
                let old_depth = depth_of(d);
                if bound != Bound::Exact && generation_of(d) == gen && old_depth > depth + 2 {
                    return;
                }
                let mv = mv.or_else(|| move_of(d));
                let data = pack(mv, score, eval, depth, bound, gen);
                words[b + 2 * i].store(key ^ data, Ordering::Relaxed);
                words[b + 2 * i + 1].store(data, Ordering::Relaxed);
                return;
            }
            // 3. Otherwise replace the shallowest entry, counting each generation of age as 8 plies of depth.
            let age = i32::from(gen.wrapping_sub(generation_of(d)) & GENERATION_MASK);
            let worth = depth_of(d) - 8 * age;
            if worth < victim_worth {
                victim = i;
                victim_worth = worth;
            }
        }
        let data = pack(mv, score, eval, depth, bound, gen);
        words[b + 2 * victim].store(key ^ data, Ordering::Relaxed);
        words[b + 2 * victim + 1].store(data, Ordering::Relaxed);
    }

    /// Permille of sampled slots holding an entry of the current search (for `MESSAGE` lines).
    pub fn hashfull(&self) -> u32 {
        let Some(words) = self.words.as_deref() else {
            return 0;
        };
        let slots = (words.len() / 2).min(1000);
        let used = (0..slots)
            .filter(|&i| {
                let d = words[2 * i + 1].load(Ordering::Relaxed);
                bound_bits(d) != 0 && generation_of(d) == self.generation
            })
            .count();
        (used * 1000 / slots.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let mut tt = Tt::new(1 << 16);
        assert_eq!(tt.probe(42), None);
        tt.ensure_allocated();
        tt.store(42, Some(17), -29_990, 123, 7, Bound::Lower);
        let e = tt.probe(42).expect("stored");
        assert_eq!(
            e,
            TtEntry {
                mv: Some(17),
                score: -29_990,
                eval: 123,
                depth: 7,
                bound: Bound::Lower
            }
        );
        assert_eq!(tt.probe(43), None);
    }

    #[test]
    fn keeps_old_move_when_new_result_has_none() {
        let mut tt = Tt::new(1 << 16);
        tt.ensure_allocated();
        tt.store(9, Some(5), 10, 0, 3, Bound::Exact);
        tt.store(9, None, 20, 0, 4, Bound::Upper);
        let e = tt.probe(9).expect("stored");
        assert_eq!(
            (e.mv, e.score, e.depth, e.bound),
            (Some(5), 20, 4, Bound::Upper)
        );
    }

    #[test]
    fn deep_entries_survive_shallow_ones() {
        // A one-bucket table: five keys compete for four slots.
        let mut tt = Tt::new(BUCKET_BYTES);
        tt.ensure_allocated();
        tt.store(1, None, 0, 0, 20, Bound::Exact);
        for k in 2..=5 {
            tt.store(k, None, 0, 0, 1, Bound::Exact);
        }
        assert!(tt.probe(1).is_some(), "deepest entry replaced");
        // After aging, the old deep entry is the victim.
        for _ in 0..4 {
            tt.new_search();
        }
        for k in 6..=10 {
            tt.store(k, None, 0, 0, 1, Bound::Exact);
        }
        assert!(tt.probe(1).is_none(), "stale entry kept");
    }

    #[test]
    fn clear_forgets() {
        let mut tt = Tt::new(1 << 16);
        tt.ensure_allocated();
        tt.store(7, Some(1), 0, 0, 1, Bound::Exact);
        tt.clear();
        tt.ensure_allocated();
        assert_eq!(tt.probe(7), None);
    }
}
