// A real PostgreSQL for the fleet's tests: the server lives in src/bench/pg-server.ts (the bench's
// fleet section starts one too); see there.
export * from '../../src/bench/pg-server.js';
