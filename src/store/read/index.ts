// The readers: the state as of a snapshot (state-reader, behind the Store port), what the console
// reads (console-reads, module-window), what changed (change-counts, own-writes), verify's checks,
// the reporting queries and small figures. Outside src/store/ imports them from here.
export * from './console-reads.js';
export * from './module-window.js';
export * from './restore-content.js';
export * from './with-content.js';
export * from './change-counts.js';
export * from './own-writes.js';
export * from './reporting-queries.js';
export * from './figures.js';
export * from './module-census.js';
export * from './last-held.js';
