import { z } from 'zod';
import { PAGE_LIMIT } from '../../admin/paging.js';
import { validationProblem } from '../../admin/problems.js';
import { NewUserSchema, PasswordSchema, USER_SOURCES, type UserView } from '../../admin/users-api.js';
import type { FormProblems } from '../../pages/console/identity-fields.js';
import { deleteUserBody, userBody } from '../../pages/console/user.js';
import { newUserBody, type NewUserValues, userName, usersBody } from '../../pages/console/users.js';
import { html } from '../../pages/html.js';
import { MIN_PASSWORD_LENGTH } from '../../users/password.js';
import { type ConsoleContent, type ConsoleContext, consoleAction, consolePage, type ConsoleRoute, formText } from './declare.js';
import { auditChange, defined, EDIT_PROBLEMS, orFormAgain } from './form-problems.js';
import type { IdentityPagesDependencies } from './identity.js';

/**
 * The console's users, through the admin API's own operations (src/admin/users-api.ts: the
 * same rules, the same audit events, the person as actor): the list, a new local user with
 * a password, and per user the password (write-only), disabled (which ends their sessions at
 * once and revokes their grants), the role admin, and deletion after a confirmation. Nobody
 * disables, demotes or deletes themselves here: another administrator has to, so the console
 * always keeps the administrator who is using it.
 */

const pathsOf = (base: string) => ({
  list: `${base}/users`,
  create: `${base}/users/new`,
  user: `${base}/users/user`,
  password: `${base}/users/password`,
  access: `${base}/users/access`,
  role: `${base}/users/role`,
  delete: `${base}/users/delete`,
});

const Sub = z.object({ sub: z.string().min(1).max(255) });
const emptyAsAbsent = (value: unknown) => (value === '' ? undefined : value);
const UsersQuery = z.object({
  q: formText.pipe(z.string().max(200).optional()),
  source: z.preprocess(emptyAsAbsent, z.enum(USER_SOURCES).optional()),
  cursor: z.string().max(1024).optional(),
});
/** A password as typed: never trimmed, and checked by the admin API's rule (src/admin/user-password.ts). */
const typedPassword = z.string().max(4096).optional();
const NewUserForm = z.object({
  username: formText,
  sub: formText,
  name: formText,
  email: formText,
  admin: formText,
  password: typedPassword,
});

/** The new user's form field of a problem's path. */
const newUserField = (path: string): string | undefined =>
  ({ username: 'username', sub: 'sub', 'claims.name': 'name', 'claims.email': 'email', roles: 'admin', password: 'password' })[path];

