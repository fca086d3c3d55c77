// Erasure in the store: the ledger of what `wbsync erase` removed (erasure-ledger), what an erasure
// leaves of one entity (erasure-filter), and the gate every batch's upserts pass (erasure-gate,
// used by the write path). Outside src/store/ imports them from here.
export * from './erasure-filter.js';
export * from './erasure-ledger.js';
