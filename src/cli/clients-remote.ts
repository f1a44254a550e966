import { type AdminClient, AdminApiError } from './admin-client.js';
import { describeClient, lineOfMetadata, printSecret, remoteClient } from './client-lines.js';
import { type CliIo, listField, oneOf } from './command.js';

/**
 * `clients list|add|remove|rotate-secret --url URL`: the same commands on a running fleet,
 * through the admin API (`/admin/v1/clients`, RFC 7591 metadata). The lines are those of the
 * file variant, with the client's `source` (file, admin, registration) in the list.
 */

const path = (clientId: string) => `/clients/${encodeURIComponent(clientId)}`;

export const CLIENT_SOURCES = ['file', 'admin', 'registration'] as const;

export interface ClientFilters {
  readonly source?: string | undefined;
  /** A grant type as the API names it (full URN for the URN grant types). */
  readonly grantType?: string | undefined;
  /** Part of the client's id or name. */
  readonly search?: string | undefined;
}

export async function listRemoteClients(api: AdminClient, filters: ClientFilters, io: CliIo): Promise<void> {
  const source = oneOf('--source', filters.source, CLIENT_SOURCES);
  const items = await api.listAll('/clients', { source, grant_type: filters.grantType, q: filters.search });
  for (const item of items) {
    const client = remoteClient(item);
    const extra = [...(client.disabled ? ['disabled'] : []), ...(client.source ? [listField('source', client.source)] : [])];
    io.stdout.write(`${[describeClient(lineOfMetadata(client)), ...extra].join('  ')}\n`);
  }
}

/** What the API answered a creation or a new secret with: the client's id and, once, its secret. */
function created(answer: unknown, fallbackId: string): { clientId: string; secret: string | undefined } {
  const { client_id: clientId, client_secret: secret } = (answer ?? {}) as { client_id?: unknown; client_secret?: unknown };
  return { clientId: typeof clientId === 'string' ? clientId : fallbackId, secret: typeof secret === 'string' ? secret : undefined };
}

/** `metadata`: what the file variant writes, less the secret's digest (the server makes the secret and answers it once). */
export async function addRemoteClient(api: AdminClient, metadata: Readonly<Record<string, unknown>>, io: CliIo): Promise<void> {
  const answer = created(await api.call('POST', '/clients', { json: metadata }), String(metadata.client_id));
  io.stdout.write(`added client ${answer.clientId} to ${api.server}\n`);
  if (answer.secret !== undefined) printSecret(io, answer.secret);
}

export async function removeRemoteClient(api: AdminClient, clientId: string, io: CliIo): Promise<void> {
  await api.call('DELETE', path(clientId));
  io.stdout.write(`removed client ${clientId} from ${api.server}\n`);
}

export async function rotateRemoteSecret(api: AdminClient, clientId: string, io: CliIo): Promise<void> {
  const answer = created(await api.call('POST', `${path(clientId)}/secret`), clientId);
  if (answer.secret === undefined) throw new AdminApiError(`the admin API at ${api.server} answered a new secret without client_secret`);
  io.stdout.write(`new secret for client ${clientId} at ${api.server}\n`);
  printSecret(io, answer.secret);
}
