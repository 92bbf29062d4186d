import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseAddressList } from '../../src/cli/output/address-list.js';

describe('reading a batch input file', () => {
  test('a CSV with an email column uses that column, whatever its position and case', () => {
    const csv = 'name,EMAIL,company\nJane,jane@example.com,Acme\n"Doe, John",john@example.org,"Big, Co"\n';
    assert.deepEqual(parseAddressList(csv), ['jane@example.com', 'john@example.org']);
  });

  test('a CSV without an email header uses the first column of every row', () => {
    assert.deepEqual(parseAddressList('a@example.com,1\nb@example.com,2\n'), ['a@example.com', 'b@example.com']);
  });

  test('one address per line works, with blank lines, spaces, CRLF and a byte-order mark', () => {
    const text = '\uFEFFa@example.com\r\n\r\n  b@example.com  \r\nc@example.com';
    assert.deepEqual(parseAddressList(text), ['a@example.com', 'b@example.com', 'c@example.com']);
  });

  test('duplicates are kept: the service counts and dedupes them', () => {
    assert.deepEqual(parseAddressList('a@example.com\na@example.com\n'), ['a@example.com', 'a@example.com']);
  });
});
