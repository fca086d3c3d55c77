// The tables' shapes, shared by the write path, the readers, export and erasure: how each entity
// kind maps onto its versioned table (entity-specs), an entity as a row with its content hash
// (row-encoding), and the full-text search table's rows (fts). Outside src/store/ imports them here.
export * from './entity-specs.js';
export * from './row-encoding.js';
export * from './fts.js';
