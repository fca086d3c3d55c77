// Test support only (imported by src/api/*.test.ts, never by runtime code): the WbsyncError a
// promise must fail with.

import { expect } from 'vitest';
import { WbsyncError } from '../../domain/errors.js';

export async function caught(p: Promise<unknown>): Promise<WbsyncError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(WbsyncError);
    return e as WbsyncError;
  }
  throw new Error('expected a failure');
}
