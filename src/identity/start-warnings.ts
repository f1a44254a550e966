import type { ProviderRegistry } from './providers.js';

interface Settings {
  readonly sessionSecret: string | undefined;
  readonly identityProviders: { readonly allowInsecure: boolean; readonly upstreamTokenSecret: string | undefined };
}

/** What a server says at start about its upstream identity providers: the settings only development should use. */
export function warnAboutIdentityProviders(config: Settings, providers: ProviderRegistry, log: { warn(message: string): void }): void {
  if (config.identityProviders.allowInsecure) {
    log.warn(
      'IDENTITY_PROVIDERS_ALLOW_INSECURE=true: identity providers may use http:// and loopback or private addresses; for development and tests only',
    );
  }
  const keeping = providers.all().filter((p) => p.keep_tokens);
  if (keeping.length > 0 && !config.identityProviders.upstreamTokenSecret && !config.sessionSecret) {
    log.warn(
      `keep_tokens is set (${keeping.map((p) => p.id).join(', ')}) without UPSTREAM_TOKEN_SECRET or SESSION_SECRET: kept upstream tokens are sealed with a random per-process key, unreadable after a restart and by other instances`,
    );
  }
}
