// Scripted endpoints (hermes-testkit in process) that close after the current test, passed or failed,
// so no test keeps its own endpoint variable and hook. Closing one again is harmless: a test that
// closes its endpoint on purpose (an endpoint going away) still may.
import { afterEach } from 'vitest';
import { startScriptedEndpoint, type ScriptedEndpoint, type ScriptedEndpointOptions } from '@hermes-datagen/testkit';

const open: ScriptedEndpoint[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((endpoint) => endpoint.close()));
});

/** A running endpoint, closed after the current test. */
export async function scriptedEndpoint(options: ScriptedEndpointOptions = {}): Promise<ScriptedEndpoint> {
  const started = await startScriptedEndpoint(options);
  open.push(started);
  return started;
}
