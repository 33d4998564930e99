export {
  CardcoreClient,
  CardcoreError,
  ENTROPY_BYTES,
  GameSession,
  PROTO_ROOT,
  PlaySession,
  REVEAL_POLL_MS,
  entropyCommitment,
} from './client.js';
export { REPO_CARDCORE, Verifier, cardcoreDir, createVerifier } from './verify.js';
export { crossCheck } from './crosscheck.js';
export { canonical, parseJson } from './json.js';
export {
  COMMITMENT_TAG,
  DERIVATION,
  RNG_ALGORITHM,
  Rng,
  dealSeedInput,
  deriveDealSeed,
  mix64,
  shuffled,
  standardDeck,
  streamKey,
} from './rng.js';
