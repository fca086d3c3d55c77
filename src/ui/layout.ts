// The page shell every console page shares: header with navigation and search, then the body.
import { html, type Html, type Renderable } from './html.js';

export type Section = 'overview' | 'snapshots' | 'browse' | 'recover' | 'search' | 'none';

export interface PageShell {
  base: string;
  title: string;
  section: Section;
  body: Renderable;
  /** Keeps the snapshot being browsed in the search box's form. */
  snapshot?: number;
  /** No navigation (login page). */
  bare?: boolean;
}

export function page(p: PageShell): Html {
  const link = (s: Section, href: string, label: string) => html`<a href="${p.base}${href}" class="${s === p.section ? 'on' : ''}">${label}</a>`;
  const nav = p.bare
    ? ''
    : html`<nav>${link('overview', '/', 'Overview')}${link('snapshots', '/snapshots', 'Snapshots')}${link('browse', '/browse', 'Browse')}${link('recover', '/recover', 'Recover')}</nav>
      <form method="get" action="${p.base}/search" role="search"><input type="search" name="q" placeholder="Search records, amendments and cells" aria-label="search">${p.snapshot === undefined ? '' : html`<input type="hidden" name="snapshot" value="${p.snapshot}">`}</form>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} · wbsync</title><link rel="stylesheet" href="${p.base}/static/console.css"></head>
<body><header class="top"><span class="brand">wbsync<small>console · read-only</small></span>${nav}</header>
<main>${p.body}</main></body></html>
`;
}
