// a2a-js 1.3.0 (A2A protocol v1.0) as a client: client10.mjs <base-url> <JSONRPC|HTTP+JSON> [token]
// The same steps and output as client03.mjs, for `a2a serve` at v1.0.
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from 'a2a-sdk-v1/client';
import { TaskNotFoundError } from 'a2a-sdk-v1/errors';
import { Role, taskStateToJSON } from 'a2a-sdk-v1';

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
  transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
  preferredTransports: [transport],
}));
const msg = (text) => ({
  messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, metadata: undefined,
  extensions: [], referenceTaskIds: [], parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
});
const req = (text) => ({ tenant: '', message: msg(text), configuration: undefined, metadata: undefined });
const partsText = (parts) => parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');
const texts = (t) => (t.artifacts ?? []).map((a) => partsText(a.parts)).join('');
const state = (s) => taskStateToJSON(s.state).replace('TASK_STATE_', '').toLowerCase();

const client = await factory.createFromUrl(base);
const sent = await client.sendMessage(req('hello from a2a-js'));
const isTask = 'status' in sent;
out({ step: 'send', kind: isTask ? 'task' : 'message', state: isTask ? state(sent.status) : undefined, text: isTask ? texts(sent) : partsText(sent.parts) });
if (isTask) {
  const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
  out({ step: 'get', id: got.id, same: got.id === sent.id, state: state(got.status), text: texts(got) });
}
const kinds = [];
let last, streamText = '';
for await (const ev of client.sendMessageStream(req('streamed from a2a-js'))) {
  const p = ev.payload;
  kinds.push({ task: 'task', message: 'message', statusUpdate: 'status-update', artifactUpdate: 'artifact-update' }[p.$case] ?? p.$case);
  last = p;
  if (p.$case === 'artifactUpdate') streamText += partsText(p.value.artifact.parts);
  if (p.$case === 'task') streamText += texts(p.value);
  if (p.$case === 'message') streamText += partsText(p.value.parts);
}
out({ step: 'stream', kinds, final: last?.value?.status ? state(last.value.status) : last?.$case, text: streamText });
try {
  await client.cancelTask({ tenant: '', id: 'no-such-task', metadata: undefined });
  out({ step: 'cancel', error: null });
} catch (e) {
  out({ step: 'cancel', error: e.constructor.name, notFound: e instanceof TaskNotFoundError, message: String(e.message) });
}
