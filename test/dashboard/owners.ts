/** Owners for the browser tests: an account with credits, an owner made by the same service `presend users create` uses, and signing in through the pages. */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Backend } from '../../src/store/backend.js';
import { createOwner } from '../../src/service/owners/owners.js';

let n = 0;

export interface TestOwner {
  accountName: string;
  accountId: string;
  email: string;
  password: string;
  /** The one-time link printed by `presend users create`. */
  link: string;
}

export async function newOwner(backend: Backend, baseUrl: string, credits = 1000): Promise<TestOwner> {
  const accountName = `acme-${process.pid}-${++n}`;
  const account = await backend.accounts.createAccount({ name: accountName, credits, now: new Date() });
  assert.ok(account);
  const email = `owner${n}-${process.pid}@${accountName}.example`;
  const made = await createOwner(backend, { accountName, email, baseUrl });
  assert.equal(made.kind, 'done');
  return { accountName, accountId: account.id, email, password: `correct horse battery ${n}`, link: made.kind === 'done' ? made.value.link : '' };
}

/** Opens the one-time link, chooses the password, and signs in with it. */
export async function setPasswordAndSignIn(page: Page, owner: TestOwner): Promise<void> {
  await page.goto(owner.link);
  await page.getByLabel('New password').fill(owner.password);
  await page.getByLabel('Repeat the password').fill(owner.password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await signIn(page, owner);
}

export async function signIn(page: Page, owner: TestOwner): Promise<void> {
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}
