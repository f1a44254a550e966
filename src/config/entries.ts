import { z } from 'zod';
import { integer } from './fields.js';

/**
 * The variables of the entries the admin API manages (src/entries/), parsed with the others
 * (src/config/index.ts stays the only reader of process.env).
 */

export const ENTRIES_FIELDS = {
  /** Seconds between each instance's checks of the store's entry version (a change missed on the channel). */
  ENTRIES_SYNC_INTERVAL: integer('ENTRIES_SYNC_INTERVAL', 1, 3600, 'seconds').default(2),
  /** The key the client secrets of identity providers created through the admin API are sealed under. */
  ENTRIES_ENCRYPTION_KEY: z.string().min(32, 'ENTRIES_ENCRYPTION_KEY must be at least 32 characters').optional(),
};

type EntriesVariables = z.output<z.ZodObject<typeof ENTRIES_FIELDS>>;

export interface EntriesConfig {
  readonly entries: {
    readonly syncIntervalSeconds: number;
    readonly encryptionKey: string | undefined;
  };
}

export function entriesConfig(e: EntriesVariables): EntriesConfig {
  return {
    entries: Object.freeze({ syncIntervalSeconds: e.ENTRIES_SYNC_INTERVAL, encryptionKey: e.ENTRIES_ENCRYPTION_KEY }),
  };
}
