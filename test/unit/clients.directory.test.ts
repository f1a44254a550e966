import t from 'tap';
import { clientDirectory, registrySource } from '../../src/clients/directory.js';
import { ClientRegistry } from '../../src/clients/registry.js';

const registry = (ids: string[], name: string) =>
  ClientRegistry.fromMetadata(
    ids.map((client_id) => ({ client_id, client_name: name, token_endpoint_auth_method: 'none', redirect_uris: ['https://a.example/cb'] })),
  );

t.test('a client directory asks its sources in order; the first that knows the id answers', async (t) => {
  const file = registry(['web', 'shared'], 'from the file');
  const asked: string[] = [];
  const registered = {
    async find(clientId: string) {
      asked.push(clientId);
      return registry(['shared', 'dyn-1'], 'registered').get(clientId);
    },
  };
  const directory = clientDirectory(registrySource(file), registered);

  t.equal((await directory.find('web'))?.clientName, 'from the file');
  t.equal((await directory.find('shared'))?.clientName, 'from the file', 'a file client is never shadowed by a later source');
  t.equal((await directory.find('dyn-1'))?.clientName, 'registered');
  t.equal(await directory.find('nobody'), undefined);
  t.same(asked, ['dyn-1', 'nobody'], 'later sources are asked only for ids the file does not hold');
});
