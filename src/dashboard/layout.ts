/**
 * The frame of every dashboard page: skip link, navigation, one `main` landmark, the flash
 * message, the sign-out forms. Pages are typed functions returning HTML strings built with
 * ghtml's `html` tag, which escapes every interpolated value; `!${…}` (no escaping) is used only
 * for fragments that these functions built themselves.
 */
import { html } from 'ghtml';
import type { OwnerSession } from '../store/roles/owner-sessions.js';
import { ASSET_VERSION } from './assets.js';

export { html };

export interface Flash {
  kind: 'notice' | 'error';
  text: string;
  /** A new API key, shown once (keys page). */
  newKey?: { key: string; displayPrefix: string; label: string | null; mode: string };
  /** A webhook endpoint's new signing secret, shown once (webhooks pages). */
  newSecret?: { secret: string; url: string; rotated: boolean };
  /** A feedback source's new webhook URL (its token), shown once (feedback page). */
  newFeedbackToken?: { source: string; url: string };
}

export interface PageContext {
  owner: OwnerSession | null;
  /** The form token for this page's forms (src/dashboard/csrf.ts). */
  csrf: string;
  /** The request path, to mark the current section. */
  path: string;
  flash: Flash | null;
}

const SECTIONS: Array<{ href: string; label: string }> = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/keys', label: 'Keys' },
  { href: '/dashboard/lists', label: 'Lists' },
  { href: '/dashboard/batches', label: 'Batches' },
  { href: '/dashboard/usage', label: 'Usage' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: '/dashboard/policy', label: 'Policy' },
  { href: '/dashboard/feedback', label: 'Feedback' },
  { href: '/dashboard/try', label: 'Try an address' },
];

function current(path: string, href: string): boolean {
  return href === '/dashboard' ? path === '/dashboard' || path === '/dashboard/' : path === href || path.startsWith(`${href}/`);
}

/** A hidden form field carrying the form token. */
export function csrfField(ctx: PageContext): string {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}

function navigation(ctx: PageContext): string {
  if (!ctx.owner) return '';
  return html`<nav aria-label="Dashboard">
    <ul class="nav">
      !${SECTIONS.map((s) => html`<li><a href="${s.href}"!${current(ctx.path, s.href) ? ' aria-current="page"' : ''}>${s.label}</a></li>`)}
    </ul>
  </nav>`;
}

function account(ctx: PageContext): string {
  if (!ctx.owner) return '';
  return html`<div class="account">
    <p>Signed in as <strong>${ctx.owner.user.email}</strong> · account <strong>${ctx.owner.accountName}</strong></p>
    <form method="post" action="/dashboard/sign-out">!${csrfField(ctx)}<button type="submit" class="link">Sign out</button></form>
    <form method="post" action="/dashboard/sign-out-everywhere">!${csrfField(ctx)}<button type="submit" class="link">Sign out everywhere</button></form>
  </div>`;
}

function flashMessage(flash: Flash | null): string {
  if (!flash || flash.newKey || flash.newSecret || flash.newFeedbackToken) return '';
  return flash.kind === 'error'
    ? html`<div class="flash error" role="alert">${flash.text}</div>`
    : html`<div class="flash notice" role="status">${flash.text}</div>`;
}

export function page(ctx: PageContext, title: string, body: string): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Presend</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css?v=${ASSET_VERSION}">
<script src="/dashboard/assets/dashboard.js?v=${ASSET_VERSION}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <p class="brand"><a href="/dashboard">Presend</a></p>
  !${account(ctx)}
</header>
!${navigation(ctx)}
<main id="main" tabindex="-1">
<h1>${title}</h1>
!${flashMessage(ctx.flash)}
!${body}
</main>
</body>
</html>`;
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** A time for people (UTC), as plain text: "28 Nov 2026, 10:20 UTC". */
export function whenText(iso: string): string {
  return `${dateFormat.format(new Date(iso))} UTC`;
}

/** A time for people (UTC), inside a `time` element carrying the exact instant. */
export function when(iso: string | null, never = 'never'): string {
  if (!iso) return html`<span class="muted">${never}</span>`;
  return html`<time datetime="${iso}">${whenText(iso)}</time>`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}
