import { type Clock, nowSeconds } from '../clock.js';
import {
  ConsentRequired,
  InteractionRequired,
  InvalidRequest,
  LoginRequired,
  type OAuthError,
  StoreUnavailableError,
  TemporarilyUnavailable,
} from '../errors/index.js';
import type { FormParams, Parameters } from '../oauth/form-params.js';
import type { IdTokens } from '../oidc/id-token.js';
import { approvedDevice, deniedDevice, type DeviceDecision } from './device-approval.js';
import type { DeviceCodeProblem } from './device-code-entry.js';
import {
  atClient,
  carriedDeviceVerification,
  type DeviceVerificationDependencies,
  type DeviceVerificationRequest,
  type InteractionRequest,
  isDeviceParameters,
  isDeviceVerification,
} from './device-request.js';
import { expectedSubject, type HintedUsers, isHintedUser } from './hints.js';
import type { AuthenticatedUser, BrowserSession, CookieJar } from '../session/browser-session.js';
import { isSignInMarkFor, SIGN_IN_MARK_PARAMETER, signInMark } from '../session/sign-in-mark.js';
import type { Signer } from '../session/signer.js';
import type { RoleHolders } from '../users/roles.js';
import { forUser } from './granted-scope.js';
import type { PasswordSignIn } from '../users/sign-in.js';
import type { SubjectChecks } from '../users/subject-status.js';
import { approve, type ConsentQuestion, type ConsentSettings, consentQuestion } from './consent.js';
import { submittedParameters } from './interaction.js';
import { type SignInReason, signInNeeded } from './interaction-policy.js';
import { type AuthorizationRegistries, type AuthorizationRequest, validateAuthorizationRequest } from './request.js';
import { type AuthorizationResponseDependencies, approvedResponseParameters, deniedAuthorization } from './respond.js';
import { type SignInMethod, type SignInProblem, signInMethods, signInWithPassword } from './sign-in.js';
import { demandsOf, directProvider, type UpstreamSignInDependencies, upstreamLocation } from './upstream-sign-in.js';

/**
 * The authorization endpoint (RFC 6749 §3.1), top to bottom. Each step returns what the
 * next needs, or throws an OAuthError: before the client and its redirect URI are known
 * good the user sees an error page; after, the error goes back to the client
 * (`redirectTo`, RFC 6749 §4.1.2.1).
 *
 *   1. request   the parameters → the client → its redirect URI → the rest of the request
 *                (response type and mode, scope and resources, PKCE, prompt, max_age,
 *                dpop_jkt)                                           request.ts
 *   2. session   who is signed in in this browser, and whether that sign-in was made on
 *                this request's own login page                       session/
 *   3. prompt    sign in (again)? consent? With prompt=none, login_required or
 *                consent_required at the client instead of a page    interaction-policy.ts
 *   4. then one of
 *        sign-in  the login page with the ways to sign in             sign-in.ts
 *                 (or straight to an upstream provider: `idp`, or
 *                 the only way there is)                          upstream-sign-in.ts
 *        consent  the consent page, unless the user approved before   consent.ts
 *                 (a step-up asks only for the new scopes)
 *        respond  the code, or the token, for the client             respond.ts
 *
 * The pages come back here. The login form (`signIn`) starts the session and returns to
 * step 1 with the same request (303, so the browser never re-sends the password); so does
 * an upstream provider's callback (upstream-steps.ts); the consent form (`decide`) resumes
 * at step 4 with the user's decision. The route renders what a step returns (an
 * `AuthorizeOutcome`) and nothing else.
 */

export interface AuthorizeDependencies {
  readonly registries: AuthorizationRegistries;
  readonly codeResponseMode: 'query' | 'fragment';
  readonly session: BrowserSession;
  readonly signer: Signer;
  readonly clock: Clock;
  /** Password sign-in with the limits shared with the password grant. */
  readonly passwordSignIn: PasswordSignIn;
  readonly consent: ConsentSettings;
  /** Issues codes and implicit-flow tokens once the user approves. */
  readonly responses: AuthorizationResponseDependencies;
  /** Checks `id_token_hint` (OpenID Connect Core §3.1.2.1). */
  readonly idTokens: Pick<IdTokens, 'verifyHint'>;
  /** Who a signed-in subject is, to compare with `login_hint`, and the roles a local user holds. */
  readonly users: HintedUsers & RoleHolders;
  /** The device authorization grant's user side (RFC 8628 §3.3); none: /device answers nothing pending. */
  readonly device?: DeviceVerificationDependencies | undefined;
  /** Sign-in through upstream identity providers (IDENTITY_PROVIDERS_FILE); none: only the password form. */
  readonly upstream?: UpstreamSignInDependencies | undefined;
  /** How the pages name a signed-in user ("Signed in as …"): a federated user by their email or username, not their `fed_` sub. */
  displayNameOf(sub: string): Promise<string>;
  /** The operator's marks: a user disabled is refused after an upstream sign-in too (the password form checks in PasswordSignIn). */
  readonly subjects: SubjectChecks;
}

