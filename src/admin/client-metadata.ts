import { z } from 'zod';
import { registeredClientMetadata } from '../clients/registered-client.js';
import type { RegisteredMetadata } from '../clients/registration-metadata.js';
import { checkPostLogoutRedirectUris, checkRedirectUris } from '../clients/registration-redirects.js';
import { ClientSchema } from '../clients/registry.js';
import { OAuthError } from '../errors/index.js';
import { validationProblem } from './problems.js';
import type { StoreEntryMeta } from '../registry/registry.js';
import type { EntryDocument, StoredClientRegistration } from '../store/types.js';

/**
 * A client as the admin API writes and answers it: RFC 7591 client metadata, the fields of
 * CLIENTS_FILE and of registration (one schema: each field's rule is CLIENTS_FILE's own),
 * with registration's redirect-URI rules on top (https, or http on a loopback address; no
 * fragment; no dangerous scheme). The secret is never written by a caller: the server
 * generates it and keeps its digest. Answers add the read-only `source`, `created_at`,
 * `updated_at`; `client_secret` only in the answer that created it.
 */

const { client_secret_hash: _digest, client_id: clientId, ...fields } = ClientSchema.shape;

/** Where a client comes from: CLIENTS_FILE, the admin API (the store), or a dynamic registration (RFC 7591). */
export const CLIENT_SOURCES = ['file', 'admin', 'registration'] as const;
export type ClientSource = (typeof CLIENT_SOURCES)[number];

/**
 * Registration's rules, URI by URI (a URI the file's own rule refuses, unparsable or with a
 * fragment, is reported once, by that rule): `redirect_uris[0]: must …` becomes the field
 * `redirect_uris.0` and its problem.
 */
function registrationRules(client: { redirect_uris: string[]; post_logout_redirect_uris: string[] }, ctx: z.RefinementCtx): void {
  const checked = (field: string, uris: readonly string[], check: (uri: string) => void) =>
    uris.forEach((uri, index) => {
      if (!URL.canParse(uri) || uri.includes('#')) return;
      try {
        check(uri);
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        ctx.addIssue({ code: 'custom', path: [field, index], message: err.description.replace(/^\w+\[\d+\]: /, '') });
      }
    });
  checked('redirect_uris', client.redirect_uris, (uri) => checkRedirectUris([uri], undefined));
  const applicationType = client.redirect_uris.every((uri) => uri.startsWith('https:')) ? 'web' : 'native';
  checked('post_logout_redirect_uris', client.post_logout_redirect_uris, (uri) => checkPostLogoutRedirectUris([uri], applicationType));
}

/** POST and PUT bodies (a PATCH is merged into the client's metadata, then read by this schema). */
export const ClientMetadataSchema = z
  .object({
    client_id: clientId.optional().describe('Generated (client-…) when left out of a POST; a PUT may repeat it, unchanged'),
    ...fields,
  })
  .strict()
  .superRefine(registrationRules);

export type ClientMetadata = z.output<typeof ClientMetadataSchema>;

/** A body read by ClientMetadataSchema; else the validation problem, field by field. */
export function parsedMetadata(value: unknown, detail: string): ClientMetadata {
  const parsed = ClientMetadataSchema.safeParse(value);
  if (!parsed.success) throw validationProblem(parsed.error.issues, detail);
  return parsed.data;
}

/** The client as answered: its metadata with every default, and where it comes from. */
export const ClientViewSchema = z
  .object({
    client_id: z.string(),
    ...fields,
    source: z.enum(CLIENT_SOURCES).describe('file: CLIENTS_FILE (read-only here); admin: this API; registration: RFC 7591'),
    created_at: z.number().int().optional().describe('Seconds since the epoch (none for a file entry)'),
    updated_at: z.number().int().optional(),
    application_type: z.enum(['web', 'native']).optional().describe('A dynamic registration’s'),
    software_id: z.string().optional(),
    software_version: z.string().optional(),
    expires_at: z.number().int().optional().describe('A dynamic registration expires then unless it is used'),
  })
  .strict();

/** The answer that created a secret (the client's creation, or a new secret): the only one that carries it. */
export const IssuedClientSchema = ClientViewSchema.extend({
  client_secret: z.string().optional().describe('Shown once: only its digest is kept'),
  // RFC 7591 §3.2.1: "REQUIRED if "client_secret" is issued"; 0: it does not expire.
  client_secret_expires_at: z.literal(0).optional(),
}).strict();

export type ClientView = z.output<typeof ClientViewSchema>;

/** Whether a client with this method authenticates with a secret we issue. */
export function usesSecret(method: string): boolean {
  return method === 'client_secret_basic' || method === 'client_secret_post';
}

/** A stored document with every default (CLIENTS_FILE's schema), or as it is when it no longer validates. */
function normalized(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const parsed = ClientSchema.safeParse(document);
  return parsed.success ? { ...parsed.data } : { ...document };
}

/** The metadata a PATCH is merged into: the client's, every default applied, without the secret's digest. */
export function clientMetadataOf(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { client_secret_hash: _hash, ...metadata } = normalized(document);
  return metadata;
}

/** A file or store client as answered. */
export function clientView(document: Readonly<Record<string, unknown>>, source: ClientSource, stored?: StoreEntryMeta): ClientView {
  return {
    ...(clientMetadataOf(document) as ClientView),
    source,
    ...(stored ? { created_at: stored.createdAt, updated_at: stored.updatedAt } : {}),
  };
}

/** A dynamically registered client as answered: its registered metadata (every grant it registered), read-only. */
export function registrationView({ record, expiresAt }: StoredClientRegistration): ClientView {
  const metadata = record.metadata as unknown as RegisteredMetadata;
  return {
    ...clientView(registeredClientMetadata(record, metadata.grant_types), 'registration'),
    created_at: record.issuedAt,
    application_type: metadata.application_type,
    ...(metadata.software_id === undefined ? {} : { software_id: metadata.software_id }),
    ...(metadata.software_version === undefined ? {} : { software_version: metadata.software_version }),
    expires_at: Math.floor(expiresAt / 1000),
  };
}

/** The document the store keeps: the metadata and the digest of the client's secret, if it has one. */
export function clientDocument(metadata: ClientMetadata, clientId: string, secretHash: string | undefined): EntryDocument {
  const { client_id: _id, ...rest } = metadata;
  return { client_id: clientId, ...rest, ...(secretHash === undefined ? {} : { client_secret_hash: secretHash }) };
}
