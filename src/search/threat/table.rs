//! A small preallocated table of proven and disproven threat-search nodes.
//!
//! One slot per index, always replaced: the solver's nodes are cheap to recompute and the table only has to
//! catch the many transpositions of a threat sequence (the same fours in another order).

/// What a stored node was proven to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stored {
    /// The attacker wins from this node; `plies` is the length of the line that was found (to the five).
    Win { plies: u16 },
    /// The attacker has no win from this node when allowed `depth` more threat moves (`u8::MAX` = any depth).
    Fail { depth: u8 },
}

/// One slot: the full key (so different positions sharing an index are told apart) and the packed result.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    /// 0 = empty; bit 31: win; bits 16..24: fail depth; bits 0..16: win plies.
    data: u32,
}

/// The proof table (a power-of-two number of slots, allocated once).
pub(crate) struct ProofTable {
    slots: Vec<Slot>,
    mask: usize,
}

const WIN_BIT: u32 = 1 << 31;
const FAIL_BIT: u32 = 1 << 30;

impl ProofTable {
    /// A table of `1 << bits` slots (16 bytes each).
    pub(crate) fn new(bits: u32) -> ProofTable {
        let n = 1usize << bits;
        ProofTable {
            slots: vec![Slot::default(); n],
            mask: n - 1,
        }
    }

    /// Forget everything (new game, other rule or board size).
    pub(crate) fn clear(&mut self) {
        self.slots.fill(Slot::default());
    }

    fn index(&self, key: u64) -> usize {
        ((key ^ (key >> 29)) as usize) & self.mask
    }

    /// The stored result for `key`, if any.
    pub(crate) fn probe(&self, key: u64) -> Option<Stored> {
        let s = self.slots[self.index(key)];
        if s.key != key || s.data == 0 {
            return None;
        }
        if s.data & WIN_BIT != 0 {
            Some(Stored::Win {
                plies: (s.data & 0xffff) as u16,
            })
        } else {
            Some(Stored::Fail {
                depth: ((s.data >> 16) & 0xff) as u8,
            })
        }
    }

    /// Store a result for `key` (replacing whatever was in its slot).
    pub(crate) fn store(&mut self, key: u64, value: Stored) {
        let data = match value {
            Stored::Win { plies } => WIN_BIT | u32::from(plies),
            Stored::Fail { depth } => FAIL_BIT | (u32::from(depth) << 16),
        };
        let i = self.index(key);
        self.slots[i] = Slot { key, data };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let mut t = ProofTable::new(4);
        assert_eq!(t.probe(12345), None);
        t.store(12345, Stored::Win { plies: 17 });
        assert_eq!(t.probe(12345), Some(Stored::Win { plies: 17 }));
        t.store(12345, Stored::Fail { depth: 3 });
        assert_eq!(t.probe(12345), Some(Stored::Fail { depth: 3 }));
        t.store(12345, Stored::Fail { depth: u8::MAX });
        assert_eq!(t.probe(12345), Some(Stored::Fail { depth: u8::MAX }));
        // A different key in the same slot is not mistaken for this one.
        assert_eq!(t.probe(12345 + 16 * 1_000_003), None);
        t.clear();
        assert_eq!(t.probe(12345), None);
    }
}