/** What the route shows or sends for a step's result. */
export type AuthorizeOutcome =
  /** The login page; `signedIn`: who is signed in (displayNameOf) when the session must sign in again (prompt=login, max_age). */
  | {
      readonly kind: 'sign-in';
      readonly request: InteractionRequest;
      readonly methods: readonly SignInMethod[];
      readonly signedIn?: string | undefined;
      /** Why the form came back, with what the user typed as username. */
      readonly problem?: { readonly problem: SignInProblem; readonly username: string } | undefined;
    }
  /** The consent page: what it asks (a step-up asks only for what is new). */
  | {
      readonly kind: 'consent';
      readonly request: InteractionRequest;
      readonly question: ConsentQuestion;
      readonly user: AuthenticatedUser;
      readonly displayName: string;
    }
  /** The authorization response for the client, in its response mode. */
  | { readonly kind: 'respond'; readonly request: AuthorizationRequest; readonly parameters: Parameters }
  /** The user said no: access_denied for the client (RFC 6749 §4.1.2.1); for a device, a sign-in that failed (a page). */
  | { readonly kind: 'denied'; readonly request: InteractionRequest; readonly error: OAuthError }
  /** To an upstream identity provider's sign-in (303), which comes back to its callback. */
  | { readonly kind: 'upstream'; readonly request: InteractionRequest; readonly location: string }
  /** Back to step 1 with the same request (303), after a sign-in with its mark, or when the session ended. */
  | { readonly kind: 'restart'; readonly request: InteractionRequest; readonly signInMark?: string | undefined }
  /** RFC 8628: the user approved or denied a device (or it was decided meanwhile): back to the device. */
  | { readonly kind: 'device-decided'; readonly request: DeviceVerificationRequest; readonly decision: DeviceDecision }
  /** RFC 8628 §3.3: the page to type (or confirm, §5.4) the user code a device shows. */
  | { readonly kind: 'device-code'; readonly userCode?: string | undefined; readonly problem?: DeviceCodeProblem | undefined };

const LOGIN_REQUIRED: Record<SignInReason | 'other_user', string> = {
  no_session: 'the user is not signed in',
  prompt_login: 'prompt=login asks the user to sign in again',
  max_age: 'the user signed in longer ago than max_age',
  other_user: 'the signed-in user is not the one id_token_hint names',
};

/** GET or POST /oauth2/authorize: steps 1 to 4. */
export async function authorize(received: Parameters, browser: CookieJar, deps: AuthorizeDependencies): Promise<AuthorizeOutcome> {
  // 1. request (the sign-in mark a login left on the way back is not part of it); never a device verification
  const mark = received.find(([name]) => name === SIGN_IN_MARK_PARAMETER)?.[1];
  const parameters = received.filter(([name]) => name !== SIGN_IN_MARK_PARAMETER);
  const request = await validateAuthorizationRequest(parameters, deps.registries, deps.codeResponseMode);
  return interact(request, mark, browser, deps);
}

/** Steps 2 to 4 of a valid request: an authorization request, or a device verification. */
export async function interact(
  request: InteractionRequest,
  mark: string | undefined,
  browser: CookieJar,
  deps: AuthorizeDependencies,
): Promise<AuthorizeOutcome> {
  // 2. session
  const user = deps.session.current(browser);
  const now = nowSeconds(deps.clock);
  const signedInForThisRequest = isSignInMarkFor(deps.signer, mark, user, request.parameters, now);
  // 3. prompt: sign in (again)? The user the client expects (id_token_hint), checked first.
  const expected = isDeviceVerification(request) ? undefined : await expectedSubject(request, deps.idTokens);
  const reason =
    expected !== undefined && user && user.sub !== expected ? 'other_user' : signInNeeded(request, user, signedInForThisRequest, now);
  if (reason !== undefined || !user) {
    // OpenID Connect Core §3.1.2.1, prompt=none: "The Authorization Server MUST NOT display
    // any authentication or consent user interface pages."
    if (request.prompt.has('none')) throw atClient(new LoginRequired(LOGIN_REQUIRED[reason ?? 'no_session']), request);
    const direct = directProvider(request, deps.upstream);
    if (direct !== undefined && deps.upstream) {
      const location = await upstreamLocation(direct, request, demandsOf(request, reason), browser, deps.session, deps.upstream);
      return { kind: 'upstream', request, location };
    }
    return { kind: 'sign-in', request, methods: await methodsOf(deps), signedIn: user && (await deps.displayNameOf(user.sub)) };
  }
  // §3.1.2.6 interaction_required: signed in, but as someone else than login_hint names; the
  // user must choose the account, which prompt=none forbids.
  if (request.prompt.has('none') && request.loginHint !== undefined && !isHintedUser(request.loginHint, user.sub, deps.users)) {
    throw atClient(new InteractionRequired('the signed-in user is not the one login_hint names'), request);
  }
  // 3. prompt: consent? For the scope this user may be granted.
  const granted = forUser(request, user, deps.users);
  const question = await withStore(granted, () => consentQuestion(granted, user, deps.consent, deps.registries.resources));
  if (question) {
    if (granted.prompt.has('none')) throw atClient(new ConsentRequired('the user has not approved this access for this client'), granted);
    return { kind: 'consent', request: granted, question, user, displayName: await deps.displayNameOf(user.sub) };
  }
  // 4. respond
  return respond(granted, user, deps);
}

