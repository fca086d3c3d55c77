// The freshness soak in the spec dialect (see soak.ts).
import { it } from 'vitest';
import { SOAK_SECONDS, soak } from './soak.js';

it('keeps the mirror fresh under a minute of writes of every kind (spec dialect)', async () => {
  await soak('spec', 41);
}, (SOAK_SECONDS + 150) * 1000);
