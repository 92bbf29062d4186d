/**
 * The baseline server of the API and batch benchmarks: bare Fastify routes doing nothing
 * beyond what every JSON API does (parse the body, send a reply), in their own process like
 * the service. argv[2] is the port.
 * - `POST /v1/verify`, `POST /v1/requests`: parse the JSON body, answer `{ ok: true }`;
 * - `PUT /page` stores a JSON document, `GET /page` sends it back (a canned results page).
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
let page: unknown = {};
app.post('/v1/verify', async () => ({ ok: true }));
app.post('/v1/requests', async () => ({ ok: true }));
app.put('/page', async (request) => {
  page = request.body;
  return { ok: true };
});
app.get('/page', async () => page);
app.get('/healthz', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
