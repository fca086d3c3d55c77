// How a workspace member is named to people (plans, the console, drill reports, attribution
// lines): first and last name, else the e-mail, else the user id. One place, so every output
// names the same person the same way.
import type { Member } from './entities.js';

export function memberName(m: Pick<Member, 'userId' | 'firstName' | 'lastName' | 'email'>): string {
  return [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email || m.userId;
}

/** userId → memberName, for the members of one workspace. */
export function memberNames(members: readonly Member[]): Map<string, string> {
  return new Map(members.map((m) => [m.userId, memberName(m)]));
}
