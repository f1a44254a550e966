/**
 * How the `client_id` of every workload's access token begins: `workload:{trust id}`
 * (WORKLOAD_TRUSTS_FILE, src/workloads/). No client's id may, so a workload's token never
 * passes for a client's, and a resource server tells them apart by the prefix alone.
 */
export const WORKLOAD_CLIENT_PREFIX = 'workload:';

export const WORKLOAD_PREFIX_RESERVED = `must not begin with "${WORKLOAD_CLIENT_PREFIX}" (reserved for the tokens of workloads)`;
