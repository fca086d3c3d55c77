// The `wbsync` executable's first two lines are what give a deployed process NODE_FLAGS (the systemd
// unit, the image and `npm install -g` all run it through those lines): the two must not drift apart.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from './heap-policy.js';

describe('NODE_FLAGS', () => {
  it('are the flags on the executable’s first lines', () => {
    const [first, second] = readFileSync(new URL('../cli/main.ts', import.meta.url), 'utf8').split('\n');
    expect(first).toBe('#!/bin/sh');
    expect(second).toBe(`//bin/sh -c :; exec /usr/bin/env node ${NODE_FLAGS.join(' ')} "$0" "$@"`);
  });

  it('are options this node accepts', () => {
    const r = spawnSync(process.execPath, [...NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok');
  });
});
