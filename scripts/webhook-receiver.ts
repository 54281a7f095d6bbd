/**
 * A tiny webhook receiver: verifies every delivery with the Standard Webhooks reference library
 * (`standardwebhooks`), drops duplicates by webhook-id (deliveries are at least once), prints one
 * JSON line per event on stdout and answers 204 (400 to a bad signature, so it would be retried).
 *
 *   npx tsx scripts/webhook-receiver.ts --secret whsec_... [--port 9000] [--host 127.0.0.1] [--path /webhooks]
 *   npx tsx scripts/webhook-receiver.ts --secret-file ./secret.txt     (keeps the secret out of `ps`)
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values } = parseArgs({
  options: {
    secret: { type: 'string' },
    'secret-file': { type: 'string' },
    port: { type: 'string', default: '9000' },
    host: { type: 'string', default: '127.0.0.1' },
    path: { type: 'string', default: '/webhooks' },
    help: { type: 'boolean', short: 'h' },
  },
});
const secret = values.secret ?? (values['secret-file'] ? readFileSync(values['secret-file'], 'utf8').trim() : undefined);
if (values.help || !secret) {
  process.stderr.write('usage: tsx scripts/webhook-receiver.ts --secret whsec_... | --secret-file F [--port 9000] [--host 127.0.0.1] [--path /webhooks]\n');
  process.exit(values.help ? 0 : 2);
}

const wh = new Webhook(secret);
const seen = new Set<string>();
const note = (msg: string) => process.stderr.write(`[receiver] ${msg}\n`);

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== values.path) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > 1024 * 1024) req.destroy();
    else chunks.push(c);
  });
  req.on('end', () => {
    // Verify the raw body exactly as received: parsing and re-serialising JSON breaks signatures.
    const body = Buffer.concat(chunks).toString('utf8');
    let msg: { type: string; timestamp: string; data: Record<string, unknown> };
    try {
      msg = wh.verify(body, req.headers as Record<string, string>) as typeof msg;
    } catch (err) {
      note(`refused ${req.headers['webhook-id'] ?? '(no webhook-id)'}: ${(err as Error).message}`);
      res.writeHead(400).end();
      return;
    }
    const id = String(req.headers['webhook-id']);
    if (seen.has(id)) {
      note(`duplicate ${id} (already processed)`);
    } else {
      if (seen.size > 10_000) seen.delete(seen.values().next().value!);
      seen.add(id);
      const d = msg.data;
      process.stdout.write(
        JSON.stringify({ webhook_id: id, type: msg.type, timestamp: msg.timestamp, event_id: d.event_id ?? null, id: d.id ?? null, headline: d.headline ?? null, data: d }) + '\n',
      );
    }
    res.writeHead(204).end();
  });
});
server.listen(Number(values.port), values.host, () => note(`listening on http://${values.host}:${values.port}${values.path}`));
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => server.close(() => process.exit(0)));
