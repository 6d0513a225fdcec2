// The one fake API key every hermes-generate test uses. It is recognisable on purpose: the secret
// scan (test/e2e/secretScan.test.ts) looks for it in every file and stream a test run produced.
export const TEST_API_KEY = 'sk-hermes-test-DO-NOT-LEAK-5f3a9c1e7b2d4086';

/**
 * Other secret variables a run's environment holds; tool processes must see none of them. Some have
 * names no deny-list of secret-looking names would catch (DB_PASS, GH_PAT).
 */
export const FAKE_SECRETS: Readonly<Record<string, string>> = {
  GITHUB_TOKEN: 'ghp-fake-token-0c4e8a2b6d1f3579',
  AWS_SECRET_ACCESS_KEY: 'aws-fake-secret-9b7d5f3a1c2e4068',
  DB_PASSWORD: 'db-fake-password-4a6c8e0b2d4f6183',
  OPENAI_API_KEY: 'sk-fake-openai-6e2b9d4a1f7c3058',
  DB_PASS: 'db-fake-pass-8c1f5a3e7b9d2046',
  GH_PAT: 'github_pat_fake_3d7a1c9e5b0f2468',
};

/**
 * The forms a secret can be carried out in by a command that encodes what it read: raw, reversed,
 * hex (either case), and base64 at each of the three byte alignments it can have inside longer
 * encoded text (only the 4-character groups made of the secret's bytes alone, which appear whatever
 * surrounds it).
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  const base64 = [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = offset === 0 ? 0 : 4;
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4;
    return encoded.slice(start, end);
  });
  return [secret, [...secret].reverse().join(''), hex, hex.toUpperCase(), ...base64];
}

/** Which of the secrets appear in the text, in any of their forms (the names of the forms found). */
export function findSecretForms(text: string, secrets: readonly string[]): string[] {
  const labels = ['raw', 'reversed', 'hex', 'HEX', 'base64+0', 'base64+1', 'base64+2'];
  return secrets.flatMap((secret) => secretForms(secret).flatMap((form, i) => (text.includes(form) ? [`${secret.slice(0, 8)}… as ${labels[i] ?? '?'}`] : [])));
}
