import { loadOperatorDefaults } from '../config/operator.js';
import { endpointsOf } from '../endpoints.js';
import { type ProviderConfig, ProviderRegistry } from '../identity/providers.js';
import { type Command, type CommandGroup, parseCommandLine, UsageError } from './command.js';

/** `providers list`: the upstream identity providers of IDENTITY_PROVIDERS_FILE, and what to register at each. */

function quoted(value: string): string {
  return /[\s"]/.test(value) ? JSON.stringify(value) : value;
}

function describe(provider: ProviderConfig, issuer: string): string {
  const endpoints = endpointsOf(issuer);
  const where = provider.type === 'oidc' ? `issuer=${provider.issuer}` : `base_url=${provider.base_url} api_url=${provider.api_url}`;
  const rules = [
    ...(provider.allowed_email_domains ? [`allowed_email_domains=${provider.allowed_email_domains.join(',')}`] : []),
    ...(provider.type === 'oidc' && provider.required_claims ? [`required_claims=${Object.keys(provider.required_claims).join(',')}`] : []),
    ...(provider.type === 'github' && provider.allowed_organizations
      ? [`allowed_organizations=${provider.allowed_organizations.join(',')}`]
      : []),
    ...(provider.keep_tokens ? ['keep_tokens'] : []),
    ...(provider.end_session ? ['end_session'] : []),
  ];
  const lines = [
    [provider.id, provider.type, quoted(provider.name), where, `client_id=${quoted(provider.client_id)}`, ...rules].join(' '),
    `  redirect URI to register: ${endpoints.upstreamCallbackUrl(provider.id)}`,
    ...(provider.end_session ? [`  post-logout redirect URI to register: ${endpoints.upstreamSignedOutUrl(provider.id)}`] : []),
  ];
  return lines.join('\n');
}

const list: Command = {
  name: 'list',
  synopsis: '[--file IDENTITY_PROVIDERS_FILE] [--issuer ISSUER]',
  summary: 'the identity providers, and the redirect URI to register at each',
  description: `One entry per provider of --file (default IDENTITY_PROVIDERS_FILE): id, type, name, where it
is (issuer, or GitHub's base_url and api_url), our client_id there and its access rules, then
the redirect URI to register at the provider ({ISSUER}/oauth2/upstream/{id}/callback) and, with
end_session, the post-logout redirect URI. --issuer defaults to ISSUER (else
http://localhost:PORT). Client secrets are never printed. The file is validated as the server
loads it (IDENTITY_PROVIDERS_ALLOW_INSECURE decides about http:// URLs): a bad file fails
(exit 1) with the server's message.`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { file: { type: 'string' }, issuer: { type: 'string' } });
    const defaults = loadOperatorDefaults(io.env);
    const file = values.file ?? defaults.identityProvidersFile;
    if (!file) throw new UsageError('name the providers file with --file or IDENTITY_PROVIDERS_FILE');
    const issuer = (values.issuer ?? defaults.issuer).replace(/\/+$/, '');
    if (!URL.canParse(issuer)) throw new UsageError('--issuer must be an absolute URL');
    const providers = await ProviderRegistry.load(file, { allowHttp: defaults.identityProvidersAllowInsecure });
    for (const provider of providers.all()) io.stdout.write(`${describe(provider, issuer)}\n`);
  },
};

export const providersGroup: CommandGroup = {
  name: 'providers',
  summary: 'upstream identity providers (IDENTITY_PROVIDERS_FILE)',
  commands: [list],
};
