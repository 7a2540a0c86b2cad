// a2a-js 1.3.0 (A2A protocol v1.0) as a server, for e2e/a2ajs_test.go: server10.mjs <JSONRPC|HTTP+JSON|GRPC> [nostream]
// Same agent and output as server03.mjs: JSON-RPC at /a2a/jsonrpc, REST at /a2a/rest, the argument's binding first
// in the card; prints "listening on http://127.0.0.1:PORT" on stdout once ready. With GRPC, a2a-js's gRPC service
// also listens on 127.0.0.1 (its own port), first in the card as the host:port gRPC clients dial.
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState } from 'a2a-sdk-v1';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from 'a2a-sdk-v1/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-v1/server/express';
import { A2AService, grpcService } from 'a2a-sdk-v1/server/grpc';

const preferred = process.argv[2] ?? 'JSONRPC';
const streaming = process.argv[3] !== 'nostream'; // nostream: the card says the agent does not stream
const waiting = new Map(); // taskId -> resolve, for tasks held working until canceled
const textPart = (text) => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const status = (ctx, state, text) => AgentEvent.statusUpdate({
  taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined,
  status: {
    state, timestamp: new Date().toISOString(),
    message: text ? { messageId: crypto.randomUUID(), contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] } : undefined,
  },
});

const executor = {
  async execute(ctx, bus) {
    const text = ctx.userMessage.parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');
    if (!ctx.task) {
      bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [ctx.userMessage], metadata: undefined }));
    } else {
      // A follow-up: a2a-js 1.x wants a Task before any update, so the task goes first as it stands (still
      // input-required, the new message at the end of its history), as a2a-js agents do.
      bus.publish(AgentEvent.task(ctx.task));
    }
    if (text === 'ask' || (text === '?' && ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED)) {
      bus.publish(status(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, text === 'ask' ? 'what is your name?' : 'what is your last name?'));
      bus.finished();
      return;
    }
    bus.publish(status(ctx, TaskState.TASK_STATE_WORKING));
    if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(AgentEvent.artifactUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: 'answer', name: 'answer', description: '', parts: [textPart(`hello, ${text}`)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
      bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
      bus.finished();
      return;
    }
    const slow = /^slow (\d+)$/.exec(text);
    if (slow) await new Promise((resolve) => setTimeout(resolve, Number(slow[1]))); // working, silent
    if (text === 'wait') {
      await new Promise((resolve) => waiting.set(ctx.taskId, resolve));
      bus.publish(status(ctx, TaskState.TASK_STATE_CANCELED, 'canceled by request'));
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.artifactUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: 'echo', name: 'echo', description: '', parts: [textPart(`echo: ${text}`)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
    bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  },
  async cancelTask(taskId) {
    const resolve = waiting.get(taskId);
    if (resolve) {
      waiting.delete(taskId);
      resolve();
    }
  },
};

// With GRPC, the gRPC server is bound first: its port goes into the card.
const grpcServer = preferred === 'GRPC' ? new grpc.Server() : null;
const grpcPort = grpcServer ? await new Promise((resolve, reject) => grpcServer.bindAsync('127.0.0.1:0',
  grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)))) : 0;
const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const ifaces = [
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  ];
  if (preferred === 'HTTP+JSON') ifaces.reverse();
  if (grpcServer) ifaces.unshift({ url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' });
  const card = {
    name: 'a2a-js test agent', description: 'echoes, or waits for a cancel', version: '1.0.0', supportedInterfaces: ifaces,
    provider: undefined, capabilities: { streaming, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes the message', tags: ['echo'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  grpcServer?.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`listening on ${base}\n`);
});
// The test stops the server with SIGTERM; leave at once (open SSE streams would keep server.close() waiting).
process.on('SIGTERM', () => process.exit(0));
