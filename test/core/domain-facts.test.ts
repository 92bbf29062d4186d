import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { isDisposableDomain, isFreeProvider, isRoleLocalPart, looksLikeSpamtrap } from '../../src/core/domain/lists.js';
import { suggestDomain } from '../../src/core/domain/typo.js';
import { familyOfHost, providerFamily } from '../../src/core/domain/provider-family.js';

describe('domain facts from maintained lists', () => {
  test('disposable domains come from disposable-email-domains, wildcards included', () => {
    assert.equal(isDisposableDomain('mailinator.com'), true);
    assert.equal(isDisposableDomain('anything.33mail.com'), true, 'wildcard.json covers every subdomain');
    assert.equal(isDisposableDomain('gmail.com'), false);
  });

  test('free providers come from email-providers', () => {
    assert.equal(isFreeProvider('gmail.com'), true);
    assert.equal(isFreeProvider('gmx.de'), true);
    assert.equal(isFreeProvider('acme-corp.example'), false);
  });

  test('role local parts come from role-based-email-addresses, ignoring +tags and case', () => {
    assert.equal(isRoleLocalPart('info'), true);
    assert.equal(isRoleLocalPart('Postmaster'), true);
    assert.equal(isRoleLocalPart('sales+eu'), true);
    assert.equal(isRoleLocalPart('alice'), false);
  });

  test('trap-looking local parts are spotted', () => {
    assert.equal(looksLikeSpamtrap('spamtrap'), true);
    assert.equal(looksLikeSpamtrap('honey-pot2'), true);
    assert.equal(looksLikeSpamtrap('alice'), false);
  });
});

describe('typo suggestions', () => {
  for (const [domain, suggestion] of [
    ['gmial.com', 'gmail.com'],
    ['gmail.co', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['yahooo.com', 'yahoo.com'],
    ['outlok.com', 'outlook.com'],
  ] as const) {
    test(`${domain} suggests ${suggestion}`, () => assert.equal(suggestDomain(domain), suggestion));
  }
  for (const domain of ['gmail.com', 'acme.test', 'no-mail.test', 'example.org', 'web.de']) {
    test(`${domain} is not flagged as a typo`, () => assert.equal(suggestDomain(domain), null));
  }
});

describe('provider family from MX host names', () => {
  for (const [host, family] of [
    ['aspmx.l.google.com', 'google'],
    ['alt1.aspmx.l.google.com.', 'google'],
    ['acme-com.mail.protection.outlook.com', 'microsoft'],
    ['mta5.am0.yahoodns.net', 'yahoo'],
    ['mx01.mail.icloud.com', 'apple'],
    ['mx.zoho.eu', 'zoho'],
    ['mail.protonmail.ch', 'proton'],
    ['in1-smtp.messagingengine.com', 'fastmail'],
    ['eu-smtp-inbound-1.mimecast.com', 'mimecast'],
    ['mx0a-00123456.pphosted.com', 'proofpoint'],
    ['d123.ess.barracudanetworks.com', 'barracuda'],
    ['mx1.acme.test', 'other'],
    ['notgoogle.com', 'other'],
  ] as const) {
    test(`${host} is ${family}`, () => assert.equal(familyOfHost(host), family));
  }
  test('the first MX host with a known family decides; no MX hosts means null', () => {
    assert.equal(providerFamily(['mx.acme.test', 'eu-smtp-inbound-1.mimecast.com']), 'mimecast');
    assert.equal(providerFamily(['mx.acme.test']), 'other');
    assert.equal(providerFamily([]), null);
  });
});
