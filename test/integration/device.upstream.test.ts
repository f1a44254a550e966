import { decodeJwt } from 'jose';
import t from 'tap';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { DEVICE_GRANT } from '../helpers/device-flow.js';
import { FORM_HEADERS } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';
import { pageForms, visitUpstream } from '../helpers/upstream-browser.js';
import { ACCOUNTS, federation, pageTitle } from '../helpers/upstream-fixtures.js';

/**
 * A device verification (RFC 8628 §3.3) signs the user in through an upstream identity provider
 * (node-oidc-provider over real HTTP), the same way as an authorization request: with no local
 * users and one provider, the code typed at /device goes straight to it, its callback comes back
 * to /device with the sign-in's mark, and on to the device's consent page. A sign-in cancelled
 * there is a page, and the device is not denied.
 */

const TV = { client_id: 'tv', client_name: 'Hotel TV', token_endpoint_auth_method: 'none', grant_types: [DEVICE_GRANT] };

t.test('/device signs in through the upstream provider, then asks for consent; the device gets tokens for the fed_ subject', async (t) => {
  const f = await federation(t, { store: await memoryStore(t), localUsers: false, clients: [TV] });
  const app = f.server.app;
  const start = async () =>
    (
      await app.inject({
        method: 'POST',
        url: '/oauth2/device_authorization',
        headers: FORM_HEADERS,
        payload: new URLSearchParams({ client_id: 'tv', scope: 'openid mcp:tools', resource: 'https://mcp.example.com/mcp' }).toString(),
      })
    ).json() as { device_code: string; user_code: string };
  const poll = async (deviceCode: string) =>
    (
      await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: FORM_HEADERS,
        payload: new URLSearchParams({ client_id: 'tv', grant_type: DEVICE_GRANT, device_code: deviceCode }).toString(),
      })
    ).json() as Record<string, string>;

  const browser = f.browser();
  const enter = async (userCode: string) => {
    const [form] = pageForms(await browser.get('/device'));
    return browser.submit(form as NonNullable<typeof form>, { user_code: userCode });
  };

  const cancelled = await start();
  const toUpstream = await enter(cancelled.user_code);
  t.equal(toUpstream.status, 303);
  t.equal(`${toUpstream.location?.origin}${toUpstream.location?.pathname}`, `${f.upstream.issuer}/auth`, 'straight to the provider');
  const failed = await browser.follow(
    await visitUpstream(browser, toUpstream, f.upstream.issuer, { login: ACCOUNTS.ada.sub, cancel: 'login' }),
  );
  t.equal(failed.status, 400);
  t.equal(pageTitle(failed), 'Sign-in did not succeed');
  t.same(await poll(cancelled.device_code), {
    error: 'authorization_pending',
    error_description: 'the user has not yet approved or denied the request',
  });

  const started = await start();
  const back = await visitUpstream(browser, await enter(started.user_code), f.upstream.issuer, { login: ACCOUNTS.ada.sub });
  const consent = await browser.follow(back);
  t.match(consent.url.href, /\/device\?user_code=[A-Z]{8}&signed_in=/, 'back to /device with the mark of the sign-in');
  t.equal(pageTitle(consent), 'Allow access?');
  t.match(consent.body, 'Hotel TV</strong> asks for access to your account from a device');
  const [decision] = pageForms(consent);
  const approved = await browser.submit(decision as NonNullable<typeof decision>, { decision: 'allow' });
  t.equal(pageTitle(approved), 'Device connected');
  const tokens = await poll(started.device_code);
  const sub = federatedSubject('corp', ACCOUNTS.ada.sub);
  t.match(decodeJwt(tokens.access_token as string), { sub, client_id: 'tv', aud: 'https://mcp.example.com/mcp', scope: 'mcp:tools' });
  t.match(decodeJwt(tokens.id_token as string), { sub, aud: 'tv' });
});
