// Plausible cell values per column type, encoded as the spec's table says.

import type { ColumnDoc } from '../docs.js';
import type { Prng } from '../ids.js';

const WORDS = ['alpha', 'budget', 'review', 'launch', 'draft', 'follow-up', 'urgent', 'quarterly', 'vendor', 'pilot', 'renewal', 'migration'];
const DROPDOWN = ['Low', 'Medium', 'High', 'Critical'];

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function sampleValue(prng: Prng, col: ColumnDoc, userIds: string[], nowMs: number): string {
  const day = 86_400_000;
  switch (col.type) {
    case 'number':
      return String(prng.int(1, 500) * 100);
    case 'status':
      return col.statusOptions.length ? prng.pick(col.statusOptions).label : 'Done';
    case 'date':
      return isoDay(nowMs + prng.int(-20, 40) * day);
    case 'timeline': {
      const startMs = nowMs + prng.int(-30, 30) * day;
      return JSON.stringify({ startDate: isoDay(startMs), endDate: isoDay(startMs + prng.int(3, 45) * day) });
    }
    case 'person':
      return JSON.stringify(prng.chance(0.2) ? userIds.slice(0, 2) : [prng.pick(userIds)]);
    case 'email':
      return `${prng.pick(['sam', 'lee', 'kim', 'ana', 'joe'])}.${prng.int(1, 99)}@example.com`;
    case 'phone':
      return `+1 555 01${String(prng.int(0, 99)).padStart(2, '0')}`;
    case 'checkbox':
      return prng.chance(0.5) ? 'true' : 'false';
    case 'dropdown':
      return prng.pick(DROPDOWN);
    case 'link':
      return `https://example.com/${prng.pick(WORDS)}/${prng.int(1, 999)}`;
    case 'file':
      return `${prng.pick(WORDS)}-${prng.int(1, 99)}.pdf`;
    case 'rating':
      return String(prng.int(1, 10) / 2);
    default:
      return `${prng.pick(WORDS)} ${prng.pick(WORDS)}`;
  }
}
