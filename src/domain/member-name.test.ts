import { describe, expect, it } from 'vitest';
import type { Member } from './entities.js';
import { memberName, memberNames } from './member-name.js';

const m = (over: Partial<Member>): Member => ({
  workspaceId: 'w1', userId: 'u1', membershipId: null, role: 'member', status: 'active', firstName: null, lastName: null, email: null, joinedAt: null, raw: {}, ...over,
});

describe('memberName', () => {
  it('is first and last name, else the e-mail, else the user id', () => {
    expect(memberName(m({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@x.example' }))).toBe('Ada Lovelace');
    expect(memberName(m({ firstName: 'Ada', lastName: '' }))).toBe('Ada');
    expect(memberName(m({ lastName: 'Lovelace' }))).toBe('Lovelace');
    expect(memberName(m({ firstName: '', email: 'ada@x.example' }))).toBe('ada@x.example');
    expect(memberName(m({}))).toBe('u1');
  });
  it('maps a workspace\'s members by user id', () => {
    expect([...memberNames([m({ userId: 'u1', firstName: 'Ada' }), m({ userId: 'u2', email: 'b@x.example' })])]).toEqual([['u1', 'Ada'], ['u2', 'b@x.example']]);
  });
});
