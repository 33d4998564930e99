// Loaded first (`node --import ./test/no-network.js …`): every way Node has to reach the network
// throws, so that a run that tries to fails. verify-cli.test.js runs the verifier under it.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';

const refuse = (what) => () => {
  throw new Error(`no network here (${what})`);
};
const ways = [
  [net, ['connect', 'createConnection']],
  [tls, ['connect']],
  [http, ['request', 'get']],
  [https, ['request', 'get']],
  [dns, ['lookup', 'resolve']],
];
for (const [module, names] of ways) for (const name of names) module[name] = refuse(name);
globalThis.fetch = refuse('fetch');
globalThis.WebSocket = refuse('WebSocket');
syncBuiltinESMExports();
