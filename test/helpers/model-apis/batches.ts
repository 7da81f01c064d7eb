// Provider batches at the stand-ins: Anthropic Message Batches (/v1/messages/batches: create, retrieve,
// list, results as JSONL, cancel) and OpenAI Files + Batches (/v1/files, /v1/batches on /v1/responses).
// Each batched request is answered by the dialect's own Messages / Responses answer with the next
// scripted reply, when the batch ends: when the test ends it, or by itself after `endAfterPolls`
// retrieves. Every submitted request is counted per custom_id, so a test can assert none went twice.
import type { PromptCache, Reply } from './replies.js';
import type { Answer, ApiDialect, ParsedRequest } from './stand-in.js';
import type { Json } from './dialect.js';

interface Held {
  customId: string;
  params: Json;
  result?: { kind: 'succeeded'; body: Json } | { kind: 'errored'; status: number; body: Json } | { kind: 'expired' } | { kind: 'canceled' };
}

export interface StandInBatch {
  id: string;
  createdAt: number;
  status: 'in_progress' | 'ended' | 'canceled';
  requests: Held[];
  polls: number;
  metadata: Record<string, string>;
}

export interface StandInBatches {
  readonly list: readonly StandInBatch[];
  /** How many times each custom_id was submitted, over every batch. */
  readonly submitted: ReadonlyMap<string, number>;
  /** A batch ends by itself after this many retrieves (default 2); `Infinity` waits for `end`. */
  endAfterPolls: number;
  /** Which requests expire instead of being answered when their batch ends (none by default). */
  expires: (customId: string) => boolean;
  /** While true, creating a batch is answered 500 (the provider unreachable for batches). */
  refuseCreates: boolean;
  /** Ends a batch now: each request answered, or expired. */
  end(id: string): void;
}

const json = (status: number, body: unknown): Answer => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The multipart upload's file part (OpenAI Files). */
function uploadedFile(request: ParsedRequest): string {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(String(request.headers['content-type'] ?? ''));
  const mark = `--${boundary?.[1] ?? boundary?.[2] ?? ''}`;
  const part = request.raw.split(mark).find((chunk) => /name="file"/.test(chunk)) ?? '';
  const start = part.indexOf('\r\n\r\n');
  return start < 0 ? '' : part.slice(start + 4).replace(/\r\n$/, '');
}

