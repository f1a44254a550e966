/**
 * How the `sub` of every user who signs in through an upstream identity provider begins
 * (src/identity/federated-subject.ts). No other subject may: USERS_FILE refuses a user's
 * sub, and CLIENTS_FILE a client_credentials client's id (its tokens' sub), that begins so.
 */
export const FEDERATED_PREFIX = 'fed_';

export const FEDERATED_PREFIX_RESERVED = `must not begin with "${FEDERATED_PREFIX}" (reserved for users who sign in through an identity provider)`;
