/** `agentwrap --version`: the version, the relay a launch would use (and why), and Node's version. */
import { AGENTWRAP_VERSION, loadNativeRelay } from '../app/platform.js';

export function versionLine(env: NodeJS.ProcessEnv): string {
  const relay = loadNativeRelay(env);
  const how = relay.ok ? 'native relay' : env['AGENTWRAP_RELAY'] === 'js' ? 'event-loop relay (AGENTWRAP_RELAY=js)' : 'event-loop relay (native addon not built or not loadable; see agentwrap doctor)';
  return `agentwrap ${AGENTWRAP_VERSION} (${how}; node ${process.version})`;
}
