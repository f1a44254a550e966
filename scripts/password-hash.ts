import { hashPassword } from '../src/users/password.js';
import { runCli } from './cli.js';

/** Prints the stored form of a user password (for password_hash), on one line. */
await runCli(async () => {
  const password = process.argv[2];
  if (password === undefined || password === '' || process.argv.length > 3) {
    throw new Error('usage: npm run --silent password:hash -- <password>');
  }
  process.stdout.write(`${await hashPassword(password)}\n`);
});