/** The provider batches of one stand-in; `route` answers their paths and leaves the rest to the dialect. */
export function standInBatches(dialect: ApiDialect, cache: PromptCache, nextReply: () => Exclude<Reply, { kind: 'drop' }>) {
  const batches: StandInBatch[] = [];
  const files = new Map<string, string>();
  const submitted = new Map<string, number>();
  let served = 0;
  const state: StandInBatches = {
    list: batches,
    submitted,
    endAfterPolls: 2,
    expires: () => false,
    refuseCreates: false,
    end(id) {
      const batch = batches.find((entry) => entry.id === id);
      if (!batch || batch.status !== 'in_progress') return;
      for (const held of batch.requests) {
        if (state.expires(held.customId)) {
          held.result = { kind: 'expired' };
          continue;
        }
        served += 1;
        const path = dialect.name === 'anthropic' ? '/v1/messages' : '/v1/responses';
        const raw = JSON.stringify(held.params);
        const route = dialect.route({ method: 'POST', path, headers: {}, bytes: raw.length, raw, json: held.params }, cache);
        const answer = route.side ? route.answer(served) : route.answer(served, nextReply());
        const body = JSON.parse(answer.body) as Json;
        held.result = answer.status === 200 ? { kind: 'succeeded', body } : { kind: 'errored', status: answer.status, body };
      }
      batch.status = 'ended';
    },
  };
  const submit = (requests: { customId: string; params: Json }[], metadata: Record<string, string> = {}): StandInBatch => {
    for (const { customId } of requests) submitted.set(customId, (submitted.get(customId) ?? 0) + 1);
    const batch: StandInBatch = {
      id: `${dialect.name === 'anthropic' ? 'msgbatch' : 'batch'}_standin_${batches.length + 1}`,
      createdAt: Date.now(),
      status: 'in_progress',
      requests: requests.map((request) => ({ ...request })),
      polls: 0,
      metadata,
    };
    batches.push(batch);
    return batch;
  };
  const polled = (batch: StandInBatch) => {
    batch.polls += 1;
    if (batch.polls >= state.endAfterPolls) state.end(batch.id);
  };
  const cancel = (batch: StandInBatch) => {
    if (batch.status !== 'in_progress') return;
    for (const held of batch.requests) held.result = { kind: 'canceled' };
    batch.status = 'canceled';
  };
  const count = (batch: StandInBatch, kind: string) => batch.requests.filter((held) => (held.result?.kind ?? 'processing') === kind).length;

  const anthropicView = (batch: StandInBatch, base: string) => ({
    id: batch.id,
    type: 'message_batch',
    processing_status: batch.status === 'in_progress' ? 'in_progress' : 'ended',
    request_counts: {
      processing: count(batch, 'processing'),
      succeeded: count(batch, 'succeeded'),
      errored: count(batch, 'errored'),
      canceled: count(batch, 'canceled'),
      expired: count(batch, 'expired'),
    },
    created_at: new Date(batch.createdAt).toISOString(),
    ended_at: batch.status === 'in_progress' ? null : new Date().toISOString(),
    expires_at: new Date(batch.createdAt + 86_400_000).toISOString(),
    archived_at: null,
    cancel_initiated_at: batch.status === 'canceled' ? new Date().toISOString() : null,
    results_url: batch.status === 'in_progress' ? null : `${base}/v1/messages/batches/${batch.id}/results`,
  });
  const anthropicLine = (held: Held) => {
    const result = held.result!;
    if (result.kind === 'succeeded') return { custom_id: held.customId, result: { type: 'succeeded', message: result.body } };
    if (result.kind === 'errored') return { custom_id: held.customId, result: { type: 'errored', error: result.body } };
    return { custom_id: held.customId, result: { type: result.kind } };
  };
  const openaiView = (batch: StandInBatch) => {
    const failed = count(batch, 'errored') + (batch.status === 'in_progress' ? 0 : count(batch, 'expired') + count(batch, 'canceled'));
    return {
      id: batch.id,
      object: 'batch',
      endpoint: '/v1/responses',
      completion_window: '24h',
      status:
        batch.status === 'in_progress'
          ? 'in_progress'
          : batch.status === 'canceled'
            ? 'cancelled'
            : batch.requests.some((held) => held.result?.kind === 'expired')
              ? 'expired'
              : 'completed',
      input_file_id: `file_in_${batch.id}`,
      output_file_id: batch.status === 'in_progress' ? null : `file_out_${batch.id}`,
      error_file_id: batch.status === 'in_progress' ? null : `file_err_${batch.id}`,
      created_at: Math.floor(batch.createdAt / 1000),
      request_counts: { total: batch.requests.length, completed: count(batch, 'succeeded'), failed },
      metadata: batch.metadata,
    };
  };
  const openaiLine = (held: Held) => {
    const result = held.result!;
    if (result.kind === 'succeeded')
      return {
        id: `line_${held.customId}`,
        custom_id: held.customId,
        response: { status_code: 200, request_id: 'req_standin', body: result.body },
        error: null,
      };
    if (result.kind === 'errored')
      return {
        id: `line_${held.customId}`,
        custom_id: held.customId,
        response: { status_code: result.status, request_id: 'req_standin', body: result.body },
        error: null,
      };
    return {
      id: `line_${held.customId}`,
      custom_id: held.customId,
      response: null,
      error: {
        code: result.kind === 'expired' ? 'batch_expired' : 'batch_cancelled',
        message: `This request ${result.kind === 'expired' ? 'expired' : 'was cancelled'}.`,
      },
    };
  };
  const find = (id: string | undefined) => batches.find((batch) => batch.id === id);

  /** The answer to a batch path, or undefined for the dialect's other paths. */
  function route(request: ParsedRequest, base: string): Answer | undefined {
    const { method, path } = request;
    if (dialect.name === 'anthropic') {
      const match = /^\/v1\/messages\/batches(?:\/([^/]+))?(?:\/(results|cancel))?$/.exec(path);
      if (!match) return undefined;
      const [, id, action] = match;
      if (method === 'POST' && !id && state.refuseCreates) return json(500, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } });
      if (method === 'POST' && !id) {
        const requests = ((request.json?.requests as Json[] | undefined) ?? []).map((entry) => ({
          customId: String(entry.custom_id),
          params: entry.params as Json,
        }));
        return json(200, anthropicView(submit(requests), base));
      }
      if (method === 'GET' && !id)
        return json(200, { data: [...batches].reverse().map((batch) => anthropicView(batch, base)), has_more: false, first_id: null, last_id: null });
      const batch = find(id);
      if (!batch) return json(404, { type: 'error', error: { type: 'not_found_error', message: `no batch ${id}` } });
      if (method === 'POST' && action === 'cancel') {
        cancel(batch);
        return json(200, anthropicView(batch, base));
      }
      if (method === 'GET' && action === 'results') {
        if (batch.status === 'in_progress') return json(400, { type: 'error', error: { type: 'invalid_request_error', message: 'batch still in progress' } });
        return {
          status: 200,
          headers: { 'content-type': 'application/binary' },
          body: batch.requests.map((held) => `${JSON.stringify(anthropicLine(held))}\n`).join(''),
        };
      }
      polled(batch);
      return json(200, anthropicView(batch, base));
    }
    if (method === 'POST' && path === '/v1/files') {
      const id = `file_upload_${files.size + 1}`;
      files.set(id, uploadedFile(request));
      return json(200, {
        id,
        object: 'file',
        bytes: files.get(id)!.length,
        created_at: Math.floor(Date.now() / 1000),
        filename: 'batch.jsonl',
        purpose: 'batch',
        status: 'processed',
      });
    }
    const content = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (method === 'GET' && content) {
      const [, id] = content;
      const batch = find(id?.replace(/^file_(out|err)_/, ''));
      if (!batch) return json(404, { error: { type: 'not_found', message: `no file ${id}` } });
      const lines = batch.requests.filter((held) =>
        id!.startsWith('file_out_')
          ? held.result?.kind === 'succeeded' || held.result?.kind === 'errored'
          : held.result?.kind === 'expired' || held.result?.kind === 'canceled',
      );
      return {
        status: 200,
        headers: { 'content-type': 'application/octet-stream' },
        body: lines.map((held) => `${JSON.stringify(openaiLine(held))}\n`).join(''),
      };
    }
    const match = /^\/v1\/batches(?:\/([^/]+))?(?:\/(cancel))?$/.exec(path);
    if (!match) return undefined;
    const [, id, action] = match;
    if (method === 'POST' && !id && state.refuseCreates)
      return json(500, { error: { type: 'server_error', message: 'The server had an error while processing your request.' } });
    if (method === 'POST' && !id) {
      const body = request.json ?? {};
      const text = files.get(String(body.input_file_id)) ?? '';
      const requests = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Json)
        .map((line) => ({ customId: String(line.custom_id), params: line.body as Json }));
      return json(200, openaiView(submit(requests, (body.metadata as Record<string, string> | undefined) ?? {})));
    }
    if (method === 'GET' && !id) return json(200, { object: 'list', data: [...batches].reverse().map(openaiView), has_more: false });
    const batch = find(id);
    if (!batch) return json(404, { error: { type: 'not_found', message: `no batch ${id}` } });
    if (method === 'POST' && action === 'cancel') {
      cancel(batch);
      return json(200, openaiView(batch));
    }
    polled(batch);
    return json(200, openaiView(batch));
  }
  return { state, route };
}
