// The one fake API key every hermes-generate test uses. It is recognisable on purpose: the secret
// scan (test/e2e/secretScan.test.ts) looks for it in every file and stream a test run produced.
export const TEST_API_KEY = 'sk-hermes-test-DO-NOT-LEAK-5f3a9c1e7b2d4086';

/** Other secret-looking variables a run's environment holds; tool processes must see none of them. */
export const FAKE_SECRETS: Readonly<Record<string, string>> = {
  GITHUB_TOKEN: 'ghp-fake-token-0c4e8a2b6d1f3579',
  AWS_SECRET_ACCESS_KEY: 'aws-fake-secret-9b7d5f3a1c2e4068',
  DB_PASSWORD: 'db-fake-password-4a6c8e0b2d4f6183',
};
