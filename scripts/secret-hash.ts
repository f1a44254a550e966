import { hashClientSecret } from '../src/clients/secret.js';
import { runCli } from './cli.js';

/** Prints the stored form of a client secret (for client_secret_hash), on one line. */
await runCli(async () => {
  const secret = process.argv[2];
  if (secret === undefined || secret === '' || process.argv.length > 3) {
    throw new Error('usage: npm run --silent secret:hash -- <secret>');
  }
  process.stdout.write(`${hashClientSecret(secret)}\n`);
});
