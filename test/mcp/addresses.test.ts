import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { countUniqueAddresses, normaliseAddress } from '../../src/mcp/addresses.js';

describe('counting the credits a batch can hold', () => {
  test('the domain is lower-cased and trimmed; the local part keeps its case', () => {
    assert.equal(normaliseAddress('  Jane@Example.COM '), 'Jane@example.com');
  });

  test('an internationalised domain counts once in Unicode and in punycode', () => {
    assert.equal(countUniqueAddresses(['a@bücher.de', 'a@xn--bcher-kva.de', 'a@BÜCHER.de']), 1);
  });

  test('addresses that differ only in domain case or spaces are one credit', () => {
    assert.equal(countUniqueAddresses(['a@example.com', ' a@EXAMPLE.com', 'A@example.com', 'b@example.com']), 3);
  });
});
