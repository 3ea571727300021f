/**
 * A minimal OTLP/HTTP receiver on 127.0.0.1 for the tests: keeps every JSON export request
 * (`/v1/traces`, `/v1/metrics`, `/v1/logs`) and answers 200.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as OTLP/JSON carries it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

export interface OtlpReceiver extends AsyncDisposable {
  endpoint: string;
  /** Paths of the requests received, in order. */
  paths: string[];
  spans(): OtlpSpan[];
  /** Resolves once `predicate` holds for the spans received (checked on every request), or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: OtlpSpan[]) => boolean, timeoutMs: number): Promise<OtlpSpan[]>;
}

const MAX_BODY = 16 * 1024 * 1024;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      paths.push(req.url ?? "");
      if (req.url === "/v1/traces" && /json/.test(req.headers["content-type"] ?? "")) {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
            resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
          };
          for (const rs of body.resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
        } catch {
          // Not JSON: counted in `paths` only.
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    paths,
    spans: () => spans,
    waitFor(predicate, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          cleanup();
          resolve(spans);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching spans within ${timeoutMs} ms; received: ${paths.join(", ")}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
