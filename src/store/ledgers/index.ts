// The store's small tables beside the versioned history, each file with its reads and writes: the
// alerts' episode state, the tripwire's incidents, the restore journal. Outside src/store/ imports
// them from here.
export * from './alert-state.js';
export * from './incidents.js';
export * from './restore-journal.js';
