// The `wbsync` executable's first line is what gives a deployed process NODE_FLAGS (the systemd
// unit, the image and `npm install -g` all run it through that line): the two must not drift apart.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from './heap-policy.js';

describe('NODE_FLAGS', () => {
  it('are the flags on the executable’s first line', () => {
    const first = readFileSync(new URL('../cli/main.ts', import.meta.url), 'utf8').split('\n')[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  });

  it('are options this node accepts', () => {
    const r = spawnSync(process.execPath, [...NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok');
  });
});
