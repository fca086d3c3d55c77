// --pause-automations: API writes fire the workspace's automations (observed), so a restore would set
// them off on every record and cell it recreates. Active workspace-scope automations are switched off
// for the run and on again after it. The journal notes each one BEFORE it is paused, so a crash at
// any point still ends with it re-activated by the resumed run.

import type { ServiceClient } from '../../api/port.js';
import type { Automation } from '../../domain/entities.js';
import type { RunJournal } from '../../store/ledgers/index.js';

/** Pauses the active workspace automations; returns every automation this run holds paused. */
export async function pauseWorkspaceAutomations(client: ServiceClient, journal: RunJournal, workspaceId: string): Promise<string[]> {
  return pauseAutomationList(client, journal, await client.listWorkspaceAutomations(workspaceId));
}

/** Pauses the active ones of `automations` (rollback: the module's own and the workspace's). */
export async function pauseAutomationList(client: ServiceClient, journal: RunJournal, automations: Automation[]): Promise<string[]> {
  for (const r of automations.filter((x) => x.isActive)) {
    journal.markPaused(r.id);
    await client.updateAutomation(r.id, { isActive: false });
  }
  return journal.pausedAutomations().map((p) => p.id);
}

export async function reactivateAutomations(client: ServiceClient, journal: RunJournal): Promise<void> {
  for (const p of journal.pausedAutomations()) {
    if (p.state !== 'paused') continue;
    await client.updateAutomation(p.id, { isActive: true });
    journal.markReactivated(p.id);
  }
}
