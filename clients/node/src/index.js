export { CardcoreClient, CardcoreError, GameSession, PROTO_ROOT } from './client.js';
export {
  VerifyError,
  canonical,
  checkDeal,
  checkRngVectors,
  mix64,
  parseJson,
  Rng,
  rngVectorsFromMarkdown,
  shuffled,
  standardDeck,
  streamKey,
  verifyLog,
} from './verify.js';
