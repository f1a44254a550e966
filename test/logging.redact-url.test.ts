import t from 'tap';
import { redactUrl } from '../src/http/logging.js';

t.test('redactUrl: only harmless query values reach a log', async (t) => {
  t.equal(redactUrl('/oauth2/token'), '/oauth2/token');
  t.equal(
    redactUrl('/oauth2/authorize?response_type=code&client_id=web%20app&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=read+write&state=s1&code_challenge=c1&nonce=n1'),
    '/oauth2/authorize?response_type=code&client_id=web%20app&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=read%20write&state=[REDACTED]&code_challenge=[REDACTED]&nonce=[REDACTED]',
  );
  t.equal(
    redactUrl('/oauth2/token?client_secret=s&code=c&code_verifier=v&password=p&refresh_token=r&access_token=a&token=t&assertion=x'),
    '/oauth2/token?client_secret=[REDACTED]&code=[REDACTED]&code_verifier=[REDACTED]&password=[REDACTED]&refresh_token=[REDACTED]&access_token=[REDACTED]&token=[REDACTED]&assertion=[REDACTED]',
  );
  t.equal(redactUrl('/oauth2/token?client_secrt=typo-value'), '/oauth2/token?[REDACTED]=[REDACTED]', 'an unknown name and its value are masked');
  t.equal(redactUrl('/oauth2/token?eyJhbGciOiJFUzI1NiJ9.bare-token'), '/oauth2/token?[REDACTED]=[REDACTED]', 'a bare value is masked');
  t.equal(redactUrl('/cb#access_token=fragment-value'), '/cb', 'a fragment is dropped');
  t.equal(redactUrl('/cb?scope=read#access_token=fragment-value'), '/cb?scope=read');
  t.equal(redactUrl('/cb?'), '/cb');
});
