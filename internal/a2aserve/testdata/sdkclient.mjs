// Resolves a published card with the official A2A JavaScript SDK client
// (@a2a-js/sdk, pinned in .ci/a2a), sends it messages and prints what
// the client read: the card's interfaces and the replies. Input on stdin:
// {"cardBase": the card's exchange URL, "texts": the texts of the messages}.
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

let raw = '';
for await (const chunk of process.stdin) raw += chunk;
const input = JSON.parse(raw);

const card = await new DefaultAgentCardResolver().resolve(input.cardBase);
const client = await new ClientFactory().createFromAgentCard(card);
const replies = [];
for (const [i, text] of input.texts.entries()) {
  const reply = await client.sendMessage({
    message: {
      messageId: `sdk-${i}`,
      contextId: 'sdk-context',
      taskId: '',
      role: 1, // ROLE_USER
      parts: [{ content: { $case: 'text', value: text }, filename: '', mediaType: '' }],
      extensions: [],
      referenceTaskIds: [],
    },
  });
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
console.log(JSON.stringify({
  interfaces: card.supportedInterfaces.map((i) => ({ url: i.url, protocolBinding: i.protocolBinding })),
  replies,
  versionError,
}));
