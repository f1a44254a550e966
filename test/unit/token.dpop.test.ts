import t from 'tap';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { NATIVE_CLIENT, registrationServer } from '../helpers/registration.js';
import { FORM_HEADERS, form } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';
import { dpopTokenEndpointSuite } from '../suites/dpop.js';

dpopTokenEndpointSuite(t, 'memory store', memoryStore);

t.test('dynamic registration: dpop_bound_access_tokens (RFC 9449 §5.2) is kept and makes a proof mandatory', async (t) => {
  const server = await registrationServer(t);
  const registered = await server.registered(t, { ...NATIVE_CLIENT, dpop_bound_access_tokens: true });
  t.equal(registered.dpop_bound_access_tokens, true, 'echoed in the client information response');
  const plain = await server.registered(t, { ...NATIVE_CLIENT, dpop_bound_access_tokens: false });
  t.equal(plain.dpop_bound_access_tokens, undefined, 'false is the default, not stored');
  const redeem = (clientId: string) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: form({ grant_type: 'authorization_code', code: 'x', client_id: clientId }),
    });
  expectOAuthError(t, await redeem(registered.client_id), {
    status: 400,
    error: 'invalid_dpop_proof',
    description: 'this client must send a DPoP proof (dpop_bound_access_tokens)',
  });
  t.equal((await redeem(plain.client_id)).json().error, 'invalid_grant', 'the other client reaches the grant');
});
