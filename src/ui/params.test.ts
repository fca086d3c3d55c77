import { describe, expect, it } from 'vitest';
import { SERVICE_ID_PATTERN } from '../domain/service-id.js';
import { BadRequest, NotFound, idParam, optionalId } from './params.js';

describe('console id parameters', () => {
  it('every id the API edge lets in has a page (recover, module, record)', () => {
    for (const id of ['65a1b2c3d4e5f60718293a4b', '0f8fad5b-d9cb-469f-a165-70867728950e', 'r1', 'a_b-c', 'Z'.repeat(64)]) {
      expect(SERVICE_ID_PATTERN.test(id), id).toBe(true);
      expect(idParam(id, 'module')).toBe(id);
      expect(optionalId(new URLSearchParams({ module: id }), 'module')).toBe(id);
    }
  });

  it('an id the API edge refuses is refused here too (400/404), never looked up', () => {
    const hostile = 'x$(touch${IFS}/tmp/PWNED)';
    expect(() => optionalId(new URLSearchParams({ module: hostile }), 'module')).toThrow(BadRequest);
    expect(() => idParam(hostile, 'module')).toThrow(NotFound);
  });
});
