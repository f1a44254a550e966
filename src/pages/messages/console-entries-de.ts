import { html } from '../html.js';
import type { ConsoleEntryMessages, EntryNavId, EntryNoticeId } from './console-entries-types.js';

export const entryNavDe: Record<EntryNavId, string> = { clients: 'Clients', resources: 'Ressourcen' };

export const entryNoticesDe: Record<EntryNoticeId, string> = {
  'client-created': 'Der Client wurde angelegt.',
  'client-saved': 'Der Client wurde gespeichert.',
  'client-deleted': 'Der Client wurde gelöscht und seine Berechtigungen widerrufen.',
  'resource-created': 'Die Ressource wurde hinzugefügt.',
  'resource-saved': 'Die Ressource wurde gespeichert.',
  'resource-deleted': 'Die Ressource wurde gelöscht.',
};

export const consoleEntriesDe: ConsoleEntryMessages = {
  entries: {
    source: 'Herkunft',
    anySource: 'Jede Herkunft',
    sources: { file: 'Datei', admin: 'Hier angelegt', registration: 'Selbst registriert (RFC 7591)' },
    show: 'Anzeigen',
    edit: 'Bearbeiten',
    delete: 'Löschen',
    readOnly: 'Nur lesbar',
    fromFile: (file) => html`Festgelegt in ${file}: hier nur lesbar, Änderungen in dieser Datei.`,
    created: 'Angelegt',
    updated: 'Geändert',
    save: 'Änderungen speichern',
    formErrors: 'Nichts wurde gespeichert: Bitte korrigieren Sie die markierten Felder.',
    otherErrors: 'Außerdem:',
    stale:
      'Jemand hat diesen Eintrag geändert, seit Sie dieses Formular geöffnet haben. Nichts wurde gespeichert (Ihre Werte stehen unten). Öffnen Sie die aktuelle Fassung und nehmen Sie Ihre Änderung erneut vor.',
    openCurrent: 'Aktuelle Fassung öffnen',
    taken: 'Diese Kennung ist schon vergeben.',
    deleteForever: 'Das lässt sich nicht rückgängig machen.',
  },
  clientPages: {
    intro:
      'Die Clients dieses Servers: die der Client-Datei (hier nur lesbar), die hier angelegten und die selbst registrierten (zum Aufräumen aufgeführt).',
    search: 'Suche (ID oder Name)',
    newClient: 'Neuer Client',
    noClients: 'Kein Client passt.',
    caption: 'Clients',
    clientId: 'Client-ID',
    clientIdHint: 'Leer gelassen, wird eine erzeugt.',
    name: 'Name',
    grantTypes: 'Grant-Typen',
    redirectUris: 'Weiterleitungs-URIs',
    redirectUrisHint: 'Eine pro Zeile: https, oder http auf einer Loopback-Adresse.',
    scope: 'Scopes',
    scopeHint: 'Durch Leerzeichen getrennt: die Scopes, die der Client anfragen darf.',
    authMethod: 'Anmeldung am Token-Endpunkt',
    registered: 'Registriert',
    expiresAt: 'Läuft ab, wenn unbenutzt',
    create: 'Client anlegen',
    editTitle: (clientId) => `Client ${clientId}`,
    secretTitle: 'Das Client-Geheimnis',
    secretCreated: (client) => html`Der Client ${client} wurde angelegt. Sein Geheimnis:`,
    secretRotated: (client) => html`Der Client ${client} hat ein neues Geheimnis; das bisherige gilt nicht mehr. Das neue Geheimnis:`,
    secretOnce:
      'Nur auf dieser Seite wird das Geheimnis gezeigt: Der Server behält nur seinen Hashwert. Kopieren Sie es jetzt und bewahren Sie es sicher auf.',
    secretLabel: 'Client-Geheimnis',
    copy: 'Geheimnis kopieren',
    copied: 'Das Geheimnis ist in der Zwischenablage.',
    copyFailed: 'Das Geheimnis ließ sich nicht kopieren: Markieren und kopieren Sie es.',
    toClient: 'Fertig: zurück zum Client',
    newSecret: 'Neues Geheimnis',
    rotateTitle: 'Diesem Client ein neues Geheimnis geben?',
    rotateExplanation: (client) =>
      html`Das bisherige Geheimnis von ${client} gilt sofort nicht mehr: Der Client braucht das neue, das die nächste Seite einmal zeigt.`,
    rotateButton: 'Neues Geheimnis erzeugen',
    deleteTitle: 'Diesen Client löschen?',
    deleteExplanation: (client) =>
      html`${client} wird binnen einer Sekunde überall abgewiesen, und alle seine Berechtigungen werden widerrufen: Seine Refresh-Tokens gelten nicht mehr.`,
    deleteRegistration: 'Der Client hat sich selbst registriert (RFC 7591); Löschen räumt ihn auf.',
    deleteButton: 'Client löschen',
  },
  resourcePages: {
    intro:
      'Die geschützten Ressourcen (RFC 8707), für die dieser Server Tokens ausstellt: die der Ressourcen-Datei (hier nur lesbar) und die hier hinzugefügten.',
    newResource: 'Neue Ressource',
    noResources: 'Noch keine Ressource.',
    caption: 'Ressourcen',
    resource: 'Ressource (URI)',
    resourceHint: 'Eine absolute URI ohne Fragment; die Tokens dafür nennen sie als Zielgruppe (aud).',
    name: 'Name',
    scope: 'Scopes',
    scopeHint: 'Durch Leerzeichen getrennt: die Scopes dieser Ressource.',
    tokenLifetime: 'Gültigkeit der Access-Tokens (Sekunden)',
    tokenLifetimeHint: 'Leer gelassen: ACCESS_TOKEN_TTL des Servers.',
    create: 'Ressource hinzufügen',
    editTitle: (resource) => `Ressource ${resource}`,
    deleteTitle: 'Diese Ressource löschen?',
    deleteExplanation: (resource) =>
      html`Für ${resource} wird kein neues Token mehr ausgestellt; schon ausgestellte Tokens gelten bis zu ihrem Ablauf.`,
    deleteButton: 'Ressource löschen',
  },
};
