/** The few parts of node-oidc-provider (untyped JavaScript) the bench's peer server uses. */
declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  export type AdapterPayload = Record<string, unknown> & { grantId?: string; consumed?: unknown };

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Client {
    readonly clientId: string;
  }

  export interface Grant {
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface AuthorizationCode {
    save(): Promise<string>;
  }

  export interface KoaContext {
    readonly method: string;
    readonly path: string;
    readonly query: Record<string, string | string[] | undefined>;
    body: unknown;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly Client: { find(id: string): Promise<Client | undefined> };
    readonly Grant: new (fields: { accountId: string; clientId: string }) => Grant;
    readonly AuthorizationCode: new (fields: Record<string, unknown>) => AuthorizationCode;
    listen(port: number, host: string): Server;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    on(event: 'server_error', listener: (ctx: unknown, err: Error) => void): this;
  }
}
