import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { inspect } from 'node:util';
import { PresendClient, PresendResponseError } from '../../src/client/index.js';

// A base URL that points at something other than Presend (a web page, a captive portal)
// must fail clearly instead of handing back half-parsed objects.
describe('a base URL that is not a Presend service', () => {
  let server: Server;
  let baseUrl: string;
  let requests = 0;

  before(async () => {
    server = createServer((req, res) => {
      requests += 1;
      if (req.url?.startsWith('/v1/requests/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ hello: 'world' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Welcome</body></html>');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  test('an HTML answer is a PresendResponseError that names the content type, and is not retried', async () => {
    const client = new PresendClient({ baseUrl, apiKey: 'ps_test.' + 'a'.repeat(40) });
    const before = requests;
    await assert.rejects(client.verify({ email: 'deliverable@example.com' }), (error: unknown) => {
      assert.ok(error instanceof PresendResponseError);
      assert.equal(error.status, 200);
      assert.equal(error.contentType, 'text/html');
      assert.match(error.message, /not JSON/);
      return true;
    });
    assert.equal(requests - before, 1);
  });

  test('JSON of the wrong shape is a PresendResponseError that says what is missing', async () => {
    const client = new PresendClient({ baseUrl, apiKey: 'ps_test.' + 'a'.repeat(40) });
    await assert.rejects(client.getRequest('00000000-0000-4000-8000-000000000000'), (error: unknown) => {
      assert.ok(error instanceof PresendResponseError);
      assert.match(error.message, /request is missing/);
      return true;
    });
  });

  test('the API key never shows when the client is printed', () => {
    const key = 'ps_live.' + 'S'.repeat(40);
    const client = new PresendClient({ baseUrl, apiKey: key });
    assert.ok(!inspect(client, { showHidden: true, depth: 5 }).includes(key));
    assert.ok(!JSON.stringify(client).includes(key));
  });
});
