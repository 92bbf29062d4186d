/** Sign-in and set-password pages (no navigation: nobody is signed in yet). */
import { html } from 'ghtml';
import { csrfField } from '../layout.js';
import type { PageContext } from '../layout.js';
import { MIN_PASSWORD_LENGTH } from '../../service/owners/passwords.js';

export function signInPage(ctx: PageContext, input: { email: string; next: string; error: string | null }): string {
  return html`
  !${input.error ? html`<p class="error-message" role="alert" id="sign-in-error">${input.error}</p>` : ''}
  <form method="post" action="/dashboard/sign-in" class="stack">
    !${csrfField(ctx)}
    <input type="hidden" name="next" value="${input.next}">
    <div class="field">
      <label for="email">Email</label>
      <input type="email" id="email" name="email" autocomplete="username" required value="${input.email}"!${input.error ? ' aria-describedby="sign-in-error"' : ''}>
    </div>
    <div class="field">
      <label for="password">Password</label>
      <input type="password" id="password" name="password" autocomplete="current-password" required>
    </div>
    <div><button type="submit">Sign in</button></div>
  </form>
  <p class="muted">No password yet, or forgot it? Ask your administrator for a link: <code>presend users reset-password --email ${resetEmail(input.email)}</code>.</p>`;
}

/** The address the reset command names: the one typed in (what the administrator needs), else a placeholder. */
const resetEmail = (typed: string): string => (/^[^\s@]+@[^\s@]+$/.test(typed) && typed.length <= 320 ? typed : 'YOUR_EMAIL');

export function setPasswordPage(ctx: PageContext, input: { token: string; email: string; error: string | null }): string {
  return html`
  <p>Choose the password for <strong>${input.email}</strong>. This link works once.</p>
  !${input.error ? html`<p class="error-message" role="alert" id="password-error">${input.error}</p>` : ''}
  <form method="post" action="/dashboard/set-password/${input.token}" class="stack">
    !${csrfField(ctx)}
    <input type="text" name="username" autocomplete="username" value="${input.email}" hidden>
    <div class="field">
      <label for="password">New password <span class="hint">(at least ${MIN_PASSWORD_LENGTH} characters)</span></label>
      <input type="password" id="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"!${input.error ? ' aria-describedby="password-error"' : ''}>
    </div>
    <div class="field">
      <label for="confirm">Repeat the password</label>
      <input type="password" id="confirm" name="confirm" autocomplete="new-password" required>
    </div>
    <div><button type="submit">Set password</button></div>
  </form>`;
}

export function linkUnusablePage(): string {
  return html`<p class="error-message" role="alert">This link has been used already or has expired.</p>
  <p>Ask your administrator for a new one: <code>presend users reset-password --email YOUR_EMAIL</code>.</p>
  <p><a href="/dashboard/sign-in">Sign in</a></p>`;
}
