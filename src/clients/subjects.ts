import type { Client } from './registry.js';
import type { User } from '../users/registry.js';

/** How messages name where the clients and the users came from (a file, or the dev entry's demo). */
export interface RegistrySources {
  readonly clients: string;
  readonly users: string;
}

export class SubjectCollisionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubjectCollisionError';
  }
}

/**
 * A `client_credentials` access token's `sub` is the client id (RFC 9068 §2.2: it
 * "SHOULD correspond to an identifier the authorization server uses to indicate the
 * client application"); a user's token carries the user's `sub`. Both are strings the
 * operator chooses, so they share one namespace, and RFC 9700 §4.15.1 says:
 * "Authorization servers SHOULD NOT allow clients to influence their client_id or any
 * other claim that could cause confusion with a genuine resource owner if a common
 * namespace for client IDs and user identifiers exists". A client registered for
 * `client_credentials` whose id is a user's `sub` is refused; a client without that
 * grant never appears as a `sub`, so its id may equal anything.
 */
export function assertDistinctSubjects(clients: readonly Client[], users: readonly User[], sources: RegistrySources): void {
  const userBySub = new Map(users.map((user) => [user.sub, user]));
  for (const client of clients) {
    const user = client.grantTypes.has('client_credentials') ? userBySub.get(client.clientId) : undefined;
    if (user) {
      throw new SubjectCollisionError(
        `client "${client.clientId}" (${sources.clients}) and user "${user.username}" (${sources.users}) share the subject "${user.sub}": ` +
          `the client's client_credentials tokens would carry the user's sub (RFC 9700 §4.15); change the client_id or the user's sub`,
      );
    }
  }
}
