import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { assertDistinctSubjects, SubjectCollisionError } from '../../src/clients/subjects.js';
import { UserRegistry } from '../../src/users/registry.js';
import { collision, PASSWORD_HASH, service, webApp } from '../helpers/subject-collision.js';

t.test('assertDistinctSubjects', async (t) => {
  const users = UserRegistry.fromEntries([
    { username: 'alice', password_hash: PASSWORD_HASH, sub: 'user-alice' },
    { username: 'bob', password_hash: PASSWORD_HASH },
  ]).all();
  const sources = { clients: 'clients.json', users: 'users.json' };
  const check = (clients: unknown[]) => () => assertDistinctSubjects(ClientRegistry.fromMetadata(clients).all(), users, sources);

  t.throws(
    check([service('reports'), service('user-alice')]),
    new SubjectCollisionError(collision('user-alice', 'clients.json', 'alice', 'users.json')),
    'a client_credentials client named after an explicit sub',
  );
  t.throws(
    check([service('bob')]),
    new SubjectCollisionError(collision('bob', 'clients.json', 'bob', 'users.json')),
    'a sub that defaults to the username',
  );
  t.doesNotThrow(check([service('alice')]), "a username that is not the user's sub does not collide");
  t.doesNotThrow(check([webApp('user-alice'), webApp('bob')]), 'a client without client_credentials never appears as a sub');
  t.doesNotThrow(() => assertDistinctSubjects(ClientRegistry.fromMetadata([service('bob')]).all(), [], sources), 'no users, no collision');
});
