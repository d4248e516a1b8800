// What the SDK client scripts share: resolving a package from the pinned
// packages directory, reading the steps from stdin, and describing an error.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

// packageRequire resolves packages from packagesDir: the SDKs are installed
// outside this script's directory tree, where an import would not find them.
export function packageRequire(packagesDir) {
  return createRequire(pathToFileURL(packagesDir.replace(/\/?$/, "/")));
}

// readSteps reads the JSON array of steps from stdin.
export async function readSteps() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

// describeError reports err's code, message and data, and whether it is an
// instance of the SDK's protocol error class (under the key named).
export function describeError(err, errorClass, key) {
  return {
    [key]: err instanceof errorClass,
    code: err?.code ?? null,
    message: err instanceof Error ? err.message : String(err),
    data: err?.data ?? null,
  };
}

// run runs body, records a failure outside its steps as report.fatal,
// closes the client and writes the report to stdout as one JSON object.
export async function run(client, report, describe, body) {
  try {
    await body();
  } catch (err) {
    report.fatal = describe(err);
  } finally {
    await client.close().catch(() => {});
  }
  process.stdout.write(JSON.stringify(report) + "\n");
}
