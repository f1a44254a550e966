import { isDynamicClientId } from '../clients/registered-client.js';

/** The `client_id` label of clients registered at the registration endpoint (RFC 7591). */
export const DYNAMIC_CLIENTS_LABEL = 'dynamic';
/** The `client_id` label of clients whose client_id is the URL of their metadata document. */
export const METADATA_DOCUMENT_CLIENTS_LABEL = 'metadata_document';

/**
 * A `client_id` label with bounded values: clients of CLIENTS_FILE (the operator's list)
 * by id; clients that register themselves, or that name a metadata document, each
 * aggregated under one value, since anyone can create them without limit.
 */
export function clientLabel(clientId: string): string {
  if (isDynamicClientId(clientId)) return DYNAMIC_CLIENTS_LABEL;
  if (clientId.startsWith('https://') || clientId.startsWith('http://')) return METADATA_DOCUMENT_CLIENTS_LABEL;
  return clientId;
}
