// a2a-js 0.3.14 (A2A protocol v0.3) as a server, for e2e/a2ajs_test.go: server03.mjs <JSONRPC|HTTP+JSON|GRPC> [nostream]
// Serves JSON-RPC at /a2a/jsonrpc and REST at /a2a/rest on 127.0.0.1, a random port; the card's preferred
// transport is the argument. Prints "listening on http://127.0.0.1:PORT" on stdout once ready. With GRPC, a2a-js's
// gRPC service also listens on 127.0.0.1 (its own port), the card's url as the host:port gRPC clients dial.
// The agent answers "echo: <text>" as an artifact and completes; "wait" keeps the task working until canceled;
// "slow N" works N ms in silence first; "ask" asks for input ("what is your name?"), and a follow-up is answered
// "hello, <text>" as an artifact ("?" asks again: "what is your last name?").
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';

const preferred = process.argv[2] ?? 'JSONRPC';
const streaming = process.argv[3] !== 'nostream'; // nostream: the card says the agent does not stream
const waiting = new Map(); // taskId -> resolve, for tasks held working until canceled

const status = (ctx, state, final, text) => ({
  kind: 'status-update', taskId: ctx.taskId, contextId: ctx.contextId, final,
  status: {
    state, timestamp: new Date().toISOString(),
    ...(text ? { message: { kind: 'message', role: 'agent', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text }], taskId: ctx.taskId, contextId: ctx.contextId } } : {}),
  },
});

const executor = {
  async execute(ctx, bus) {
    const text = ctx.userMessage.parts.filter((p) => p.kind === 'text').map((p) => p.text).join('');
    if (!ctx.task) {
      bus.publish({ kind: 'task', id: ctx.taskId, contextId: ctx.contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [ctx.userMessage] });
    } else {
      // A follow-up: the task goes first as it stands (still input-required, the new message at the end of its
      // history), as a2a-js agents do.
      bus.publish(ctx.task);
    }
    if (text === 'ask' || (text === '?' && ctx.task?.status?.state === 'input-required')) {
      bus.publish(status(ctx, 'input-required', true, text === 'ask' ? 'what is your name?' : 'what is your last name?'));
      bus.finished();
      return;
    }
    bus.publish(status(ctx, 'working', false));
    if (ctx.task?.status?.state === 'input-required') {
      bus.publish({ kind: 'artifact-update', taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: 'answer', parts: [{ kind: 'text', text: `hello, ${text}` }] }, lastChunk: true });
      bus.publish(status(ctx, 'completed', true));
      bus.finished();
      return;
    }
    const slow = /^slow (\d+)$/.exec(text);
    if (slow) await new Promise((resolve) => setTimeout(resolve, Number(slow[1]))); // working, silent
    if (text === 'wait') {
      await new Promise((resolve) => waiting.set(ctx.taskId, resolve));
      bus.publish(status(ctx, 'canceled', true, 'canceled by request'));
      bus.finished();
      return;
    }
    bus.publish({ kind: 'artifact-update', taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: 'echo', parts: [{ kind: 'text', text: `echo: ${text}` }] }, lastChunk: true });
    bus.publish(status(ctx, 'completed', true));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    const resolve = waiting.get(taskId);
    if (resolve) {
      waiting.delete(taskId);
      resolve();
    }
  },
};

const app = express();
// With GRPC, the gRPC server is bound first: its port goes into the card.
const grpcServer = preferred === 'GRPC' ? new grpc.Server() : null;
const grpcPort = grpcServer ? await new Promise((resolve, reject) => grpcServer.bindAsync('127.0.0.1:0',
  grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)))) : 0;
const server = app.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const additionalInterfaces = [{ url: `${base}/a2a/jsonrpc`, transport: 'JSONRPC' }, { url: `${base}/a2a/rest`, transport: 'HTTP+JSON' }];
  if (grpcServer) additionalInterfaces.push({ url: `127.0.0.1:${grpcPort}`, transport: 'GRPC' });
  const card = {
    name: 'a2a-js test agent', description: 'echoes, or waits for a cancel', protocolVersion: '0.3.0', version: '1.0.0',
    url: { 'HTTP+JSON': `${base}/a2a/rest`, GRPC: `127.0.0.1:${grpcPort}` }[preferred] ?? `${base}/a2a/jsonrpc`, preferredTransport: preferred,
    additionalInterfaces,
    capabilities: { streaming, pushNotifications: false },
    defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes the message', tags: ['echo'] }],
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