/** POST of the login form: a sign-in for the request the form carries (validated again). */
export async function signIn(
  form: FormParams,
  browser: CookieJar,
  clientAddress: string,
  deps: AuthorizeDependencies,
): Promise<AuthorizeOutcome> {
  const request = await validRequest(submittedParameters(form, browser, deps), deps);
  const username = form.get('username') ?? '';
  const attempt = await withStore(request, () =>
    signInWithPassword(deps.passwordSignIn, { username, password: form.get('password') ?? '' }, clientAddress),
  );
  if (!attempt.ok) return { kind: 'sign-in', request, methods: await methodsOf(deps), problem: { problem: attempt.problem, username } };
  const user = deps.session.start(browser, attempt.sub, attempt.amr);
  return { kind: 'restart', request, signInMark: signInMark(deps.signer, user, request.parameters) };
}

/** POST of the consent form: Deny sends access_denied to the client, Allow resumes at step 4. */
export async function decide(form: FormParams, browser: CookieJar, deps: AuthorizeDependencies): Promise<AuthorizeOutcome> {
  const submitted = await validRequest(submittedParameters(form, browser, deps), deps);
  const user = deps.session.current(browser);
  // The session ended while the page was open: sign in again, then consent again.
  if (!user) return { kind: 'restart', request: submitted };
  const request = forUser(submitted, user, deps.users);
  const decision = form.get('decision');
  if (decision === 'deny') {
    if (isDeviceVerification(request)) return withStore(request, () => deniedDevice(request, user, deps));
    return { kind: 'denied', request, error: deniedAuthorization(request, user, deps.responses.events) };
  }
  if (decision !== 'allow') throw new InvalidRequest('the consent form was incomplete: choose Allow or Deny');
  const approved = await withStore(request, () => approve(request, user, deps.consent, deps.registries.resources));
  return respond(approved, user, deps);
}

/** The login page's ways to sign in. */
export async function methodsOf(deps: AuthorizeDependencies): Promise<readonly SignInMethod[]> {
  return signInMethods(deps.upstream?.hasLocalUsers() ?? true, (await deps.upstream?.signIns.methods()) ?? []);
}

/**
 * A request carried through the pages (signed), validated again: its client may be gone, its
 * redirect URI changed; a device verification may have expired or been decided meanwhile.
 */
export function validRequest(parameters: Parameters, deps: AuthorizeDependencies): Promise<InteractionRequest> {
  if (isDeviceParameters(parameters)) return carriedDeviceVerification(parameters, deps);
  return validateAuthorizationRequest(parameters, deps.registries, deps.codeResponseMode);
}

async function respond(request: InteractionRequest, user: AuthenticatedUser, deps: AuthorizeDependencies): Promise<AuthorizeOutcome> {
  if (isDeviceVerification(request)) return withStore(request, () => approvedDevice(request, user, deps));
  const parameters = await withStore(request, () => approvedResponseParameters(request, user, deps.responses));
  return { kind: 'respond', request, parameters };
}

/**
 * Runs a step that needs the store once the request is known valid. Fail closed: a store
 * that does not answer issues nothing, and the client hears `temporarily_unavailable`
 * (RFC 6749 §4.1.2.1) at its redirect URI (a device's user, the 503 page).
 */
async function withStore<T>(request: InteractionRequest, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw atClient(new TemporarilyUnavailable(undefined, undefined, { cause: err }), request);
    throw err;
  }
}
