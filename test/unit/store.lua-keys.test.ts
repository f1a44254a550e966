import t from 'tap';
import { SCRIPTS } from '../../src/store/redis.js';

/**
 * Redis Cluster routes a script by the keys it declares; a key the script reaches
 * without declaring it may live on another node (and breaks on a cluster only, under
 * load, far from this code). Every command our scripts run takes one key, first.
 */
t.test('every key a script touches is one of the KEYS it declares', async (t) => {
  for (const [name, { lua, numberOfKeys }] of Object.entries(SCRIPTS)) {
    const calls = [...lua.matchAll(/redis\.call\('([A-Z]+)',\s*([^,)]+)/g)];
    t.ok(calls.length > 0, `${name} calls Redis`);
    for (const [call, command, key] of calls) {
      const declared = /^KEYS\[(\d+)\]$/.exec((key as string).trim());
      t.ok(declared, `${name}: ${call}) names a declared key, not ${key}`);
      const index = Number(declared?.[1]);
      t.ok(index >= 1 && index <= numberOfKeys, `${name}: ${command} uses KEYS[${index}] of ${numberOfKeys}`);
    }
    const used = new Set(calls.map(([, , key]) => (key as string).trim()));
    t.equal(used.size, numberOfKeys, `${name} declares exactly the ${numberOfKeys} keys it uses`);
  }
  t.notMatch(
    Object.values(SCRIPTS)
      .map((s) => s.lua)
      .join('\n'),
    /redis\.p?call\('(SCAN|KEYS|EVAL|WAIT)/,
    'no key discovery, no nesting, no WAIT in a script',
  );
});

t.test('every entry write announces itself on its last key, the {entries} shard channel, in the same script', async (t) => {
  for (const name of ['createEntry', 'replaceEntry', 'deleteEntry'] as const) {
    const { lua, numberOfKeys } = SCRIPTS[name];
    t.match(lua, new RegExp(`redis\\.call\\('SPUBLISH', KEYS\\[${numberOfKeys}\\],`), `${name} publishes on KEYS[${numberOfKeys}]`);
    t.equal(lua.match(/SPUBLISH/g)?.length, 1, `${name} publishes once`);
  }
  const others = Object.entries(SCRIPTS).filter(([name]) => !['createEntry', 'replaceEntry', 'deleteEntry'].includes(name));
  t.notOk(
    others.some(([, { lua }]) => /PUBLISH/.test(lua)),
    'no other script publishes',
  );
});
