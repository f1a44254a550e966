import { generateClientSecret, hashClientSecret } from '../clients/secret.js';
import { type Command, type CommandGroup, parseCommandLine } from './command.js';

/** `registration token`: an initial access token for DYNAMIC_CLIENT_REGISTRATION=token (RFC 7591 §3). */

const token: Command = {
  name: 'token',
  synopsis: '',
  summary: 'mint an initial access token for client registration; prints it once with its digest',
  description: `Prints a new 256-bit initial access token once, and the digest the servers accept it by. Add the
digest to REGISTRATION_INITIAL_ACCESS_TOKENS (comma-separated) and restart the servers; hand the
token to whoever registers clients (Authorization: Bearer <token> at the registration endpoint).
The servers hold only digests. Remove a digest and restart to revoke its token.`,
  async run(args, io) {
    parseCommandLine(args, {});
    const value = generateClientSecret();
    io.stdout.write(
      `initial_access_token: ${value}\ndigest: ${hashClientSecret(value)}\n` +
        '(the token is shown once: add the digest to REGISTRATION_INITIAL_ACCESS_TOKENS and restart the servers)\n',
    );
  },
};

export const registrationGroup: CommandGroup = { name: 'registration', summary: 'dynamic client registration', commands: [token] };
