import { isJsonObject, str, type JsonObject } from './json-stream.js';
import type { StreamDialect } from './executor.js';
import type { LaunchActivity } from './launch-contract.js';
import { rateLimitInfo, type RateLimitInfo } from './rate-limit.js';

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

const shorten = (text: string, max = 60): string => {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
const shortenPath = (path: string, max = 60): string => (path.length > max ? `…${path.slice(-(max - 1))}` : path);

/** "Write lens-memory.md", "Bash npm test", "Grep TODO": a tool use as one short phrase. */
export function describeToolUse(name: string, input: unknown): string {
  const args = isJsonObject(input) ? input : {};
  const path = str(args.file_path) ?? str(args.path) ?? str(args.notebook_path);
  if (path) return `${name} ${shortenPath(path)}`;
  const detail = str(args.command) ?? str(args.cmd) ?? str(args.pattern) ?? str(args.query) ?? str(args.url) ?? str(args.description);
  return detail ? `${name} ${shorten(detail)}` : name;
}

/** codex wraps a command as `/bin/bash -lc "…"`; the operator wants the command. */
function codexCommand(command: string): string {
  const wrapped = /^(?:\/bin\/|\/usr\/bin\/)?(?:ba|z)?sh -l?c (["'])([\s\S]*)\1$/.exec(command.trim());
  return wrapped ? (wrapped[2] ?? command) : command;
}

const capitalize = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

const waitingForNetwork = /waiting for network/i;

/** Follows a harness's event stream while it runs, for heartbeats: turns, tools, tokens, an early rate-limit warning, an unreachable endpoint. */
export class ActivityTracker {
  private readonly turnIds = new Set<string>();
  private turnCount = 0;
  private toolUses = 0;
  private lastTool: string | undefined;
  private readonly messageTokens = new Map<string, number>();
  private summedTokens = 0;
  private warning: RateLimitInfo | undefined;
  private readonly startedItems = new Set<string>();
  /** When the CLI first said, with nothing since, that it cannot reach its endpoint (ms since epoch). */
  unreachableSince: number | undefined;
  unreachableNotice: string | undefined;

  constructor(private readonly dialect: StreamDialect) {}

  observe(event: JsonObject, at: number = Date.now()): void {
    const type = str(event.type);
    if (this.dialect === 'codex' && type === 'error' && waitingForNetwork.test(str(event.message) ?? '')) {
      this.unreachableSince ??= at;
      this.unreachableNotice = str(event.message);
      return;
    }
    if (type !== 'error') {
      this.unreachableSince = undefined;
      this.unreachableNotice = undefined;
    }
    switch (this.dialect) {
      case 'claude':
        return this.claude(type, event);
      case 'codex':
        return this.codex(type, event);
      case 'pi':
        return this.pi(type, event);
    }
  }

  private claude(type: string | undefined, event: JsonObject): void {
    if (type === 'rate_limit_event') {
      const info = rateLimitInfo(event.rate_limit_info);
      if (info?.status === 'allowed_warning') this.warning = info;
      return;
    }
    if (type !== 'assistant' || !isJsonObject(event.message)) return;
    const message = event.message;
    const id = str(message.id) ?? `turn-${this.turnIds.size}`;
    this.turnIds.add(id);
    this.turnCount = this.turnIds.size;
    if (isJsonObject(message.usage)) {
      const usage = message.usage;
      const total = num(usage.input_tokens) + num(usage.output_tokens) + num(usage.cache_read_input_tokens) + num(usage.cache_creation_input_tokens);
      // Each content block of one API message repeats that message's usage: count the message once, at its largest.
      this.messageTokens.set(id, Math.max(this.messageTokens.get(id) ?? 0, total));
    }
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (isJsonObject(part) && part.type === 'tool_use') {
        this.toolUses++;
        this.lastTool = describeToolUse(str(part.name) ?? 'tool', part.input);
      }
    }
  }

  private codex(type: string | undefined, event: JsonObject): void {
    if (type === 'turn.completed' && isJsonObject(event.usage)) {
      // codex reports usage once per turn, as the thread's running total.
      this.summedTokens = num(event.usage.input_tokens) + num(event.usage.output_tokens);
      return;
    }
    if ((type !== 'item.started' && type !== 'item.completed') || !isJsonObject(event.item)) return;
    const item = event.item;
    const id = str(item.id) ?? '';
    const itemType = str(item.type);
    if (
      type === 'item.completed' &&
      (itemType === 'agent_message' ||
        itemType === 'command_execution' ||
        itemType === 'file_change' ||
        itemType === 'mcp_tool_call' ||
        itemType === 'web_search')
    ) {
      this.turnCount++;
    }
    if (type === 'item.completed' && this.startedItems.has(id)) return;
    if (type === 'item.started') this.startedItems.add(id);
    let tool: string | undefined;
    if (itemType === 'command_execution') tool = `Run ${shorten(codexCommand(str(item.command) ?? ''))}`;
    else if (itemType === 'file_change' && Array.isArray(item.changes)) {
      const change = item.changes.find(isJsonObject);
      const kind = str(change?.kind);
      const verb = kind === 'add' ? 'Write' : kind === 'delete' ? 'Delete' : 'Edit';
      tool = change ? `${verb} ${shortenPath(str(change.path) ?? '')}` : 'Edit';
    } else if (itemType === 'mcp_tool_call') tool = `${str(item.server) ?? 'mcp'} ${str(item.tool) ?? ''}`.trim();
    else if (itemType === 'web_search') tool = `Search ${shorten(str(item.query) ?? '')}`.trim();
    if (tool !== undefined) {
      this.toolUses++;
      this.lastTool = tool;
    }
  }

  private pi(type: string | undefined, event: JsonObject): void {
    if (type === 'turn_start') this.turnCount++;
    else if (type === 'tool_execution_start') {
      this.toolUses++;
      this.lastTool = describeToolUse(capitalize(str(event.toolName) ?? 'tool'), event.args);
    } else if (type === 'message_end' && isJsonObject(event.message) && event.message.role === 'assistant' && isJsonObject(event.message.usage)) {
      const usage = event.message.usage;
      this.summedTokens += num(usage.input) + num(usage.output) + num(usage.cacheRead) + num(usage.cacheWrite);
    }
  }

  /** The turns and tool uses the stream showed, set on a harness's report (left unset when it showed no turn). */
  recordTurns(report: { turns?: number; toolUses?: number }): void {
    if (this.turnCount === 0) return;
    report.turns = this.turnCount;
    report.toolUses = this.toolUses;
  }

  /** What the worker has done so far, for a heartbeat. */
  snapshot(): Omit<LaunchActivity, 'pid' | 'elapsedMs'> {
    let tokens = this.summedTokens;
    for (const value of this.messageTokens.values()) tokens += value;
    return {
      turns: this.turnCount,
      toolUses: this.toolUses,
      ...(this.lastTool !== undefined && { lastTool: this.lastTool }),
      ...(tokens > 0 && { tokens }),
      ...(this.warning && { rateLimitWarning: this.warning }),
      ...(this.unreachableSince !== undefined && { unreachableSince: new Date(this.unreachableSince).toISOString() }),
    };
  }
}

function formatTokens(tokens: number): string {
  if (tokens < 1000) return `${tokens} tokens`;
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 100_000 ? 1 : 0).replace(/\.0$/, '')}k tokens`;
  return `${(tokens / 1_000_000).toFixed(1).replace(/\.0$/, '')}M tokens`;
}

function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** One line for an operator: "turn 3 · Write lens-memory.md · 12.4k tokens · 41 s". */
export function describeLaunchActivity(details: Partial<LaunchActivity>): string {
  const parts: string[] = [];
  parts.push(details.turns ? `turn ${details.turns}` : 'starting');
  if (details.lastTool) parts.push(details.lastTool);
  if (details.tokens) parts.push(formatTokens(details.tokens));
  if (details.elapsedMs !== undefined) parts.push(formatElapsed(details.elapsedMs));
  if (details.rateLimitWarning) parts.push(`rate-limit warning${details.rateLimitWarning.type ? ` (${details.rateLimitWarning.type})` : ''}`);
  if (details.unreachableSince) parts.push('cannot reach its endpoint');
  return parts.join(' · ');
}
