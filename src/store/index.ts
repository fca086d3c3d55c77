// The snapshot store: open it with openStore(); everything else goes through the Store port.
export { openStore, type OpenStoreOptions } from './open.js';
export type * from './port.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export { SEARCH_TABLE } from './tables/fts.js';
