import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runEmulatorCommand } from './command.js';

describe('runEmulatorCommand', () => {
  it('should print exactly one JSON ready line with the users and their keys', async () => {
    const listenersBefore = process.listenerCount('SIGTERM');
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const emu = await runEmulatorCommand({ seed: 'demo', apiKey: 'my-key' }, out);
    try {
      expect(text.endsWith('\n')).toBe(true);
      expect(text.trim().split('\n')).toHaveLength(1);
      const ready = JSON.parse(text) as { baseUrl: string; apiKey: string; users: Array<{ id: string; email: string; apiKey: string }> };
      expect(ready.apiKey).toBe('my-key');
      expect(ready.users).toHaveLength(3);
      expect(ready.users[0]!.apiKey).toBe('my-key');
      const res = await fetch(`${ready.baseUrl}/api/workspaces`, { headers: { 'x-api-key': 'my-key' } });
      expect(res.status).toBe(200);
    } finally {
      await emu.stop();
    }
    expect(process.listenerCount('SIGTERM')).toBe(listenersBefore);
  });
});
