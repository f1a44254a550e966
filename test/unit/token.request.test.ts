import type { Test } from 'tap';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, form, ISSUER, NO_STORE_JSON, SECRETS, TEST_CLIENTS } from '../helpers/server.js';

const WWW_AUTHENTICATE = `Basic realm="${ISSUER}", charset="UTF-8"`;

t.test('POST /oauth2/token request validation', async (t) => {
  const odd = { id: 'odd client:1', secret: 'p+s%w:rd é' };
  const { app } = await buildTestServer(t, {
    clients: [
      ...TEST_CLIENTS,
      {
        client_id: 'odd client:1'.replace(' ', '_'),
        client_secret_hash: hashClientSecret(odd.secret),
        grant_types: ['client_credentials'],
        scope: 'read',
      },
    ],
  });
  const post = (payload: string, headers: Record<string, string> = {}, url = '/oauth2/token') =>
    app.inject({ method: 'POST', url, headers: { ...FORM_HEADERS, ...headers }, payload });
  const expectError = async (t: Test, res: Awaited<ReturnType<typeof post>>, status: number, error: string, description: string) => {
    t.equal(res.statusCode, status);
    t.match(res.headers, NO_STORE_JSON);
    t.same(res.json(), { error, error_description: description });
  };
  const valid = form({ grant_type: 'client_credentials' });
  const serviceAuth = { authorization: basic('service', SECRETS.service) };

  t.test('content types other than application/x-www-form-urlencoded are invalid_request', async (t) => {
    for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await post(type === 'application/json' ? '{"grant_type":"client_credentials"}' : valid, {
        ...serviceAuth,
        'content-type': type,
      });
      await expectError(t, res, 400, 'invalid_request', 'unsupported content type: use application/x-www-form-urlencoded');
    }
  });

  t.test('a missing body is invalid_request', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/oauth2/token', headers: serviceAuth });
    await expectError(t, res, 400, 'invalid_request', 'the request body must be application/x-www-form-urlencoded');
  });

  t.test('a charset parameter on the content type is accepted', async (t) => {
    const res = await post(valid, { ...serviceAuth, 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' });
    t.equal(res.statusCode, 200);
  });

  t.test('a repeated parameter is invalid_request (RFC 6749 §3.1)', async (t) => {
    const res = await post('grant_type=client_credentials&scope=read&scope=write', serviceAuth);
    await expectError(t, res, 400, 'invalid_request', "parameter 'scope' is repeated");
  });

  t.test('a missing or empty grant_type is invalid_request', async (t) => {
    await expectError(t, await post('scope=read', serviceAuth), 400, 'invalid_request', "parameter 'grant_type' is required");
    await expectError(t, await post('grant_type=&scope=read', serviceAuth), 400, 'invalid_request', "parameter 'grant_type' is required");
  });

  t.test('an unknown grant_type is unsupported_grant_type', async (t) => {
    for (const grant of ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'implicit', 'CLIENT_CREDENTIALS']) {
      const res = await post(form({ grant_type: grant }), serviceAuth);
      await expectError(t, res, 400, 'unsupported_grant_type', 'the grant_type is not supported by this authorization server');
    }
  });

  t.test('an oversized body is invalid_request, not a 500', async (t) => {
    const res = await post(`grant_type=client_credentials&pad=${'x'.repeat(70 * 1024)}`, serviceAuth);
    await expectError(t, res, 400, 'invalid_request', 'request body is too large');
  });

  t.test('client authentication', async (t) => {
    t.test('no credentials at all: invalid_client, 401, WWW-Authenticate', async (t) => {
      const res = await post(valid);
      await expectError(t, res, 401, 'invalid_client', 'client authentication is required');
      t.equal(res.headers['www-authenticate'], WWW_AUTHENTICATE);
    });

    t.test('unknown client and wrong secret get the same invalid_client', async (t) => {
      for (const authorization of [basic('nobody', SECRETS.service), basic('service', 'wrong'), basic('service', `${SECRETS.service}x`)]) {
        const res = await post(valid, { authorization });
        await expectError(t, res, 401, 'invalid_client', 'client authentication failed');
        t.equal(res.headers['www-authenticate'], WWW_AUTHENTICATE);
      }
      const inBody = await post(form({ grant_type: 'client_credentials', client_id: 'poster', client_secret: 'wrong' }));
      await expectError(t, inBody, 401, 'invalid_client', 'client authentication failed');
      t.equal(inBody.headers['www-authenticate'], WWW_AUTHENTICATE);
    });

    t.test('id and secret are form-urlencoded inside Basic (RFC 6749 §2.3.1)', async (t) => {
      const res = await post(valid, { authorization: basic('odd_client:1', odd.secret) });
      t.equal(res.statusCode, 200);
    });

    t.test('a malformed Basic header is invalid_request', async (t) => {
      for (const authorization of [
        'Basic',
        'Basic !!!',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        `Basic ${Buffer.from(':secret').toString('base64')}`,
        `Basic ${Buffer.from('%zz:secret').toString('base64')}`,
      ]) {
        const res = await post(valid, { authorization });
        await expectError(t, res, 400, 'invalid_request', 'malformed HTTP Basic credentials');
      }
    });

    t.test('another Authorization scheme is invalid_request', async (t) => {
      const res = await post(valid, { authorization: 'Bearer abc' });
      await expectError(t, res, 400, 'invalid_request', 'unsupported Authorization scheme: use HTTP Basic');
    });

    t.test('Basic and client_secret together are invalid_request (RFC 6749 §2.3)', async (t) => {
      const res = await post(form({ grant_type: 'client_credentials', client_secret: SECRETS.service }), serviceAuth);
      await expectError(t, res, 400, 'invalid_request', 'client authenticated with both HTTP Basic and client_secret');
    });

    t.test('a body client_id that contradicts Basic is invalid_request', async (t) => {
      const res = await post(form({ grant_type: 'client_credentials', client_id: 'poster' }), serviceAuth);
      await expectError(t, res, 400, 'invalid_request', 'client_id does not match the HTTP Basic credentials');
    });

    t.test('a client secret in the query string is invalid_request', async (t) => {
      const res = await post(
        form({ grant_type: 'client_credentials', client_id: 'poster' }),
        {},
        `/oauth2/token?client_secret=${SECRETS.poster}`,
      );
      await expectError(t, res, 400, 'invalid_request', 'client_secret must not be sent in the query string');
    });

    t.test('a public client cannot use client_credentials', async (t) => {
      const res = await post(form({ grant_type: 'client_credentials', client_id: 'spa' }));
      await expectError(t, res, 400, 'unauthorized_client', 'this client is not registered for grant_type client_credentials');
    });
  });
});

t.test('error_description stays inside the RFC 6749 §5.2 character set, whatever the client sent', async (t) => {
  const { app } = await buildTestServer(t);
  const res = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: FORM_HEADERS,
    payload: 'grant_type=client_credentials&na%22m%5Ce%C3%A9=1&na%22m%5Ce%C3%A9=2',
  });
  expectOAuthError(t, res, { status: 400, error: 'invalid_request', description: "parameter 'na'm/e?' is repeated" });
});
