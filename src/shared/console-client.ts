/**
 * The client id of the console (src/console/): a client built into every server, like the
 * admin API is a resource every server has. No client of CLIENTS_FILE or of the store may
 * take it, so nothing shadows the console, nor the console anything.
 */
export const CONSOLE_CLIENT_ID = 'admin-console';

export const CONSOLE_CLIENT_ID_RESERVED = `must not be "${CONSOLE_CLIENT_ID}" (the console's, built into the server)`;
