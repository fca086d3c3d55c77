// The shape every id from the service must have before wbsync stores, prints or sends it. The
// deployed service makes 24-hex ObjectIds; the published spec names no shape, so the pattern is the
// widest one that stays inert everywhere an id goes: letters, digits, `_` and `-`, starting with a
// letter or digit (never read as an option), at most 64 characters. Such a word needs no quoting in
// a shell, a URL path, a file name or HTML.

export const SERVICE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const SERVICE_ID_RULE = 'an id of letters, digits, _ and - (at most 64, not starting with - or _)';

export function isServiceId(value: unknown): value is string {
  return typeof value === 'string' && SERVICE_ID_PATTERN.test(value);
}
