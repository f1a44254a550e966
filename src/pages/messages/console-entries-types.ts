import type { Html } from '../html.js';

/** The texts of the console's client and resource pages (src/pages/console/clients.ts, resources.ts), in one language. */

/** The navigation's entries of these pages. */
export type EntryNavId = 'clients' | 'resources';

/** What a change of a client or a resource leads back with (`?notice=<id>`). */
export type EntryNoticeId =
  'client-created' | 'client-saved' | 'client-deleted' | 'resource-created' | 'resource-saved' | 'resource-deleted';

/** Where an entry comes from, as the admin API says it (`source`). */
export type EntrySourceName = 'file' | 'admin' | 'registration';

/** What the pages of clients and of resources share: the list's filter, a file's read-only entry, a form and its errors. */
export interface EntryPagesMessages {
  readonly source: string;
  readonly anySource: string;
  readonly sources: Readonly<Record<EntrySourceName, string>>;
  readonly show: string;
  readonly edit: string;
  readonly delete: string;
  readonly readOnly: string;
  /** A file's entry: where to change it. */
  readonly fromFile: (file: Html) => Html;
  readonly created: string;
  readonly updated: string;
  readonly save: string;
  readonly formErrors: string;
  readonly otherErrors: string;
  readonly stale: string;
  readonly openCurrent: string;
  readonly taken: string;
  readonly deleteForever: string;
}

export interface ClientPagesMessages {
  readonly intro: string;
  readonly search: string;
  readonly newClient: string;
  readonly noClients: string;
  readonly caption: string;
  readonly clientId: string;
  readonly clientIdHint: string;
  readonly name: string;
  readonly grantTypes: string;
  readonly redirectUris: string;
  readonly redirectUrisHint: string;
  readonly scope: string;
  readonly scopeHint: string;
  readonly authMethod: string;
  readonly registered: string;
  readonly expiresAt: string;
  readonly create: string;
  readonly editTitle: (clientId: string) => string;
  readonly secretTitle: string;
  readonly secretCreated: (client: Html) => Html;
  readonly secretRotated: (client: Html) => Html;
  readonly secretOnce: string;
  readonly secretLabel: string;
  readonly copy: string;
  readonly copied: string;
  readonly copyFailed: string;
  readonly toClient: string;
  readonly newSecret: string;
  readonly rotateTitle: string;
  readonly rotateExplanation: (client: Html) => Html;
  readonly rotateButton: string;
  readonly deleteTitle: string;
  readonly deleteExplanation: (client: Html) => Html;
  readonly deleteRegistration: string;
  readonly deleteButton: string;
}

export interface ResourcePagesMessages {
  readonly intro: string;
  readonly newResource: string;
  readonly noResources: string;
  readonly caption: string;
  readonly resource: string;
  readonly resourceHint: string;
  readonly name: string;
  readonly scope: string;
  readonly scopeHint: string;
  readonly tokenLifetime: string;
  readonly tokenLifetimeHint: string;
  readonly create: string;
  readonly editTitle: (resource: string) => string;
  readonly deleteTitle: string;
  readonly deleteExplanation: (resource: Html) => Html;
  readonly deleteButton: string;
}

/** The texts of these pages in one language, members of the console's catalogue (its `nav` and `notices` take theirs too). */
export interface ConsoleEntryMessages {
  readonly entries: EntryPagesMessages;
  readonly clientPages: ClientPagesMessages;
  readonly resourcePages: ResourcePagesMessages;
}
