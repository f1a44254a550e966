import t from 'tap';
import { presentedClientCredentials } from '../../src/http/client-auth.js';
import { FormParams } from '../../src/oauth/form-params.js';

/**
 * RFC 6749 §2.3.1: the client id and secret are application/x-www-form-urlencoded before
 * HTTP Basic encodes them; values with nothing to decode are taken as they are.
 */

const basicOf = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;
const none = FormParams.empty();

t.test('HTTP Basic credentials are form-decoded (RFC 6749 §2.3.1)', async (t) => {
  t.same(presentedClientCredentials(basicOf('my%3Aclient:s%2Bcret+with+spaces%25'), none, none), {
    method: 'client_secret_basic',
    clientId: 'my:client',
    secret: 's+cret with spaces%',
  });
  t.same(presentedClientCredentials(basicOf('plain-client:AbC_-123'), none, none), {
    method: 'client_secret_basic',
    clientId: 'plain-client',
    secret: 'AbC_-123',
  });
  t.throws(() => presentedClientCredentials(basicOf('client:%E0%A4%A'), none, none), { message: 'malformed HTTP Basic credentials' });
});
