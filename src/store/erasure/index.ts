// Erasure in the store: the ledger of what `wbsync erase` removed (erasure-ledger), what an erasure
// leaves of one entity (erasure-filter), and the gate every batch's upserts pass (erasure-gate,
// used by the write path), and `wbsync erase` itself: what a target takes with it (selection),
// the rewrite of every version that holds it (rewrite) and the file rewritten afresh (erase).
// Outside src/store/ imports them from here.
export * from './erasure-filter.js';
export * from './erasure-ledger.js';
export * from './erase.js';
export * from './selection.js';
