'use strict';
// A Node.js client of the canasta.v1 service, built from the project's .proto files alone
// (proto/canasta/v1 for the service, proto/google/rpc for the errors' details), that reads the
// reason of the service's errors both ways docs/bots.md describes: from the plain metadata
// `canasta-reason`, and from the google.rpc.ErrorInfo detail of the status.
//
// tests/tests/node_client.rs runs it: it reads on standard input
//   {"server": "127.0.0.1:PORT", "proto": "/path/to/proto", "calls": [CALL, ...]}
// where a CALL is {"name", "method", "request", "token" (optional), "stream" (true for a
// server-streaming method), "until_error" (optional: repeat the call up to this many times
// until one fails)}, makes each call, and writes on standard output one JSON line per call:
// what the error said.

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

/** The service's stub, loaded at run time from proto/canasta/v1/service.proto. */
function loadService(protoDir, server) {
  const definition = protoLoader.loadSync('canasta/v1/service.proto', {
    includeDirs: [protoDir],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const canasta = grpc.loadPackageDefinition(definition).canasta.v1;
  return new canasta.CanastaService(server, grpc.credentials.createInsecure());
}

/** The stable reason of a refused call ('' if the error does not come from the service). */
function errorReason(err) {
  const values = err.metadata ? err.metadata.get('canasta-reason') : [];
  return values.length > 0 ? String(values[0]) : '';
}

/** The delay a RESOURCE_EXHAUSTED error asks for, in milliseconds (null if none). */
function retryAfterMs(err) {
  const values = err.metadata ? err.metadata.get('canasta-retry-after-ms') : [];
  return values.length > 0 ? Number(values[0]) : null;
}

/** The error detail types, from proto/google/rpc (their google/protobuf imports are bundled). */
function loadErrorDetails(protoDir) {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => path.join(protoDir, target);
  root.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto'], {
    keepCase: true,
  });
  return root;
}

/** The details of a refused call (google.rpc.Status.details), decoded: [{type, message}]. */
function errorDetails(details, err) {
  const raw = err.metadata ? err.metadata.get('grpc-status-details-bin') : [];
  if (raw.length === 0) {
    return [];
  }
  const status = details.lookupType('google.rpc.Status').decode(raw[0]);
  return status.details.map((any) => {
    const type = any.type_url.slice(any.type_url.lastIndexOf('/') + 1);
    const message = details.lookupType(type).decode(any.value);
    return { type, message: message.toJSON() };
  });
}

/** Makes one call; resolves to the error it ended with (null if it succeeded). */
function callOnce(client, call) {
  const metadata = new grpc.Metadata();
  if (call.token) {
    metadata.set('authorization', `Bearer ${call.token}`);
  }
  const options = { deadline: Date.now() + 10000 };
  return new Promise((resolve) => {
    if (call.stream) {
      const stream = client[call.method](call.request, metadata, options);
      stream.on('data', () => {});
      stream.on('error', (err) => resolve(err));
      stream.on('end', () => resolve(null));
    } else {
      client[call.method](call.request, metadata, options, (err) => resolve(err || null));
    }
  });
}

/** What one error said, as the test reads it. */
function report(name, err, details) {
  if (!err) {
    return { name, error: null };
  }
  return {
    name,
    code: err.code,
    message: err.details,
    reason: errorReason(err),
    retry_after_ms: retryAfterMs(err),
    seq: err.metadata && err.metadata.get('canasta-seq').length > 0
      ? String(err.metadata.get('canasta-seq')[0])
      : null,
    details: errorDetails(details, err),
  };
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) {
    input += chunk;
  }
  const { server, proto, calls } = JSON.parse(input);
  const client = loadService(proto, server);
  const details = loadErrorDetails(proto);
  for (const call of calls) {
    let err = null;
    for (let i = 0; i < (call.until_error || 1) && !err; i++) {
      err = await callOnce(client, call);
    }
    process.stdout.write(`${JSON.stringify(report(call.name, err, details))}\n`);
  }
  client.close();
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
