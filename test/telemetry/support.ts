/**
 * An OpenTelemetry SDK set-up for the telemetry tests: spans into an in-memory exporter, metrics
 * into a reader collected on demand, and a printable span tree.
 */
import type { HrTime } from "@opentelemetry/api";
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

/** A metric reader the test collects from when it wants. */
class OnDemandReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

export interface Harness {
  exporter: InMemorySpanExporter;
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  /** The histogram data points of `name`, by attribute set. */
  histogram(name: string): Promise<DataPoint<Histogram>[]>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function otelHarness(): Harness {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    exporter,
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async histogram(name) {
      const { resourceMetrics } = await reader.collect();
      const points: DataPoint<Histogram>[] = [];
      for (const scope of resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics)
          if (metric.descriptor.name === name) points.push(...(metric.dataPoints as DataPoint<Histogram>[]));
      return points;
    },
    async [Symbol.asyncDispose]() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The attributes a tree line shows, when a span has them. */
const SHOWN = [
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.agent.name",
  "gen_ai.conversation.id",
  "gen_ai.request.model",
  "gen_ai.response.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.tool.name",
  "gen_ai.tool.call.id",
  "code_agent.tool.decision",
  "code_agent.tool.exit_code",
  "error.type",
];

function ms(time: HrTime): number {
  return time[0] * 1000 + time[1] / 1e6;
}

/** The spans as an indented tree: name, duration, status and the key attributes. */
export function spanTree(spans: ReadableSpan[], keys: readonly string[] = SHOWN): string {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    byParent.set(key, [...(byParent.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const children = (byParent.get(parent) ?? []).sort((a, b) => ms(a.startTime) - ms(b.startTime));
    for (const span of children) {
      const attrs = keys
        .filter((k) => span.attributes[k] !== undefined)
        .map((k) => `${k}=${JSON.stringify(span.attributes[k])}`);
      const status = span.status.code === 2 ? " ERROR" : "";
      lines.push(
        `${"  ".repeat(depth)}${span.name} (${Math.round(ms(span.duration))} ms${status}) ${attrs.join(" ")}`,
      );
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join("\n");
}

/** The one span named `name` (fails if there is not exactly one). */
export function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1)
    throw new Error(`expected one span ${name}, found ${found.length}:\n${spanTree(spans)}`);
  return found[0] as ReadableSpan;
}
