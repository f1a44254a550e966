import { hashPassword } from '../users/password.js';
import { type Command, type CommandGroup, parseCommandLine } from './command.js';

/** `password hash <password>`: the stored form of a user password (password_hash). */

const hash: Command = {
  name: 'hash',
  synopsis: '<password>',
  summary: 'print the stored form of a user password (password_hash)',
  description: `Prints "scrypt$N$r$p$<salt>$<hash>" on one line, for password_hash in USERS_FILE. The password
is an argument here; "users add" reads it from standard input instead, which keeps it out of
the process list and shell history.`,
  async run(args, io) {
    const { positionals } = parseCommandLine(args, {}, ['password']);
    io.stdout.write(`${await hashPassword(positionals[0] as string)}\n`);
  },
};

export const passwordGroup: CommandGroup = { name: 'password', summary: 'user passwords', commands: [hash] };
