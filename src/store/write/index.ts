// The write path (one batch, one transaction: apply-batch → versioned-writer, gone-marks, cursors,
// snapshots; on a writer thread for a file database). Everything outside src/store/ writes through
// the Store port; this is the little the rest may use directly.
export { deletionsNamed } from './cursors.js';
