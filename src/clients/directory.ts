import type { Client } from './registry.js';

/**
 * Where a client id is looked up. Clients come from more than one place: CLIENTS_FILE
 * (read-only, reloaded on SIGHUP), registrations made at the registration endpoint
 * (RFC 7591, kept in the store), and Client ID Metadata Documents (fetched from the
 * client's URL). Each is a source; the directory asks them in order and the first that
 * knows the id answers. A lookup may need the store or the network, so it is async.
 */
export interface ClientSource {
  find(clientId: string): Client | undefined | Promise<Client | undefined>;
}

export interface ClientDirectory {
  /** The client registered under exactly this id, or undefined. */
  find(clientId: string): Promise<Client | undefined>;
}

/**
 * A directory over sources asked in order. The file comes first, so an id from
 * CLIENTS_FILE can never be shadowed by one registered later.
 */
export function clientDirectory(...sources: readonly ClientSource[]): ClientDirectory {
  return {
    async find(clientId) {
      for (const source of sources) {
        const client = await source.find(clientId);
        if (client) return client;
      }
      return undefined;
    },
  };
}

/** A registry read synchronously (the clients file) as a source. */
export function registrySource(registry: { get(clientId: string): Client | undefined }): ClientSource {
  return { find: (clientId) => registry.get(clientId) };
}
