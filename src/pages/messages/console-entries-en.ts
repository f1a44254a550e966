import { html } from '../html.js';
import type { ConsoleEntryMessages, EntryNavId, EntryNoticeId } from './console-entries-types.js';

export const entryNavEn: Record<EntryNavId, string> = { clients: 'Clients', resources: 'Resources' };

export const entryNoticesEn: Record<EntryNoticeId, string> = {
  'client-created': 'The client was created.',
  'client-saved': 'The client was saved.',
  'client-deleted': 'The client was deleted and its grants revoked.',
  'resource-created': 'The resource was added.',
  'resource-saved': 'The resource was saved.',
  'resource-deleted': 'The resource was deleted.',
};

export const consoleEntriesEn: ConsoleEntryMessages = {
  entries: {
    source: 'Source',
    anySource: 'Every source',
    sources: { file: 'File', admin: 'Added here', registration: 'Registered (RFC 7591)' },
    show: 'Show',
    edit: 'Edit',
    delete: 'Delete',
    readOnly: 'Read-only',
    fromFile: (file) => html`Declared in ${file}: it is read-only here, change it in that file.`,
    created: 'Created',
    updated: 'Changed',
    save: 'Save changes',
    formErrors: 'Nothing was saved: correct the fields marked below.',
    otherErrors: 'Also:',
    stale:
      'Someone changed this entry since you opened this form, so nothing was saved (your values are kept below). Open the current version and make your change again.',
    openCurrent: 'Open the current version',
    taken: 'This id is taken already.',
    deleteForever: 'This cannot be undone.',
  },
  clientPages: {
    intro:
      'The clients of this server: those of the clients file (read-only here), those added here, and those that registered themselves (listed for cleanup).',
    search: 'Search (ID or name)',
    newClient: 'New client',
    noClients: 'No client matches.',
    caption: 'Clients',
    clientId: 'Client ID',
    clientIdHint: 'Left empty, one is generated.',
    name: 'Name',
    grantTypes: 'Grant types',
    redirectUris: 'Redirect URIs',
    redirectUrisHint: 'One per line: https, or http on a loopback address.',
    scope: 'Scopes',
    scopeHint: 'Space-separated: the scopes the client may ask for.',
    authMethod: 'Authentication at the token endpoint',
    registered: 'Registered',
    expiresAt: 'Expires unless used',
    create: 'Create the client',
    editTitle: (clientId) => `Client ${clientId}`,
    secretTitle: 'The client secret',
    secretCreated: (client) => html`The client ${client} was created. Its secret:`,
    secretRotated: (client) => html`The client ${client} has a new secret; the previous one no longer works. The new secret:`,
    secretOnce: 'This page is the only place the secret is shown: the server keeps only its digest. Copy it now and store it safely.',
    secretLabel: 'Client secret',
    copy: 'Copy the secret',
    copied: 'The secret is on the clipboard.',
    copyFailed: 'The secret could not be copied: select it and copy it.',
    toClient: 'Done: back to the client',
    newSecret: 'New secret',
    rotateTitle: 'Give this client a new secret?',
    rotateExplanation: (client) =>
      html`The current secret of ${client} stops working at once: the client must use the new one, shown once on the next page.`,
    rotateButton: 'Make a new secret',
    deleteTitle: 'Delete this client?',
    deleteExplanation: (client) =>
      html`${client} is refused everywhere within a second, and every grant it holds is revoked: its refresh tokens stop working.`,
    deleteRegistration: 'The client registered itself (RFC 7591); deleting it cleans it up.',
    deleteButton: 'Delete the client',
  },
  resourcePages: {
    intro:
      'The protected resources (RFC 8707) this server issues tokens for: those of the resources file (read-only here) and those added here.',
    newResource: 'New resource',
    noResources: 'No resource yet.',
    caption: 'Resources',
    resource: 'Resource (URI)',
    resourceHint: 'An absolute URI without a fragment; the tokens for it carry it as their audience.',
    name: 'Name',
    scope: 'Scopes',
    scopeHint: 'Space-separated: the scopes of this resource.',
    tokenLifetime: 'Access token lifetime (seconds)',
    tokenLifetimeHint: "Left empty: the server's ACCESS_TOKEN_TTL.",
    create: 'Add the resource',
    editTitle: (resource) => `Resource ${resource}`,
    deleteTitle: 'Delete this resource?',
    deleteExplanation: (resource) =>
      html`No new token is issued for ${resource}; tokens already issued for it stay valid until they expire.`,
    deleteButton: 'Delete the resource',
  },
};
