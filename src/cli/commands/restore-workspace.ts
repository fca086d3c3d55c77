// `wbsync restore workspace ID`: the whole workspace back, here or on another service
// (--target-url with --target-key-file), users mapped with --map-users FILE. Part of `restore`.

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { restoreWorkspace } from '../../restore/restore-workspace.js';
import { intFlag, stringFlag, type FlagValues } from '../args.js';
import type { CommandContext } from '../command.js';
import { openForRun, type TargetService } from '../open.js';
import { countsLine, notRestoredLines, planLines } from './restore-output.js';

const UserMapSchema = z.record(z.string().min(1), z.string().min(1));

function readFileFlag(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new WbsyncError('usage', `${flag} ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'give a readable file' });
  }
}

/** --map-users FILE: a JSON object, old user id → user id on the target. */
export function readUserMap(path: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileFlag(path, '--map-users'));
  } catch (e) {
    if (e instanceof WbsyncError) throw e;
    throw new WbsyncError('usage', `--map-users ${path}: not JSON (${(e as Error).message})`, { hint: 'write it as {"<old user id>": "<user id on the target>", ...}' });
  }
  const r = UserMapSchema.safeParse(parsed);
  if (!r.success) throw new WbsyncError('usage', `--map-users ${path}: ${r.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`, { hint: 'write it as {"<old user id>": "<user id on the target>", ...}' });
  return new Map(Object.entries(r.data));
}

function targetOf(flags: FlagValues): TargetService | undefined {
  const url = stringFlag(flags, 'target-url');
  const keyFile = stringFlag(flags, 'target-key-file');
  if (!url && !keyFile) return undefined;
  if (!url || !keyFile) throw new WbsyncError('usage', '--target-url and --target-key-file go together', { hint: 'the key of the other service is read from a file, never from the command line' });
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new WbsyncError('usage', `--target-url: expected an http(s) URL, got '${url}'`);
  const apiKey = readFileFlag(keyFile, '--target-key-file').trim();
  if (!apiKey) throw new WbsyncError('usage', `--target-key-file ${keyFile} is empty`);
  return { baseUrl: url.replace(/\/+$/, ''), apiKey };
}

export async function runRestoreWorkspace(ctx: CommandContext, id: string, flags: FlagValues): Promise<number> {
  const into = stringFlag(flags, 'into-workspace');
  const newName = stringFlag(flags, 'new-name');
  if (into && newName) throw new WbsyncError('usage', '--into-workspace and --new-name exclude each other', { hint: 'restore into an existing workspace, or create one with a new name' });
  const mapFile = stringFlag(flags, 'map-users');
  const userMap = mapFile ? readUserMap(mapFile) : undefined;
  const target = targetOf(flags);
  const { config } = ctx.config();
  const run = openForRun(ctx, target);
  try {
    const r = await restoreWorkspace(
      { client: run.client, store: run.store, logger: ctx.logger() },
      {
        workspaceId: id,
        snapshotId: intFlag(flags, 'snapshot', 'restore'),
        ...(into ? { intoWorkspace: into } : {}),
        ...(newName ? { newName } : {}),
        ...(userMap ? { userMap } : {}),
        pauseAutomations: flags['pause-automations'] === true,
        dryRun: flags['dry-run'] === true,
        attribution: config.restore.attribution,
        signal: ctx.signal,
        onProgress: run.onProgress,
      },
    );
    run.endProgress();
    if (ctx.json) ctx.emit(r);
    else {
      const lines: string[] = [];
      const where = into ? `into workspace ${into}` : `as a new workspace '${r.name}'${target ? ` on ${target.baseUrl}` : ''}`;
      if (r.plan) lines.push(`workspace ${r.sourceWorkspaceId} from snapshot ${r.snapshot} ${where}`, ...planLines(r.plan));
      else if (r.alreadyRestored) lines.push(`workspace ${r.sourceWorkspaceId} was already restored by run ${r.runId}: ${r.workspaceId}`);
      else lines.push(`restored workspace ${r.sourceWorkspaceId} from snapshot ${r.snapshot} ${where}: ${r.workspaceId}${r.resumed ? ' (resumed)' : ''}`);
      lines.push(`  members: ${r.members.toAdd} to add${r.members.present ? `, ${r.members.present} already there` : ''}${r.members.refused ? `, ${r.members.refused} refused (not on the target: map them with --map-users)` : ''}`);
      for (const m of r.modules) lines.push(`  module ${m.name} (${m.sourceModuleId})${m.moduleId ? ` → ${m.moduleId}` : ''}: ${countsLine(m.counts)}`);
      lines.push(`  automations: ${r.automations.module} of modules, ${r.automations.workspace} of the workspace`);
      if (!r.plan) lines.push(`  ${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s`);
      lines.push(...notRestoredLines(r.notRestored));
      ctx.say(lines.join('\n'));
    }
    return r.refused ? EXIT_CODES.partial : EXIT_CODES.ok;
  } finally {
    await run.close();
  }
}
