import { gcmOpen, keyringFrom, open, seal, sealedKeyId, SealError } from '../../bus/index.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const here = dirname(fileURLToPath(import.meta.url));
interface Case {
  tcId: number;
  key: string;
  iv: string;
  aad: string;
  msg: string;
  ct: string;
  tag: string;
  result: string;
  flags: string[];
}
const wycheproof = JSON.parse(
  readFileSync(join(here, '..', '..', '..', 'shared', 'vectors', 'wycheproof-aes-gcm.json'), 'utf8'),
) as {
  testGroups: Array<{ keySize: number; ivSize: number; tagSize: number; tests: Case[] }>;
};
const hex = (s: string) => Buffer.from(s, 'hex');
const material = (byte: number) => Buffer.alloc(32, byte).toString('base64');

t.test(
  'Wycheproof AES-256-GCM, 96-bit nonce, 128-bit tag: valid cases open, invalid ones are refused',
  async (t) => {
    const cases = wycheproof.testGroups
      .filter((g) => g.keySize === 256 && g.ivSize === 96 && g.tagSize === 128)
      .flatMap((g) => g.tests);
    t.ok(cases.length > 20);
    let wrong = 0;
    for (const c of cases) {
      let opened: Buffer | null = null;
      try {
        opened = gcmOpen(hex(c.key), hex(c.iv), hex(c.ct), hex(c.tag), hex(c.aad));
      } catch (error) {
        if (!(error instanceof SealError)) throw error;
      }
      const ok = c.result === 'invalid' ? opened === null : opened !== null && opened.equals(hex(c.msg));
      if (!ok) wrong += 1;
    }
    t.equal(wrong, 0, `all ${cases.length} cases answered as the vectors say`);
  },
);

t.test('a truncated tag is refused, never accepted as a shorter tag', async (t) => {
  const c = wycheproof.testGroups
    .find((g) => g.keySize === 256 && g.ivSize === 96)!
    .tests.find((x) => x.result === 'valid')!;
  t.throws(
    () => gcmOpen(hex(c.key), hex(c.iv), hex(c.ct), hex(c.tag).subarray(0, 12), hex(c.aad)),
    SealError,
  );
  t.throws(() => gcmOpen(hex(c.key), hex(c.iv), hex(c.ct), hex(c.tag).subarray(0, 4), hex(c.aad)), SealError);
});

t.test('seal then open round-trips; another record, a tampered blob or a missing key fails', async (t) => {
  const keyring = keyringFrom({ active_key_id: 'k1', keys: [{ id: 'k1', material: material(1) }] })!;
  const sealed = seal(keyring, '{"name":"Acme"}', 'revision:abc');
  t.match(sealed, /^enc:v1:k1:[A-Za-z0-9+/=]+$/);
  t.equal(sealedKeyId(sealed), 'k1');
  t.equal(open(keyring, sealed, 'revision:abc').toString(), '{"name":"Acme"}');
  t.throws(() => open(keyring, sealed, 'revision:other'), SealError, 'bound to its record');
  const tampered = sealed.slice(0, -6) + (sealed.endsWith('AAAA') ? 'BBBB==' : 'AAAA==');
  t.throws(() => open(keyring, tampered, 'revision:abc'), SealError);
  const other = keyringFrom({ active_key_id: 'k2', keys: [{ id: 'k2', material: material(2) }] });
  t.throws(() => open(other, sealed, 'revision:abc'), /key k1/);
  t.throws(() => open(null, sealed, 'revision:abc'), /key k1/);
  t.not(seal(keyring, 'same', 'r'), seal(keyring, 'same', 'r'), 'a fresh nonce every time');
});

t.test('rotation: values sealed under an old key still open while it stays listed', async (t) => {
  const old = keyringFrom({ active_key_id: 'k1', keys: [{ id: 'k1', material: material(1) }] })!;
  const sealed = seal(old, 'v', 'r');
  const rotated = keyringFrom({
    active_key_id: 'k2',
    keys: [
      { id: 'k1', material: material(1) },
      { id: 'k2', material: material(2) },
    ],
  })!;
  t.equal(open(rotated, sealed, 'r').toString(), 'v');
  t.match(seal(rotated, 'v', 'r'), /^enc:v1:k2:/);
  t.equal(keyringFrom(undefined), null);
});
