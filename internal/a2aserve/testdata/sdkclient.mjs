// Resolves a published card with the official A2A JavaScript SDK client
// (@a2a-js/sdk, pinned in .ci/a2a), sends it messages and prints what
// the client read: the card's interfaces, the replies, and what the task
// methods gave. Input on stdin: {"cardBase": the card's exchange URL,
// "texts": the texts of the messages, "search" and "long": the texts that
// begin a short task and a long one}. The
// card declares async: its agent takes push-notification configs.
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

let raw = '';
for await (const chunk of process.stdin) raw += chunk;
const input = JSON.parse(raw);

const card = await new DefaultAgentCardResolver().resolve(input.cardBase);
const client = await new ClientFactory().createFromAgentCard(card);
const message = (id, text, taskId = '', returnImmediately = false) => ({
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately },
  message: {
    messageId: id,
    contextId: 'sdk-context',
    taskId,
    role: 1, // ROLE_USER
    parts: [{ content: { $case: 'text', value: text }, filename: '', mediaType: '' }],
    extensions: [],
    referenceTaskIds: [],
  },
});
const replies = [];
for (const [i, text] of input.texts.entries()) {
  const reply = await client.sendMessage(message(`sdk-${i}`, text));
  replies.push({
    role: reply.role,
    contextId: reply.contextId,
    texts: reply.parts.map((p) => p.content?.value),
    metadata: reply.metadata ?? null,
  });
}
// The client always sends the version it negotiated (1.0); its transport,
// used alone, sends the header given.
const agentURL = card.supportedInterfaces[0].url;
const transport = await new JsonRpcTransportFactory().create(agentURL, card);
let versionError = null;
try {
  await transport.sendMessage(
    { message: { messageId: 'sdk-2', contextId: '', taskId: '', role: 1,
      parts: [{ content: { $case: 'text', value: 'hi' }, filename: '', mediaType: '' }], extensions: [], referenceTaskIds: [] } },
    { serviceParameters: { 'A2A-Version': '9.9' } });
} catch (e) {
  versionError = { name: e.name, code: e.envelopeCode ?? null };
}
// Tasks, in each binding: a task reply, its stream, reading, cancelling
// and following tasks.
const failure = async (f) => {
  try {
    await f();
    return null;
  } catch (e) {
    return { name: e.name, code: e.envelopeCode ?? e.statusCode ?? null };
  }
};
const taskView = (t) => ({
  id: t.id,
  contextId: t.contextId,
  state: t.status?.state,
  statusText: t.status?.message?.parts?.[0]?.content?.value ?? null,
  artifacts: (t.artifacts ?? []).map((a) => ({ name: a.name, texts: a.parts.map((p) => p.content?.value) })),
  history: (t.history ?? []).length,
});
const eventView = (ev) => {
  const p = ev.payload;
  switch (p?.$case) {
    case 'task': return { case: 'task', state: p.value.status?.state };
    case 'statusUpdate': return { case: 'statusUpdate', state: p.value.status?.state, taskId: p.value.taskId };
    case 'artifactUpdate': return { case: 'artifactUpdate', name: p.value.artifact?.name };
    case 'message': return { case: 'message' };
  }
  return { case: String(p?.$case) };
};
const tasks = async (client) => {
  const binding = client.transport?.protocolName ?? null;
  // Answered once the task has ended (the default), and at once.
  const sent = await client.sendMessage(message('sdk-task', input.search));
  const early = await client.sendMessage(message('sdk-early', input.search, '', true));
  const task = 'status' in sent ? taskView(sent) : { notATask: sent };
  const immediate = 'status' in early ? taskView(early) : { notATask: early };
  const stream = [];
  for await (const ev of client.sendMessageStream(message('sdk-stream', input.search))) stream.push(eventView(ev));
  const got = taskView(await client.getTask({ tenant: '', id: sent.id, historyLength: 1 }));
  const long = await client.sendMessage(message('sdk-long', input.long, '', true));
  const canceled = taskView(await client.cancelTask({ tenant: '', id: long.id, metadata: undefined }));
  const cancelAgain = await failure(() => client.cancelTask({ tenant: '', id: long.id, metadata: undefined }));
  const followed = await client.sendMessage(message('sdk-follow', input.search, '', true));
  const resubscribed = [];
  for await (const ev of client.resubscribeTask({ tenant: '', id: followed.id })) resubscribed.push(eventView(ev));
  const unknownTask = await failure(() => client.getTask({ tenant: '', id: '00000000-0000-4000-8000-000000000000', historyLength: undefined }));
  const resubscribeEnded = await failure(async () => {
    for await (const _ of client.resubscribeTask({ tenant: '', id: followed.id })) { /* no events */ }
  });
  // Push-notification configs of the first task: set, read, listed,
  // deleted, then gone.
  const push = { tenant: '', id: `sdk-push-${binding}`, taskId: sent.id, url: 'https://push.example.com/sdk', token: 'sdk-token',
    authentication: { scheme: 'Bearer', credentials: 'sdk-credentials' } };
  const pushView = (c) => ({ id: c.id, taskId: c.taskId, url: c.url, token: c.token, scheme: c.authentication?.scheme ?? null });
  const pushSet = pushView(await client.createTaskPushNotificationConfig(push));
  const pushGot = pushView(await client.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: push.id }));
  const pushList = (await client.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 0, pageToken: '' })).configs.map(pushView);
  await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: push.id });
  const pushGone = await failure(() => client.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: push.id }));
  const pushUnknownTask = await failure(() => client.getTaskPushNotificationConfig({ tenant: '', taskId: '00000000-0000-4000-8000-000000000000', id: 'x' }));
  return { binding, task, immediate, stream, got, canceled, cancelAgain, resubscribed, unknownTask, resubscribeEnded,
    pushSet, pushGot, pushList, pushGone, pushUnknownTask };
};
const jsonrpcTasks = await tasks(client);
const restClient = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default,
  { preferredTransports: ['HTTP+JSON'] })).createFromAgentCard(card);
const restTasks = await tasks(restClient);
console.log(JSON.stringify({
  bindings: [jsonrpcTasks, restTasks],
  interfaces: card.supportedInterfaces.map((i) => ({ url: i.url, protocolBinding: i.protocolBinding })),
  replies,
  versionError,
}));