export function userPages(deps: IdentityPagesDependencies): ConsoleRoute[] {
  const users = deps.api.users;
  const userPage = (context: ConsoleContext, user: UserView, problems?: FormProblems): ConsoleContent => ({
    title: userName(user),
    body: userBody(
      context.view,
      user,
      {
        paths: pathsOf(context.base),
        csrfToken: context.csrfToken,
        file: deps.files.users,
        self: user.sub === context.sub,
        minPasswordLength: MIN_PASSWORD_LENGTH,
        providerName: user.provider === undefined ? undefined : deps.providerName(user.provider),
      },
      problems,
    ),
  });
  const userAddress = (sub: string) => `/users/user?${new URLSearchParams({ sub })}`;
  /** A change the person may not make to their own account: said, nothing changed. */
  const refusedForSelf = (context: ConsoleContext, what: 'disable' | 'demote' | 'delete'): ConsoleContent => ({
    status: 409,
    title: context.t.console.problemTitle,
    body: html`<p class="error" role="alert">${context.t.console.identity.selfRefused[what]}</p>
<p><a href="${context.base}${userAddress(context.sub)}">${context.t.console.back}</a></p>`,
  });
  const newUser = (context: ConsoleContext, values: NewUserValues, problems?: FormProblems): ConsoleContent => ({
    title: context.t.console.identity.newUser,
    body: newUserBody(context.view, values, pathsOf(context.base), context.csrfToken, MIN_PASSWORD_LENGTH, problems),
  });
  return [
    consolePage({
      path: '/users',
      nav: 'users',
      query: UsersQuery,
      render: async ({ query, view, t, base }) => {
        const page = await users.list({ q: query.q, source: query.source, limit: PAGE_LIMIT.default, cursor: query.cursor });
        return { title: t.console.nav.users, body: usersBody(view, query, page, pathsOf(base), deps.files.users) };
      },
    }),
    consolePage({ path: '/users/new', nav: 'users', render: async (context) => newUser(context, {}) }),
    consoleAction({
      path: '/users/new',
      returnTo: '/users/new',
      form: NewUserForm,
      handle: async (context) => {
        const { form } = context;
        const values = { ...form, admin: form.admin === 'true' };
        return orFormAgain(
          async () => {
            const claims = defined({ name: form.name, email: form.email });
            const body = defined({
              username: form.username,
              sub: form.sub,
              claims: Object.keys(claims).length > 0 ? claims : undefined,
              roles: values.admin ? ['admin'] : undefined,
              password: form.password ?? '',
            });
            const parsed = NewUserSchema.safeParse(body);
            if (!parsed.success) throw validationProblem(parsed.error.issues, 'the user is not valid');
            const created = await users.create(parsed.data);
            auditChange(deps.events, context.actor, { entity: 'user', id: created.view.sub, action: 'created', fields: created.fields });
            return { redirect: userAddress(created.view.sub), notice: 'user-created' };
          },
          (problems) => newUser(context, values, problems),
          newUserField,
        );
      },
    }),
    consolePage({
      path: '/users/user',
      nav: 'users',
      query: Sub,
      render: async (context) => userPage(context, (await users.get(context.query.sub)).view),
    }),
    consoleAction({
      path: '/users/password',
      returnTo: '/users',
      form: Sub.extend({ password: typedPassword }),
      handle: async (context) => {
        const { sub, password } = context.form;
        return orFormAgain(
          async () => {
            const parsed = PasswordSchema.safeParse({ password: password ?? '' });
            if (!parsed.success) throw validationProblem(parsed.error.issues, 'the password is not valid');
            await users.setPassword(sub, parsed.data.password, undefined);
            auditChange(deps.events, context.actor, { entity: 'user', id: sub, action: 'password_set', fields: ['password'] });
            return { redirect: userAddress(sub), notice: 'user-password-set' };
          },
          // The page of the user as it is, the problem next to the (empty) password field.
          async (problems) => userPage(context, (await users.get(sub)).view, problems),
          (path) => (path === 'password' ? 'password' : undefined),
          EDIT_PROBLEMS,
        );
      },
    }),
    consoleAction({
      path: '/users/access',
      returnTo: '/users',
      form: Sub.extend({ disabled: z.enum(['true', 'false']) }),
      handle: async (context) => {
        const { sub } = context.form;
        const disabled = context.form.disabled === 'true';
        if (disabled && sub === context.sub) return refusedForSelf(context, 'disable');
        const changed = await users.patch(sub, { disabled }, undefined, context.sub);
        auditChange(deps.events, context.actor, { entity: 'user', id: sub, action: changed.action, fields: changed.fields });
        return { redirect: userAddress(sub), notice: disabled ? 'user-disabled' : 'user-enabled' };
      },
    }),
    consoleAction({
      path: '/users/role',
      returnTo: '/users',
      form: Sub.extend({ admin: z.enum(['true', 'false']) }),
      handle: async (context) => {
        const { sub } = context.form;
        const admin = context.form.admin === 'true';
        if (!admin && sub === context.sub) return refusedForSelf(context, 'demote');
        const others = ((await users.get(sub)).view.roles ?? []).filter((role) => role !== 'admin');
        const roles = admin ? [...others, 'admin'] : others;
        const changed = await users.patch(sub, { roles: roles.length > 0 ? roles : null }, undefined, context.sub);
        auditChange(deps.events, context.actor, { entity: 'user', id: sub, action: changed.action, fields: changed.fields });
        return { redirect: userAddress(sub), notice: 'user-role-changed' };
      },
    }),
    consolePage({
      path: '/users/delete',
      nav: 'users',
      query: Sub,
      render: async (context) => {
        const { view } = await users.get(context.query.sub);
        // Only a user added here can be deleted: any other's page says what can change.
        if (view.source !== 'admin' || view.sub === context.sub) return userPage(context, view);
        const body = deleteUserBody(context.view, view, { paths: pathsOf(context.base), csrfToken: context.csrfToken });
        return { title: context.t.console.identity.deleteTitle(userName(view)), body };
      },
    }),
    consoleAction({
      path: '/users/delete',
      returnTo: '/users',
      form: Sub,
      handle: async (context) => {
        const { sub } = context.form;
        if (sub === context.sub) return refusedForSelf(context, 'delete');
        await users.delete(sub, undefined, context.sub);
        auditChange(deps.events, context.actor, { entity: 'user', id: sub, action: 'deleted' });
        return { redirect: '/users', notice: 'user-deleted' };
      },
    }),
  ];
}
