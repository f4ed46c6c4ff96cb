//! The memory budget: the search counts the bytes its own tables hold as they grow, and stops
//! cleanly when they would pass the budget.
//!
//! What is counted: every memo entry of the finite search (its hash-table slot, at the table's
//! allocated capacity, plus the heap block of its key) and every node of the Las Vegas state
//! graph (the node, its key, its slot in the index, its edges). Not counted: the stacks of the
//! depth-first search, the children of the states being expanded at one moment, the shuffle
//! list and the sequence tables — all bounded by the query, not by how far the search has gone.
//! Heap blocks are counted as glibc's allocator lays them out (16-byte granules, an 8-byte
//! header, at least 32 bytes), hash tables as hashbrown does (a power-of-two number of buckets
//! at most 7/8 full, one control byte per bucket), so the count follows the process's resident
//! memory closely; `docs/search.md` compares the two on the runs it reports.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The bytes a heap block for `len` bytes takes.
pub(super) fn heap_bytes(len: usize) -> u64 {
    if len == 0 {
        0
    } else {
        ((len + 8).div_ceil(16) * 16).max(32) as u64
    }
}

/// The bytes a hash table of this capacity (elements it holds without growing) takes with slots
/// of `slot` bytes.
pub(super) fn table_bytes(capacity: usize, slot: usize) -> u64 {
    if capacity == 0 {
        return 0;
    }
    let buckets = if capacity < 8 {
        (capacity + 1).next_power_of_two()
    } else {
        (capacity * 8 / 7).next_power_of_two()
    };
    heap_bytes(buckets * (slot + 1) + 16)
}

/// A shared byte counter with a limit.
#[derive(Debug)]
pub(super) struct Meter {
    limit: u64,
    used: AtomicU64,
    peak: AtomicU64,
    over: AtomicBool,
}

impl Meter {
    /// A meter that trips above `limit` bytes (`None`: never).
    pub(super) fn new(limit: Option<u64>) -> Meter {
        Meter {
            limit: limit.unwrap_or(u64::MAX),
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            over: AtomicBool::new(false),
        }
    }

    /// Counts `bytes` more; returns `false` (and trips) when the total passes the limit.
    pub(super) fn charge(&self, bytes: u64) -> bool {
        let now = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        if now > self.limit {
            self.over.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Whether the limit was passed.
    pub(super) fn tripped(&self) -> bool {
        self.over.load(Ordering::Relaxed)
    }

    /// The most bytes counted at once.
    pub(super) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// The limit (`None`: unbounded).
    pub(super) fn limit(&self) -> Option<u64> {
        (self.limit != u64::MAX).then_some(self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_trips_past_its_limit_and_remembers_its_peak() {
        let m = Meter::new(Some(100));
        assert!(m.charge(60));
        assert!(!m.tripped());
        assert!(!m.charge(50));
        assert!(m.tripped());
        assert_eq!(m.peak(), 110);
        assert_eq!(m.limit(), Some(100));
        assert_eq!(Meter::new(None).limit(), None);
    }

    #[test]
    fn heap_blocks_and_tables_are_counted_as_the_allocator_lays_them_out() {
        assert_eq!(heap_bytes(0), 0);
        assert_eq!(heap_bytes(1), 32);
        assert_eq!(heap_bytes(24), 32);
        assert_eq!(heap_bytes(25), 48);
        // 7 slots of 24 bytes: 8 buckets, each with its control byte.
        assert_eq!(table_bytes(7, 24), heap_bytes(8 * 25 + 16));
        assert!(table_bytes(1000, 24) >= 1000 * 25);
    }
}
