import { hashClientSecret } from '../clients/secret.js';
import { type Command, type CommandGroup, parseCommandLine } from './command.js';

/** `secret hash <secret>`: the stored form of a client secret you chose (client_secret_hash). */

const hash: Command = {
  name: 'hash',
  synopsis: '<secret>',
  summary: 'print the stored form of a client secret (client_secret_hash)',
  description: `Prints "sha256:<digest>" on one line, for client_secret_hash in CLIENTS_FILE. Choose a secret
of at least 256 bits of entropy ("clients add" and "clients rotate-secret" generate one).`,
  async run(args, io) {
    const { positionals } = parseCommandLine(args, {}, ['secret']);
    io.stdout.write(`${hashClientSecret(positionals[0] as string)}\n`);
  },
};

export const secretGroup: CommandGroup = { name: 'secret', summary: 'client secrets', commands: [hash] };
