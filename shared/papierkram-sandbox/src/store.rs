//! The account as the API serves it: the demo data plus every write since start or the last reset.
//!
//! Copy on write: a fresh sandbox shares the process-wide demo data and takes its own copy only
//! when the first write lands, so read-only tests pay nothing.

use crate::model::{DemoData, HasId};
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::sync::Arc;

/// How many records writes may create between resets; one more create answers 422.
pub const MAX_CREATED_RECORDS: usize = 5_000;

#[derive(Debug, Clone)]
pub(crate) struct Store {
    data: Arc<DemoData>,
    /// Records created since the last reset (deletes do not give room back).
    created: usize,
    /// Highest id or number handed out per kind, so a deleted last record's id is never reused.
    high_water: HashMap<&'static str, u64>,
    /// Money booked against vouchers through `pay`, by voucher id.
    voucher_payments: HashMap<u64, Decimal>,
}

impl Store {
    pub(crate) fn new(data: Arc<DemoData>) -> Self {
        Store {
            data,
            created: 0,
            high_water: HashMap::new(),
            voucher_payments: HashMap::new(),
        }
    }

    pub(crate) fn data(&self) -> &DemoData {
        &self.data
    }

    /// A handle on the current data that stays valid while writes go on.
    pub(crate) fn snapshot(&self) -> Arc<DemoData> {
        Arc::clone(&self.data)
    }

    pub(crate) fn data_mut(&mut self) -> &mut DemoData {
        Arc::make_mut(&mut self.data)
    }

    /// Whether one more record may be created.
    pub(crate) fn has_room(&self) -> bool {
        self.created < MAX_CREATED_RECORDS
    }

    /// The id for a new record of `kind` in `items` (sorted by id), counted against the cap.
    /// Call it only once nothing can refuse the write any more.
    pub(crate) fn new_id<T: HasId>(
        &mut self,
        kind: &'static str,
        items: fn(&DemoData) -> &[T],
    ) -> u64 {
        self.created += 1;
        let last = items(&self.data).last().map_or(0, HasId::id);
        self.next(kind, last)
    }

    /// The next number of a numbering like `RE-00042`, given the highest one in use.
    pub(crate) fn next_number(&mut self, kind: &'static str, highest_in_use: u64) -> u64 {
        self.next(kind, highest_in_use)
    }

    fn next(&mut self, kind: &'static str, in_use: u64) -> u64 {
        let mark = self.high_water.entry(kind).or_insert(0);
        *mark = (*mark).max(in_use) + 1;
        *mark
    }

    pub(crate) fn voucher_paid(&self, id: u64) -> Decimal {
        self.voucher_payments.get(&id).copied().unwrap_or_default()
    }

    pub(crate) fn book_voucher_payment(&mut self, id: u64, value: Decimal) {
        *self.voucher_payments.entry(id).or_default() += value;
    }

    pub(crate) fn reverse_voucher_payments(&mut self, id: u64) {
        self.voucher_payments.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;
    use crate::model::Company;

    #[test]
    fn ids_keep_growing_even_after_the_last_record_is_deleted() {
        let mut s = Store::new(Arc::new(demo().clone()));
        let last = demo().companies.last().unwrap().id;
        fn companies(d: &DemoData) -> &[Company] {
            &d.companies
        }
        assert_eq!(s.new_id("company", companies), last + 1);
        // Nothing was pushed (as if the new record had been deleted again): the id stays used.
        assert_eq!(s.new_id("company", companies), last + 2);
    }

    #[test]
    fn creates_stop_at_the_cap() {
        let mut s = Store::new(crate::demo_shared());
        fn companies(d: &DemoData) -> &[Company] {
            &d.companies
        }
        for _ in 0..MAX_CREATED_RECORDS {
            assert!(s.has_room());
            s.new_id("company", companies);
        }
        assert!(!s.has_room());
    }

    #[test]
    fn copy_on_write_leaves_the_shared_demo_alone() {
        let shared = Arc::new(demo().clone());
        let mut s = Store::new(Arc::clone(&shared));
        s.data_mut().companies.clear();
        assert!(s.data().companies.is_empty());
        assert_eq!(shared.companies.len(), demo().companies.len());
    }
}
