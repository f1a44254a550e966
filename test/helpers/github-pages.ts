/** The HTML pages of the GitHub-compatible test server (github-server.ts): enough for Chromium to drive. */

/** Escapes text and attribute values (numeric entities, as test/helpers/browser-flow.ts's formFields decodes them). */
function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main>${body}</main></body></html>`;
}

export function errorPage(message: string): string {
  return layout('GitHub', `<h1>${escape(message)}</h1>`);
}

/** "Sign in to GitHub": the login alone (a test server has no passwords), then back to `returnTo`. */
export function signInPage(returnTo: string): string {
  return layout(
    'Sign in to GitHub',
    `<h1>Sign in to GitHub</h1>
<form method="post" action="/session">
<input type="hidden" name="return_to" value="${escape(returnTo)}">
<label for="login">Username or email address</label> <input id="login" name="login" autocomplete="username">
<button type="submit">Sign in</button>
</form>`,
  );
}

/** The page where the signed-in user authorizes the app (or cancels), its request carried in hidden fields. */
export function authorizePage(appName: string, login: string, scopes: readonly string[], query: URLSearchParams): string {
  const hidden = [...query].map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`).join('\n');
  return layout(
    `Authorize application`,
    `<h1>Authorize ${escape(appName)}</h1>
<p>Signed in as <strong>${escape(login)}</strong></p>
<p>${escape(appName)} wants to access your account: ${scopes.length > 0 ? escape(scopes.join(', ')) : 'public information only'}</p>
<form method="post" action="/login/oauth/authorize">
${hidden}
<button type="submit" name="authorize" value="0">Cancel</button>
<button type="submit" name="authorize" value="1">Authorize</button>
</form>`,
  );
}
