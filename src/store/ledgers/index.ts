// The store's small tables beside the versioned history, each file with its reads and writes: the
// alerts' episode state. Outside src/store/ imports them from here.
export * from './alert-state.js';
