// Resolves a published card whose agent requires an API key with the
// official A2A JavaScript SDK, reads the scheme the card declares, and
// sends a message without the key and with it in the header the scheme
// names. Input on stdin: {"cardBase": the card's exchange URL, "key": the key}.
import { DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

let raw = '';
for await (const chunk of process.stdin) raw += chunk;
const input = JSON.parse(raw);

const card = await new DefaultAgentCardResolver().resolve(input.cardBase);
const [name] = Object.keys(card.securityRequirements[0].schemes);
const scheme = card.securitySchemes[name].scheme;
const header = scheme.value.name;
const transport = await new JsonRpcTransportFactory().create(card.supportedInterfaces[0].url, card);
const message = (i) => ({ message: { messageId: `auth-${i}`, contextId: 'auth-context', taskId: '', role: 1,
  parts: [{ content: { $case: 'text', value: 'hello' }, filename: '', mediaType: '' }], extensions: [], referenceTaskIds: [] } });
let refused = null;
try {
  await transport.sendMessage(message(0), { serviceParameters: { 'A2A-Version': '1.0' } });
} catch (e) {
  refused = String(e.message ?? e);
}
const reply = await transport.sendMessage(message(1), { serviceParameters: { 'A2A-Version': '1.0', [header]: input.key } });
// The transport answers the Message, or a oneof holding it.
const msg = reply.parts ? reply : reply.value;
console.log(JSON.stringify({ scheme: scheme.$case, header, refused, texts: msg.parts.map((p) => p.content?.value) }));
