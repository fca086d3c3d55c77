// The freshness soak in the observed dialect (see soak.ts).
import { it } from 'vitest';
import { SOAK_SECONDS, soak } from './soak.js';

it('keeps the mirror fresh under a minute of writes of every kind (observed dialect)', async () => {
  await soak('observed', 43);
}, (SOAK_SECONDS + 150) * 1000);
