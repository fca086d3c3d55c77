// The emulator's public entry: start it in-process; types for tests, the benchmark and the CLI.

export { startEmulator } from './emulator.js';
export type * from './types.js';
