// The freshness soak in the observed dialect (see soak.ts).
import { it } from 'vitest';
import { liveSettings } from '../helpers/service-target.js';
import { SOAK_SECONDS, soak } from './soak.js';

it('keeps the mirror fresh under a minute of writes of every kind (observed dialect)', async () => {
  await soak('observed', 43);
}, (SOAK_SECONDS + 150) * 1000);

// Against a running service too (WBSYNC_LIVE_URL + WBSYNC_LIVE_KEY_FILE; docs/real-backend.md).
if (liveSettings()) {
  it('keeps the mirror fresh under a minute of writes of every kind (live service)', async () => {
    await soak('live', 43);
  }, (SOAK_SECONDS + 300) * 1000);
}
