/**
 * The dashboard as a browser uses it, over plain HTTP (fetch, a cookie jar, the forms' tokens):
 * an owner made with `presend users create`, the one-time link, signing in, keys, uploads and
 * signing out — for tests that run against a real `presend serve` process.
 */
import assert from 'node:assert/strict';
import { openAsBlob } from 'node:fs';
import { runCli } from '../client/live-service.js';

export interface CreatedOwner {
  email: string;
  link: string;
}

/** `presend users create … --create-account --json`, as an operator runs it; the link points at `baseUrl`. */
export async function createOwner(env: Record<string, string>, baseUrl: string, account: string, email: string): Promise<CreatedOwner> {
  const made = await runCli(['users', 'create', '--account', account, '--email', email, '--create-account', '--credits', '100', '--json'], { ...env, PRESEND_BASE_URL: baseUrl });
  assert.equal(made.code, 0, made.stderr);
  const out = JSON.parse(made.stdout) as { email: string; link: string };
  return { email: out.email, link: out.link };
}

const formToken = (html: string): string => {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? /data-csrf="([^"]+)"/.exec(html)?.[1];
  assert.ok(token, 'the page carries a form token');
  return token;
};

export class DashboardBrowser {
  readonly #cookies = new Map<string, string>();
  /** Every form token and cookie value this browser was given: secrets a log must never hold. */
  readonly secrets = new Set<string>();

  constructor(readonly baseUrl: string) {}

  async #fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, at);
      const value = (pair ?? '').slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else {
        this.#cookies.set(name, value);
        this.secrets.add(decodeURIComponent(value));
      }
    }
    return res;
  }

  /** A page's HTML and its form token. */
  async page(path: string): Promise<{ status: number; html: string; token: string }> {
    const res = await this.#fetch(path);
    const html = await res.text();
    const token = formToken(html);
    this.secrets.add(token);
    return { status: res.status, html, token };
  }

  async postForm(path: string, fields: Record<string, string>): Promise<Response> {
    return this.#fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
  }

  async setPassword(link: string, password: string): Promise<void> {
    const { token } = await this.page(link);
    const res = await this.postForm(link, { _csrf: token, password, confirm: password });
    assert.equal(res.status, 303, 'the password is set');
  }

  async signIn(email: string, password: string): Promise<void> {
    const { token } = await this.page('/dashboard/sign-in');
    const res = await this.postForm('/dashboard/sign-in', { _csrf: token, email, password, next: '/dashboard' });
    assert.equal(res.status, 303, 'signed in');
  }

  /** Creates a key on the keys page; returns it as the page shows it, once. */
  async createKey(label: string): Promise<string> {
    const { token } = await this.page('/dashboard/keys');
    const res = await this.postForm('/dashboard/keys', { _csrf: token, label, mode: 'test' });
    assert.equal(res.status, 303);
    const shown = await this.page('/dashboard/keys');
    const key = /ps_(?:live|test)\.[A-Za-z0-9]{40}/.exec(shown.html)?.[0];
    assert.ok(key, 'the new key is shown once');
    return key;
  }

  async signOut(): Promise<void> {
    const { token } = await this.page('/dashboard');
    assert.equal((await this.postForm('/dashboard/sign-out', { _csrf: token })).status, 303);
  }

  /** Uploads a file as the lists page does (multipart, the form token in the URL); returns the new list's id. */
  async upload(filePath: string, fileName: string): Promise<string> {
    const { token } = await this.page('/dashboard/lists');
    const form = new FormData();
    form.append('name', fileName);
    form.append('file', await openAsBlob(filePath), fileName);
    const res = await this.#fetch(`/dashboard/lists?_csrf=${encodeURIComponent(token)}`, { method: 'POST', body: form });
    assert.equal(res.status, 303, `the upload is answered with a redirect, not ${res.status}`);
    const id = /\/dashboard\/lists\/([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')?.[1];
    assert.ok(id, `redirected to the new list (${res.headers.get('location')})`);
    return id;
  }

  /** The import state of a list, as the list page's script reads it. */
  async listState(id: string): Promise<{ state: string; entries: number; columnChoice: boolean }> {
    const res = await this.#fetch(`/dashboard/lists/${id}/state`);
    assert.equal(res.status, 200);
    return (await res.json()) as { state: string; entries: number; columnChoice: boolean };
  }

  async chooseColumn(id: string, column: number): Promise<void> {
    const { token } = await this.page(`/dashboard/lists/${id}`);
    assert.equal((await this.postForm(`/dashboard/lists/${id}/column`, { _csrf: token, column: String(column) })).status, 303);
  }

  async listPage(id: string): Promise<string> {
    return (await this.#fetch(`/dashboard/lists/${id}`)).text();
  }

  /** A download: status, content type and the bytes. */
  async download(path: string): Promise<{ status: number; type: string; body: Buffer }> {
    const res = await this.#fetch(path);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
  }
}
