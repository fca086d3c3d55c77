// Seed selection.

import type { UserDoc } from '../docs.js';
import type { SeedName, SeedParams } from '../types.js';
import type { World } from '../world.js';
import { seedDemo } from './demo.js';
import { LARGE, SMALL, seedGenerated } from './generated.js';

export function runSeed(w: World, seed: SeedName, people: UserDoc[], params: SeedParams): void {
  switch (seed) {
    case 'demo':
      return seedDemo(w, people);
    case 'small':
      return seedGenerated(w, people, SMALL, params, 'Small');
    case 'large':
      return seedGenerated(w, people, LARGE, params, 'Large');
    default:
      return;
  }
}
