import type { AdminProblem } from '../../admin/problems.js';
import { html, type Page } from '../html.js';
import type { SignInFailure } from '../messages/index.js';
import type { PageView } from '../view.js';
import { type ConsoleFrame, consolePage, csrfField } from './frame.js';

/** The console's pages outside its navigation: the 403 of a person who is no administrator, signed out, a sign-in that failed, a change refused. */

/** 403: signed in, but the console's token lacks the admin scopes. A way out: the account page, or signing out. */
export function forbiddenPage(
  view: PageView,
  who: string,
  paths: { readonly signOut: string; readonly account: string },
  csrfToken: string,
): Page {
  const t = view.t.console;
  return view.render(
    t.forbiddenTitle,
    html`<h1>${t.forbiddenTitle}</h1>
<p>${t.forbiddenExplanation(html`<strong>${who}</strong>`)}</p>
<p class="muted">${t.forbiddenWhatNow}</p>
<form method="post" action="${paths.signOut}">
${csrfField(csrfToken)}
<div class="actions"><a href="${paths.account}">${t.yourAccount}</a><button class="primary" type="submit">${t.signOut}</button></div>
</form>`,
    { referrerPolicy: 'same-origin' },
  );
}

/** A page that says the person is signed out, and the way to sign in again. */
export function signedOutCard(view: PageView, text: { title: string; explanation: string; signIn: string }, signIn: string): Page {
  return view.render(
    text.title,
    html`<h1>${text.title}</h1>
<p class="muted">${text.explanation}</p>
<p><a href="${signIn}">${text.signIn}</a></p>`,
  );
}

export function signedOutPage(view: PageView, signIn: string): Page {
  const t = view.t.console;
  return signedOutCard(view, { title: t.signedOutTitle, explanation: t.signedOutExplanation, signIn: t.signInAgain }, signIn);
}

export function signInFailedPage(view: PageView, failure: SignInFailure, error: string | undefined, again: string): Page {
  const t = view.t.console;
  return view.render(
    t.signInFailedTitle,
    html`<h1>${t.signInFailedTitle}</h1>
<p>${t.signInFailures[failure]}</p>
${error === undefined ? html`` : html`<dl class="muted"><dt>${view.t.errorCode}</dt><dd><code>${error}</code></dd></dl>`}
<p><a href="${again}">${t.signInAgain}</a></p>`,
  );
}

/** A change the admin services refused (not found, a file's entry, a conflict…): their detail is in English, marked so. */
export function problemPage(view: PageView, frame: ConsoleFrame, problem: AdminProblem, back: string): Page {
  const lang = view.t.lang === 'en' ? html`` : html` lang="en"`;
  const errors = problem.extras.errors ?? [];
  return consolePage(
    view,
    frame,
    view.t.console.problemTitle,
    html`<p class="error" role="alert"${lang}>${problem.detail}</p>
${errors.length === 0 ? html`` : html`<ul${lang}>${errors.map((e) => html`<li><code>${e.field}</code>: ${e.problem}</li>`)}</ul>`}
<dl class="muted"><dt>${view.t.errorCode}</dt><dd><code>${problem.code}</code></dd></dl>
<p><a href="${back}">${view.t.console.back}</a></p>`,
  );
}
