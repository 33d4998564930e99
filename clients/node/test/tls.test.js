// TLS: the Node client against `cardcore serve --tls-cert --tls-key` with a certificate for
// 127.0.0.1 made here (openssl); trusting it, the client is served; without it, refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { CardcoreClient } from '../src/index.js';
import { startServer } from './server.js';

test('the client talks TLS to a server with a certificate it trusts', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cardcore-tls-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  const server = await startServer('--tls-cert', cert, '--tls-key', key);
  try {
    assert.match(server.restUrl, /^https:\/\//);
    const trusted = new CardcoreClient(server.target, { tls: { rootCertificates: readFileSync(cert) } });
    const games = await trusted.listGames();
    assert.ok(games.length >= 5);
    const plain = new CardcoreClient(server.target, { deadlineMs: 2000 });
    await assert.rejects(plain.listGames());
    const blind = new CardcoreClient(server.target, { tls: true, deadlineMs: 2000 });
    await assert.rejects(blind.listGames());
  } finally {
    await server.stop();
  }
});
