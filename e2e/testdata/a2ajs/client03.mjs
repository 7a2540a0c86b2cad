// a2a-js 0.3.14 (A2A protocol v0.3) as a client: client03.mjs <base-url> <JSONRPC|HTTP+JSON|GRPC> [token]
// Discovers the agent from its card, then sends a message, gets the task, resubscribes to it once it has finished,
// streams a message and cancels an unknown task. Prints one JSON line per step ({"step":…,…}) for
// e2e/a2ajs_test.go to check. Over GRPC the client dials the URL the card gives its GRPC interface as it is.
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, TaskNotFoundError } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

const [base, transport, token] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const fetchImpl = token
  ? (url, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${token}`);
      return fetch(url, { ...init, headers });
    }
  : fetch;
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl }), new GrpcTransportFactory()],
  preferredTransports: [transport],
}));
const msg = (text) => ({ kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text }] });
const texts = (t) => (t.artifacts ?? []).flatMap((a) => a.parts.filter((p) => p.kind === 'text').map((p) => p.text)).join('');

const client = await factory.createFromUrl(base);
const sent = await client.sendMessage({ message: msg('hello from a2a-js'), configuration: { blocking: true } });
out({ step: 'send', kind: sent.kind, state: sent.status?.state, text: sent.kind === 'task' ? texts(sent) : sent.parts.map((p) => p.text).join('') });
if (sent.kind === 'task') {
  const got = await client.getTask({ id: sent.id });
  out({ step: 'get', id: got.id, same: got.id === sent.id, state: got.status.state, text: texts(got) });
  const resub = { step: 'resubscribe', kinds: [], states: [], error: null };
  try {
    for await (const ev of client.resubscribeTask({ id: sent.id })) {
      resub.kinds.push(ev.kind);
      resub.states.push(ev.kind === 'task' || ev.kind === 'status-update' ? ev.status.state : null);
      if (ev.kind === 'task') resub.text = texts(ev);
    }
  } catch (e) {
    resub.error = e.constructor.name;
    resub.message = String(e.message);
  }
  out(resub);
}
const kinds = [];
let last, streamText = '';
for await (const ev of client.sendMessageStream({ message: msg('streamed from a2a-js') })) {
  kinds.push(ev.kind);
  last = ev;
  if (ev.kind === 'artifact-update') streamText += ev.artifact.parts.filter((p) => p.kind === 'text').map((p) => p.text).join('');
  if (ev.kind === 'task') streamText += texts(ev);
  if (ev.kind === 'message') streamText += ev.parts.map((p) => p.text).join('');
}
out({ step: 'stream', kinds, final: last?.kind === 'status-update' ? last.status.state : last?.status?.state ?? last?.kind, final_flag: last?.final ?? null, text: streamText });
try {
  await client.cancelTask({ id: 'no-such-task' });
  out({ step: 'cancel', error: null });
} catch (e) {
  out({ step: 'cancel', error: e.constructor.name, notFound: e instanceof TaskNotFoundError, message: String(e.message) });
}
